// Elasticity benchmark (issue 23, the blocked GAMG paper): 3D linear
// elasticity (gallery::elasticity3d, 3 unknowns per node) solved by PCG to
// 1e-8 with
//   SA l1-Jacobi     blocked smoothed aggregation (BSR levels, rigid-body
//                    modes from the node coordinates) with point-block
//                    l1-Jacobi smoothing
//   SA Chebyshev     the same hierarchy with point-block Chebyshev (what the
//                    configuration's "auto" smoother is for SA)
//   SA unsmoothed    the blocked tentative prolongator only, Chebyshev
//   classical scalar classical AMG on the CSR matrix (what users had before)
// with setup, solve, iterations, value-only resetup (the target: at
// least 5x faster than setup at n = 64), the stage times of one setup and
// one resetup, complexities and the hierarchy's memory; beside hypre BoomerAMG's systems configurations
// (-nf 3) on the same matrix when --hypre FILE holds the peer's runs of the
// same call (scripts/gpu-check writes the matrix for hypre's ij driver with
// --write-ij and runs it just before).
//
//   strata_bench_elasticity [--n N]... [--repeat R] [--host] [--no-scalar]
//                           [--hypre FILE] [--write-ij PREFIX]
//
// --write-ij PREFIX writes the matrix of the first --n in hypre's IJ format
// (PREFIX.00000: "ilower iupper jlower jupper", then "i j value" lines,
// 0-based; what `ij -fromfile PREFIX` reads) and exits.
//
// Times: setup and resetup are the best of R runs after a warm-up; the solve
// the best of two after a warm-up. b = ones, x0 = 0, relative tolerance 1e-8
// on ||b - A x|| / ||b||.

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "bench_timing.hpp"
#include "hypre_peer.hpp"
#include "amg_timing.hpp"
#include "strata/amg/amg.hpp"
#include "strata/amg/classical.hpp"
#include "strata/amg/smoothed_aggregation.hpp"
#include "strata/gallery/gallery.hpp"
#include "strata/matrix/bsr.hpp"
#include "strata/solver/krylov.hpp"

namespace {

using namespace strata;
using bench::Clock;
using bench::seconds_since;

struct Options {
  std::vector<size_type> sizes;
  int repeat = 2;
  bool host = false;
  bool scalar = true;
  bench::HyprePeer hypre;
  std::string write_ij;
};

struct Result {
  std::string config;
  size_type n = 0, rows = 0;
  int levels = 0, iterations = 0;
  bool converged = false;
  double setup = 0, solve = 0, resetup = 0, relative_residual = 0;
  double operator_complexity = 0, grid_complexity = 0;
  std::size_t bytes = 0;
  std::string blocks;  // block size per level, "3x3 6x6 ..."
  amg::StageTimes stages, resetup_stages;  // one setup's, one resetup's
};

struct Config {
  std::string name;
  bool blocked = true;
  std::function<std::unique_ptr<amg::Coarsening<double>>(const gallery::ElasticityProblem&)>
      coarsening;
  amg::HierarchyParams params;
  size_type max_n = std::numeric_limits<size_type>::max();  // larger n skipped (slow configs)
};

std::vector<Config> configs(const Executor& exec, bool scalar) {
  const auto sa = [](bool smooth) {
    return [smooth](const gallery::ElasticityProblem& p) {
      amg::SmoothedAggregationParams params;
      params.smooth_prolongator = smooth;
      return amg::make_smoothed_aggregation_coarsening<double>(
          params, amg::rigid_body_modes(p.coordinates, 3));
    };
  };
  amg::HierarchyParams l1;
  l1.smoother = L1JacobiParams{};
  amg::HierarchyParams cheby;
  cheby.smoother = ChebyshevParams{};
  amg::HierarchyParams defaults;
  defaults.smoother = amg::default_smoother(exec);
  std::vector<Config> out = {{"SA l1-Jacobi", true, sa(true), l1},
                             {"SA Chebyshev", true, sa(true), cheby},
                             {"SA unsmoothed", true, sa(false), cheby}};
  if (scalar) {
    out.push_back({"classical scalar", false,
                   [](const gallery::ElasticityProblem&) {
                     return amg::make_classical_coarsening<double>(amg::ClassicalParams{});
                   },
                   defaults, 64});
  }
  return out;
}

std::string level_blocks(const amg::Hierarchy<double>& H) {
  std::string s;
  for (int l = 0; l < H.num_levels(); ++l) {
    std::string kind = H.level_operator(l).kind();
    if (kind.rfind("BSR ", 0) == 0) kind = kind.substr(4);
    s += (l ? " " : "") + kind;
  }
  return s;
}

Result run(const gallery::ElasticityProblem& problem, size_type n,
           const std::shared_ptr<const LevelOperator<double>>& op, const Config& c,
           const Options& o) {
  const Executor& exec = op->executor();
  Result r;
  r.config = c.name;
  r.n = n;
  r.rows = op->rows();
  std::unique_ptr<amg::Hierarchy<double>> H;
  r.setup = bench::time_setup(exec, o.repeat, H, [&] {
    return std::make_unique<amg::Hierarchy<double>>(op, c.coarsening(problem), c.params);
  });
  const auto summary = H->summary();
  r.levels = H->num_levels();
  r.operator_complexity = summary.operator_complexity;
  r.grid_complexity = summary.grid_complexity;
  r.bytes = summary.setup_bytes;
  r.blocks = level_blocks(*H);
  r.stages = summary.setup_stage_seconds;
  KrylovParams tol;
  tol.relative_tolerance = 1e-8;
  tol.max_iterations = 1000;
  tol.record_history = false;
  Vector<double> b(exec, op->rows(), 1.0), x(exec, op->rows(), 0.0);
  SolveInfo info;
  r.solve = std::numeric_limits<double>::infinity();
  for (int rep = 0; rep < 3; ++rep) {
    x.fill(0.0);
    exec.synchronize();
    const auto t0 = Clock::now();
    info = solve(KrylovMethod{Cg{tol}}, *op, b, x, H.get());
    exec.synchronize();
    if (rep > 0) r.solve = std::min(r.solve, seconds_since(t0));
  }
  r.iterations = info.iterations;
  r.converged = info.converged();
  Vector<double> res(exec, op->rows());
  op->residual(b, x, res);
  r.relative_residual = norm2(res) / norm2(b);
  // Value-only resetup (same values: the Newton-step path).
  const bench::ResetupTiming resetup = bench::time_resetup(exec, *H, o.repeat, r.stages);
  r.resetup = resetup.seconds;
  r.resetup_stages = resetup.stages;
  return r;
}

void print_stages(const Result& r) {
  std::printf("      %-18s setup stages:", r.config.c_str());
  for (const auto& [stage, s] : r.stages) std::printf(" %s %.4f", stage.c_str(), s);
  std::printf("\n      %-18s resetup stages:", "");
  for (const auto& [stage, s] : r.resetup_stages) std::printf(" %s %.4f", stage.c_str(), s);
  std::printf("\n");
}

void print_header() {
  std::printf("%-5s %-18s %9s %4s %5s %8s %8s %8s %8s %7s %6s %8s  %s\n", "n", "config", "rows",
              "lvls", "its", "setup s", "solve s", "total s", "resetup", "su/rsu", "opcx",
              "MB", "blocks per level");
}

void print_row(const Result& r) {
  std::printf("%-5lld %-18s %9lld %4d %5d %8.4f %8.4f %8.4f %8.4f %6.1fx %6.3f %8.0f  %s%s\n",
              (long long)r.n, r.config.c_str(), (long long)r.rows, r.levels, r.iterations, r.setup,
              r.solve, r.setup + r.solve, r.resetup, r.setup / r.resetup, r.operator_complexity,
              r.bytes / 1e6, r.blocks.c_str(), r.converged ? "" : "  NOT CONVERGED");
}

/// Strata's best blocked total against hypre's best systems configuration
/// on the same matrix, when the peer ran it in this call.
void print_hypre_ratio(const bench::HyprePeer& hypre, size_type n, const std::vector<Result>& rs) {
  const std::string s = std::to_string(n);
  const bench::HypreRun* h = hypre.best({"elast-" + s + "-nf3-l1", "elast-" + s + "-nf3-cheby"});
  if (h == nullptr) {
    std::printf("hypre: no run of elasticity3d n=%s in this call (no ratio)\n", s.c_str());
    return;
  }
  for (const Result& r : rs) {
    if (r.config.rfind("SA ", 0) != 0 || !r.converged) continue;
    std::printf("elasticity3d-%s %-18s %3d it  setup %.4f solve %.4f total %.4f | hypre %s "
                "%.2f/%.2f/%d  ratio %.2f\n",
                s.c_str(), r.config.c_str(), r.iterations, r.setup, r.solve, r.setup + r.solve,
                h->name.c_str(), h->setup, h->solve, h->iterations,
                (r.setup + r.solve) / h->total());
  }
}

/// hypre's IJ text format for one process (see the file comment).
void write_ij(const CsrMatrix<double>& device_A, const std::string& prefix) {
  const CsrMatrix<double> A = device_A.to(Executor::host());
  const std::string path = prefix + ".00000";
  FILE* f = std::fopen(path.c_str(), "w");
  if (!f) throw std::runtime_error("--write-ij: cannot write " + path);
  std::fprintf(f, "0 %lld 0 %lld\n", (long long)A.rows() - 1, (long long)A.cols() - 1);
  const offset_type* rp = A.row_ptr().data();
  const index_type* ci = A.col_idx().data();
  const double* v = A.values().data();
  std::vector<char> buf(1 << 20);
  std::size_t used = 0;
  for (size_type i = 0; i < A.rows(); ++i) {
    for (offset_type k = rp[i]; k < rp[i + 1]; ++k) {
      if (buf.size() - used < 96) {
        std::fwrite(buf.data(), 1, used, f);
        used = 0;
      }
      char* p = buf.data() + used;
      char* end = buf.data() + buf.size();
      p = std::to_chars(p, end, i).ptr;
      *p++ = ' ';
      p = std::to_chars(p, end, ci[k]).ptr;
      *p++ = ' ';
      p = std::to_chars(p, end, v[k]).ptr;  // shortest form that reads back exactly
      *p++ = '\n';
      used = p - buf.data();
    }
  }
  std::fwrite(buf.data(), 1, used, f);
  if (std::fclose(f) != 0) throw std::runtime_error("--write-ij: error writing " + path);
  std::printf("wrote %s: %lld rows, %lld nonzeros\n", path.c_str(), (long long)A.rows(),
              (long long)A.nnz());
}

[[noreturn]] void usage(const char* program, const std::string& why) {
  std::fprintf(stderr,
               "%s\nusage: %s [--n N]... [--repeat R] [--host] [--no-scalar] [--hypre FILE] "
               "[--write-ij PREFIX]\n",
               why.c_str(), program);
  std::exit(2);
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const auto value = [&]() -> std::string {
      if (i + 1 >= argc) usage(argv[0], a + " needs a value");
      return argv[++i];
    };
    if (a == "--n") {
      const long long n = std::atoll(value().c_str());
      if (n < 2) usage(argv[0], "--n must be >= 2");
      o.sizes.push_back(n);
    } else if (a == "--repeat") {
      o.repeat = std::max(1, std::atoi(value().c_str()));
    } else if (a == "--host") {
      o.host = true;
    } else if (a == "--no-scalar") {
      o.scalar = false;
    } else if (a == "--write-ij") {
      o.write_ij = value();
    } else if (a == "--hypre") {
      try {
        o.hypre = bench::HyprePeer::read(value());
      } catch (const std::exception& e) {
        usage(argv[0], e.what());
      }
    } else {
      usage(argv[0], "unknown argument " + a);
    }
  }
  if (o.sizes.empty()) {
    o.sizes = o.host ? std::vector<size_type>{8, 16} : std::vector<size_type>{32, 64, 96};
  }
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = parse(argc, argv);
  const Executor exec = o.host ? Executor::host() : Executor::cuda();
  try {
    if (!o.write_ij.empty()) {
      write_ij(gallery::elasticity3d(Executor::host(), o.sizes.front()).A, o.write_ij);
      return 0;
    }
    std::printf("elasticity benchmark on %s (PCG to 1e-8, b = ones)\n", exec.name().c_str());
    int failed = 0;
    for (size_type n : o.sizes) {
      const gallery::ElasticityProblem problem = gallery::elasticity3d(exec, n);
      const auto csr = share(problem.A.clone());
      const std::shared_ptr<const LevelOperator<double>> scalar_op =
          std::make_shared<CsrOperator<double>>(csr);
      const std::shared_ptr<const LevelOperator<double>> block_op =
          std::make_shared<BsrOperator<double>>(share(to_bsr(problem.A, 3)));
      std::printf("\nelasticity3d n = %lld: %lld rows, %lld nonzeros\n", (long long)n,
                  (long long)problem.A.rows(), (long long)problem.A.nnz());
      print_header();
      std::vector<Result> rs;
      for (const Config& c : configs(exec, o.scalar)) {
        if (n > c.max_n) continue;
        try {
          rs.push_back(run(problem, n, c.blocked ? block_op : scalar_op, c, o));
          print_row(rs.back());
          std::fflush(stdout);
          failed += rs.back().converged ? 0 : 1;
        } catch (const std::exception& e) {
          std::printf("%-5lld %-18s failed: %s\n", (long long)n, c.name.c_str(), e.what());
          ++failed;
        }
      }
      for (const Result& r : rs) print_stages(r);
      print_hypre_ratio(o.hypre, n, rs);
    }
    if (failed > 0) {
      std::printf("%d runs failed or did not converge\n", failed);
      return 1;
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  return 0;
}
