// The structured interface and PFMG (issue 18): the stencil product beside
// the CSR SpMV of the same matrix, in time and bytes per second, and
// PFMG-PCG setup, solve and iterations, beside hypre's PFMG-PCG (`struct
// -solver 11`) run on the same GPU in the same call (--hypre FILE: the
// output of ../shared/peers/hypre/build-and-run.sh pfmg-256 pfmg-128).
//
//   strata_bench_structured [--host] [--n N] [--repeat R] [--json FILE] [--hypre FILE]
//
// Problems: 7-point Poisson n^3 (default 256; hypre's pfmg-N case), and the
// anisotropic 7-point problems with coefficients (1, 1, 0.001) and
// (1, 0.001, 0.001). PCG to a relative residual of 1e-8, b = ones, x0 = 0,
// PFMG V(1,1) with weighted Jacobi and skip (hypre's defaults), with
// Galerkin and with non-Galerkin coarse operators, each with the cycle in
// double and in the default precision (single on a GPU at 256^3), and the
// default once more on the matrix in symmetric storage (as hypre's); hypre's
// best of its two (pfmg-N, and pfmg-N-rap1 from scripts/gpu-check's
// hypre_run) is the reference.
//
// Bytes counted (the least each product must move):
//   stencil product  (entries + 2) * 8 per cell: coefficients, x, y
//                    (symmetric storage: 4 entries of the 7-point operator)
//   CSR SpMV         12 nnz + 8 (rows + 1) + 8 cols + 8 rows
// Both are printed as GB/s; "struct op" is the product as a LinearOperator
// on plain vectors (what CG calls: no ghosts, a boundary test per
// neighbour), with the same bytes as the stencil product.

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "bench_timing.hpp"
#include "hypre_peer.hpp"
#include "strata/strata.hpp"
#include "strata/structured/pfmg.hpp"

namespace {

using namespace strata;
using bench::best_time;
using bench::Clock;
using bench::seconds_since;

struct Options {
  bool host = false;
  long n = 256;
  int repeat = 5;
  std::string json, hypre;
};

[[noreturn]] void usage(const char* why) {
  std::fprintf(stderr,
               "strata_bench_structured: %s\n"
               "usage: strata_bench_structured [--host] [--n N] [--repeat R] [--json FILE] "
               "[--hypre FILE]\n",
               why);
  std::exit(2);
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) usage((a + " needs a value").c_str());
      return argv[++i];
    };
    if (a == "--host") o.host = true;
    else if (a == "--n") o.n = std::atol(value().c_str());
    else if (a == "--repeat") o.repeat = std::atoi(value().c_str());
    else if (a == "--json") o.json = value();
    else if (a == "--hypre") o.hypre = value();
    else usage(("unknown argument " + a).c_str());
  }
  if (o.n < 2) usage("--n must be >= 2");
  if (o.repeat < 1) usage("--repeat must be >= 1");
  return o;
}

struct ProductResult {
  double struct_s, operator_s, csr_s, struct_gbs, operator_gbs, csr_gbs;
  double symmetric_s = 0, symmetric_gbs = 0;
};

ProductResult time_products(const structured::StructMatrix<double>& A, int repeat) {
  const Executor& e = A.executor();
  const size_type n = A.grid().points();
  structured::StructVector<double> x(e, A.grid()), y(e, A.grid());
  x.fill(1.0);
  const double struct_s = best_time(e, repeat, [&] { structured::matvec(1.0, A, x, 0.0, y); });
  auto shared = std::make_shared<structured::StructMatrix<double>>(A.executor(), A.grid(),
                                                                     A.stencil());
  copy(A.coefficients(), shared->coefficients());
  const structured::StructOperator<double> op(shared);
  Vector<double> xp(e, n, 1.0), yp(e, n);
  const double operator_s = best_time(e, repeat, [&] { op.apply(xp, yp); });
  const auto csr = A.to_csr();
  const double csr_s = best_time(e, repeat, [&] { spmv(csr, xp, yp); });
  const double cells = static_cast<double>(n);
  const double struct_bytes = (A.stencil().size() + 2) * 8.0 * cells;
  const double csr_bytes = 12.0 * static_cast<double>(csr.nnz()) + 8.0 * (cells + 1) + 16.0 * cells;
  ProductResult r{struct_s,
                  operator_s,
                  csr_s,
                  struct_bytes / struct_s * 1e-9,
                  struct_bytes / operator_s * 1e-9,
                  csr_bytes / csr_s * 1e-9};
  // Symmetric storage of the 7-point operator: centre, +x, +y, +z.
  if (A.stencil() == structured::Stencil::seven_point()) {
    structured::StructMatrix<double> S(e, A.grid(),
                                       structured::Stencil(3, {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}}),
                                       structured::Storage::symmetric);
    S.fill_entry(0, 6.0);
    for (int s = 1; s < 4; ++s) S.fill_entry(s, -1.0);
    r.symmetric_s = best_time(e, repeat, [&] { structured::matvec(1.0, S, x, 0.0, y); });
    r.symmetric_gbs = (S.stencil().size() + 2) * 8.0 * cells / r.symmetric_s * 1e-9;
  }
  return r;
}

struct SolveResult {
  std::string name;
  double setup_s = 0, solve_s = 0;
  int iterations = 0, levels = 0;
  double complexity = 0, relative_residual = 0;
  bool converged = false;
  std::string precision;
};

SolveResult pfmg_pcg(const std::string& name, structured::StructMatrix<double> A, int repeat,
                     const structured::PfmgParams& params) {
  const Executor e = A.executor();
  auto shared = std::make_shared<const structured::StructMatrix<double>>(std::move(A));
  const structured::StructOperator<double> op(shared);
  SolveResult r;
  r.name = name;
  r.setup_s = r.solve_s = 1e300;
  for (int k = 0; k <= repeat; ++k) {  // the first run warms up
    auto t0 = Clock::now();
    const structured::Pfmg<double> M(shared, params);
    e.synchronize();
    const double setup = seconds_since(t0);
    Vector<double> b(e, op.rows(), 1.0), x(e, op.rows(), 0.0);
    Cg cg;
    cg.params.relative_tolerance = 1e-8;
    cg.params.record_history = false;
    e.synchronize();
    t0 = Clock::now();
    const auto info = solve(KrylovMethod{cg}, op, b, x, &M);
    e.synchronize();
    const double solve_s = seconds_since(t0);
    if (k == 0) continue;
    r.setup_s = std::min(r.setup_s, setup);
    r.solve_s = std::min(r.solve_s, solve_s);
    r.iterations = info.iterations;
    r.converged = info.converged();
    r.relative_residual = info.true_relative_residual;
    r.levels = M.num_levels();
    r.complexity = M.operator_complexity();
    r.precision = amg::to_string(M.cycle_precision());
  }
  return r;
}

}  // namespace

int main(int argc, char** argv) try {
  const Options o = parse(argc, argv);
  const Executor e = o.host ? Executor::host() : Executor::default_executor();
  const bench::HyprePeer hypre = o.hypre.empty() ? bench::HyprePeer{} : bench::HyprePeer::read(o.hypre);
  std::printf("device: %s, n = %ld\n", e.name().c_str(), o.n);

  const auto poisson = structured::gallery::poisson3d(e, o.n, o.n, o.n);
  const auto p = time_products(poisson, std::max(o.repeat, 10));
  std::printf("\ny = A x, 7-point %ld^3 (best of %d)\n", o.n, std::max(o.repeat, 10));
  std::printf("  %-22s %10s %10s\n", "", "ms", "GB/s");
  std::printf("  %-22s %10.3f %10.1f\n", "stencil product", p.struct_s * 1e3, p.struct_gbs);
  std::printf("  %-22s %10.3f %10.1f\n", "struct op (plain x,y)", p.operator_s * 1e3, p.operator_gbs);
  std::printf("  %-22s %10.3f %10.1f\n", "stencil, symmetric", p.symmetric_s * 1e3, p.symmetric_gbs);
  std::printf("  %-22s %10.3f %10.1f\n", "CSR SpMV", p.csr_s * 1e3, p.csr_gbs);
  std::printf("  stencil/CSR: %.2fx the bytes per second, %.2fx faster\n", p.struct_gbs / p.csr_gbs,
              p.csr_s / p.struct_s);

  // Each problem with both coarse operators, hypre's default (Galerkin,
  // 15- and 27-point coarse stencils) and ParFlow's non-Galerkin one
  // (7-point on every level, hypre's -rap 1), with the cycle in the
  // default precision (single on a device at these sizes) and in double.
  struct Config {
    const char* tag;
    structured::PfmgCoarseOperator op;
    amg::CyclePrecision precision;
  };
  const Config configs[] = {
      {"G", structured::PfmgCoarseOperator::galerkin, amg::CyclePrecision::full},
      {"nonG", structured::PfmgCoarseOperator::non_galerkin, amg::CyclePrecision::full},
      {"G auto", structured::PfmgCoarseOperator::galerkin, amg::CyclePrecision::automatic},
      {"nonG auto", structured::PfmgCoarseOperator::non_galerkin, amg::CyclePrecision::automatic},
  };
  std::vector<SolveResult> runs;
  for (const auto& c : configs) {
    structured::PfmgParams params;
    params.coarse_operator = c.op;
    params.cycle_precision = c.precision;
    const std::string tag = std::string(" ") + c.tag;
    runs.push_back(pfmg_pcg("poisson7-" + std::to_string(o.n) + tag,
                            structured::gallery::poisson3d(e, o.n, o.n, o.n), o.repeat, params));
    runs.push_back(pfmg_pcg("aniso-1-1-0.001" + tag,
                            structured::gallery::anisotropic3d(e, o.n, o.n, o.n, {1, 1, 1e-3}),
                            o.repeat, params));
    runs.push_back(pfmg_pcg("aniso-1-0.001-0.001" + tag,
                            structured::gallery::anisotropic3d(e, o.n, o.n, o.n, {1, 1e-3, 1e-3}),
                            o.repeat, params));
  }
  {
    // The default configuration on the matrix in symmetric storage (as
    // hypre's struct driver stores it, its -sym 1): PFMG's levels are then
    // stored so too, about 4/7 of the bytes of a 7-point level.
    structured::PfmgParams params;
    runs.push_back(pfmg_pcg("poisson7-" + std::to_string(o.n) + " default sym",
                            structured::gallery::poisson3d(e, o.n, o.n, o.n).to_symmetric(),
                            o.repeat, params));
    // The default with every apply launching its kernels (the cycle not
    // recorded as a CUDA graph): what the recording is worth.
    params.record_cycle = false;
    runs.push_back(pfmg_pcg("poisson7-" + std::to_string(o.n) + " default launched",
                            structured::gallery::poisson3d(e, o.n, o.n, o.n), o.repeat, params));
  }
  // hypre's best of its Galerkin and non-Galerkin runs in this call.
  const std::string hypre_case = "pfmg-" + std::to_string(o.n);
  const bench::HypreRun* h = hypre.best({hypre_case, hypre_case + "-rap1"});
  std::printf(
      "\nPFMG-PCG (rtol 1e-8, best of %d; G: Galerkin, nonG: non-Galerkin coarse operators; "
      "auto: the default cycle precision, else double)\n",
      o.repeat);
  std::printf("  %-26s %9s %9s %9s %6s %7s %10s %8s %s\n", "problem", "setup s", "solve s",
              "total s", "iters", "levels", "op.compl.", "/hypre", "cycle");
  for (const auto& r : runs) {
    const double total = r.setup_s + r.solve_s;
    const bool poisson = r.name.rfind("poisson7", 0) == 0;
    char ratio[32] = "";
    if (h != nullptr && poisson) std::snprintf(ratio, sizeof ratio, "%8.2f", total / h->total());
    std::printf("  %-26s %9.4f %9.4f %9.4f %6d %7d %10.3f %8s %s%s\n", r.name.c_str(), r.setup_s,
                r.solve_s, total, r.iterations, r.levels, r.complexity, ratio, r.precision.c_str(),
                r.converged ? "" : "  NOT CONVERGED");
  }
  for (const auto* name : {"", "-rap1"}) {
    if (const bench::HypreRun* run = hypre.best({hypre_case + name})) {
      std::printf("  %-26s %9.4f %9.4f %9.4f %6d   (hypre struct -solver 11%s, same call)\n",
                  ("hypre " + run->name).c_str(), run->setup, run->solve, run->total(),
                  run->iterations, *name ? " -rap 1" : "");
    }
  }
  if (h != nullptr) {
    double best = 1e300;
    for (const auto& r : runs) {
      if (r.converged && r.name.rfind("poisson7", 0) == 0) {
        best = std::min(best, r.setup_s + r.solve_s);
      }
    }
    std::printf("  Strata best / hypre best (%s) total: %.2f (target <= 0.5)\n", h->name.c_str(),
                best / h->total());
  } else if (!o.hypre.empty()) {
    std::printf("  (no hypre %s case in %s)\n", hypre_case.c_str(), o.hypre.c_str());
  }

  if (!o.json.empty()) {
    std::ofstream out(o.json);
    out << "{\n  \"device\": \"" << e.name() << "\",\n  \"n\": " << o.n << ",\n";
    out << "  \"product\": {\"struct_seconds\": " << p.struct_s << ", \"struct_gbs\": "
        << p.struct_gbs << ", \"operator_seconds\": " << p.operator_s
        << ", \"operator_gbs\": " << p.operator_gbs << ", \"csr_seconds\": " << p.csr_s
        << ", \"csr_gbs\": " << p.csr_gbs << ", \"symmetric_seconds\": " << p.symmetric_s
        << ", \"symmetric_gbs\": " << p.symmetric_gbs << "},\n  \"pfmg_pcg\": [\n";
    for (std::size_t k = 0; k < runs.size(); ++k) {
      const auto& r = runs[k];
      out << "    {\"name\": \"" << r.name << "\", \"setup_seconds\": " << r.setup_s
          << ", \"solve_seconds\": " << r.solve_s << ", \"iterations\": " << r.iterations
          << ", \"levels\": " << r.levels << ", \"operator_complexity\": " << r.complexity
          << ", \"converged\": " << (r.converged ? "true" : "false") << "}"
          << (k + 1 < runs.size() ? ",\n" : "\n");
    }
    out << "  ]";
    if (h != nullptr) {
      out << ",\n  \"hypre\": {\"name\": \"" << h->name << "\", \"setup_seconds\": " << h->setup
          << ", \"solve_seconds\": " << h->solve << ", \"iterations\": " << h->iterations << "}";
    }
    out << "\n}\n";
  }
  return 0;
} catch (const std::exception& ex) {
  std::fprintf(stderr, "strata_bench_structured: %s\n", ex.what());
  return 1;
}
