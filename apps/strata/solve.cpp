// strata solve: the product's main job. Loads or generates A, builds the
// preconditioner, runs the Krylov method and reports, with the true
// residual recomputed at the end.

#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <optional>
#include <nlohmann/json.hpp>
#include <string>

#include "commands.hpp"
#include "config.hpp"
#include "strata/amg/aggregation.hpp"
#include "strata/amg/classical.hpp"
#include "problem.hpp"

namespace strata::app {

namespace {

using json = nlohmann::ordered_json;

struct SolveOptions {
  std::string config;
  std::string problem = "poisson3d";
  size_type n = 0;
  std::string rhs;
  std::string solver = "cg";
  std::string precond = "amg";
  double tol = 1e-8;
  double atol = 0.0;
  int maxit = 5000;
  int restart = 30;
  double omega = 1.0;
  int degree = 3;
  bool host = false;
  bool device = false;
  int print_every = 0;
  bool resetup = false;
  // --precond amg
  std::string amg = "classical";
  std::string cycle = "V";
  int pre_sweeps = 1;
  int post_sweeps = 1;
  int max_levels = 25;
  long long coarse_size = 600;
  /// auto: l1-Jacobi for classical AMG (hypre's GPU default), damped Jacobi
  /// with omega = 4 / (3 rho(D^-1 A)) for aggregation (the paper's).
  std::string amg_smoother = "auto";
  bool profile_levels = false;
  bool drop_resetup_data = false;
  // classical
  double strength_threshold = 0.25;
  double max_row_sum = 1.0;
  std::string interpolation = "ext+i";
  int pmax = 4;
  double truncation = 0.0;
  int aggressive_levels = 0;
  std::string aggressive_interpolation = amg::to_string(amg::ClassicalParams{}.aggressive_interpolation);
  int aggressive_paths = amg::ClassicalParams{}.aggressive_num_paths;
  int aggressive_stage_pmax = amg::ClassicalParams{}.aggressive_stage_max_elements;
  // aggregation
  double aggregation_strength = -1;
  int dimension = 3;
  int kcycle_levels = 2;
  std::string kcycle_flavour = "cg";
};

KrylovMethod make_method(const SolveOptions& o, const KrylovParams& p) {
  if (o.solver == "cg") return Cg{p};
  if (o.solver == "fcg") return Fcg{p};
  if (o.solver == "bicgstab") return Bicgstab{p};
  if (o.solver == "gmres") return Gmres{p, o.restart};
  if (o.solver == "fgmres") return Fgmres{p, o.restart};
  throw invalid_argument("--solver '" + o.solver +
                         "': expected cg, bicgstab, gmres, fgmres or fcg");
}

amg::Interpolation parse_interpolation(const std::string& name) {
  for (auto i : {amg::Interpolation::direct, amg::Interpolation::mm_ext,
                 amg::Interpolation::mm_ext_i, amg::Interpolation::mm_ext_e}) {
    if (name == amg::to_string(i)) return i;
  }
  throw invalid_argument("--interpolation '" + name + "': expected direct, ext, ext+i or ext+e");
}

amg::Interpolation parse_aggressive_interpolation(const std::string& name) {
  if (name == "ext") return amg::Interpolation::mm_ext;
  if (name == "ext+e") return amg::Interpolation::mm_ext_e;
  throw invalid_argument("--aggressive-interpolation '" + name +
                         "': expected ext or ext+e (the two-stage interpolations)");
}

SmootherParams parse_smoother(const std::string& name, double omega, int degree) {
  if (name == "jacobi") return JacobiParams{.omega = omega};
  if (name == "l1jacobi") return L1JacobiParams{.omega = omega};
  if (name == "chebyshev") return ChebyshevParams{.degree = degree};
  throw invalid_argument("--smoother '" + name + "': expected jacobi, l1jacobi or chebyshev");
}

amg::CycleType parse_cycle(const std::string& name) {
  for (auto c : {amg::CycleType::V, amg::CycleType::W, amg::CycleType::F, amg::CycleType::K}) {
    if (name == amg::to_string(c)) return c;
  }
  throw invalid_argument("--cycle '" + name + "': expected V, W, F or K");
}

std::unique_ptr<amg::Hierarchy<double>> make_amg(const SolveOptions& o,
                                                 std::shared_ptr<const CsrMatrix<double>> A) {
  std::unique_ptr<amg::Coarsening<double>> coarsening;
  if (o.amg == "classical") {
    coarsening = amg::make_classical_coarsening<double>(amg::ClassicalParams{
        .strength_threshold = o.strength_threshold,
        .max_row_sum = o.max_row_sum,
        .interpolation = parse_interpolation(o.interpolation),
        .max_elements_per_row = o.pmax,
        .truncation_factor = o.truncation,
        .aggressive_levels = o.aggressive_levels,
        .aggressive_interpolation = parse_aggressive_interpolation(o.aggressive_interpolation),
        .aggressive_num_paths = o.aggressive_paths,
        .aggressive_stage_max_elements = o.aggressive_stage_pmax});
  } else if (o.amg == "aggregation") {
    coarsening = amg::make_aggregation_coarsening<double>(
        amg::AggregationParams{.strength_threshold = o.aggregation_strength,
                               .dimension = o.dimension});
  } else {
    throw invalid_argument("--amg '" + o.amg + "': expected classical or aggregation");
  }
  amg::HierarchyParams hp;
  hp.max_levels = o.max_levels;
  hp.coarse_size = o.coarse_size;
  hp.cycle = parse_cycle(o.cycle);
  hp.pre_sweeps = o.pre_sweeps;
  hp.post_sweeps = o.post_sweeps;
  if (o.amg_smoother == "auto") {
    hp.smoother = o.amg == "aggregation" ? SmootherParams{JacobiParams{.estimate_omega = true}}
                                         : SmootherParams{L1JacobiParams{}};
  } else {
    hp.smoother = parse_smoother(o.amg_smoother, o.omega, o.degree);
  }
  hp.profile_levels = o.profile_levels;
  hp.keep_resetup_data = !o.drop_resetup_data;
  hp.kcycle_levels = o.kcycle_levels;
  if (o.kcycle_flavour == "cg") hp.kcycle_flavour = amg::HierarchyParams::KcycleFlavour::cg;
  else if (o.kcycle_flavour == "gmres") hp.kcycle_flavour = amg::HierarchyParams::KcycleFlavour::gmres;
  else throw invalid_argument("--kcycle-flavour '" + o.kcycle_flavour + "': expected cg or gmres");
  return std::make_unique<amg::Hierarchy<double>>(A, std::move(coarsening), hp);
}

std::unique_ptr<LinearOperator<double>> make_preconditioner(const SolveOptions& o,
                                                            std::shared_ptr<const CsrMatrix<double>> A,
                                                            bool symmetric) {
  if (o.precond == "none") return nullptr;
  if (o.precond == "amg") return make_amg(o, A);
  if (o.precond == "jacobi") return make_smoother(A, JacobiParams{.omega = o.omega});
  if (o.precond == "l1jacobi") return make_smoother(A, L1JacobiParams{.omega = o.omega});
  if (o.precond == "chebyshev") {
    return make_smoother(A, ChebyshevParams{.degree = o.degree, .symmetric = symmetric});
  }
  throw invalid_argument("--precond '" + o.precond +
                         "': expected none, jacobi, l1jacobi, chebyshev or amg");
}

double seconds(std::chrono::steady_clock::duration d) {
  return std::chrono::duration<double>(d).count();
}

/// 0 converged, 3 not converged (1 is kept for errors).
int run_solve(const SolveOptions& o, const Common& c) {
  require(o.tol >= 0, "--tol must be >= 0, got " + std::to_string(o.tol));
  require(o.maxit >= 0, "--maxit must be >= 0, got " + std::to_string(o.maxit));
  const Executor exec = pick_executor(o.host, o.device);
  // Sized for the target: 64^3 on the host, 128^3 on a GPU.
  const size_type n = o.n > 0 ? o.n
                     : (o.problem == "poisson3d" ? (exec.is_cuda() ? 128 : 64)
                                                 : default_size(o.problem));
  auto p = load_problem(o.problem, n, exec);
  const std::shared_ptr<const CsrMatrix<double>> shared_A = share(std::move(p.A));
  const CsrMatrix<double>& A = *shared_A;
  if (A.rows() != A.cols()) {
    throw invalid_argument("solve: A must be square, it is " + std::to_string(A.rows()) + " x " +
                           std::to_string(A.cols()));
  }
  Vector<double> b(exec, A.rows(), 1.0);
  if (!o.rhs.empty()) {
    b = io::read_matrix_market_vector(o.rhs).to(exec);
    if (b.size() != A.rows()) {
      throw dimension_mismatch("--rhs " + o.rhs + " has " + std::to_string(b.size()) +
                               " entries but A has " + std::to_string(A.rows()) + " rows");
    }
  }
  Vector<double> x(exec, A.rows(), 0.0);

  // Symmetry decides Lanczos versus Arnoldi for Chebyshev's estimate; the
  // gallery knows, a file is checked (on the host copy it was read into).
  bool symmetric = p.source == "gallery" ? o.problem != "convdiff3d" : false;
  if (p.source == "file" && o.precond == "chebyshev") {
    symmetric = exec.is_host() ? analyze(A).numerically_symmetric
                               : analyze(A.to(Executor::host())).numerically_symmetric;
  }

  if (o.resetup && o.drop_resetup_data) {
    throw invalid_argument("--resetup needs the data that --drop-resetup-data frees; give one");
  }
  if (o.precond == "amg" && o.cycle == "K" && (o.solver == "cg" || o.solver == "bicgstab")) {
    throw invalid_argument("--cycle K makes the preconditioner change from one application to "
                           "the next; use --solver fcg or fgmres (not " + o.solver + ")");
  }
  const auto setup_start = std::chrono::steady_clock::now();
  auto M = make_preconditioner(o, shared_A, symmetric);
  exec.synchronize();
  const double setup_seconds = seconds(std::chrono::steady_clock::now() - setup_start);
  auto* hierarchy = dynamic_cast<amg::Hierarchy<double>*>(M.get());
  double resetup_seconds = -1;
  if (o.resetup) {
    if (!hierarchy) throw invalid_argument("--resetup needs --precond amg");
    const auto start = std::chrono::steady_clock::now();
    hierarchy->resetup();  // same values: times the value-only path
    exec.synchronize();
    resetup_seconds = seconds(std::chrono::steady_clock::now() - start);
  }

  KrylovParams params;
  params.relative_tolerance = o.tol;
  params.absolute_tolerance = o.atol;
  params.max_iterations = o.maxit;
  const bool verbose = !c.json && o.print_every >= 0;
  if (verbose) {
    params.monitor = [&](int it, double r) {
      const bool show = o.print_every > 0 ? it % o.print_every == 0 : (it <= 10 || it % 10 == 0);
      if (show) std::printf("  iteration %5d   residual %.3e\n", it, r);
    };
  }
  const auto method = make_method(o, params);
  const std::string precond_desc = M ? M->describe() : "none";
  if (verbose) {
    std::printf("strata solve: %s%s, %lld rows, %lld nonzeros, on %s\n", p.name.c_str(),
                p.source == "gallery" ? (" n=" + std::to_string(p.n)).c_str() : "",
                (long long)A.rows(), (long long)A.nnz(), exec.name().c_str());
    std::printf("  method %s, preconditioner %s, tolerance %.1e relative to ||b||, b = %s\n",
                method_name(method).c_str(), precond_desc.c_str(), o.tol,
                o.rhs.empty() ? "ones" : o.rhs.c_str());
  }

  CsrOperator<double> op(shared_A);
  const auto solve_start = std::chrono::steady_clock::now();
  const auto info = solve(method, op, b, x, M.get());
  exec.synchronize();
  const double solve_seconds = seconds(std::chrono::steady_clock::now() - solve_start);

  Vector<double> r(exec, A.rows());
  spmv(A, x, r);
  axpby(1.0, b, -1.0, r);
  const double b_norm = norm2(b);
  const double true_relative = b_norm > 0 ? norm2(r) / b_norm : norm2(r);
  const double per_iteration = info.iterations > 0 ? solve_seconds / info.iterations : 0.0;

  std::optional<amg::HierarchySummary> summary;
  if (hierarchy) summary = hierarchy->summary();
  if (c.json) {
    json j = {{"command", "solve"},
              {"problem", p.name},
              {"source", p.source},
              {"n", p.n},
              {"rows", A.rows()},
              {"nnz", A.nnz()},
              {"backend", exec.name()},
              {"solver", method_name(method)},
              {"preconditioner", o.precond},
              {"preconditioner_detail", precond_desc},
              {"tolerance", o.tol},
              {"iterations", info.iterations},
              {"converged", info.converged()},
              {"status", to_string(info.status)},
              {"message", info.message},
              {"relative_residual", true_relative},
              {"tracked_relative_residual", info.relative_residual},
              {"load_seconds", p.load_seconds},
              {"setup_seconds", setup_seconds},
              {"solve_seconds", solve_seconds},
              {"seconds_per_iteration", per_iteration},
              {"residual_history", info.residual_history}};
    if (summary) {
      json levels = json::array();
      for (const auto& l : summary->levels) {
        levels.push_back({{"rows", l.rows}, {"nnz", l.nnz}, {"min_row_nnz", l.min_row_nnz},
                          {"mean_row_nnz", l.mean_row_nnz}, {"max_row_nnz", l.max_row_nnz},
                          {"coarsening_ratio", l.coarsening_ratio},
                          {"setup_seconds", l.setup_seconds},
                          {"solve_seconds", l.solve_seconds}});
      }
      j["amg"] = {{"coarsening", summary->coarsening},
                  {"cycle", o.cycle},
                  {"setup_stage_seconds", summary->setup_stage_seconds}};
      j["levels"] = levels;
      j["operator_complexity"] = summary->operator_complexity;
      j["grid_complexity"] = summary->grid_complexity;
      j["coarse_solver"] = summary->coarse_solver;
      j["hierarchy_bytes"] = summary->setup_bytes;
    }
    if (resetup_seconds >= 0) j["resetup_seconds"] = resetup_seconds;
    std::printf("%s\n", j.dump(2).c_str());
  } else {
    std::printf("%s after %d iterations: relative residual %.3e (recomputed b - A x: %.3e)%s%s\n",
                info.converged() ? "converged" : to_string(info.status), info.iterations,
                info.relative_residual, true_relative, info.message.empty() ? "" : "; ",
                info.message.c_str());
    std::printf("  setup %.4f s, solve %.4f s (%.3f ms per iteration); problem built in %.3f s\n",
                setup_seconds, solve_seconds, per_iteration * 1e3, p.load_seconds);
    if (resetup_seconds >= 0) {
      std::printf("  value-only resetup %.4f s (%.1fx faster than the setup)\n", resetup_seconds,
                  setup_seconds / std::max(resetup_seconds, 1e-12));
    }
    if (summary) std::printf("%s", amg::format_summary(*summary).c_str());
  }
  return info.converged() ? 0 : 3;
}

}  // namespace

namespace {

/// Reads `--config FILE.json` into `o`, leaving alone every option that was
/// also given as a flag (flags win). Unknown keys are errors by full path.
void apply_config(SolveOptions& o, const CLI::App& cmd) {
  const json j = read_json_file(o.config);
  // A setter that yields to the flag of the same meaning.
  const auto unless = [&cmd](const char* flag, std::function<void(const json&)> set) {
    return [&cmd, flag, set](const json& v) {
      if (cmd.count(flag) == 0) set(v);
    };
  };
  read_object(j, "", {
      {"problem", unless("problem", text(o.problem, "problem"))},
      {"n", unless("--n", [&o](const json& v) {
         long long n = 0;
         integer(n, "n")(v);
         o.n = n;
       })},
      {"rhs", unless("--rhs", text(o.rhs, "rhs"))},
      {"device", unless("--device", boolean(o.device, "device"))},
      {"solver", [&](const json& v) {
         read_object(v, "solver", {
             {"type", unless("--solver", text(o.solver, "solver.type"))},
             {"tolerance", unless("--tol", number(o.tol, "solver.tolerance"))},
             {"absolute_tolerance", unless("--atol", number(o.atol, "solver.absolute_tolerance"))},
             {"max_iterations", unless("--maxit", integer(o.maxit, "solver.max_iterations"))},
             {"restart", unless("--restart", integer(o.restart, "solver.restart"))}});
       }},
      {"preconditioner", [&](const json& v) {
         read_object(v, "preconditioner", {
             {"type", unless("--precond", text(o.precond, "preconditioner.type"))},
             {"omega", unless("--omega", number(o.omega, "preconditioner.omega"))},
             {"degree", unless("--degree", integer(o.degree, "preconditioner.degree"))},
             {"amg", [&](const json& a) {
                const std::string p = "preconditioner.amg";
                read_object(a, p, {
                    {"coarsening", unless("--amg", text(o.amg, p + ".coarsening"))},
                    {"cycle", unless("--cycle", text(o.cycle, p + ".cycle"))},
                    {"pre_sweeps", unless("--pre-sweeps", integer(o.pre_sweeps, p + ".pre_sweeps"))},
                    {"post_sweeps", unless("--post-sweeps", integer(o.post_sweeps, p + ".post_sweeps"))},
                    {"max_levels", unless("--max-levels", integer(o.max_levels, p + ".max_levels"))},
                    {"coarse_size", unless("--coarse-size", integer(o.coarse_size, p + ".coarse_size"))},
                    {"smoother", unless("--smoother", text(o.amg_smoother, p + ".smoother"))},
                    {"kcycle_levels", unless("--kcycle-levels", integer(o.kcycle_levels, p + ".kcycle_levels"))},
                    {"kcycle_flavour", unless("--kcycle-flavour", text(o.kcycle_flavour, p + ".kcycle_flavour"))},
                    {"keep_resetup_data", unless("--drop-resetup-data", [&o, p](const json& v) {
                       bool keep = true;
                       boolean(keep, p + ".keep_resetup_data")(v);
                       o.drop_resetup_data = !keep;
                     })},
                    {"classical", [&](const json& c) {
                       const std::string q = p + ".classical";
                       read_object(c, q, {
                           {"strength_threshold", unless("--strength", number(o.strength_threshold, q + ".strength_threshold"))},
                           {"max_row_sum", unless("--max-row-sum", number(o.max_row_sum, q + ".max_row_sum"))},
                           {"interpolation", unless("--interpolation", text(o.interpolation, q + ".interpolation"))},
                           {"max_elements_per_row", unless("--pmax", integer(o.pmax, q + ".max_elements_per_row"))},
                           {"truncation_factor", unless("--truncation", number(o.truncation, q + ".truncation_factor"))},
                           {"aggressive_levels", unless("--aggressive-levels", integer(o.aggressive_levels, q + ".aggressive_levels"))},
                           {"aggressive_interpolation", unless("--aggressive-interpolation", text(o.aggressive_interpolation, q + ".aggressive_interpolation"))},
                           {"aggressive_num_paths", unless("--aggressive-paths", integer(o.aggressive_paths, q + ".aggressive_num_paths"))},
                           {"aggressive_stage_max_elements", unless("--aggressive-stage-pmax", integer(o.aggressive_stage_pmax, q + ".aggressive_stage_max_elements"))}});
                     }},
                    {"aggregation", [&](const json& g) {
                       const std::string q = p + ".aggregation";
                       read_object(g, q, {
                           {"strength_threshold", unless("--aggregation-strength", number(o.aggregation_strength, q + ".strength_threshold"))},
                           {"dimension", unless("--dimension", integer(o.dimension, q + ".dimension"))}});
                     }}});
              }}});
       }}});
}

}  // namespace

void add_solve(CLI::App& app, Common& common, int& exit_code) {
  auto o = std::make_shared<SolveOptions>();
  auto* cmd = app.add_subcommand(
      "solve", "Solve A x = b (default: 3D Poisson, AMG-preconditioned CG, b = ones, x0 = 0)");
  cmd->add_option("problem", o->problem, "MatrixMarket file or gallery problem")
      ->capture_default_str();
  cmd->add_option("--n", o->n, "Size for a gallery problem (default: 64^3 host, 128^3 device)");
  cmd->add_option("--rhs", o->rhs, "Right-hand side as MatrixMarket (default: all ones)");
  cmd->add_option("--config", o->config,
                  "JSON file with any of these settings (flags given here win); unknown keys "
                  "are errors");
  cmd->add_option("--solver", o->solver, "cg, bicgstab, gmres, fgmres or fcg")
      ->capture_default_str();
  cmd->add_option("--precond", o->precond, "none, jacobi, l1jacobi, chebyshev or amg")
      ->capture_default_str();
  cmd->add_option("--tol", o->tol, "Relative tolerance on ||b - A x|| / ||b||")
      ->capture_default_str();
  cmd->add_option("--atol", o->atol, "Absolute tolerance on ||b - A x||")->capture_default_str();
  cmd->add_option("--maxit", o->maxit, "Maximum iterations")->capture_default_str();
  cmd->add_option("--restart", o->restart, "Restart length of GMRES and FGMRES")
      ->capture_default_str();
  cmd->add_option("--omega", o->omega, "Weight of (l1-)Jacobi")->capture_default_str();
  cmd->add_option("--degree", o->degree, "Degree of the Chebyshev polynomial")
      ->capture_default_str();
  auto* amg_group = cmd->add_option_group("AMG", "With --precond amg");
  amg_group->add_option("--amg", o->amg, "classical or aggregation")->capture_default_str();
  amg_group->add_option("--cycle", o->cycle, "V, W, F or K (K-cycle: use fcg or fgmres)")
      ->capture_default_str();
  amg_group->add_option("--pre-sweeps", o->pre_sweeps, "Smoothing sweeps before the coarse "
                        "correction")->capture_default_str();
  amg_group->add_option("--post-sweeps", o->post_sweeps, "Smoothing sweeps after it")
      ->capture_default_str();
  amg_group->add_option("--smoother", o->amg_smoother,
                        "auto, jacobi, l1jacobi or chebyshev (auto: l1jacobi for classical, "
                        "Jacobi with omega = 4/(3 rho) for aggregation)")
      ->capture_default_str();
  amg_group->add_option("--max-levels", o->max_levels, "Most levels")->capture_default_str();
  amg_group->add_option("--coarse-size", o->coarse_size,
                        "Target rows of the coarsest level (solved directly)")
      ->capture_default_str();
  amg_group->add_option("--strength", o->strength_threshold,
                        "Classical strength threshold theta")->capture_default_str();
  amg_group->add_option("--max-row-sum", o->max_row_sum, "Classical max row sum")
      ->capture_default_str();
  amg_group->add_option("--interpolation", o->interpolation, "direct, ext, ext+i or ext+e")
      ->capture_default_str();
  amg_group->add_option("--pmax", o->pmax, "Interpolation entries per row (0: no limit)")
      ->capture_default_str();
  amg_group->add_option("--truncation", o->truncation, "Relative interpolation truncation")
      ->capture_default_str();
  amg_group->add_option("--aggressive-levels", o->aggressive_levels,
                        "Levels of aggressive coarsening")->capture_default_str();
  amg_group->add_option("--aggressive-interpolation", o->aggressive_interpolation,
                        "Each stage of the two-stage interpolation: ext or ext+e")
      ->capture_default_str();
  amg_group->add_option("--aggressive-paths", o->aggressive_paths,
                        "Second-pass strength: 1 (A1) or 2 (A2)")->capture_default_str();
  amg_group->add_option("--aggressive-stage-pmax", o->aggressive_stage_pmax,
                        "Entries per row of each stage P1, P2 (0: no limit)")
      ->capture_default_str();
  amg_group->add_option("--aggregation-strength", o->aggregation_strength,
                        "Aggregation strength alpha (< 0: 0.5 in 3D, 0.25 in 2D)")
      ->capture_default_str();
  amg_group->add_option("--dimension", o->dimension, "Dimension hint for aggregation")
      ->capture_default_str();
  amg_group->add_option("--kcycle-levels", o->kcycle_levels, "Levels that take K-cycles")
      ->capture_default_str();
  amg_group->add_option("--kcycle-flavour", o->kcycle_flavour, "cg or gmres")
      ->capture_default_str();
  amg_group->add_flag("--resetup", o->resetup, "Also time a value-only resetup");
  amg_group->add_flag("--profile-levels", o->profile_levels, "Time each level of the cycles");
  amg_group->add_flag("--drop-resetup-data", o->drop_resetup_data,
                      "Free what a value-only resetup needs once setup is done (less memory)");
  cmd->add_flag("--host", o->host, "Run on the host (OpenMP)");
  cmd->add_flag("--device", o->device, "Run on the CUDA device");
  cmd->add_option("--print-every", o->print_every,
                  "Progress every K iterations (0: the first 10, then every 10th; -1: none)")
      ->capture_default_str();
  cmd->add_flag("--json", common.json, "Print one JSON object");
  cmd->callback([o, cmd, &common, &exit_code] {
    if (!o->config.empty()) apply_config(*o, *cmd);
    exit_code = run_solve(*o, common);
  });
}

}  // namespace strata::app
