// Aggregation AMG benchmark (the aggregation paper on the device): setup,
// solve, iterations, value-only resetup and complexities for
//   K-cycle + FCG   aggregation, K-cycles on 2 levels, damped Jacobi 4/(3 rho)
//   V-cycle + PCG   aggregation, V-cycles, the same smoother
//   classical + PCG classical AMG (PMIS, ext+i, V-cycle with the device's
//                   default smoother, damped Jacobi 4/(3 rho)), when built
// side by side, on the 7-point Laplacian (256^3) and the 27-point operator
// (192^3), beside hypre's best on the same GPU in the same call when
// --hypre FILE gives the peer's output (scripts/gpu-check); the K-cycle's
// iterations from 64^3 to 256^3 (grid independence); and the hierarchy of
// the 2D anisotropic problem on 1000 x 1000 (the paper's Table 1).
//
//   strata_bench_aggregation [--case poisson7|diffusion27|scaling|aniso]...
//                            [--n7 N] [--n27 N] [--na N] [--repeat R]
//                            [--host] [--no-classical] [--json FILE]
//                            [--smoother NAME] [--gs-block-rows N] [--gs-inner-sweeps N]
//                            [--gs-omega W] [--gs-l1] [--jacobi-estimate] [--sweep-cost]
//
// --smoother NAME replaces the smoother of every configuration (auto: the
// library's default for the executor; see smoother_option.hpp);
// --sweep-cost times one sweep of it beside one SpMV on each fine matrix.
//
// Times: setup and resetup are the best of R runs after a warm-up; the solve
// is the best of two after a warm-up solve. Right-hand side ones, x0 = 0,
// relative tolerance 1e-8 on ||b - A x|| / ||b||.

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "bench_timing.hpp"
#include "hypre_peer.hpp"
#include "amg_timing.hpp"
#include "smoother_option.hpp"
#include "strata/amg/aggregation.hpp"
#include "strata/amg/amg.hpp"
#include "strata/amg/classical.hpp"
#include "strata/gallery/gallery.hpp"
#include "strata/solver/krylov.hpp"

namespace {

using namespace strata;
using bench::Clock;
using bench::seconds_since;

struct Options {
  std::vector<std::string> cases;
  size_type n7 = 256, n27 = 192, na = 1000;
  int repeat = 3;
  bool host = false;
  bool classical = true;
  std::string json;
  bench::HyprePeer hypre;
  bench::SmootherOption smoother{"auto"};
  bool smoother_given = false;
};

struct Result {
  std::string problem, config;
  size_type rows = 0, nnz = 0;
  int levels = 0, iterations = 0;
  bool converged = false;
  double setup = 0, solve = 0, resetup = 0, relative_residual = 0;
  double operator_complexity = 0, grid_complexity = 0;
  amg::StageTimes stages, resetup_stages;
};

struct Config {
  std::string name;
  std::function<std::unique_ptr<amg::Coarsening<double>>()> coarsening;
  amg::HierarchyParams params;
  KrylovMethod method;
};

KrylovParams tolerance() {
  KrylovParams p;
  p.relative_tolerance = 1e-8;
  p.max_iterations = 1000;
  p.record_history = false;
  return p;
}

/// `smoother`, when given, replaces every configuration's smoother.
std::vector<Config> configs(int dimension, bool with_classical,
                            const std::optional<SmootherParams>& smoother = std::nullopt) {
  // Double unless a row says fp32 (automatic would take single at 256^3).
  amg::HierarchyParams k;
  k.cycle_precision = amg::CyclePrecision::full;
  k.cycle = amg::CycleType::K;
  k.smoother = JacobiParams{.estimate_omega = true};
  amg::HierarchyParams v = k;
  v.cycle = amg::CycleType::V;
  const auto aggregation = [dimension] {
    return amg::make_aggregation_coarsening<double>({.dimension = dimension});
  };
  amg::HierarchyParams k3 = k;
  k3.kcycle_levels = 3;
  std::vector<Config> out = {{"K-cycle + FCG", aggregation, k, Fcg{tolerance()}},
                             {"K(3 levels) + FCG", aggregation, k3, Fcg{tolerance()}},
                             {"V-cycle + PCG", aggregation, v, Cg{tolerance()}}};
  if (with_classical) {
    // The device's default smoother on the host too: the host's default
    // Gauss-Seidel has no single-precision form for the fp32 row below.
    amg::HierarchyParams c{.cycle_precision = amg::CyclePrecision::full};
    c.smoother = amg::default_smoother(Location::cuda);
    out.push_back({"classical V + PCG",
                   [] { return amg::make_classical_coarsening<double>(amg::ClassicalParams{}); }, c,
                   Cg{tolerance()}});
  }
  if (smoother) {
    for (auto& c : out) c.params.smoother = *smoother;
  }
  // The single-precision cycle (issue 22, item 4) of the K-cycle and of
  // classical AMG, under the same Krylov methods in double.
  amg::HierarchyParams k_single = out.front().params;
  k_single.cycle_precision = amg::CyclePrecision::single;
  out.push_back({"K fp32 + FCG", aggregation, k_single, Fcg{tolerance()}});
  if (with_classical) {
    amg::HierarchyParams c_single = out[out.size() - 2].params;
    c_single.cycle_precision = amg::CyclePrecision::single;
    out.push_back({"classical fp32+PCG",
                   [] { return amg::make_classical_coarsening<double>(amg::ClassicalParams{}); },
                   c_single, Cg{tolerance()}});
  }
  return out;
}

Result run(const std::string& problem, const std::shared_ptr<const CsrMatrix<double>>& shared_A,
           const Config& c, const Options& o, bool print_hierarchy) {
  const CsrMatrix<double>& A = *shared_A;
  const Executor& exec = A.executor();
  Result r;
  r.problem = problem;
  r.config = c.name;
  r.rows = A.rows();
  r.nnz = A.nnz();
  // Setup: a warm-up, then the best of `repeat`.
  std::unique_ptr<amg::Hierarchy<double>> H;
  r.setup = bench::time_setup(exec, o.repeat, H, [&] {
    return std::make_unique<amg::Hierarchy<double>>(shared_A, c.coarsening(), c.params);
  });
  const auto summary = H->summary();
  r.levels = H->num_levels();
  r.operator_complexity = summary.operator_complexity;
  r.grid_complexity = summary.grid_complexity;
  r.stages = summary.setup_stage_seconds;
  if (print_hierarchy) std::printf("%s", amg::format_summary(summary).c_str());
  // Solve: a warm-up, then the best of two.
  CsrOperator<double> op(shared_A);
  Vector<double> b(exec, A.rows(), 1.0), x(exec, A.rows(), 0.0);
  r.solve = std::numeric_limits<double>::infinity();
  SolveInfo info;
  for (int rep = 0; rep < 3; ++rep) {
    x.fill(0.0);
    exec.synchronize();
    const auto t0 = Clock::now();
    info = solve(c.method, op, b, x, H.get());
    exec.synchronize();
    if (rep > 0) r.solve = std::min(r.solve, seconds_since(t0));
  }
  r.iterations = info.iterations;
  r.converged = info.converged();
  Vector<double> res(exec, A.rows());
  spmv(A, x, res);
  axpby(1.0, b, -1.0, res);
  r.relative_residual = norm2(res) / norm2(b);
  // Value-only resetup (same values: the Newton-step path).
  const bench::ResetupTiming resetup = bench::time_resetup(exec, *H, o.repeat, r.stages);
  r.resetup = resetup.seconds;
  r.resetup_stages = resetup.stages;
  return r;
}

void print_header() {
  std::printf("%-14s %-18s %10s %5s %5s %9s %9s %9s %9s %8s %6s %6s\n", "problem", "config", "rows",
              "lvls", "its", "setup s", "solve s", "total s", "resetup s", "speedup", "opcx",
              "gridcx");
}

void print_row(const Result& r) {
  std::printf("%-14s %-18s %10lld %5d %5d %9.4f %9.4f %9.4f %9.4f %7.1fx %6.3f %6.3f%s\n",
              r.problem.c_str(), r.config.c_str(), (long long)r.rows, r.levels, r.iterations,
              r.setup, r.solve, r.setup + r.solve, r.resetup, r.setup / r.resetup,
              r.operator_complexity, r.grid_complexity, r.converged ? "" : "  NOT CONVERGED");
}

// Strata's totals against hypre's best on the same problem, when the peer
// ran it in the same call (scripts/gpu-check: --hypre).
void print_hypre_ratios(const bench::HyprePeer& hypre, bool poisson7, size_type n,
                        const std::vector<Result>& local) {
  const std::string size = std::to_string(n);
  const bench::HypreRun* h =
      hypre.best(poisson7 ? std::vector<std::string>{"7pt-" + size, "7pt-" + size + "-aggressive"}
                          : std::vector<std::string>{"27pt-" + size});
  if (h == nullptr) {
    std::printf("  hypre: not run in this call at this size (--hypre FILE)\n");
    return;
  }
  std::printf(
      "  hypre best (%s, same call): setup %.2f s + solve %.2f s = %.2f s, %d it; "
      "strata total / hypre total:",
      h->name.c_str(), h->setup, h->solve, h->total(), h->iterations);
  for (const auto& r : local)
    std::printf(" %s %.2f", r.config.c_str(), (r.setup + r.solve) / h->total());
  std::printf("\n");
}

void print_stages(const Result& r) {
  std::printf("    %s / %s setup stages:", r.problem.c_str(), r.config.c_str());
  for (const auto& [stage, s] : r.stages) std::printf(" %s %.4f", stage.c_str(), s);
  std::printf("\n      resetup stages (mean):");
  for (const auto& [stage, s] : r.resetup_stages) std::printf(" %s %.4f", stage.c_str(), s);
  std::printf("\n");
}

std::string json_result(const Result& r) {
  char buffer[1024];
  std::snprintf(buffer, sizeof buffer,
                "{\"problem\": \"%s\", \"config\": \"%s\", \"rows\": %lld, \"nnz\": %lld, "
                "\"levels\": %d, \"iterations\": %d, \"converged\": %s, "
                "\"relative_residual\": %.3e, \"setup_seconds\": %.6f, \"solve_seconds\": %.6f, "
                "\"resetup_seconds\": %.6f, \"resetup_speedup\": %.3f, "
                "\"operator_complexity\": %.4f, \"grid_complexity\": %.4f, \"setup_stages\": {",
                r.problem.c_str(), r.config.c_str(), (long long)r.rows, (long long)r.nnz, r.levels,
                r.iterations, r.converged ? "true" : "false", r.relative_residual, r.setup, r.solve,
                r.resetup, r.setup / r.resetup, r.operator_complexity, r.grid_complexity);
  std::string out = buffer;
  bool first = true;
  for (const auto& [stage, s] : r.stages) {
    std::snprintf(buffer, sizeof buffer, "%s\"%s\": %.6f", first ? "" : ", ", stage.c_str(), s);
    out += buffer;
    first = false;
  }
  return out + "}}";
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "%s needs a value\n", a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    bool smoother_option = false;
    try {
      smoother_option = o.smoother.parse(argc, argv, i);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "%s\n", e.what());
      std::exit(2);
    }
    if (smoother_option) {
      o.smoother_given = o.smoother_given || a != "--sweep-cost";
    } else if (a == "--case")
      o.cases.push_back(value());
    else if (a == "--n7")
      o.n7 = std::atoll(value().c_str());
    else if (a == "--n27")
      o.n27 = std::atoll(value().c_str());
    else if (a == "--na")
      o.na = std::atoll(value().c_str());
    else if (a == "--repeat")
      o.repeat = std::max(1, std::atoi(value().c_str()));
    else if (a == "--host")
      o.host = true;
    else if (a == "--no-classical")
      o.classical = false;
    else if (a == "--json")
      o.json = value();
    else if (a == "--hypre") {
      try {
        o.hypre = bench::HyprePeer::read(value());
      } catch (const std::exception& e) {
        std::fprintf(stderr, "%s\n", e.what());
        std::exit(2);
      }
    } else {
      std::fprintf(stderr,
                   "usage: %s [--case poisson7|diffusion27|scaling|aniso]... [--n7 N] [--n27 N] "
                   "[--na N] [--repeat R] [--host] [--no-classical] [--json FILE] [--hypre FILE]\n",
                   argv[0]);
      std::exit(2);
    }
  }
  if (o.cases.empty()) o.cases = {"poisson7", "diffusion27", "scaling", "aniso"};
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = parse(argc, argv);
  const Executor exec = o.host ? Executor::host() : Executor::cuda();
  std::printf("aggregation AMG benchmark on %s\n", exec.name().c_str());
  const std::optional<SmootherParams> given_smoother =
      o.smoother_given ? std::optional(o.smoother.smoother(exec)) : std::nullopt;
  if (given_smoother) std::printf("smoother: %s\n", smoother_name(*given_smoother).c_str());
  std::vector<Result> results;
  int failed = 0;  // runs that threw; those that did not converge are counted below
  for (const auto& c : o.cases) {
    if (c == "poisson7" || c == "diffusion27") {
      const bool p7 = c == "poisson7";
      const size_type n = p7 ? o.n7 : o.n27;
      const std::shared_ptr<const CsrMatrix<double>> A =
          share(p7 ? gallery::poisson3d(exec, n, n, n) : gallery::diffusion3d_27pt(exec, n, n, n));
      const std::string name = c + " " + std::to_string(n) + "^3";
      std::printf("\n%s: %lld rows, %lld nonzeros\n", name.c_str(), (long long)A->rows(),
                  (long long)A->nnz());
      std::vector<Result> local;
      bool first = true;
      if (o.smoother.sweep_cost) bench::print_sweep_cost(A, o.smoother.smoother(exec));
      for (const auto& config : configs(3, o.classical, given_smoother)) {
        try {
          local.push_back(run(name, A, config, o, first));
        } catch (const std::exception& e) {
          std::printf("  %s failed: %s\n", config.name.c_str(), e.what());
          ++failed;
        }
        first = false;
      }
      print_header();
      for (const auto& r : local) print_row(r);
      print_hypre_ratios(o.hypre, p7, n, local);
      for (const auto& r : local) print_stages(r);
      results.insert(results.end(), local.begin(), local.end());
    } else if (c == "scaling") {
      std::printf("\nK-cycles (2 and 3 levels) + FCG on the 7-point Laplacian, growing n\n");
      print_header();
      for (size_type n : {size_type{64}, size_type{128}, o.n7}) {
        if (n > o.n7) continue;
        const std::shared_ptr<const CsrMatrix<double>> A = share(gallery::poisson3d(exec, n, n, n));
        Options once = o;
        once.repeat = 1;
        for (int config : {0, 1}) {
          const auto r = run("poisson7 " + std::to_string(n) + "^3", A, configs(3, false, given_smoother)[config],
                             once, false);
          print_row(r);
          results.push_back(r);
        }
      }
    } else if (c == "aniso") {
      const std::shared_ptr<const CsrMatrix<double>> A =
          share(gallery::anisotropic2d(exec, o.na, o.na, 0.001, 0.0));
      std::printf("\naniso2d %lld x %lld (epsilon 0.001): the paper's Table 1\n", (long long)o.na,
                  (long long)o.na);
      const auto r = run("aniso2d " + std::to_string(o.na), A, configs(2, false, given_smoother)[0], o, true);
      print_header();
      print_row(r);
      results.push_back(r);
    } else {
      std::fprintf(stderr, "unknown case %s\n", c.c_str());
      return 2;
    }
  }
  if (!o.json.empty()) {
    FILE* f = std::fopen(o.json.c_str(), "w");
    if (!f) {
      std::fprintf(stderr, "cannot write %s\n", o.json.c_str());
      return 1;
    }
    std::fprintf(f, "{\"benchmark\": \"aggregation_amg\", \"backend\": \"%s\", \"results\": [\n",
                 exec.name().c_str());
    for (std::size_t i = 0; i < results.size(); ++i) {
      std::fprintf(f, "  %s%s\n", json_result(results[i]).c_str(),
                   i + 1 < results.size() ? "," : "");
    }
    std::fprintf(f, "]}\n");
    std::fclose(f);
  }
  for (const auto& r : results) failed += r.converged ? 0 : 1;
  if (failed > 0) {
    std::printf("%d runs failed or did not converge\n", failed);
    return 1;
  }
  return 0;
}
