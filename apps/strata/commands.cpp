#include "commands.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/cusparse_reference.hpp"
#include "problem.hpp"
#include "strata/amg/smoothed_aggregation.hpp"

namespace strata::app {

using json = nlohmann::ordered_json;

namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

void print_json(const json& j) { std::printf("%s\n", j.dump(2).c_str()); }

// ---------------------------------------------------------------- info

struct InfoOptions {
  std::string problem;
  std::optional<long long> n;
};

void run_info(const InfoOptions& o, const Common& c) {
  auto p = load_problem(o.problem, o.n, Executor::host());
  const auto props = analyze(p.A);
  if (c.json) {
    print_json({{"command", "info"},
                {"problem", p.name},
                {"source", p.source},
                {"n", p.n},
                {"rows", props.rows},
                {"cols", props.cols},
                {"nnz", props.nnz},
                {"row_nnz", {{"min", props.min_row_nnz}, {"mean", props.mean_row_nnz},
                             {"max", props.max_row_nnz}, {"empty_rows", props.empty_rows}}},
                {"structurally_symmetric", props.structurally_symmetric},
                {"numerically_symmetric", props.numerically_symmetric},
                {"max_asymmetry", props.max_asymmetry},
                {"diagonal", {{"positive", props.positive_diagonal},
                              {"negative", props.negative_diagonal},
                              {"zero_or_missing", props.zero_diagonal}}},
                {"diagonally_dominant_rows", props.diagonally_dominant_rows},
                {"strictly_diagonally_dominant_rows", props.strictly_diagonally_dominant_rows},
                {"load_seconds", p.load_seconds}});
    return;
  }
  const auto pct = [&](size_type k) { return props.rows ? 100.0 * k / props.rows : 0.0; };
  std::printf("%s (%s)\n", p.name.c_str(), p.source.c_str());
  std::printf("  size          %lld x %lld, %lld nonzeros\n", (long long)props.rows,
              (long long)props.cols, (long long)props.nnz);
  std::printf("  nnz per row   min %lld, mean %.2f, max %lld, empty rows %lld\n",
              (long long)props.min_row_nnz, props.mean_row_nnz, (long long)props.max_row_nnz,
              (long long)props.empty_rows);
  std::printf("  symmetry      %s (max |a_ij - a_ji| = %.3g)\n",
              props.numerically_symmetric    ? "symmetric"
              : props.structurally_symmetric ? "structurally symmetric only"
                                             : "nonsymmetric",
              props.max_asymmetry);
  std::printf("  diagonal      %lld positive, %lld negative, %lld zero or missing\n",
              (long long)props.positive_diagonal, (long long)props.negative_diagonal,
              (long long)props.zero_diagonal);
  std::printf("  dominance     %.1f%% of rows diagonally dominant, %.1f%% strictly\n",
              pct(props.diagonally_dominant_rows), pct(props.strictly_diagonally_dominant_rows));
}

// ---------------------------------------------------------------- gen

struct GenOptions {
  std::string problem;
  std::optional<long long> n;
  std::string output;
  /// Problems that know their nodes (elasticity3d): the nodes' coordinates
  /// (nodes x dimension) and the rigid-body modes (n x 6, or the three
  /// rotations alone, as hypre's rbm files hold them), for `strata solve
  /// --coordinates` and `--near-null`.
  std::string coordinates;
  std::string near_null;
  bool rotations_only = false;
};

/// Writes `columns` (each of `rows` values) as a MatrixMarket array, column
/// after column, with 17 significant digits (read back, the same doubles).
void write_columns(const std::string& path, const std::vector<std::vector<double>>& columns,
                   size_type rows) {
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (f == nullptr) throw io_error("cannot write '" + path + "'");
  std::fprintf(f, "%%%%MatrixMarket matrix array real general\n%lld %zu\n", (long long)rows,
               columns.size());
  for (const auto& c : columns) {
    for (size_type i = 0; i < rows; ++i) std::fprintf(f, "%.17g\n", c[i]);
  }
  if (std::fclose(f) != 0) throw io_error("cannot finish writing '" + path + "'");
}

/// gen --coordinates / --near-null: the problem's nodes as files.
void write_node_files(const GenOptions& o, const Problem& p) {
  if (o.coordinates.empty() && o.near_null.empty()) {
    require_usage(!o.rotations_only, "--rotations-only chooses what --near-null writes; give "
                                     "--near-null FILE");
    return;
  }
  require_usage(p.node_dimension > 0,
                "gen: " + p.name + " has no nodes to write (--coordinates, --near-null): only "
                "elasticity3d has");
  const std::vector<double> xyz = p.coordinates.to(Executor::host()).to_vector();
  const int d = p.node_dimension;
  const size_type nodes = static_cast<size_type>(xyz.size()) / d;
  if (!o.coordinates.empty()) {
    std::vector<std::vector<double>> axes(d, std::vector<double>(nodes));
    for (size_type q = 0; q < nodes; ++q) {
      for (int a = 0; a < d; ++a) axes[a][q] = xyz[q * d + a];
    }
    write_columns(o.coordinates, axes, nodes);
  }
  if (!o.near_null.empty()) {
    std::vector<std::vector<double>> modes;
    for (const auto& v : amg::rigid_body_modes(p.coordinates, d)) modes.push_back(v.to_vector());
    if (o.rotations_only) modes.erase(modes.begin(), modes.begin() + d);
    write_columns(o.near_null, modes, p.A.rows());
  }
}

void run_gen(const GenOptions& o, const Common& c) {
  const auto& names = gallery::problem_names();
  if (std::find(names.begin(), names.end(), o.problem) == names.end()) {
    std::string list;
    for (const auto& s : names) list += (list.empty() ? "" : ", ") + s;
    throw usage_error("gen: unknown problem '" + o.problem + "'; expected one of " + list);
  }
  auto p = load_problem(o.problem, o.n, Executor::host());
  const std::string path =
      o.output.empty() ? o.problem + "-" + std::to_string(p.n) + ".mtx" : o.output;
  const auto start = std::chrono::steady_clock::now();
  io::write_matrix_market(path, p.A);
  write_node_files(o, p);
  const double write_seconds = seconds_since(start);
  if (c.json) {
    print_json({{"command", "gen"}, {"problem", p.name}, {"n", p.n}, {"rows", p.A.rows()},
                {"nnz", p.A.nnz()}, {"output", path}, {"generate_seconds", p.load_seconds},
                {"write_seconds", write_seconds}});
    return;
  }
  std::printf("wrote %s: %s with n = %lld, %lld rows, %lld nonzeros (generated in %.3f s, "
              "written in %.3f s)\n",
              path.c_str(), p.name.c_str(), (long long)p.n, (long long)p.A.rows(),
              (long long)p.A.nnz(), p.load_seconds, write_seconds);
}

// ---------------------------------------------------------------- spmv

struct SpmvOptions {
  std::string problem = "poisson3d";
  std::optional<long long> n;
  bool host = false;
  bool device = false;
  int samples = 9;
  /// "csr", or "bsr": also convert to square blocks of `block` and time the
  /// block SpMV beside the scalar kernels.
  std::string format = "csr";
  int block = 3;
};

struct Timing {
  double median_seconds = 0;
  double min_seconds = 0;
  int repetitions = 0;
};

/// Median over `samples` batches of the time per call of f(); each batch is
/// sized to take about 20 ms so that timer resolution and launch gaps
/// average out. One untimed call first (warm-up: module load, handles).
template <class F>
Timing time_per_call(const Executor& exec, int samples, F&& f) {
  f();
  exec.synchronize();
  auto start = std::chrono::steady_clock::now();
  f();
  exec.synchronize();
  const double once = std::max(seconds_since(start), 1e-7);
  const int reps = std::clamp(static_cast<int>(0.02 / once), 1, 2000);
  std::vector<double> per_call;
  for (int s = 0; s < samples; ++s) {
    start = std::chrono::steady_clock::now();
    for (int r = 0; r < reps; ++r) f();
    exec.synchronize();
    per_call.push_back(seconds_since(start) / reps);
  }
  std::sort(per_call.begin(), per_call.end());
  return {per_call[per_call.size() / 2], per_call.front(), reps};
}

void run_spmv(const SpmvOptions& o, const Common& c) {
  const auto usage = require_usage;
  usage(o.samples >= 1, "spmv: --samples must be >= 1, got " + std::to_string(o.samples));
  usage(o.format == "csr" || o.format == "bsr",
        "spmv: --format must be csr or bsr, got '" + o.format + "'");
  const bool bsr = o.format == "bsr";
  usage(!bsr || o.block >= 1, "spmv: --block must be >= 1, got " + std::to_string(o.block));
  const Executor exec = pick_executor(o.host, o.device);
  auto p = load_problem(o.problem, o.n, exec);
  const auto& A = p.A;
  const double rows = static_cast<double>(A.rows()), nnz = static_cast<double>(A.nnz());
  // The customary effective traffic of CSR SpMV with 32-bit indices: values
  // and column indices once, row offsets once, x and y once each.
  const double bytes = 12.0 * nnz + 4.0 * (rows + 1) + 16.0 * rows;

  Vector<double> x(Array<double>(Executor::host(), test_vector(A.cols())));
  x = x.to(exec);
  Vector<double> y(exec, A.rows(), 0.0);

  struct Row {
    std::string name;
    Timing t;
    double bytes;
  };
  std::vector<Row> results;
  results.push_back({"strata", time_per_call(exec, o.samples, [&] { spmv(A, x, y); }), bytes});
  double max_difference = 0;
  if (exec.is_cuda()) {
    CusparseSpmv reference(A);
    Vector<double> y_ref(exec, A.rows(), 0.0);
    results.push_back({"cusparse",
                       time_per_call(exec, o.samples, [&] { reference.apply(1.0, x, 0.0, y_ref); }),
                       bytes});
    spmv(A, x, y);
    reference.apply(1.0, x, 0.0, y_ref);
    axpy(-1.0, y, y_ref);
    max_difference = norm_inf(y_ref) / std::max(norm_inf(y), 1e-300);
  }

  // The same matrix in blocks: one 32-bit index per block, the block row
  // offsets once, x and y once.
  BsrMatrix<double> B;
  double bsr_bytes = 0, convert_seconds = 0, bsr_difference = 0;
  if (bsr) {
    const auto start = std::chrono::steady_clock::now();
    B = to_bsr(A, o.block);
    exec.synchronize();
    convert_seconds = seconds_since(start);
    const auto d = [](size_type v) { return static_cast<double>(v); };
    bsr_bytes = 8.0 * d(B.nnz()) + 4.0 * d(B.num_blocks()) + 4.0 * d(B.block_rows() + 1) +
                8.0 * d(B.cols()) + 8.0 * d(B.rows());
    Vector<double> y_bsr(exec, A.rows(), 0.0);
    results.push_back({"strata-bsr", time_per_call(exec, o.samples, [&] { spmv(B, x, y_bsr); }),
                       bsr_bytes});
    spmv(A, x, y);
    spmv(B, x, y_bsr);
    axpy(-1.0, y, y_bsr);
    bsr_difference = norm_inf(y_bsr) / std::max(norm_inf(y), 1e-300);
  }
  const auto median_of = [&](const std::string& name) {
    for (const auto& r : results) {
      if (r.name == name) return r.t.median_seconds;
    }
    return 0.0;
  };

  if (c.json) {
    json kernels = json::array();
    for (const auto& r : results) {
      kernels.push_back({{"name", r.name}, {"median_ms", r.t.median_seconds * 1e3},
                         {"min_ms", r.t.min_seconds * 1e3}, {"repetitions", r.t.repetitions},
                         {"effective_bytes", r.bytes},
                         {"effective_gbs", r.bytes / r.t.median_seconds * 1e-9}});
    }
    json j = {{"command", "spmv"}, {"problem", p.name}, {"n", p.n}, {"rows", A.rows()},
              {"nnz", A.nnz()}, {"backend", exec.name()}, {"format", o.format},
              {"effective_bytes", bytes}, {"kernels", kernels}};
    if (exec.is_cuda()) j["max_relative_difference_vs_cusparse"] = max_difference;
    if (bsr) {
      j["bsr"] = {{"block_size", o.block}, {"blocks", B.num_blocks()}, {"stored_values", B.nnz()},
                  {"effective_bytes", bsr_bytes}, {"convert_seconds", convert_seconds},
                  {"speedup_vs_csr", median_of("strata") / median_of("strata-bsr")},
                  {"max_relative_difference_vs_csr", bsr_difference}};
      if (exec.is_cuda()) {
        j["bsr"]["speedup_vs_cusparse"] = median_of("cusparse") / median_of("strata-bsr");
      }
    }
    print_json(j);
    return;
  }
  std::printf("SpMV y = A x on %s: %s n=%lld, %lld rows, %lld nonzeros (%.1f per row)\n",
              exec.name().c_str(), p.name.c_str(), (long long)p.n, (long long)A.rows(),
              (long long)A.nnz(), nnz / std::max(rows, 1.0));
  std::printf("  effective bytes per SpMV: %.1f MB (12 nnz + 4 (n+1) + 16 n)\n", bytes * 1e-6);
  if (bsr) {
    std::printf("  as BSR %dx%d: %lld blocks, %lld stored values (converted in %.3f s); "
                "effective bytes %.1f MB\n"
                "  (8 values + 4 blocks + 4 (block rows+1) + 8 cols + 8 rows)\n",
                o.block, o.block, (long long)B.num_blocks(), (long long)B.nnz(), convert_seconds,
                bsr_bytes * 1e-6);
  }
  std::printf("  %-10s %12s %12s %14s\n", "kernel", "median ms", "min ms", "effective GB/s");
  for (const auto& r : results) {
    std::printf("  %-10s %12.4f %12.4f %14.1f\n", r.name.c_str(), r.t.median_seconds * 1e3,
                r.t.min_seconds * 1e3, r.bytes / r.t.median_seconds * 1e-9);
  }
  if (exec.is_cuda()) {
    std::printf("  strata / cusparse speed: %.2fx; max relative difference %.2e\n",
                median_of("cusparse") / median_of("strata"), max_difference);
  }
  if (bsr) {
    std::printf("  strata-bsr speed: %.2fx strata csr",
                median_of("strata") / median_of("strata-bsr"));
    if (exec.is_cuda()) {
      std::printf(", %.2fx cusparse", median_of("cusparse") / median_of("strata-bsr"));
    }
    std::printf("; max relative difference to csr %.2e\n", bsr_difference);
  }
}

}  // namespace

std::vector<double> test_vector(size_type n) {
  // Not constant, so that SpMV cannot be checked by row sums alone; smooth
  // enough to keep results of order one.
  std::vector<double> v(static_cast<std::size_t>(n));
  for (size_type i = 0; i < n; ++i) v[i] = 1.0 + 0.5 * std::sin(0.001 * static_cast<double>(i));
  return v;
}

void add_info(CLI::App& app, Common& common) {
  auto o = std::make_shared<InfoOptions>();
  auto* cmd = app.add_subcommand("info", "Size, symmetry, diagonal and row statistics of a matrix");
  cmd->add_option("problem", o->problem, "MatrixMarket file or gallery problem")->required();
  cmd->add_option("--n", o->n, "Size parameter for a gallery problem");
  cmd->add_flag("--json", common.json, "Print one JSON object");
  cmd->callback([o, &common] { run_info(*o, common); });
}

void add_gen(CLI::App& app, Common& common) {
  auto o = std::make_shared<GenOptions>();
  auto* cmd = app.add_subcommand("gen", "Generate a gallery problem and write it as MatrixMarket");
  std::string names;
  for (const auto& s : gallery::problem_names()) names += (names.empty() ? "" : ", ") + s;
  cmd->add_option("problem", o->problem, "One of: " + names)->required();
  cmd->add_option("--n", o->n, "Size: n^2 unknowns in 2D, n^3 in 3D, n elements per side for "
                               "elasticity3d");
  cmd->add_option("-o,--output", o->output, "Output file (default PROBLEM-N.mtx)");
  cmd->add_option("--coordinates", o->coordinates,
                  "Also write the nodes' coordinates (elasticity3d: nodes x 3), for solve "
                  "--coordinates");
  cmd->add_option("--near-null", o->near_null,
                  "Also write the rigid-body modes (elasticity3d: n x 6), for solve --near-null");
  cmd->add_flag("--rotations-only", o->rotations_only,
                "--near-null writes the 3 rotations only, as hypre's rbm files (solve then "
                "needs --add-translations)");
  cmd->add_flag("--json", common.json, "Print one JSON object");
  cmd->callback([o, &common] { run_gen(*o, common); });
}

void add_spmv(CLI::App& app, Common& common) {
  auto o = std::make_shared<SpmvOptions>();
  auto* cmd = app.add_subcommand(
      "spmv", "Benchmark y = A x: time and effective bandwidth (on the device, beside cuSPARSE)");
  cmd->add_option("problem", o->problem, "MatrixMarket file or gallery problem")
      ->capture_default_str();
  cmd->add_option("--n", o->n, "Size parameter for a gallery problem");
  cmd->add_flag("--host", o->host, "Run on the host (OpenMP)");
  cmd->add_flag("--device", o->device, "Run on the CUDA device");
  cmd->add_option("--samples", o->samples, "Timed batches; the median is reported")
      ->capture_default_str();
  cmd->add_option("--format", o->format, "csr, or bsr: also time the block SpMV of the matrix "
                                         "converted to square blocks")
      ->check(CLI::IsMember({"csr", "bsr"}))
      ->capture_default_str();
  cmd->add_option("--block", o->block, "Block size of --format bsr")->capture_default_str();
  cmd->add_flag("--json", common.json, "Print one JSON object");
  cmd->callback([o, &common] { run_spmv(*o, common); });
}

}  // namespace strata::app
