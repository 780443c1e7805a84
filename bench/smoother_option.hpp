#pragma once
// The benchmarks' smoother options, read through the configuration layer so
// that names, ranges and errors are the library's own:
//   --smoother NAME        auto, jacobi, l1jacobi, chebyshev, gs, sgs,
//                          multicolor_gs, multicolor_sgs, two_stage_gs,
//                          two_stage_sgs (preconditioner.amg.smoother)
//   --gs-block-rows N      hybrid Gauss-Seidel rows per block
//   --gs-inner-sweeps N    two-stage Gauss-Seidel inner Jacobi sweeps
//   --gs-omega W           weight of every Gauss-Seidel kind
//   --gs-l1                two-stage Gauss-Seidel with row l1 norms for D
//   --jacobi-estimate      jacobi with omega scaled by 4 / (3 rho(D^-1 A))
//                          (what auto runs on the device)
//   --sweep-cost           time one smoothing sweep on level 0 beside one SpMV
// and the sweep-cost measurement (issue 16 item 6).

#include <cstdio>
#include <string>

#include "bench_timing.hpp"
#include "strata/strata.hpp"

namespace strata::bench {

struct SmootherOption {
  config::SolverConfig cfg;
  bool sweep_cost = false;

  SmootherOption(const char* default_name) {
    set("preconditioner.amg.smoother", default_name, "--smoother");
  }

  /// Reads the option at argv[i] (and its value, advancing i); false when
  /// argv[i] is not one of these options.
  bool parse(int argc, char** argv, int& i) {
    const std::string a = argv[i];
    const auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw invalid_argument("missing value after " + a);
      return argv[++i];
    };
    if (a == "--smoother") {
      set("preconditioner.amg.smoother", value(), a);
    } else if (a == "--gs-block-rows") {
      set("preconditioner.gauss_seidel.block_rows", value(), a);
    } else if (a == "--gs-inner-sweeps") {
      set("preconditioner.two_stage_gs.inner_sweeps", value(), a);
    } else if (a == "--gs-omega") {
      const std::string w = value();
      for (const char* p : {"preconditioner.gauss_seidel.omega", "preconditioner.multicolor_gs.omega",
                            "preconditioner.two_stage_gs.omega"}) {
        set(p, w, a);
      }
    } else if (a == "--gs-l1") {
      set("preconditioner.two_stage_gs.l1", "true", a);
    } else if (a == "--jacobi-estimate") {
      set("preconditioner.jacobi.estimate_omega", "true", a);
    } else if (a == "--sweep-cost") {
      sweep_cost = true;
    } else {
      return false;
    }
    return true;
  }

  /// The smoother for levels on `exec`.
  SmootherParams smoother(const Executor& exec) const {
    return config::amg_smoother(cfg, exec);
  }
  std::string name(const Executor& exec) const {
    return smoother_name(smoother(exec));
  }

 private:
  void set(const char* path, const std::string& text, const std::string& where) {
    config::set_parameter_from_text(cfg, *config::find_parameter(path), text,
                                            where);
  }
};

/// Times one sweep of `smoother` on A (best of `repeat`) beside one SpMV and
/// prints both: the per-sweep cost of issue 16 item 6.
inline void print_sweep_cost(const std::shared_ptr<const CsrMatrix<double>>& A,
                             const SmootherParams& smoother, int repeat = 10) {
  const Executor& exec = A->executor();
  auto S = make_smoother(A, smoother);
  Vector<double> b(exec, A->rows(), 1.0), x(exec, A->rows(), 0.0), y(exec, A->rows(), 0.0);
  const double spmv_s = best_time(exec, repeat, [&] { spmv(*A, x, y); });
  const double sweep_s = best_time(exec, repeat, [&] { S->smooth(b, x, 1); });
  std::printf("  sweep cost on %lld rows: %s %.4f ms, SpMV %.4f ms, ratio %.2f (%s)\n",
              static_cast<long long>(A->rows()), smoother_name(smoother).c_str(), sweep_s * 1e3,
              spmv_s * 1e3, sweep_s / spmv_s, S->describe().c_str());
}

}  // namespace strata::bench
