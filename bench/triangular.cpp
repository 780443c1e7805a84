// Sparse triangular solve benchmark: Strata's TriangularSolver (level-
// scheduled, and Jacobi sweeps) beside cuSPARSE SpSV on the same ILU(0)
// factors, on the device (Strata's host path alone with --host).
//
//   strata_bench_triangular [--case NAME:N]... [--repeat R] [--sweeps S]
//                           [--json FILE] [--host]
//
// Cases (default poisson7:128 poisson7:256 diffusion27:128 diffusion27:256):
//   poisson7:N     ILU(0) of the 7-point Laplacian on N^3
//   diffusion27:N  ILU(0) of the 27-point operator on N^3
//
// For each factor (L: lower, unit diagonal; U: upper) it prints the time of
// the analysis (Strata: the triangle copied in level order with its levels;
// cuSPARSE: cusparseSpSV_bufferSize + cusparseSpSV_analysis) and of one
// solve (best of R after a warm-up), the ratios cuSPARSE / Strata for the
// solve alone and for analysis + solve (above 1: Strata is faster), the
// solve's bandwidth (the strict triangle, its indices, the diagonal, b and
// x read once, x written once), the number of levels, the time of S Jacobi
// sweeps, and the largest difference between the two solutions relative to
// the largest entry. The ILU(0) factorization time on the device is printed
// per case. On the device the level-scheduled solve is timed with the four
// schedules (core/triangular_internal.hpp): a kernel boundary between
// levels, replayed as one recorded CUDA graph whose kernels start early
// (the default, "solve"), the same graph without the early start
// ("recorded"), a thread-per-row kernel launched per level from the host
// ("launched", the schedule before the graph), and one kernel for all
// levels ("sync-free"). The two graphs run the same kernels and must agree
// bit for bit; the thread-per-row schedules sum each row in stored order,
// the graph's kernels by lanes, so those agree up to rounding (a note is
// printed when they differ by more than 1e-12 of the largest entry). A
// graph is recorded by the first solve of its schedule: in the warm-up,
// not in the times.

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "bench_timing.hpp"
#include "core/cusparse_triangular_reference.hpp"
#include "core/triangular_internal.hpp"
#include "strata/matrix/ilu.hpp"
#include "strata/matrix/triangular.hpp"
#include "strata/strata.hpp"

namespace {

using namespace strata;
using bench::best_time;
using bench::Clock;
using bench::seconds_since;

struct Options {
  std::vector<std::string> cases;
  int repeat = 10;
  int sweeps = 3;
  std::string json;
  bool host = false;
};

struct Result {
  std::string problem, factor;
  size_type n = 0, rows = 0, strict_nnz = 0, levels = 0;
  double factor_seconds = 0;
  double analysis = 0, solve = 0, jacobi = 0;
  double solve_sync_free = -1;  // the device's one-kernel schedule
  double solve_launched = -1;   // the device's launch per level from the host
  double solve_recorded = -1;   // the graph without the early start
  double cusparse_analysis = -1, cusparse_solve = -1;
  double difference = -1;
  double gbytes_per_second = 0;
};

double max_abs(const std::vector<double>& v) {
  double m = 0;
  for (double x : v) m = std::max(m, std::abs(x));
  return m;
}

std::vector<Result> run_case(const std::string& spec, const Options& o) {
  const auto colon = spec.find(':');
  const std::string name = spec.substr(0, colon);
  const size_type n = colon == std::string::npos ? 128 : std::atoll(spec.c_str() + colon + 1);
  if (name != "poisson7" && name != "diffusion27") {
    throw invalid_argument("--case " + spec + ": expected poisson7:N or diffusion27:N");
  }
  const Executor exec = o.host ? Executor::host() : Executor::cuda();
  const auto A = name == "poisson7" ? gallery::poisson3d(exec, n, n, n)
                                    : gallery::diffusion3d_27pt(exec, n, n, n);
  exec.synchronize();
  const auto t0 = Clock::now();
  const CsrMatrix<double> LU = ilu0(A);
  exec.synchronize();
  const double factor_seconds = seconds_since(t0);
  Vector<double> b(exec, A.rows(), 1.0), x(exec, A.rows(), 0.0), y(exec, A.rows(), 0.0);
  std::vector<Result> out;
  for (const Triangle t : {Triangle::lower, Triangle::upper}) {
    Result r;
    r.problem = name;
    r.factor = t == Triangle::lower ? "L" : "U";
    r.n = n;
    r.rows = A.rows();
    r.factor_seconds = factor_seconds;
    const bool unit = t == Triangle::lower;
    const TriangularSolveParams p{.triangle = t, .unit_diagonal = unit};
    std::unique_ptr<TriangularSolver<double>> ours;
    r.analysis = best_time(exec, std::max(1, o.repeat / 3),
                           [&] { ours = std::make_unique<TriangularSolver<double>>(LU, p); });
    r.levels = ours->levels();
    r.strict_nnz = ours->strict_nnz();
    r.solve = best_time(exec, o.repeat, [&] { ours->solve(b, x); });
    // Read once: strict entries (value, column), row offsets, the level
    // order, 1 / a_ii, b and the x entries gathered; written: x.
    const double bytes = 12.0 * double(r.strict_nnz) + 8.0 * double(r.rows + 1) +
                         4.0 * double(r.rows) + 8.0 * 3 * double(r.rows);
    r.gbytes_per_second = bytes / r.solve / 1e9;
    if (!o.host) {
      using S = detail::TriangularDeviceSchedule;
      const auto reference = x.to_vector();
      const auto differs = [&](const Vector<double>& other) {
        const auto v = other.to_vector();
        double d = 0;
        for (std::size_t i = 0; i < v.size(); ++i) d = std::max(d, std::abs(v[i] - reference[i]));
        return d > 1e-12 * max_abs(reference);
      };
      const S before = detail::triangular_device_schedule(S::sync_free);
      r.solve_sync_free = best_time(exec, o.repeat, [&] { ours->solve(b, y); });
      if (differs(y)) std::printf("(note: the sync-free solution differs from the per-level one) ");
      detail::triangular_device_schedule(S::recorded);
      r.solve_recorded = best_time(exec, o.repeat, [&] { ours->solve(b, y); });
      if (x.to_vector() != y.to_vector()) {
        std::printf("(note: the recorded solution without early start differs) ");
      }
      detail::triangular_device_schedule(S::launched);
      r.solve_launched = best_time(exec, o.repeat, [&] { ours->solve(b, y); });
      detail::triangular_device_schedule(before);
      if (differs(y)) std::printf("(note: the launched per-level solution differs from the graph's) ");
    }
    TriangularSolver<double> jacobi(
        LU, {.triangle = t, .unit_diagonal = unit, .algorithm = TriangularAlgorithm::jacobi,
             .sweeps = o.sweeps});
    r.jacobi = best_time(exec, o.repeat, [&] { jacobi.solve(b, y); });
    if (!o.host) {
      std::unique_ptr<CusparseSpsv> reference;
      r.cusparse_analysis = best_time(exec, std::max(1, o.repeat / 3), [&] {
        reference.reset();
        reference = std::make_unique<CusparseSpsv>(LU, t, unit);
      });
      r.cusparse_solve = best_time(exec, o.repeat, [&] { reference->solve(b, y); });
      const auto ours_x = x.to_vector(), theirs = y.to_vector();
      double d = 0;
      for (std::size_t i = 0; i < ours_x.size(); ++i) d = std::max(d, std::abs(ours_x[i] - theirs[i]));
      r.difference = d / std::max(max_abs(theirs), 1e-300);
    }
    std::printf(
        "%-11s %4lld^3 %s: levels %6lld | strata analysis %8.3f ms solve %8.3f ms (%6.1f GB/s) "
        "jacobi(%d) %8.3f ms",
        name.c_str(), static_cast<long long>(n), r.factor.c_str(),
        static_cast<long long>(r.levels), 1e3 * r.analysis, 1e3 * r.solve, r.gbytes_per_second,
        o.sweeps, 1e3 * r.jacobi);
    if (!o.host) {
      std::printf(
          " recorded %8.3f ms launched %8.3f ms sync-free %8.3f ms | cusparse analysis %8.3f ms "
          "solve %8.3f ms | ratio solve %.2f (recorded %.2f, launched %.2f, sync-free %.2f), "
          "analysis+solve %.2f | max diff %.1e",
          1e3 * r.solve_recorded, 1e3 * r.solve_launched, 1e3 * r.solve_sync_free,
          1e3 * r.cusparse_analysis, 1e3 * r.cusparse_solve, r.cusparse_solve / r.solve,
          r.cusparse_solve / r.solve_recorded, r.cusparse_solve / r.solve_launched,
          r.cusparse_solve / r.solve_sync_free,
          (r.cusparse_analysis + r.cusparse_solve) / (r.analysis + r.solve), r.difference);
    }
    std::printf(" | ilu0 %.3f s\n", factor_seconds);
    std::fflush(stdout);
    out.push_back(r);
  }
  return out;
}

std::string json(const Result& r) {
  char buf[1536];
  std::snprintf(buf, sizeof buf,
                "{\"problem\": \"%s\", \"n\": %lld, \"factor\": \"%s\", \"rows\": %lld, "
                "\"strict_nnz\": %lld, \"levels\": %lld, \"ilu0_seconds\": %.6e, "
                "\"strata_analysis_seconds\": %.6e, \"strata_solve_seconds\": %.6e, "
                "\"strata_solve_gbytes_per_second\": %.3f, \"strata_sync_free_solve_seconds\": %.6e, "
                "\"strata_recorded_solve_seconds\": %.6e, "
                "\"strata_launched_solve_seconds\": %.6e, "
                "\"jacobi_solve_seconds\": %.6e, "
                "\"cusparse_analysis_seconds\": %.6e, \"cusparse_solve_seconds\": %.6e, "
                "\"relative_difference\": %.3e}",
                r.problem.c_str(), static_cast<long long>(r.n), r.factor.c_str(),
                static_cast<long long>(r.rows), static_cast<long long>(r.strict_nnz),
                static_cast<long long>(r.levels), r.factor_seconds, r.analysis, r.solve,
                r.gbytes_per_second, r.solve_sync_free, r.solve_recorded, r.solve_launched,
                r.jacobi, r.cusparse_analysis, r.cusparse_solve, r.difference);
  return buf;
}

int usage(const char* program) {
  std::fprintf(stderr,
               "usage: %s [--case poisson7:N|diffusion27:N]... [--repeat R] [--sweeps S] "
               "[--json FILE] [--host]\n",
               program);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  for (int a = 1; a < argc; ++a) {
    const std::string arg = argv[a];
    const bool has_value = a + 1 < argc;
    if (arg == "--case" && has_value) {
      o.cases.push_back(argv[++a]);
    } else if (arg == "--repeat" && has_value) {
      o.repeat = std::max(1, std::atoi(argv[++a]));
    } else if (arg == "--sweeps" && has_value) {
      o.sweeps = std::max(1, std::atoi(argv[++a]));
    } else if (arg == "--json" && has_value) {
      o.json = argv[++a];
    } else if (arg == "--host") {
      o.host = true;
    } else {
      return usage(argv[0]);
    }
  }
  if (o.cases.empty()) {
    o.cases = {"poisson7:128", "poisson7:256", "diffusion27:128", "diffusion27:256"};
  }
  if (!o.host && !cuda_available()) {
    std::fprintf(stderr, "strata_bench_triangular: no CUDA device (use --host for the host path)\n");
    return 1;
  }
  std::vector<Result> results;
  try {
    for (const auto& c : o.cases) {
      for (auto& r : run_case(c, o)) results.push_back(std::move(r));
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "strata_bench_triangular: %s\n", e.what());
    return 1;
  }
  if (!o.json.empty()) {
    FILE* f = std::fopen(o.json.c_str(), "w");
    if (!f) {
      std::fprintf(stderr, "cannot write %s\n", o.json.c_str());
      return 1;
    }
    std::fprintf(f, "[\n");
    for (std::size_t r = 0; r < results.size(); ++r) {
      std::fprintf(f, "  %s%s\n", json(results[r]).c_str(), r + 1 < results.size() ? "," : "");
    }
    std::fprintf(f, "]\n");
    std::fclose(f);
  }
  return 0;
}
