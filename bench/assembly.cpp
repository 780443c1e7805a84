// Assembly throughput: finite-element style assembly with duplicates, on
// the host and the device, first assembly (sort) and re-assembly of the
// same pattern (no sort).
//
// An ne x ne x ne mesh of unit hexahedra (trilinear Q1 elements, nodes
// numbered x fastest) contributes, element by element:
//   laplace             8 x 8 scalar entries per element, (ne+1)^3 unknowns;
//   elasticity          24 x 24 scalar entries (3 displacements per node),
//                       3 (ne+1)^3 unknowns;
//   elasticity-blocked  the same matrix as 8 x 8 dense 3x3 blocks through
//                       BlockMatrixAssembler (one index pair per block).
// A node pair receives one contribution per element containing both nodes:
// 8 for a diagonal entry, 4, 2 or 1 for neighbours across an edge, a face
// diagonal or the body diagonal, about 2.4 per stored entry on average: the
// duplication of FE assembly.
// The entries are generated on the host in batches of elements, moved to
// the executor once, and then timed:
//   first:   add_values of every batch + assemble()  (stable sort, scan, reduce)
//   reassembly: fill_values(0) + add_values of every batch + assemble()
//               (the same keys in the same order: the analysis is reused)
// Throughput is entries (scalar values) per second; for the blocked case
// also blocks per second.
//
// Usage: strata_bench_assembly [--host] [--device] [--ne N] [--host-ne N]
//          [--elasticity-ne N] [--host-elasticity-ne N] [--elasticity-scalar-ne N]
//          [--host-elasticity-scalar-ne N] [--batches B] [--repeat R]
//          [--cases laplace,elasticity,elasticity-blocked] [--json]
// Defaults: both executors when a GPU is usable. Device: laplace ne 216
// (10.2M unknowns, 645M entries), elasticity-blocked ne 150 (10.3M
// unknowns, 216M blocks = 1.94G values) and ne 100, elasticity (scalar) ne
// 100 (3.1M unknowns, 576M entries; the blocked case at the same size is the
// like-for-like comparison). Host: ne 64, 32 and 24, 24. About 50 s on an
// H200 machine, most of it generating the entries on the host.

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "bench_timing.hpp"
#include "strata/strata.hpp"

namespace {

using namespace strata;
using bench::seconds_since;


/// The Q1 Laplace stiffness of a unit hexahedron: 1/3 on the diagonal, 0
/// between nodes sharing an edge, -1/12 across a face or the body diagonal.
double laplace_entry(int a, int b) {
  const int differ = ((a ^ b) & 1) + (((a ^ b) >> 1) & 1) + (((a ^ b) >> 2) & 1);
  return differ == 0 ? 1.0 / 3.0 : differ == 1 ? 0.0 : -1.0 / 12.0;
}

/// A symmetric 24 x 24 stand-in for the elasticity element (the values do not
/// change what assembly does): Laplace-like in the nodes, coupled components.
double elasticity_entry(int a, int c, int b, int d) {
  return laplace_entry(a, b) * (c == d ? 1.0 : 0.25) + (a == b && c == d ? 0.1 : 0.0);
}

struct Case {
  std::string name;
  size_type ne = 0;
  int dofs = 1;  // unknowns per node
  bool blocked = false;
};

struct Batch {
  Array<size_type> rows, cols;
  Array<double> values;
};

/// The entries of elements [first, last) on `exec`: scalar (row, col) per
/// value, or (block row, block col) per dofs x dofs block.
Batch make_batch(const Executor& exec, const Case& c, size_type first, size_type last) {
  const size_type n1 = c.ne + 1;
  const int per_element_keys = c.blocked ? 64 : 64 * c.dofs * c.dofs;
  const int per_key_values = c.blocked ? c.dofs * c.dofs : 1;
  const size_type count = (last - first) * per_element_keys;
  std::vector<size_type> rows(static_cast<std::size_t>(count)), cols(rows.size());
  std::vector<double> values(rows.size() * per_key_values);
#if defined(_OPENMP)
#pragma omp parallel for schedule(static)
#endif
  for (size_type e = first; e < last; ++e) {
    const size_type ex = e % c.ne, ey = (e / c.ne) % c.ne, ez = e / (c.ne * c.ne);
    size_type node[8];
    for (int a = 0; a < 8; ++a) {
      node[a] = (ex + (a & 1)) + n1 * ((ey + ((a >> 1) & 1)) + n1 * (ez + ((a >> 2) & 1)));
    }
    const double scale = 1.0 + 0.5 * std::sin(0.001 * static_cast<double>(e));
    size_type k = (e - first) * per_element_keys;
    for (int a = 0; a < 8; ++a) {
      for (int b = 0; b < 8; ++b) {
        if (c.blocked) {
          rows[k] = node[a];
          cols[k] = node[b];
          for (int i = 0; i < c.dofs; ++i) {
            for (int j = 0; j < c.dofs; ++j) {
              values[k * per_key_values + i * c.dofs + j] = scale * elasticity_entry(a, i, b, j);
            }
          }
          ++k;
        } else {
          for (int i = 0; i < c.dofs; ++i) {
            for (int j = 0; j < c.dofs; ++j) {
              rows[k] = node[a] * c.dofs + i;
              cols[k] = node[b] * c.dofs + j;
              values[k] =
                  scale * (c.dofs == 1 ? laplace_entry(a, b) : elasticity_entry(a, i, b, j));
              ++k;
            }
          }
        }
      }
    }
  }
  return {Array<size_type>(exec, rows), Array<size_type>(exec, cols), Array<double>(exec, values)};
}

struct Result {
  std::string name, backend;
  size_type ne = 0, unknowns = 0, keys = 0, values = 0, positions = 0, stored_values = 0;
  int batches = 0;
  double generate_s = 0;
  double first_insert_s = 0, first_assemble_s = 0;
  double re_insert_s = 0, re_assemble_s = 0;  // medians
  bool reused = false;
  double peak_gb = 0;
};

template <class Assembler>
Result run_case(const Executor& exec, const Case& c, int batch_count, int repeat,
                Assembler& assembler) {
  Result r;
  r.name = c.name;
  r.backend = exec.name();
  r.ne = c.ne;
  const size_type elements = c.ne * c.ne * c.ne;
  const size_type nodes = (c.ne + 1) * (c.ne + 1) * (c.ne + 1);
  r.unknowns = nodes * c.dofs;
  r.batches = batch_count;
  auto start = std::chrono::steady_clock::now();
  std::vector<Batch> batches;
  for (int b = 0; b < batch_count; ++b) {
    batches.push_back(
        make_batch(exec, c, elements * b / batch_count, elements * (b + 1) / batch_count));
    r.keys += batches.back().rows.size();
    r.values += batches.back().values.size();
  }
  exec.synchronize();
  r.generate_s = seconds_since(start);
  exec.reset_peak_memory();

  const auto insert_all = [&] {
    for (const auto& b : batches) {
      if constexpr (std::is_same_v<Assembler, BlockMatrixAssembler<double>>) {
        assembler.add_blocks(b.rows, b.cols, b.values);
      } else {
        assembler.add_values(b.rows, b.cols, b.values);
      }
    }
    exec.synchronize();
  };
  start = std::chrono::steady_clock::now();
  insert_all();
  r.first_insert_s = seconds_since(start);
  start = std::chrono::steady_clock::now();
  assembler.assemble();
  exec.synchronize();
  r.first_assemble_s = seconds_since(start);
  r.positions = assembler.last_assembly().positions;
  r.stored_values = assembler.matrix().nnz();

  std::vector<double> inserts, assembles;
  r.reused = true;
  for (int k = 0; k < repeat; ++k) {
    assembler.fill_values(0.0);
    exec.synchronize();
    start = std::chrono::steady_clock::now();
    insert_all();
    inserts.push_back(seconds_since(start));
    start = std::chrono::steady_clock::now();
    assembler.assemble();
    exec.synchronize();
    assembles.push_back(seconds_since(start));
    r.reused = r.reused && assembler.last_assembly().reused_pattern;
  }
  std::sort(inserts.begin(), inserts.end());
  std::sort(assembles.begin(), assembles.end());
  r.re_insert_s = inserts[inserts.size() / 2];
  r.re_assemble_s = assembles[assembles.size() / 2];
  r.peak_gb = static_cast<double>(exec.memory_stats().peak_in_use) * 1e-9;
  assembler.matrix().validate();
  return r;
}

Result run(const Executor& exec, const Case& c, int batches, int repeat) {
  const size_type nodes = (c.ne + 1) * (c.ne + 1) * (c.ne + 1);
  const size_type elements = c.ne * c.ne * c.ne;
  AssemblyOptions options;
  if (c.blocked) {
    options.initial_capacity = elements * 64;
    BlockMatrixAssembler<double> A(exec, nodes, nodes, c.dofs, c.dofs, options);
    return run_case(exec, c, batches, repeat, A);
  }
  options.initial_capacity = elements * 64 * c.dofs * c.dofs;
  MatrixAssembler<double> A(exec, nodes * c.dofs, nodes * c.dofs, options);
  return run_case(exec, c, batches, repeat, A);
}

void print_text(const Result& r) {
  const double first = r.first_insert_s + r.first_assemble_s;
  const double again = r.re_insert_s + r.re_assemble_s;
  std::printf(
      "%-19s %-7s ne=%-4lld %6.2fM unknowns, %7.1fM values (%lld keys in %d batches) -> "
      "%.1fM positions, %.1fM stored values; peak %.1f GB\n",
      r.name.c_str(), r.backend.c_str(), (long long)r.ne, r.unknowns * 1e-6, r.values * 1e-6,
      (long long)r.keys, r.batches, r.positions * 1e-6, r.stored_values * 1e-6, r.peak_gb);
  std::printf(
      "    first assembly: insert %8.4f s + assemble %8.4f s = %8.4f s  %7.3f G values/s"
      "  %7.3f G keys/s\n",
      r.first_insert_s, r.first_assemble_s, first, r.values / first * 1e-9, r.keys / first * 1e-9);
  std::printf(
      "    re-assembly:    insert %8.4f s + assemble %8.4f s = %8.4f s  %7.3f G values/s"
      "  %7.3f G keys/s  (pattern reused: %s)\n",
      r.re_insert_s, r.re_assemble_s, again, r.values / again * 1e-9, r.keys / again * 1e-9,
      r.reused ? "yes" : "NO");
}

std::string to_json(const Result& r) {
  std::ostringstream o;
  const double first = r.first_insert_s + r.first_assemble_s;
  const double again = r.re_insert_s + r.re_assemble_s;
  o << "{\"case\": \"" << r.name << "\", \"backend\": \"" << r.backend << "\", \"ne\": " << r.ne
    << ", \"unknowns\": " << r.unknowns << ", \"keys\": " << r.keys << ", \"values\": " << r.values
    << ", \"batches\": " << r.batches << ", \"positions\": " << r.positions
    << ", \"stored_values\": " << r.stored_values << ", \"generate_seconds\": " << r.generate_s
    << ", \"first\": {\"insert_seconds\": " << r.first_insert_s
    << ", \"assemble_seconds\": " << r.first_assemble_s
    << ", \"values_per_second\": " << r.values / first
    << ", \"keys_per_second\": " << r.keys / first
    << "}, \"reassembly\": {\"insert_seconds\": " << r.re_insert_s
    << ", \"assemble_seconds\": " << r.re_assemble_s
    << ", \"values_per_second\": " << r.values / again
    << ", \"keys_per_second\": " << r.keys / again
    << ", \"pattern_reused\": " << (r.reused ? "true" : "false")
    << "}, \"peak_memory_gb\": " << r.peak_gb << "}";
  return o.str();
}

}  // namespace

int main(int argc, char** argv) {
  bool host = false, device = false, json = false;
  size_type ne = 216, host_ne = 64, el_ne = 150, host_el_ne = 32, el_scalar_ne = 100,
            host_el_scalar_ne = 24;
  int batches = 8, repeat = 3;
  std::string cases = "laplace,elasticity,elasticity-blocked";
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const auto next = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "%s needs a value\n", a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--host")
      host = true;
    else if (a == "--device")
      device = true;
    else if (a == "--json")
      json = true;
    else if (a == "--ne")
      ne = std::stoll(next());
    else if (a == "--host-ne")
      host_ne = std::stoll(next());
    else if (a == "--elasticity-ne")
      el_ne = std::stoll(next());
    else if (a == "--host-elasticity-ne")
      host_el_ne = std::stoll(next());
    else if (a == "--elasticity-scalar-ne")
      el_scalar_ne = std::stoll(next());
    else if (a == "--host-elasticity-scalar-ne")
      host_el_scalar_ne = std::stoll(next());
    else if (a == "--batches")
      batches = std::stoi(next());
    else if (a == "--repeat")
      repeat = std::stoi(next());
    else if (a == "--cases")
      cases = next();
    else {
      std::fprintf(stderr,
                   "usage: %s [--host] [--device] [--ne N] [--host-ne N] [--elasticity-ne N] "
                   "[--host-elasticity-ne N] [--elasticity-scalar-ne N] "
                   "[--host-elasticity-scalar-ne N] [--batches B] [--repeat R] "
                   "[--cases laplace,elasticity,elasticity-blocked] [--json]\n",
                   argv[0]);
      return 2;
    }
  }
  if (!host && !device) {
    host = true;
    device = cuda_available();
  }
  if (batches < 1 || repeat < 1) {
    std::fprintf(stderr, "--batches and --repeat must be >= 1\n");
    return 2;
  }
  std::vector<Result> results;
  try {
    for (const bool on_device : {false, true}) {
      if (on_device ? !device : !host) continue;
      const Executor exec = on_device ? Executor::cuda() : Executor::host();
      std::vector<std::string> wanted;
      for (std::size_t at = 0; at <= cases.size();) {
        const std::size_t comma = std::min(cases.find(',', at), cases.size());
        wanted.push_back(cases.substr(at, comma - at));
        at = comma + 1;
      }
      const auto want = [&](const char* name) {
        return std::find(wanted.begin(), wanted.end(), name) != wanted.end();
      };
      std::vector<Case> list;
      if (want("laplace")) {
        list.push_back({"laplace", on_device ? ne : host_ne, 1, false});
      }
      if (want("elasticity-blocked")) {
        list.push_back({"elasticity-blocked", on_device ? el_ne : host_el_ne, 3, true});
        // The scalar case's size, blocked, for a like-for-like comparison.
        list.push_back(
            {"elasticity-blocked", on_device ? el_scalar_ne : host_el_scalar_ne, 3, true});
      }
      if (want("elasticity")) {
        list.push_back({"elasticity", on_device ? el_scalar_ne : host_el_scalar_ne, 3, false});
      }
      for (const auto& c : list) {
        results.push_back(run(exec, c, batches, repeat));
        if (!json) print_text(results.back());
        std::fflush(stdout);
      }
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "strata_bench_assembly: %s\n", e.what());
    return 1;
  }
  if (json) {
    std::printf("{\"benchmark\": \"assembly\", \"results\": [\n");
    for (std::size_t i = 0; i < results.size(); ++i) {
      std::printf("  %s%s\n", to_json(results[i]).c_str(), i + 1 < results.size() ? "," : "");
    }
    std::printf("]}\n");
  }
  return 0;
}
