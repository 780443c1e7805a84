// strata solve: the product's main job. Loads or generates A, builds the
// preconditioner, runs the Krylov method and reports, with the true
// residual recomputed at the end.
//
// The settings of the solve (method, preconditioner, AMG) are the library's
// config::SolverConfig: their flags, --config and --print-config are all
// made from config::parameters(), so this file names no parameter of its
// own but the problem, the backend and the output.

#include "solve.hpp"

#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>

#include "commands.hpp"
#include "config.hpp"
#include "defaults.hpp"
#include "presets.hpp"
#include "problem.hpp"
#include "processes.hpp"
#include "strata/amg/amg.hpp"
#include "strata/amg/smoothed_aggregation.hpp"
#include "strata/config/solver_config.hpp"
#include "structured.hpp"
#include "wall_clock.hpp"

namespace strata::app {

/// The name of a choice parameter's current value ("cg", "amg", "V").
std::string choice_of(const config::SolverConfig& cfg, const char* path) {
  return config::format_value(config::find_parameter(path)->get(cfg));
}

KrylovMethod monitored_method(const config::SolverConfig& cfg, int print_every, bool verbose) {
  auto method = config::krylov_method(cfg);
  if (verbose) {
    std::visit(
        [print_every](auto& m) {
          m.params.monitor = [print_every](int it, double r) {
            const bool show = print_every > 0 ? it % print_every == 0 : (it <= 10 || it % 10 == 0);
            if (show) {
              std::printf("  iteration %5d   residual %.3e\n", it, r);
              std::fflush(stdout);
            }
          };
        },
        method);
  }
  return method;
}

void print_method(const KrylovMethod& method, const std::string& preconditioner,
                  const config::SolverConfig& cfg, const SolveOptions& o,
                  const std::vector<std::string>& chosen) {
  std::printf(
      "  method %s, preconditioner %s, tolerance %.1e relative to %s, b = %s\n",
      method_name(method).c_str(), preconditioner.c_str(), cfg.solver.params.relative_tolerance,
      cfg.solver.params.relative_to == KrylovParams::RelativeTo::rhs ? "||b||" : "||b - A x0||",
      o.rhs.empty() ? "ones" : o.rhs.c_str());
  if (!o.x0.empty()) std::printf("  initial guess %s\n", o.x0.c_str());
  for (const auto& line : chosen) std::printf("  chosen: %s\n", line.c_str());
}

nlohmann::ordered_json method_and_outcome(const KrylovMethod& method,
                                          const config::SolverConfig& cfg,
                                          const std::string& preconditioner, const SolveInfo& info,
                                          double true_relative_residual) {
  return {{"solver", method_name(method)},
          {"preconditioner", choice_of(cfg, "preconditioner.type")},
          {"preconditioner_detail", preconditioner},
          {"tolerance", cfg.solver.params.relative_tolerance},
          {"iterations", info.iterations},
          {"converged", info.converged()},
          {"status", to_string(info.status)},
          {"message", info.message},
          {"relative_residual", true_relative_residual},
          {"true_residual_norm", info.true_residual_norm},
          {"tracked_relative_residual", info.relative_residual},
          {"tracked_residual_norm", info.residual_norm},
          {"residual_replacements", info.residual_replacements}};
}

void settle_settings(config::SolverConfig& cfg, const MatrixFacts& facts, Location where) {
  // Refused before the preconditioner is built: a setting the chosen solve
  // ignores (judged after the defaults that follow the matrix: --amg
  // aggregation alone chooses a K-cycle, which --kcycle-levels then serves).
  if (const auto unused = config::ineffective_settings(cfg, where); !unused.empty()) {
    std::string all;
    for (const auto& u : unused) all += (all.empty() ? "" : "; ") + u;
    throw usage_error("solve: " + all);
  }
  // Symmetry decides Lanczos versus Arnoldi for Chebyshev's estimate. The
  // setting preconditioner.chebyshev.symmetric = false always asks for
  // Arnoldi; true is kept only for a matrix known or found symmetric.
  auto& chebyshev = cfg.preconditioner.chebyshev;
  if (cfg.preconditioner.type == config::PreconditionerType::chebyshev && chebyshev.symmetric) {
    chebyshev.symmetric = facts.symmetric;
  }
}

void print_outcome(const SolveInfo& info, double true_relative_residual) {
  std::printf("%s after %d iterations: relative residual %.3e (recomputed b - A x: %.3e)%s%s\n",
              info.converged() ? "converged" : to_string(info.status), info.iterations,
              info.relative_residual, true_relative_residual, info.message.empty() ? "" : "; ",
              info.message.c_str());
}

double seconds(std::chrono::steady_clock::duration d) {
  return std::chrono::duration<double>(d).count();
}

/// A vector file given for `flag` (--rhs, --x0, --null-space), on `exec`,
/// with A's number of rows.
Vector<double> read_vector(const std::string& flag, const std::string& path, size_type rows,
                           const Executor& exec) {
  Vector<double> v = io::read_matrix_market_vector(path).to(exec);
  if (v.size() != rows) {
    throw dimension_mismatch(flag + " " + path + " has " + std::to_string(v.size()) +
                             " entries but A has " + std::to_string(rows) +
                             " rows; expected one entry per row");
  }
  return v;
}

/// -o/--output is checked before anything is solved: a solve of minutes
/// should not end in "cannot write". The file itself is written (and an
/// old one replaced) only once there is a solution.
void check_writable(const std::string& path) {
  namespace fs = std::filesystem;
  const fs::path file(path);
  std::error_code ec;
  if (fs::is_directory(file, ec)) {
    throw io_error("--output '" + path + "' is a folder; expected a file name");
  }
  const fs::path folder = file.has_parent_path() ? file.parent_path() : fs::path(".");
  if (!fs::is_directory(folder, ec)) {
    throw io_error("--output '" + path + "': the folder '" + folder.string() + "' does not exist");
  }
  if (::access(folder.c_str(), W_OK) != 0 ||
      (fs::exists(file, ec) && ::access(file.c_str(), W_OK) != 0)) {
    throw io_error("--output '" + path + "': no permission to write there");
  }
}

void add_hierarchy(nlohmann::ordered_json& j, const amg::HierarchySummary& summary,
                   const config::SolverConfig& cfg) {
  auto levels = nlohmann::ordered_json::array();
  for (const auto& l : summary.levels) {
    levels.push_back({{"rows", l.rows},
                      {"nnz", l.nnz},
                      {"min_row_nnz", l.min_row_nnz},
                      {"mean_row_nnz", l.mean_row_nnz},
                      {"max_row_nnz", l.max_row_nnz},
                      {"coarsening_ratio", l.coarsening_ratio},
                      {"kind", l.kind},
                      {"block_size", {l.row_block_size, l.col_block_size}},
                      {"setup_seconds", l.setup_seconds},
                      {"solve_seconds", l.solve_seconds}});
  }
  j["amg"] = {{"coarsening", summary.coarsening},
              {"cycle", choice_of(cfg, "preconditioner.amg.cycle")},
              {"setup_stage_seconds", summary.setup_stage_seconds}};
  j["levels"] = levels;
  j["operator_complexity"] = summary.operator_complexity;
  j["grid_complexity"] = summary.grid_complexity;
  j["coarse_solver"] = summary.coarse_solver;
  j["cycle_precision"] = summary.cycle_precision;
  j["hierarchy_bytes"] = summary.setup_bytes;
  j["hierarchy_setup_peak_bytes"] = summary.setup_peak_bytes;
}

void add_process_times(nlohmann::ordered_json& j, double startup_seconds,
                       double device_start_seconds) {
  j["startup_seconds"] = startup_seconds;
  j["device_start_seconds"] = device_start_seconds;
  j["process_seconds"] = wall_clock::since_start();
}

void print_process_times(const Executor& exec, double startup_seconds, double device_start_seconds,
                         bool slowest_of_processes) {
  std::printf(
      "  process wall time %.3f s so far%s: start-up before main %.3f s, starting the %s %.3f "
      "s%s, the rest above\n",
      wall_clock::since_start(), slowest_of_processes ? " on rank 0" : "", startup_seconds,
      exec.is_cuda() ? "device" : "host backend", device_start_seconds,
      slowest_of_processes ? " (the slowest process of each)" : "");
}

namespace {

using json = nlohmann::ordered_json;

constexpr const char* block_size_path = "preconditioner.amg.smoothed_aggregation.block_size";

/// The columns of a MatrixMarket array given for `flag`, each a vector of
/// `rows` entries on `exec`.
std::vector<Vector<double>> read_columns(const std::string& flag, const std::string& path,
                                         size_type rows, const Executor& exec) {
  const io::DenseBlock block = io::read_matrix_market_dense(path);
  if (block.rows != rows) {
    throw dimension_mismatch(flag + " " + path + " is " + std::to_string(block.rows) + " x " +
                             std::to_string(block.cols) + " but A has " + std::to_string(rows) +
                             " rows; expected an array of " + std::to_string(rows) +
                             " rows, one column per vector");
  }
  std::vector<Vector<double>> columns;
  for (size_type j = 0; j < block.cols; ++j) {
    const auto first = block.values.begin() + static_cast<std::ptrdiff_t>(j * rows);
    columns.emplace_back(Array<double>(exec, std::vector<double>(first, first + rows)));
  }
  return columns;
}

/// Nodal coordinates from --coordinates, interleaved (x, y[, z] per node):
/// a nodes x dimension array, or one column already interleaved. Their
/// count must be A's rows / block size nodes times `dimension`.
Vector<double> read_coordinates(const std::string& path, size_type rows, int dimension,
                                const Executor& exec) {
  const io::DenseBlock block = io::read_matrix_market_dense(path);
  const size_type nodes = rows / dimension;
  const size_type expected = nodes * dimension;
  std::vector<double> xyz;
  if (block.cols == dimension && block.rows == nodes) {
    xyz.resize(static_cast<std::size_t>(expected));
    for (size_type p = 0; p < nodes; ++p) {
      for (int d = 0; d < dimension; ++d) xyz[p * dimension + d] = block.values[p + d * nodes];
    }
  } else if (block.cols == 1 && block.rows == expected) {
    xyz = block.values;
  } else {
    throw dimension_mismatch("--coordinates " + path + " is " + std::to_string(block.rows) + " x " +
                             std::to_string(block.cols) + "; expected " + std::to_string(nodes) +
                             " x " + std::to_string(dimension) + " (A's " + std::to_string(rows) +
                             " rows / block size " + std::to_string(dimension) + " nodes, " +
                             std::to_string(dimension) + " coordinates each) or one column of " +
                             std::to_string(expected) + " interleaved values");
  }
  return Vector<double>(Array<double>(exec, xyz));
}

}  // namespace

std::vector<Vector<double>> nodes_near_null(const config::SolverConfig& cfg,
                                            const std::string& name, int node_dimension,
                                            const Vector<double>& coordinates,
                                            std::vector<std::string>& chosen, std::string& source) {
  const auto& amg = cfg.preconditioner.amg;
  const bool sa = cfg.preconditioner.type == config::PreconditionerType::amg &&
                  amg.coarsening == config::CoarseningType::smoothed_aggregation;
  // Not on the coordinates' length: a process without rows makes empty modes.
  if (!sa || node_dimension != config::block_size(cfg)) return {};
  std::vector<Vector<double>> B = amg::rigid_body_modes(coordinates, node_dimension);
  source = "rigid-body modes of " + name + "'s nodes";
  chosen.push_back("near-null space: the " + std::to_string(B.size()) + " " + source +
                   " (give --near-null or --coordinates for others)");
  return B;
}

/// The near-null space B the coarsening gets, from --near-null (with
/// --add-translations), --coordinates, or for smoothed aggregation on a
/// problem that knows its nodes (elasticity3d) its rigid-body modes. Also
/// sets the block size such a problem has when --block-size was not given.
/// Adds a line to `chosen` for each thing decided here and to `source`
/// where B came from. Mistakes in the flags are usage errors; a file that
/// does not fit A is an error (exit 1), as for --rhs.
std::vector<Vector<double>> near_null_input(const SolveOptions& o, const Problem& p,
                                            config::SolverConfig& cfg, size_type rows,
                                            const Executor& exec, std::vector<std::string>& chosen,
                                            std::string& source) {
  const auto& amg = cfg.preconditioner.amg;
  const bool is_amg = cfg.preconditioner.type == config::PreconditionerType::amg;
  const bool sa = is_amg && amg.coarsening == config::CoarseningType::smoothed_aggregation;
  auto& block_size = cfg.preconditioner.amg.smoothed_aggregation.block_size;
  if (sa && p.block_size > 1 && !o.given.count(block_size_path) && block_size == 0) {
    block_size = p.block_size;
    chosen.push_back("block size " + std::to_string(p.block_size) + " (" + p.name + " has " +
                     std::to_string(p.block_size) +
                     " unknowns per node; give --block-size for another)");
  }
  const int b = config::block_size(cfg);
  require_usage(rows % b == 0, "--block-size " + std::to_string(b) + " does not divide the " +
                                   std::to_string(rows) +
                                   " rows of A; expected the number of unknowns per node");
  require_usage(o.near_null.empty() || o.coordinates.empty(),
                "--near-null and --coordinates both give the near-null space; give one");
  require_usage(!o.add_translations || !o.near_null.empty(),
                "--add-translations puts translations before the vectors of --near-null FILE; "
                "give --near-null (--coordinates makes the translations itself)");
  std::vector<Vector<double>> B;
  if (!o.near_null.empty()) {
    B = read_columns("--near-null", o.near_null, rows, exec);
    source = "--near-null " + o.near_null;
    if (o.add_translations) {
      B = config::with_translations(std::move(B), rows, b, exec);
      source += " after " + std::to_string(b) + " translations (--add-translations)";
    }
  } else if (!o.coordinates.empty()) {
    require_usage(b == 2 || b == 3,
                  "--coordinates gives the rigid-body modes of nodes in 2 or 3 dimensions, one "
                  "unknown per dimension, but the block size is " +
                      std::to_string(b) +
                      "; give --coarsening smoothed_aggregation --block-size 2 or 3");
    B = amg::rigid_body_modes(read_coordinates(o.coordinates, rows, b, exec), b);
    source = "rigid-body modes of --coordinates " + o.coordinates;
  } else if (p.coordinates.size() == rows) {
    B = nodes_near_null(cfg, p.name, p.node_dimension, p.coordinates, chosen, source);
  }
  if (B.empty()) return B;
  require_usage(is_amg && amg.coarsening != config::CoarseningType::classical,
                (o.near_null.empty() ? "--coordinates" : "--near-null") +
                    std::string(" gives a near-null space to aggregation coarsening; the "
                                "preconditioner is ") +
                    (is_amg ? "classical AMG" : "not AMG") +
                    ": give --coarsening smoothed_aggregation (or aggregation)");
  if (!o.near_null.empty() && !o.add_translations) {
    const std::vector<int> missing = config::missing_translations(B, b);
    if (!missing.empty()) {
      std::string which;
      for (int c : missing) which += (which.empty() ? "" : ", ") + std::to_string(c);
      const std::string what =
          b == 1 ? std::string("the constant vector")
                 : "the constant translation" + std::string(missing.size() > 1 ? "s" : "") +
                       " of unknown" + (missing.size() > 1 ? "s " : " ") + which +
                       " of each node (block size " + std::to_string(b) + ")";
      std::fprintf(stderr,
                   "strata: note: the vectors of --near-null %s do not span %s; a file of "
                   "rotations only (as hypre's rigid-body-mode files are) needs "
                   "--add-translations\n",
                   o.near_null.c_str(), what.c_str());
    }
  }
  try {
    amg::validate_near_null_space(B, rows, b);
  } catch (const invalid_argument& e) {
    throw invalid_argument(source + ": " + e.message());
  }
  return B;
}

namespace {

/// The setup's progress lines, one per AMG level as the hierarchy reports
/// it (HierarchyParams::on_level). Short setups stay quiet: the lines are
/// held until the setup has run for `quiet_seconds`, then printed with the
/// rest as they come; --verbose prints every one at once.
std::function<void(const amg::LevelBuilt&)> level_printer(bool verbose) {
  constexpr double quiet_seconds = 1.0;
  auto held = std::make_shared<std::vector<std::string>>();
  auto printing = std::make_shared<bool>(verbose);
  return [held, printing](const amg::LevelBuilt& l) {
    char line[200];
    if (l.coarse_rows > 0) {
      std::snprintf(line, sizeof line,
                    "  setup: level %d, %lld rows, %lld nonzeros -> %lld rows (%.3f s; %.3f s "
                    "since setup began)",
                    l.level, (long long)l.rows, (long long)l.nnz, (long long)l.coarse_rows,
                    l.seconds, l.elapsed_seconds);
    } else {
      std::snprintf(line, sizeof line,
                    "  setup: level %d, %lld rows, %lld nonzeros, the coarsest (%.3f s; %.3f s "
                    "since setup began)",
                    l.level, (long long)l.rows, (long long)l.nnz, l.seconds, l.elapsed_seconds);
    }
    if (!*printing && l.elapsed_seconds >= quiet_seconds) {
      *printing = true;
      for (const auto& h : *held) std::printf("%s\n", h.c_str());
      held->clear();
    }
    if (*printing) {
      std::printf("%s\n", line);
      std::fflush(stdout);
    } else {
      held->emplace_back(line);
    }
  };
}

/// 0 converged, 3 not converged (1 is kept for errors).
int run_solve(const SolveOptions& o, config::SolverConfig cfg, const Common& c) {
  // On a GPU, the first CUDA calls start the driver and the device's
  // context: part of what a user waits for, reported beside the setup.
  const double device_start_begin = wall_clock::since_start();
  const Executor exec = pick_executor(o.host, o.device);
  const double device_start_seconds = wall_clock::since_start() - device_start_begin;
  if (!o.output.empty()) check_writable(o.output);
  // Sized for the target: 64^3 on the host, 128^3 on a GPU.
  auto p = load_problem(o.problem, o.n, exec,
                        o.problem == "poisson3d" ? (exec.is_cuda() ? 128 : 64) : 0);
  const std::shared_ptr<const CsrMatrix<double>> shared_A = share(std::move(p.A));
  const CsrMatrix<double>& A = *shared_A;
  if (A.rows() != A.cols()) {
    throw invalid_argument("solve: A must be square, it is " + std::to_string(A.rows()) + " x " +
                           std::to_string(A.cols()));
  }
  // Restart and truncation fitted to the problem, memory checked.
  for (const auto& change : config::fit_to_problem(cfg, A.rows(), exec)) {
    std::fprintf(stderr, "strata: note: %s\n", change.c_str());
  }
  Vector<double> b = o.rhs.empty() ? Vector<double>(exec, A.rows(), 1.0)
                                   : read_vector("--rhs", o.rhs, A.rows(), exec);
  Vector<double> x = o.x0.empty() ? Vector<double>(exec, A.rows(), 0.0)
                                  : read_vector("--x0", o.x0, A.rows(), exec);
  // A given null space v: b loses its component along v (the solvable part
  // of A x = b), and so does x after the solve (the solution orthogonal to v).
  std::optional<Vector<double>> null_vector;
  double removed_from_b = 0;
  if (!o.null_space.empty()) {
    null_vector = o.null_space == "constant"
                      ? Vector<double>(exec, A.rows(), 1.0)
                      : read_vector("--null-space", o.null_space, A.rows(), exec);
    const double vv = dot(*null_vector, *null_vector);
    require(vv > 0, "--null-space " + o.null_space + ": the vector is zero");
    const double b_norm_before = norm2(b);
    const double c = dot(*null_vector, b) / vv;
    axpy(-c, *null_vector, b);
    removed_from_b = b_norm_before > 0 ? std::abs(c) * std::sqrt(vv) / b_norm_before : 0.0;
  }

  // What A is decides the defaults: the gallery knows its symmetry, a file
  // is analysed (on the host copy it was read into). A system that cannot
  // be solved as given is refused, saying why.
  const MatrixFacts facts = inspect(p, A);
  refuse_hopeless(facts, p.name);
  if (facts.constant_null_space && o.null_space.empty()) {
    std::fprintf(stderr,
                 "strata: note: every row of A sums to zero: constants are in its null space, "
                 "and A x = b has a solution only for b orthogonal to them; --null-space "
                 "constant projects them out of b and x\n");
  }
  std::vector<std::string> chosen = choose_defaults(cfg, facts, o.given);
  // One setup and one solve: what a value-only resetup needs (classical
  // AMG on 7-point 128^3: 1.7 GB held against 0.5 GB, and 0.4 s of setup
  // on this project's 2-core host) is kept only for --resetup or when the
  // setting is given.
  if (cfg.preconditioner.type == config::PreconditionerType::amg && !o.resetup &&
      !o.given.count("preconditioner.amg.keep_resetup_data") &&
      cfg.preconditioner.amg.hierarchy.keep_resetup_data) {
    cfg.preconditioner.amg.hierarchy.keep_resetup_data = false;
    chosen.push_back(
        "no resetup data kept (one solve; --resetup or --preconditioner.amg.keep_resetup_data "
        "true keeps it)");
  }
  std::string near_null_source;
  std::vector<Vector<double>> near_null =
      near_null_input(o, p, cfg, A.rows(), exec, chosen, near_null_source);
  const std::size_t near_null_vectors = near_null.size();
  // Converted once: with block size > 1 the Krylov method and every level
  // use the BSR form (the blocked GAMG paper's resident block operator).
  const std::shared_ptr<const LevelOperator<double>> op = config::level_operator(cfg, shared_A);
  settle_settings(cfg, facts, exec.location());

  const bool amg = cfg.preconditioner.type == config::PreconditionerType::amg;
  if (o.resetup && amg && !cfg.preconditioner.amg.hierarchy.keep_resetup_data) {
    throw usage_error(
        "--resetup needs the data that --drop-resetup-data (preconditioner.amg."
        "keep_resetup_data = false) frees; give one");
  }
  const std::string solver_name = choice_of(cfg, "solver.type");
  if (amg && cfg.preconditioner.amg.hierarchy.cycle == amg::CycleType::K &&
      (solver_name == "cg" || solver_name == "bicgstab")) {
    throw usage_error(
        "--cycle K makes the preconditioner change from one application to "
        "the next; use --solver fcg or fgmres (not " +
        solver_name + ")");
  }
  const bool verbose = !c.json && o.print_every >= 0;
  if (verbose) {
    std::printf("strata solve: %s%s, %lld rows, %lld nonzeros, on %s\n", p.name.c_str(),
                p.source == "gallery" ? (" n=" + std::to_string(p.n)).c_str() : "",
                (long long)A.rows(), (long long)A.nnz(), exec.name().c_str());
    std::fflush(stdout);
    if (amg) cfg.preconditioner.amg.hierarchy.on_level = level_printer(c.verbose);
  }
  const auto setup_start = std::chrono::steady_clock::now();
  auto M = config::make_preconditioner(cfg, op, std::move(near_null));
  exec.synchronize();
  const double setup_seconds = seconds(std::chrono::steady_clock::now() - setup_start);
  auto* hierarchy = dynamic_cast<amg::Hierarchy<double>*>(M.get());
  double resetup_seconds = -1;
  if (o.resetup) {
    if (!hierarchy) throw usage_error("--resetup needs --precond amg");
    const auto start = std::chrono::steady_clock::now();
    hierarchy->resetup();  // same values: times the value-only path
    exec.synchronize();
    resetup_seconds = seconds(std::chrono::steady_clock::now() - start);
  }

  const auto method = monitored_method(cfg, o.print_every, verbose);
  const std::string precond_desc = M ? M->describe() : "none";
  if (verbose) {
    print_method(method, precond_desc, cfg, o, chosen);
    if (op->kind() != "CSR") std::printf("  operator: A as %s\n", op->kind().c_str());
    if (near_null_vectors > 0) {
      std::printf("  near-null space: %zu vectors, %s\n", near_null_vectors,
                  near_null_source.c_str());
    }
    std::fflush(stdout);
  }

  const auto solve_start = std::chrono::steady_clock::now();
  const auto info = solve(method, *op, b, x, M.get());
  if (null_vector) axpy(-dot(*null_vector, x) / dot(*null_vector, *null_vector), *null_vector, x);
  exec.synchronize();
  const double solve_seconds = seconds(std::chrono::steady_clock::now() - solve_start);

  Vector<double> r(exec, A.rows());
  spmv(A, x, r);
  axpby(1.0, b, -1.0, r);
  const double b_norm = norm2(b);
  const double true_relative = b_norm > 0 ? norm2(r) / b_norm : norm2(r);
  const double per_iteration = info.iterations > 0 ? solve_seconds / info.iterations : 0.0;

  // Written whatever the status: a solve that stopped at --maxit can go on
  // from it with --x0 (the exit status says it did not converge).
  if (!o.output.empty()) io::write_matrix_market(o.output, x.to(Executor::host()));

  std::optional<amg::HierarchySummary> summary;
  if (hierarchy) summary = hierarchy->summary();
  if (c.json) {
    json j = {
        {"command", "solve"}, {"problem", p.name}, {"source", p.source},     {"n", p.n},
        {"rows", A.rows()},   {"nnz", A.nnz()},    {"backend", exec.name()}, {"processes", 1}};
    j.update(method_and_outcome(method, cfg, precond_desc, info, true_relative));
    j.update(json{{"chosen", chosen},
                  {"constant_null_space", facts.constant_null_space},
                  {"null_space", o.null_space},
                  {"null_space_part_of_b", removed_from_b},
                  {"operator_kind", op->kind()},
                  {"block_size", config::block_size(cfg)},
                  {"near_null_vectors", near_null_vectors},
                  {"near_null_source", near_null_source},
                  {"x0", o.x0},
                  {"output", o.output},
                  {"load_seconds", p.load_seconds},
                  {"setup_seconds", setup_seconds},
                  {"solve_seconds", solve_seconds},
                  {"seconds_per_iteration", per_iteration},
                  {"residual_history", info.residual_history}});
    if (summary) add_hierarchy(j, *summary, cfg);
    if (resetup_seconds >= 0) j["resetup_seconds"] = resetup_seconds;
    add_process_times(j, wall_clock::before_first_call(), device_start_seconds);
    j["config"] = json::parse(config::config_to_json(cfg));
    std::printf("%s\n", j.dump(2).c_str());
  } else {
    print_outcome(info, true_relative);
    std::printf("  setup %.4f s, solve %.4f s (%.3f ms per iteration); problem built in %.3f s\n",
                setup_seconds, solve_seconds, per_iteration * 1e3, p.load_seconds);
    if (resetup_seconds >= 0) {
      std::printf("  value-only resetup %.4f s (%.1fx faster than the setup)\n", resetup_seconds,
                  setup_seconds / std::max(resetup_seconds, 1e-12));
    }
    if (summary) std::printf("%s", amg::format_summary(*summary).c_str());
    if (!o.output.empty()) std::printf("  solution written to %s\n", o.output.c_str());
    print_process_times(exec, wall_clock::before_first_call(), device_start_seconds, false);
  }
  return info.converged() ? 0 : 3;
}

/// One command-line spelling of settings: a parameter's own flag
/// ("--solver.tolerance", taking a value) or an older one ("--tol"), which
/// may set several parameters ("--omega") or be a switch ("--profile-levels",
/// "--drop-resetup-data").
struct SettingFlag {
  enum class Kind { value, set_true, set_false };
  std::string name;
  Kind kind = Kind::value;
  std::vector<const config::Parameter*> targets;
  std::string text = {};  // the value given (Kind::value)
  CLI::Option* option = nullptr;
};

/// Every setting flag, made from the declarations: the parameters' own
/// flags in declaration order, then the older spellings.
std::vector<SettingFlag> setting_flags() {
  std::vector<SettingFlag> own, older;
  const auto older_flag = [&older](const std::string& name, SettingFlag::Kind kind,
                                   const config::Parameter* p) {
    for (auto& f : older) {
      if (f.name == name) {
        f.targets.push_back(p);
        return;
      }
    }
    older.push_back({name, kind, {p}});
  };
  for (const auto& p : config::parameters()) {
    own.push_back({"--" + p.path, SettingFlag::Kind::value, {&p}});
    const auto kind = p.type == config::ParameterType::boolean ? SettingFlag::Kind::set_true
                                                               : SettingFlag::Kind::value;
    for (const auto& name : p.flags) older_flag(name, kind, &p);
    if (!p.negating_flag.empty()) older_flag(p.negating_flag, SettingFlag::Kind::set_false, &p);
  }
  own.insert(own.end(), older.begin(), older.end());
  return own;
}

/// The value's name in --help.
const char* value_name(config::ParameterType type) {
  switch (type) {
    case config::ParameterType::boolean:
      return "BOOL";
    case config::ParameterType::integer:
    case config::ParameterType::unsigned_integer:
      return "INT";
    case config::ParameterType::number:
      return "NUMBER";
    case config::ParameterType::choice:
      return "NAME";
  }
  return "VALUE";
}

std::string flag_help(const SettingFlag& f) {
  const config::Parameter& p = *f.targets.front();
  if (f.kind == SettingFlag::Kind::value && f.name == "--" + p.path) {
    return p.doc + ": " + p.expected() + " (default " + config::format_value(p.default_value()) +
           ")";
  }
  std::string same;
  for (const auto* t : f.targets) same += (same.empty() ? "--" : ", --") + t->path;
  switch (f.kind) {
    case SettingFlag::Kind::set_true:
      return p.doc + " (sets " + same + " true)";
    case SettingFlag::Kind::set_false:
      return p.doc + " (sets " + same + " false)";
    case SettingFlag::Kind::value:
      break;
  }
  return p.doc + " (same as " + same + ")";
}

/// True when the object `j` holds the dotted `path` ("solver.type").
bool holds_path(const json& j, const std::string& path) {
  const json* at = &j;
  std::size_t from = 0;
  for (;;) {
    const std::size_t dot = path.find('.', from);
    const std::string key = path.substr(from, dot == std::string::npos ? dot : dot - from);
    if (!at->is_object() || !at->contains(key)) return false;
    at = &(*at)[key];
    if (dot == std::string::npos) return true;
    from = dot + 1;
  }
}

/// Takes the program's own keys (problem, n, rhs, x0, null_space, near_null,
/// add_translations, coordinates, device)
/// out of a settings document (`source`: "config: 'FILE'" or "preset
/// 'NAME'") unless a flag gave them, records the library settings it holds
/// as given, and returns what is left for config_from_json. "description"
/// (what a preset is for) is dropped, so a preset copied and edited is a
/// --config file.
json take_program_keys(json j, SolveOptions& o, const CLI::App& cmd, const std::string& source) {
  if (!j.is_object()) {
    throw io_error(source + " must hold a JSON object, got " + std::string(j.type_name()));
  }
  const auto take = [&](const char* key, const char* flag, auto set) {
    if (!j.contains(key)) return;
    try {
      if (cmd.count(flag) == 0) set(j[key]);
    } catch (const invalid_argument& e) {
      throw usage_error(source + ": " + e.message());
    }
    j.erase(key);
  };
  take("problem", "problem", text(o.problem, "problem"));
  take("n", "--n", [&o](const json& v) {
    long long n = 0;
    integer(n, "n")(v);
    o.n = n;
  });
  take("rhs", "--rhs", text(o.rhs, "rhs"));
  take("x0", "--x0", text(o.x0, "x0"));
  take("null_space", "--null-space", text(o.null_space, "null_space"));
  take("near_null", "--near-null", text(o.near_null, "near_null"));
  take("add_translations", "--add-translations", boolean(o.add_translations, "add_translations"));
  take("coordinates", "--coordinates", text(o.coordinates, "coordinates"));
  take("device", "--device", boolean(o.device, "device"));
  j.erase("description");
  for (const auto& p : config::parameters()) {
    bool held = holds_path(j, p.path);
    for (const auto& alias : p.json_aliases) held = held || holds_path(j, alias);
    if (held) o.given.insert(p.path);
  }
  return j;
}

/// The settings, each layer over the one before: the library's defaults,
/// --preset, --config, then the flags in the order given (the last wins).
/// A file that cannot be read or parsed is an io_error (exit 1); a setting
/// that is unknown, mistyped or out of range, wherever it was written, is a
/// usage_error (exit 2).
config::SolverConfig effective_settings(SolveOptions& o, const CLI::App& cmd,
                                        const std::vector<SettingFlag>& flags) {
  json settings = json::object();
  if (!o.preset.empty()) {
    settings = take_program_keys(load_preset(o.preset), o, cmd, "preset '" + o.preset + "'");
  }
  if (!o.config.empty()) {
    // merge_patch: the file's keys replace the preset's, object by object.
    settings.merge_patch(
        take_program_keys(read_json_file(o.config), o, cmd, "config: '" + o.config + "'"));
  }
  config::SolverConfig cfg;
  try {
    if (!settings.empty()) cfg = config::config_from_json(settings.dump());
    for (const CLI::Option* given : cmd.parse_order()) {
      for (const auto& f : flags) {
        if (f.option != given) continue;
        for (const auto* p : f.targets) {
          o.given.insert(p->path);
          switch (f.kind) {
            case SettingFlag::Kind::value:
              config::set_parameter_from_text(cfg, *p, f.text, f.name);
              break;
            case SettingFlag::Kind::set_true:
            case SettingFlag::Kind::set_false:
              config::set_parameter(cfg, *p, f.kind == SettingFlag::Kind::set_true, f.name);
              break;
          }
        }
      }
    }
  } catch (const usage_error&) {
    throw;
  } catch (const invalid_argument& e) {
    throw usage_error(e.message());
  }
  return cfg;
}

/// The settings as JSON that --config reads back: the program's keys, then
/// the library's.
void print_config(const SolveOptions& o, const config::SolverConfig& cfg) {
  json j = {{"problem", o.problem}};
  if (o.n) j["n"] = *o.n;  // absent: the problem's default size
  j["rhs"] = o.rhs;
  j["x0"] = o.x0;
  j["null_space"] = o.null_space;
  j["near_null"] = o.near_null;
  j["add_translations"] = o.add_translations;
  j["coordinates"] = o.coordinates;
  j["device"] = o.device;
  const json settings = json::parse(config::config_to_json(cfg));
  for (const auto& [key, value] : settings.items()) j[key] = value;
  std::printf("%s\n", j.dump(2).c_str());
}

/// --preset's help: the presets and what each is for, read from their files
/// (a preset added to the folder appears here without a rebuild).
std::string preset_help() {
  std::string help =
      "Start from a named preset of settings (--config and flags win over it); "
      "`strata presets` prints each in full.";
  try {
    for (const auto& p : list_presets()) help += "\n  " + p.name + ": " + p.description;
  } catch (const std::exception& e) {
    // The help of every subcommand is built at start: a missing folder must
    // not stop `strata info`, and --preset then says what is wrong.
    const auto* strata_error = dynamic_cast<const error*>(&e);
    help += "\n  (" + (strata_error ? strata_error->message() : std::string(e.what())) + ")";
  }
  return help;
}

}  // namespace

void add_presets(CLI::App& app, Common& common) {
  auto* cmd = app.add_subcommand("presets",
                                 "List the presets of `strata solve --preset NAME`: "
                                 "what each is for, and its file");
  cmd->add_flag("--json", common.json, "Print one JSON object");
  cmd->callback([&common] {
    const auto presets = list_presets();
    if (common.json) {
      json list = json::array();
      for (const auto& p : presets) {
        list.push_back({{"name", p.name},
                        {"description", p.description},
                        {"path", p.path},
                        {"settings", load_preset(p.name)}});
      }
      std::printf("%s\n", json{{"command", "presets"}, {"presets", list}}.dump(2).c_str());
      return;
    }
    std::printf("Presets of strata solve --preset NAME (in %s):\n", preset_folder().c_str());
    for (const auto& p : presets) {
      std::printf("\n%s\n  %s\n", p.name.c_str(), p.description.c_str());
    }
  });
}

void add_solve(CLI::App& app, Common& common, int& exit_code) {
  auto o = std::make_shared<SolveOptions>();
  auto flags = std::make_shared<std::vector<SettingFlag>>(setting_flags());
  auto* cmd = app.add_subcommand(
      "solve", "Solve A x = b (default: 3D Poisson, AMG-preconditioned CG, b = ones, x0 = 0)");
  cmd->add_option("problem", o->problem, "MatrixMarket file or gallery problem")
      ->capture_default_str();
  cmd->add_option("--n", o->n, "Size for a gallery problem (default: 64^3 host, 128^3 device)");
  cmd->add_option("--rhs", o->rhs, "Right-hand side as MatrixMarket (default: all ones)");
  cmd->add_option("--x0", o->x0,
                  "Initial guess as MatrixMarket, one entry per row of A (default: zero); "
                  "a solution written by -o continues from where it stopped");
  cmd->add_option("-o,--output", o->output,
                  "Write the solution x to this file (MatrixMarket array, 17 significant "
                  "digits: read back, it is the same x bit for bit); written also when the "
                  "solve did not converge (exit 3)");
  cmd->add_option("--null-space", o->null_space,
                  "Project this null space out of b and x: 'constant' (a pure Neumann "
                  "problem) or a MatrixMarket vector. Not the near-null space of the "
                  "coarsening: that is --near-null or --coordinates");
  cmd->add_option("--near-null", o->near_null,
                  "Near-null space for aggregation coarsening (--coarsening sa: the rigid-body "
                  "modes of elasticity): a MatrixMarket array of n rows, one column per vector");
  cmd->add_flag("--add-translations", o->add_translations,
                "Put the block-size translations (constants per unknown of a node) before the "
                "--near-null vectors: for a file of rotations only, as hypre's rbm files are");
  cmd->add_option("--coordinates", o->coordinates,
                  "Nodal coordinates (MatrixMarket: nodes x dimension, or one interleaved "
                  "column); smoothed aggregation gets their rigid-body modes (dimension = "
                  "--block-size, 2 or 3)");
  cmd->add_option("--preset", o->preset, preset_help());
  cmd->add_option("--config", o->config,
                  "JSON file with any of the settings below; it wins over --preset, and flags "
                  "given here win over both. Unknown keys are errors");
  cmd->add_flag("--print-config", o->print_config,
                "Print the settings in effect as JSON that --config reads back, and exit");
  cmd->add_flag("--host", o->host, "Run on the host (OpenMP)");
  cmd->add_flag("--device", o->device,
                "Run on the CUDA device (under mpirun: GPU rank % the GPUs a node shows)");
  cmd->add_option("--print-every", o->print_every,
                  "Progress every K iterations (0: the first 10, then every 10th; -1: none)")
      ->capture_default_str();
  cmd->add_flag("--json", common.json,
                "Print one JSON object (an error too: {\"error\": ...} on stdout)");
  cmd->add_flag("--verbose", common.verbose,
                "Print a line per AMG level as setup builds it (without it, only when the "
                "setup takes more than a second)");
  cmd->add_flag("--resetup", o->resetup, "With AMG: also time a value-only resetup");
  // Plain options with help headings, not option groups: the flags of
  // every heading then share one parse order, and the last given wins.
  for (auto& f : *flags) {
    const config::Parameter& p = *f.targets.front();
    const bool own = f.name == "--" + p.path;
    if (f.kind == SettingFlag::Kind::value) {
      f.option = cmd->add_option(f.name, f.text, flag_help(f))->type_name(value_name(p.type));
    } else {
      f.option = cmd->add_flag(f.name)->description(flag_help(f));
    }
    f.option->group(own ? "Settings, one flag per parameter (named by its path in the --config "
                          "JSON)"
                        : "Settings (short flags)");
  }
  // --interface struct: the structured interface and PFMG (structured.cpp).
  auto st = std::make_shared<StructuredSolveOptions>();
  auto interface = std::make_shared<std::string>("csr");
  cmd->add_option("--interface", *interface,
                  "csr (assembled matrix) or struct (structured grid and stencil, PFMG)")
      ->check(CLI::IsMember({"csr", "struct"}))
      ->capture_default_str();
  add_structured_options(*cmd, *st);
  cmd->callback([o, flags, cmd, st, interface, &common, &exit_code] {
    if (*interface == "struct") {
      require_usage(!processes::several(),
                    "--interface struct does not run on several processes yet (" +
                        std::to_string(processes::size()) +
                        " under mpirun); run it on one process, or give --interface csr");
      for (const char* flag : {"--rhs", "--null-space", "--resetup", "--config", "--print-config",
                               "--near-null", "--add-translations", "--coordinates"}) {
        require(cmd->count(flag) == 0,
                std::string(flag) + " is not available with --interface struct");
      }
      GivenSettings given;
      for (const auto& f : *flags) {
        if (f.option->count() > 0) given.emplace_back(f.name, f.text.empty() ? "true" : f.text);
      }
      StructuredSolveOptions so = *st;
      so.problem = o->problem;
      so.n = o->n;
      so.host = o->host;
      so.device = o->device;
      so.print_every = o->print_every;
      exit_code = run_structured_solve(so, given, common);
      return;
    }
    for (const char* flag : {"--coefficients", "--periodic", "--struct-storage", "--pfmg-relax",
                             "--pfmg-skip", "--pfmg-coarse-operator"}) {
      require_usage(cmd->count(flag) == 0, std::string(flag) + " needs --interface struct");
    }
    config::SolverConfig cfg;
    // Every process reads the same --config and --preset files; should
    // one of them fail to (a file system that differs between nodes), all
    // stop here rather than the others waiting for it in the solve.
    processes::agree([&] { cfg = effective_settings(*o, *cmd, *flags); });
    if (o->print_config) {
      print_config(*o, cfg);
      exit_code = 0;
      return;
    }
    exit_code =
        processes::several() ? run_distributed_solve(*o, cfg, common) : run_solve(*o, cfg, common);
  });
}

}  // namespace strata::app
