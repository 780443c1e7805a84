// Blocked smoothed aggregation benchmark (issue 23): elasticity3d with its
// rigid-body modes, as BSR 3x3, on the device (or --host). For each size it
// prints the setup time, the value-only resetup time and their ratio (the
// issue's target: resetup at least 5x faster than setup at n = 64), PCG
// iterations and solve time with the V-cycle smoothed by l1-Jacobi and by
// Chebyshev, the levels and the operator complexity, and the setup's stage
// times.
//
//   strata_bench_smoothed_aggregation [--n N]... [--repeat R] [--host]
//                                     [--theta T] [--unsmoothed]
//
// Times: setup and resetup are the best of R runs after a warm-up; the
// solve is the best of two after a warm-up. Right-hand side ones, x0 = 0,
// relative tolerance 1e-8.

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "bench_timing.hpp"
#include "strata/amg/amg.hpp"
#include "strata/amg/smoothed_aggregation.hpp"
#include "strata/gallery/gallery.hpp"
#include "strata/solver/krylov.hpp"

namespace {

using namespace strata;

struct Options {
  std::vector<size_type> sizes;
  int repeat = 3;
  bool host = false;
  double theta = amg::SmoothedAggregationParams{}.strength_threshold;
  bool smooth = true;
};

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    auto value = [&]() -> const char* {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "%s needs a value\n", argv[i]);
        std::exit(2);
      }
      return argv[++i];
    };
    if (!std::strcmp(argv[i], "--n")) {
      o.sizes.push_back(std::atoll(value()));
    } else if (!std::strcmp(argv[i], "--repeat")) {
      o.repeat = std::atoi(value());
    } else if (!std::strcmp(argv[i], "--host")) {
      o.host = true;
    } else if (!std::strcmp(argv[i], "--theta")) {
      o.theta = std::atof(value());
    } else if (!std::strcmp(argv[i], "--unsmoothed")) {
      o.smooth = false;
    } else {
      std::fprintf(stderr,
                   "usage: %s [--n N]... [--repeat R] [--host] [--theta T] [--unsmoothed]\n",
                   argv[0]);
      std::exit(2);
    }
  }
  if (o.sizes.empty()) o.sizes = {32, 64};
  return o;
}

void run(const Options& o, size_type n) {
  const Executor exec = o.host ? Executor::host() : Executor::cuda();
  const auto problem = gallery::elasticity3d(exec, n);
  auto A = std::make_shared<BsrMatrix<double>>(to_bsr(problem.A, 3));
  const auto level = std::make_shared<const BsrOperator<double>>(A);
  const amg::SmoothedAggregationParams params{.strength_threshold = o.theta,
                                              .smooth_prolongator = o.smooth};
  for (bool chebyshev : {false, true}) {
    amg::HierarchyParams hp;
    if (chebyshev) hp.smoother = ChebyshevParams{};
    std::unique_ptr<amg::Hierarchy<double>> H;
    const double setup = bench::best_time(exec, o.repeat, [&] {
      H.reset();
      H = std::make_unique<amg::Hierarchy<double>>(
          level,
          amg::make_smoothed_aggregation_coarsening<double>(
              params, amg::rigid_body_modes(problem.coordinates, 3)),
          hp);
    });
    const auto setup_summary = H->summary();  // one setup's stages, before any resetup
    const double resetup = bench::best_time(exec, o.repeat, [&] { H->resetup(); });
    CsrOperator<double> op(std::make_shared<const CsrMatrix<double>>(problem.A.clone()));
    Vector<double> b(exec, problem.A.rows(), 1.0), x(exec, problem.A.rows(), 0.0);
    KrylovParams kp;
    kp.relative_tolerance = 1e-8;
    SolveInfo info;
    const double solve = bench::best_time(exec, 1, [&] {
      x.fill(0.0);
      info = strata::solve(KrylovMethod{Cg{kp}}, op, b, x, H.get());
    });
    const auto& summary = setup_summary;
    if (!chebyshev) std::printf("%s\n", summary.coarsening.c_str());
    std::printf(
        "elasticity3d %4lld (%9lld rows) %-10s setup %8.4f s  resetup %8.4f s  ratio %5.1f  "
        "PCG %3d its %8.4f s  %d levels  opcx %.2f  %s\n",
        (long long)n, (long long)problem.A.rows(), chebyshev ? "Chebyshev" : "l1-Jacobi", setup,
        resetup, setup / resetup, info.iterations, solve, H->num_levels(),
        summary.operator_complexity, info.converged() ? "" : "(not converged)");
    std::printf("    setup stages:");
    for (const auto& [stage, seconds] : summary.setup_stage_seconds) {
      std::printf(" %s %.4f", stage.c_str(), seconds);
    }
    std::printf("\n");
  }
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = parse(argc, argv);
  if (!o.host && !cuda_available()) {
    std::fprintf(stderr, "no CUDA device: run with --host\n");
    return 1;
  }
  for (size_type n : o.sizes) run(o, n);
  return 0;
}
