// Classical AMG (PMIS + MM interpolation) as a PCG preconditioner: setup,
// solve, iterations, complexities and value-only resetup, beside hypre 3.1
// run on the same GPU in the same call (--hypre FILE: the output of
// ../shared/peers/hypre/build-and-run.sh, which scripts/gpu-check runs first).
//
//   strata_bench_classical [--host] [--case NAME]... [--n N] [--repeat R]
//                          [--interpolation direct|ext|ext+i|ext+e] [--pmax K]
//                          [--aggressive-interpolation ext|ext+e] [--stage-pmax K]
//                          [--num-paths 1|2] [--summary] [--profile] [--spmv]
//                          [--spgemm-stages] [--json FILE] [--hypre FILE]
//                          [--smoother NAME] [--gs-block-rows N] [--gs-inner-sweeps N]
//                          [--gs-omega W] [--gs-l1] [--jacobi-estimate] [--sweep-cost]
//                          [--tolerance T]
//
// Cases (all by default):
//   poisson7-256       7-point Laplacian 256^3, PMIS + ext+i, Pmax 4
//   poisson7-256-agg   the same with one level of aggressive coarsening (the
//                      defaults: A2, two-stage ext+e; --num-paths and
//                      --aggressive-interpolation change them)
//   diffusion27-192    27-point operator 192^3
//   poisson7-64        7-point Laplacian 64^3
//   jumps3d-256        7-point diffusion 256^3 with coefficient jumps
//                      (gallery::jumps3d's defaults), not run by default:
//                      the smoother survey's second problem (no hypre row)
// --n N replaces the size of every case (quick runs on the host).
//
// Each case: a warm-up setup + solve, then `repeat` setups and solves; the
// best times are printed. PCG to a relative residual of 1e-8 (--tolerance:
// another, e.g. 1e-6 for jumps3d, whose true residual stalls near 5e-7 in
// double at 256^3), b = ones,
// x0 = 0, V(1,1) with the library's default smoother for the executor
// (auto: damped Jacobi with estimated omega on a GPU, hybrid Gauss-Seidel on
// the host; --smoother NAME takes another, l1jacobi hypre's GPU default; see
// smoother_option.hpp). --sweep-cost times one sweep of the smoother on the
// fine matrix beside one SpMV. "resetup" is
// Hierarchy::resetup with the same matrix (a value-only refresh: P's values,
// R, the Galerkin products, the smoothers and the coarse inverse), the second
// of two in a row (the first also builds the map from P's entries to R's; it
// is in the JSON as first_resetup_seconds).
// --summary prints each hierarchy; --profile adds the parts of the setup
// stages to it (one device synchronisation per part).
// --spgemm-stages makes every CUDA sparse product print its stage times
// (binning, count, fill, values per row class) to stderr.
// --spmv times y = A x on every level's A and P (ours, and cuSPARSE's CSR
// ALG1 on the device; best of 20) and prints the effective bandwidth
// (12 nnz + 8 (rows + 1) + 8 cols + 8 rows bytes): the cycle is these
// products and a few vector passes, so this is where its time goes.

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <limits>
#include <string>
#include <vector>

#include "bench_timing.hpp"
#include "smoother_option.hpp"
#include "core/cusparse_reference.hpp"
#include "core/spgemm_internal.hpp"
#include "hypre_peer.hpp"
#include "strata/strata.hpp"

namespace {

using namespace strata;
using bench::best_time;
using bench::Clock;
using bench::seconds_since;

struct Case {
  std::string name;
  std::string problem;  // poisson7, diffusion27 or jumps3d
  size_type n = 0;
  int aggressive_levels = 0;
  // The hypre peer's cases for the same problem (build-and-run.sh names);
  // the ratio is against the fastest of them.
  std::vector<std::string> hypre_cases;
};

struct Options {
  bool host = false;
  std::vector<std::string> cases;
  size_type n = 0;
  int repeat = 3;
  double tolerance = 1e-8;
  amg::Interpolation interpolation = amg::Interpolation::mm_ext_i;
  int pmax = 4;
  int stage_pmax = -1;
  int num_paths = amg::ClassicalParams{}.aggressive_num_paths;
  amg::Interpolation aggressive_interpolation = amg::ClassicalParams{}.aggressive_interpolation;
  bool summary = false;
  bool profile = false;
  bool spmv = false;
  std::string json;
  bench::HyprePeer hypre;
  bench::SmootherOption smoother{"auto"};
};

struct Result {
  Case c;
  size_type rows = 0, nnz = 0;
  int levels = 0, iterations = 0;
  double setup = 0, setup_cold = 0, solve = 0, resetup = 0, first_resetup = 0, oc = 0, gc = 0,
         residual = 0;
  bool converged = false;
  /// Why a solve did not converge (its status and true relative residual).
  std::string not_converged, single_not_converged;
  amg::HierarchySummary summary;
  /// Bytes of A's arrays, and what a hierarchy without resetup data holds.
  std::size_t matrix_bytes = 0, held_without_resetup = 0;
  /// The lean resetup (HierarchyParams::lean_resetup_data): what the
  /// hierarchy holds after setup and after a resetup, the most a resetup
  /// has in use above what was in use before it, and its time (the second
  /// of two).
  std::size_t held_lean = 0, held_lean_after_resetup = 0, lean_resetup_peak = 0;
  double lean_resetup = 0;
  /// What the full resetup data holds once the first resetup made its map
  /// from P's entries to R's.
  std::size_t held_after_resetup = 0;
  /// The single-precision cycle (HierarchyParams::cycle_precision): best
  /// setup and solve of `repeat` after one warm-up, its iterations and
  /// what the hierarchy holds with its float copies.
  double single_setup = 0, single_solve = 0;
  int single_iterations = 0;
  bool single_converged = false;
  std::size_t held_single = 0, held_single_without_resetup = 0;
  std::string single_unavailable;  // why there is no single-precision run
};

[[noreturn]] void usage(const char* message) {
  std::fprintf(stderr, "strata_bench_classical: %s\n", message);
  std::exit(2);
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const auto value = [&]() -> std::string {
      if (i + 1 >= argc) usage(("missing value after " + a).c_str());
      return argv[++i];
    };
    bool smoother_option = false;
    try {
      smoother_option = o.smoother.parse(argc, argv, i);
    } catch (const std::exception& e) {
      usage(e.what());
    }
    if (smoother_option) {
      continue;
    } else if (a == "--host") {
      o.host = true;
    } else if (a == "--case") {
      o.cases.push_back(value());
    } else if (a == "--n") {
      o.n = std::atoll(value().c_str());
    } else if (a == "--repeat") {
      o.repeat = std::max(1, std::atoi(value().c_str()));
    } else if (a == "--tolerance") {
      const std::string v = value();
      char* end = nullptr;
      o.tolerance = std::strtod(v.c_str(), &end);
      if (end == v.c_str() || *end != '\0' || !(o.tolerance > 0 && o.tolerance < 1)) {
        usage(("--tolerance takes a number in (0, 1), got " + v).c_str());
      }
    } else if (a == "--pmax") {
      o.pmax = std::atoi(value().c_str());
    } else if (a == "--stage-pmax") {
      o.stage_pmax = std::atoi(value().c_str());
    } else if (a == "--num-paths") {
      o.num_paths = std::atoi(value().c_str());
    } else if (a == "--interpolation" || a == "--aggressive-interpolation") {
      const std::string v = value();
      bool found = false;
      for (auto k : {amg::Interpolation::direct, amg::Interpolation::mm_ext,
                     amg::Interpolation::mm_ext_i, amg::Interpolation::mm_ext_e}) {
        if (v == amg::to_string(k)) {
          (a == "--interpolation" ? o.interpolation : o.aggressive_interpolation) = k;
          found = true;
        }
      }
      if (!found) usage(("unknown interpolation " + v).c_str());
    } else if (a == "--summary") {
      o.summary = true;
    } else if (a == "--profile") {
      o.profile = true;
    } else if (a == "--spgemm-stages") {
      detail::spgemm_stage_timing(true);
    } else if (a == "--spmv") {
      o.spmv = true;
    } else if (a == "--json") {
      o.json = value();
    } else if (a == "--hypre") {
      try {
        o.hypre = bench::HyprePeer::read(value());
      } catch (const std::exception& e) {
        usage(e.what());
      }
    } else {
      usage(("unknown argument " + a).c_str());
    }
  }
  return o;
}

void time_level_products(const amg::Hierarchy<double>& H, const Executor& exec) {
  std::printf("  SpMV per level: %-5s %10s %11s %6s %10s %10s %9s %9s\n", "op", "rows", "nnz",
              "nnz/r", "ours ms", "GB/s", "cuSP ms", "GB/s");
  for (int l = 0; l < H.num_levels(); ++l) {
    for (int which = 0; which < 3; ++which) {
      if (which > 0 && l + 1 == H.num_levels()) continue;
      const CsrMatrix<double> R =
          which == 2 ? transpose(H.level_interpolation(l)) : CsrMatrix<double>();
      const CsrMatrix<double>& M = which == 0   ? H.level_matrix(l)
                                   : which == 1 ? H.level_interpolation(l)
                                                : R;
      Vector<double> x(exec, M.cols(), 1.0), y(exec, M.rows(), 0.0);
      const double bytes = 12.0 * static_cast<double>(M.nnz()) +
                           8.0 * static_cast<double>(M.rows() + 1) +
                           8.0 * static_cast<double>(M.cols() + M.rows());
      const double ours = best_time(exec, 20, [&] { spmv(M, x, y); });
      double theirs = 0;
      if (exec.is_cuda()) {
        CusparseSpmv ref(M);
        theirs = best_time(exec, 20, [&] { ref.apply(1.0, x, 0.0, y); });
      }
      std::printf("  %14s%d %-3.1s %10lld %11lld %6.1f %10.4f %10.0f %9.4f %9.0f\n", "level ", l,
                  "APR" + which, (long long)M.rows(), (long long)M.nnz(),
                  static_cast<double>(M.nnz()) / static_cast<double>(M.rows()), ours * 1e3,
                  bytes / ours * 1e-9, theirs * 1e3, theirs > 0 ? bytes / theirs * 1e-9 : 0.0);
    }
  }
}

/// One timed setup of a hierarchy and one timed PCG solve with it, from
/// x = 0 (each synchronised).
struct Timed {
  std::unique_ptr<amg::Hierarchy<double>> H;
  double setup = 0, solve = 0;
  SolveInfo info;
};

Timed setup_and_solve(const std::shared_ptr<const CsrMatrix<double>>& A,
                      const amg::ClassicalParams& params, const amg::HierarchyParams& hierarchy,
                      const CsrOperator<double>& op, const Vector<double>& b, Vector<double>& x,
                      double tolerance) {
  const Executor& exec = A->executor();
  Timed t;
  exec.synchronize();
  auto t0 = Clock::now();
  t.H = std::make_unique<amg::Hierarchy<double>>(A, amg::make_classical_coarsening<double>(params),
                                                 hierarchy);
  exec.synchronize();
  t.setup = seconds_since(t0);
  x.fill(0.0);
  exec.synchronize();
  t0 = Clock::now();
  Cg cg;
  cg.params.record_history = false;
  cg.params.relative_tolerance = tolerance;
  t.info = solve(KrylovMethod{cg}, op, b, x, t.H.get());
  exec.synchronize();
  t.solve = seconds_since(t0);
  return t;
}

/// "" for a converged solve, else ", NOT CONVERGED (status, true relative
/// residual X)": jumps3d's true residual stalls near 5e-7 of ||b|| at 256^3
/// (double's attainable accuracy), which a status alone would not say.
std::string not_converged(const SolveInfo& info) {
  if (info.converged()) return "";
  char text[160];
  std::snprintf(text, sizeof text, ", NOT CONVERGED (%s, true relative residual %.2e)",
                to_string(info.status), info.true_relative_residual);
  return text;
}

Result run(const Case& c, const Options& o, const Executor& exec) {
  Result r;
  r.c = c;
  const std::shared_ptr<const CsrMatrix<double>> shared_A =
      share(c.problem == "poisson7"  ? gallery::poisson3d(exec, c.n, c.n, c.n)
            : c.problem == "jumps3d" ? gallery::jumps3d(exec, c.n, c.n, c.n)
                                     : gallery::diffusion3d_27pt(exec, c.n, c.n, c.n));
  const CsrMatrix<double>& A = *shared_A;
  r.rows = A.rows();
  r.nnz = A.nnz();
  amg::ClassicalParams params;
  params.interpolation = o.interpolation;
  params.max_elements_per_row = o.pmax;
  params.aggressive_levels = c.aggressive_levels;
  params.profile_stages = o.profile;
  params.aggressive_interpolation = o.aggressive_interpolation;
  params.aggressive_num_paths = o.num_paths;
  if (o.stage_pmax >= 0) params.aggressive_stage_max_elements = o.stage_pmax;
  CsrOperator<double> op(shared_A);
  Vector<double> b(exec, A.rows(), 1.0), x(exec, A.rows(), 0.0);
  // The main row in double; the single-precision cycle has its own line.
  const amg::HierarchyParams hierarchy{.smoother = o.smoother.smoother(exec),
                                       .cycle_precision = amg::CyclePrecision::full};
  if (o.smoother.sweep_cost) bench::print_sweep_cost(shared_A, hierarchy.smoother);
  r.setup = r.solve = r.resetup = r.first_resetup = std::numeric_limits<double>::infinity();
  for (int rep = 0; rep <= o.repeat; ++rep) {
    exec.synchronize();
    const std::size_t in_use_before = exec.memory_stats().in_use;
    Timed timed = setup_and_solve(shared_A, params, hierarchy, op, b, x, o.tolerance);
    amg::Hierarchy<double>& H = *timed.H;
    const double setup = timed.setup, solve_time = timed.solve;
    const SolveInfo& info = timed.info;
    const amg::HierarchySummary summary = H.summary();
    // The first resetup also builds the map from P's entries to R's (one
    // transpose); the second shows the steady state of repeated resetups.
    auto t0 = Clock::now();
    H.resetup();
    exec.synchronize();
    const double first_resetup = seconds_since(t0);
    const std::size_t held_after_resetup = exec.memory_stats().in_use - in_use_before;
    t0 = Clock::now();
    H.resetup();
    exec.synchronize();
    const double resetup = seconds_since(t0);
    r.first_resetup = std::min(r.first_resetup, first_resetup);
    if (o.spmv && rep == o.repeat) time_level_products(H, exec);
    if (rep == 0) {
      r.setup_cold = setup;
      continue;  // warm-up
    }
    r.setup = std::min(r.setup, setup);
    r.solve = std::min(r.solve, solve_time);
    r.resetup = std::min(r.resetup, resetup);
    r.held_after_resetup = held_after_resetup;
    r.iterations = info.iterations;
    r.converged = info.converged();
    r.not_converged = not_converged(info);
    r.residual = info.relative_residual;
    r.summary = summary;
    r.levels = H.num_levels();
    r.oc = r.summary.operator_complexity;
    r.gc = r.summary.grid_complexity;
  }
  // Issue 22's memory goals: what the hierarchy holds with resetup data
  // (the timed ones above) and without (one more setup, untimed).
  r.matrix_bytes = bench::matrix_bytes(A);
  {
    amg::HierarchyParams lean = hierarchy;
    lean.keep_resetup_data = false;
    const amg::Hierarchy<double> H(shared_A, amg::make_classical_coarsening<double>(params), lean);
    r.held_without_resetup = H.summary().setup_bytes;
  }
  {
    amg::HierarchyParams lean = hierarchy;
    lean.lean_resetup_data = true;
    const std::size_t in_use_before = exec.memory_stats().in_use;
    amg::Hierarchy<double> H(shared_A, amg::make_classical_coarsening<double>(params), lean);
    r.held_lean = H.summary().setup_bytes;
    H.resetup();
    exec.synchronize();
    exec.reset_peak_memory();
    const std::size_t in_use_resetup = exec.memory_stats().in_use;
    const auto t0 = Clock::now();
    H.resetup();
    exec.synchronize();
    r.lean_resetup = seconds_since(t0);
    r.lean_resetup_peak = exec.memory_stats().peak_in_use - in_use_resetup;
    r.held_lean_after_resetup = exec.memory_stats().in_use - in_use_before;
  }
  // The single-precision cycle takes Jacobi, l1-Jacobi and Chebyshev only
  // (Smoother::to_single); for another smoother the double run stands alone.
  try {
    amg::HierarchyParams single = hierarchy;
    single.cycle_precision = amg::CyclePrecision::single;
    r.single_setup = r.single_solve = std::numeric_limits<double>::infinity();
    for (int rep = 0; rep <= o.repeat; ++rep) {
      const Timed t = setup_and_solve(shared_A, params, single, op, b, x, o.tolerance);
      if (rep == 0) continue;  // warm-up
      r.single_setup = std::min(r.single_setup, t.setup);
      r.single_solve = std::min(r.single_solve, t.solve);
      r.single_iterations = t.info.iterations;
      r.single_converged = t.info.converged();
      r.single_not_converged = not_converged(t.info);
      r.held_single = t.H->summary().setup_bytes;
    }
    single.keep_resetup_data = false;
    const amg::Hierarchy<double> H(shared_A, amg::make_classical_coarsening<double>(params),
                                   single);
    r.held_single_without_resetup = H.summary().setup_bytes;
  } catch (const invalid_argument& e) {
    r.single_unavailable = e.what();
  }
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = parse(argc, argv);
  const Executor exec = o.host ? Executor::host() : Executor::cuda();
  std::vector<Case> all = {
      {"poisson7-256", "poisson7", 256, 0, {"7pt-256", "7pt-256-aggressive"}},
      {"poisson7-256-agg", "poisson7", 256, 1, {"7pt-256", "7pt-256-aggressive"}},
      {"diffusion27-192", "diffusion27", 192, 0, {"27pt-192"}},
      {"poisson7-64", "poisson7", 64, 0, {"7pt-64"}},
      {"jumps3d-256", "jumps3d", 256, 0, {}},
  };
  for (const auto& name : o.cases) {
    if (std::none_of(all.begin(), all.end(), [&](const Case& c) { return c.name == name; })) {
      usage(("unknown case " + name).c_str());
    }
  }
  std::vector<Case> cases;
  for (const auto& c : all) {
    const bool named = std::find(o.cases.begin(), o.cases.end(), c.name) != o.cases.end();
    if (named || (o.cases.empty() && c.problem != "jumps3d")) {
      cases.push_back(c);
      if (o.n > 0) cases.back().n = o.n;
    }
  }
  if (cases.empty()) usage("no case selected");

  std::printf("classical AMG-PCG on %s: PMIS + %s, Pmax %d, V(1,1) %s, rtol %g\n",
              exec.name().c_str(), amg::to_string(o.interpolation), o.pmax,
              o.smoother.name(exec).c_str(), o.tolerance);
  std::printf("%-18s %9s %4s %5s %6s %6s %8s %8s %8s %8s %9s | %-18s %7s\n", "case", "rows", "lev",
              "iter", "OC", "GC", "setup s", "solve s", "total s", "cold s", "resetup s",
              "hypre setup/solve/it", "ratio");
  std::vector<Result> results;
  int failed = 0;  // cases that threw or did not converge: the exit status says so
  for (const auto& c : cases) {
    Result r;
    try {
      r = run(c, o, exec);
    } catch (const std::exception& e) {
      std::printf("%-18s failed: %s\n", c.name.c_str(), e.what());
      std::fflush(stdout);
      ++failed;
      continue;
    }
    results.push_back(r);
    if (!r.converged) ++failed;
    const double total = r.setup + r.solve;
    // hypre ran at the case's own size and to 1e-8 only: no ratio for --n
    // or --tolerance runs.
    const bench::HypreRun* h =
        o.n > 0 || o.tolerance != 1e-8 ? nullptr : o.hypre.best(c.hypre_cases);
    char peer[64] = "not run";
    if (h) {
      std::snprintf(peer, sizeof peer, "%5.2f/%5.2f/%-3d %7.2f", h->setup, h->solve, h->iterations,
                    total / h->total());
    }
    std::printf("%-18s %9lld %4d %5d %6.3f %6.3f %8.4f %8.4f %8.4f %8.4f %9.4f | %s%s\n",
                c.name.c_str(), (long long)r.rows, r.levels, r.iterations, r.oc, r.gc, r.setup,
                r.solve, total, r.setup_cold, r.resetup, peer, r.not_converged.c_str());
    std::printf(
        "%-18s memory: hierarchy %.2f GB with resetup data (at most %.2f GB during setup), "
        "%.2f GB without (%.2fx A's %.2f GB)\n",
        "", double(r.summary.setup_bytes) * 1e-9, double(r.summary.setup_peak_bytes) * 1e-9,
        double(r.held_without_resetup) * 1e-9,
        double(r.held_without_resetup) / double(std::max<std::size_t>(r.matrix_bytes, 1)),
        double(r.matrix_bytes) * 1e-9);
    std::printf(
        "%-18s after a resetup %.2f GB; lean resetup data: %.2f GB after setup, %.2f GB after a "
        "resetup (%.2f GB more while it runs), resetup %.4f s\n",
        "", double(r.held_after_resetup) * 1e-9, double(r.held_lean) * 1e-9,
        double(r.held_lean_after_resetup) * 1e-9, double(r.lean_resetup_peak) * 1e-9,
        r.lean_resetup);
    if (!r.single_unavailable.empty()) {
      std::printf("%-18s single-precision cycle: not run (%s)\n", "", r.single_unavailable.c_str());
    } else {
      const double single_total = r.single_setup + r.single_solve;
      char single_peer[32] = "";
      if (h)
        std::snprintf(single_peer, sizeof single_peer, ", ratio %.2f", single_total / h->total());
      std::printf(
          "%-18s single-precision cycle: setup %.4f s, solve %.4f s, total %.4f s, %d it%s "
          "(double %.4f s, %d it)%s; holds %.2f GB with resetup data, %.2f GB without "
          "(%.2fx A)\n",
          "", r.single_setup, r.single_solve, single_total, r.single_iterations, single_peer, total,
          r.iterations, r.single_not_converged.c_str(), double(r.held_single) * 1e-9,
          double(r.held_single_without_resetup) * 1e-9,
          double(r.held_single_without_resetup) / double(std::max<std::size_t>(r.matrix_bytes, 1)));
      if (!r.single_converged) ++failed;
    }
    std::fflush(stdout);
    if (o.summary) std::printf("%s", amg::format_summary(r.summary).c_str());
  }
  std::printf(
      "ratio = strata total / the best hypre total (setup + solve), hypre run in the same "
      "call (--hypre); goal <= 0.5\n");

  if (!o.json.empty()) {
    FILE* f = std::fopen(o.json.c_str(), "w");
    if (!f) usage(("cannot write " + o.json).c_str());
    std::fprintf(f,
                 "{\"executor\": \"%s\", \"interpolation\": \"%s\", \"pmax\": %d, "
                 "\"smoother\": \"%s\", \"cases\": [",
                 exec.name().c_str(), amg::to_string(o.interpolation), o.pmax,
                 o.smoother.name(exec).c_str());
    for (std::size_t i = 0; i < results.size(); ++i) {
      const Result& r = results[i];
      std::fprintf(
          f,
          "%s\n  {\"name\": \"%s\", \"rows\": %lld, \"nnz\": %lld, \"levels\": %d, "
          "\"iterations\": %d, \"converged\": %s, \"operator_complexity\": %.4f, "
          "\"grid_complexity\": %.4f, \"setup_seconds\": %.5f, \"setup_cold_seconds\": %.5f, "
          "\"solve_seconds\": %.5f, \"resetup_seconds\": %.5f, \"first_resetup_seconds\": %.5f, ",
          i ? "," : "", r.c.name.c_str(), (long long)r.rows, (long long)r.nnz, r.levels,
          r.iterations, r.converged ? "true" : "false", r.oc, r.gc, r.setup, r.setup_cold, r.solve,
          r.resetup, r.first_resetup);
      if (const bench::HypreRun* h = o.n > 0 ? nullptr : o.hypre.best(r.c.hypre_cases)) {
        std::fprintf(f,
                     "\"hypre\": {\"case\": \"%s\", \"setup_seconds\": %.3f, "
                     "\"solve_seconds\": %.3f, \"iterations\": %d}, ",
                     h->name.c_str(), h->setup, h->solve, h->iterations);
      }
      std::fprintf(f,
                   "\"memory_bytes\": {\"matrix\": %zu, \"with_resetup_data\": %zu, "
                   "\"after_resetup\": %zu, \"setup_peak\": %zu, \"without_resetup_data\": %zu, "
                   "\"lean\": %zu, \"lean_after_resetup\": %zu, \"lean_resetup_extra\": %zu}, "
                   "\"lean_resetup_seconds\": %.5f, ",
                   r.matrix_bytes, r.summary.setup_bytes, r.held_after_resetup,
                   r.summary.setup_peak_bytes, r.held_without_resetup, r.held_lean,
                   r.held_lean_after_resetup, r.lean_resetup_peak, r.lean_resetup);
      std::fprintf(f, "\"setup_stage_seconds\": {");
      bool first = true;
      for (const auto& [stage, s] : r.summary.setup_stage_seconds) {
        std::fprintf(f, "%s\"%s\": %.5f", first ? "" : ", ", stage.c_str(), s);
        first = false;
      }
      std::fprintf(f, "}, \"levels_rows\": [");
      for (std::size_t l = 0; l < r.summary.levels.size(); ++l) {
        std::fprintf(f, "%s%lld", l ? ", " : "", (long long)r.summary.levels[l].rows);
      }
      std::fprintf(f, "]}");
    }
    std::fprintf(f, "\n]}\n");
    std::fclose(f);
  }
  if (failed > 0) {
    std::printf("%d of %zu cases failed or did not converge\n", failed, cases.size());
    return 1;
  }
  return 0;
}
