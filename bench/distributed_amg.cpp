// Distributed AMG benchmark (issues 17 and 19): AMG-preconditioned Krylov
// solves of the 7-point Laplacian (and, with --config elasticity, of 3D
// linear elasticity) over MPI processes, one GPU per process (process r
// takes GPU r mod the GPUs it sees) or the host.
//
//   mpirun -np P strata_bench_distributed [--weak N | --strong N] [--config NAME]...
//                                         [--repeat R] [--host] [--serial]
//
//   --weak N     N^3 unknowns per process: the grid N x N x (N P), each
//                process a slab of N planes (the default, N = 256 on a GPU,
//                48 on the host)
//   --strong N   the grid N^3 split over the processes
//   --config     aggregation (K-cycle FCG, the aggregation paper's method)
//                and/or classical (PMIS + ext+i V-cycle PCG with the
//                library's default smoother: damped Jacobi with estimated
//                omega on a GPU, hybrid Gauss-Seidel on the host); default
//                both.
//                elasticity (only when named): blocked smoothed aggregation
//                (block size 3, the six rigid-body modes, Chebyshev, PCG)
//                on gallery elasticity3d generated process by process; for
//                it --weak N is N^3 elements per process (the box
//                N x N x (N P)) and --strong N the N^3 cube (N = 64 on a GPU,
//                16 on the host by default), and rows count scalar unknowns
//                (3 per node) like the other configs
//   --serial     also solve the same problem with the serial hierarchy on
//                one process (P = 1 only): the cost of the distributed code
//                path on one process ("distributed": the hierarchy takes
//                the serial path there, HierarchyParams::serial_on_one_process;
//                "dist-kernels": the distributed hierarchy kept)
//
// Times: setup is the best of R setups after a warm-up, the solve the best
// of two after a warm-up solve; each is taken between barriers, so it is
// the slowest process's. Right-hand side ones, x0 = 0, relative tolerance
// 1e-8 on the true residual ||b - A x|| / ||b||. Rank 0 prints one line per
// configuration:
//   DIST config processes rows rows_per_process setup S solve S iterations N levels L
// which scripts/multi-gpu-check gathers into the scaling tables.

#include <mpi.h>

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

#include "strata/amg/aggregation.hpp"
#include "strata/amg/classical.hpp"
#include "strata/amg/smoothed_aggregation.hpp"
#include "strata/distributed/gallery.hpp"
#include "strata/distributed/mpi.hpp"
#include "strata/distributed/operator.hpp"
#include "strata/distributed/reduction.hpp"
#include "strata/distributed/rows.hpp"
#include "strata/gallery/gallery.hpp"
#include "strata/matrix/bsr.hpp"
#include "strata/matrix/spgemm.hpp"
#include "strata/matrix/transpose.hpp"
#include "strata/solver/krylov.hpp"

namespace {

using namespace strata;
using Clock = std::chrono::steady_clock;

struct Options {
  bool weak = true;
  size_type n = 0;
  std::vector<std::string> configs;
  int repeat = 2;
  bool host = false;
  bool serial = false;
  /// Print the setup's stage times (and classical AMG's parts of them).
  bool profile = false;
  /// Time each level's part of the cycles (a device synchronisation per
  /// level visit, so the solve times of such a run read higher).
  bool profile_levels = false;
  /// Time the parts of the first level's Galerkin product and transpose
  /// (classical P), against the serial kernels on one process.
  bool galerkin_parts = false;
  size_type agglomeration_rows = 0;
};

[[noreturn]] void usage(const std::string& why) {
  std::fprintf(stderr,
               "strata_bench_distributed: %s\nusage: strata_bench_distributed [--weak N | "
               "--strong N] [--config aggregation|classical|elasticity]... [--repeat R] "
               "[--host] [--serial] [--profile] [--profile-levels] [--galerkin-parts] "
               "[--agglomeration-rows N]\n",
               why.c_str());
  MPI_Abort(MPI_COMM_WORLD, 2);
  std::exit(2);
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const auto value = [&]() -> std::string {
      if (i + 1 >= argc) usage(a + " needs a value");
      return argv[++i];
    };
    const auto positive = [&](const std::string& v) {
      char* end = nullptr;
      const long long x = std::strtoll(v.c_str(), &end, 10);
      if (end == v.c_str() || *end != '\0' || x < 1) {
        usage(a + " " + v + ": expected an integer >= 1");
      }
      return x;
    };
    if (a == "--weak" || a == "--strong") {
      o.weak = a == "--weak";
      o.n = positive(value());
    } else if (a == "--config") {
      const std::string c = value();
      if (c != "aggregation" && c != "classical" && c != "elasticity") {
        usage("--config " + c + ": expected aggregation, classical or elasticity");
      }
      o.configs.push_back(c);
    } else if (a == "--repeat") {
      o.repeat = static_cast<int>(positive(value()));
    } else if (a == "--host") {
      o.host = true;
    } else if (a == "--serial") {
      o.serial = true;
    } else if (a == "--profile") {
      o.profile = true;
    } else if (a == "--profile-levels") {
      o.profile_levels = true;
    } else if (a == "--galerkin-parts") {
      o.galerkin_parts = true;
    } else if (a == "--agglomeration-rows") {
      o.agglomeration_rows = positive(value());
    } else {
      usage("unknown argument " + a);
    }
  }
  if (o.configs.empty()) o.configs = {"aggregation", "classical"};
  return o;
}

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

/// Seconds of f on the slowest process: between two barriers, after the
/// executor's work is done.
template <class F>
double timed(const Communicator& comm, const Executor& exec, F&& f) {
  exec.synchronize();
  comm.barrier();
  const auto t0 = Clock::now();
  f();
  exec.synchronize();
  comm.barrier();
  return seconds_since(t0);
}

/// A near-null space (the process's rows of each vector): empty for the
/// coarsenings that make their own.
using NearNull = std::vector<Vector<double>>;

struct Config {
  std::string name;
  /// A fresh coarsening for each setup, given the operator's near-null
  /// space (copied: a coarsening keeps the vectors it is given).
  std::function<std::unique_ptr<amg::Coarsening<double>>(const NearNull&)> coarsening;
  amg::HierarchyParams params;
  KrylovMethod method;
};

Config make_config(const std::string& name, const Executor& exec, const Options& o) {
  KrylovParams k;
  k.relative_tolerance = 1e-8;
  k.max_iterations = 500;
  if (name == "aggregation") {
    amg::HierarchyParams h;
    h.cycle = amg::CycleType::K;
    h.smoother = JacobiParams{.estimate_omega = true};
    h.agglomeration_rows = o.agglomeration_rows;
    h.profile_levels = o.profile_levels;
    // Double on every path: this benchmark compares the paths (serial,
    // MPI on one process, distributed kernels), not precisions.
    h.cycle_precision = amg::CyclePrecision::full;
    return {
        name,
        [](const NearNull&) { return amg::make_aggregation_coarsening<double>({.dimension = 3}); },
        h, KrylovMethod{Fcg{.params = k}}};
  }
  if (name == "elasticity") {
    // GAMG's recipe (the blocked SA paper): Chebyshev smoothing, the
    // rigid-body modes as B.
    amg::HierarchyParams h;
    h.smoother = ChebyshevParams{};
    h.agglomeration_rows = o.agglomeration_rows;
    h.profile_levels = o.profile_levels;
    // Double on every path: this benchmark compares the paths (serial,
    // MPI on one process, distributed kernels), not precisions.
    h.cycle_precision = amg::CyclePrecision::full;
    return {name,
            [](const NearNull& B) {
              NearNull copy;
              for (const Vector<double>& v : B) copy.push_back(v.clone());
              return amg::make_smoothed_aggregation_coarsening<double>({.block_size = 3},
                                                                       std::move(copy));
            },
            h, KrylovMethod{Cg{.params = k}}};
  }
  amg::HierarchyParams h;
  h.smoother = amg::default_smoother(exec);
  h.agglomeration_rows = o.agglomeration_rows;
  h.profile_levels = o.profile_levels;
  h.cycle_precision = amg::CyclePrecision::full;
  const bool profile = o.profile;
  return {name,
          [profile](const NearNull&) {
            amg::ClassicalParams c;
            c.profile_stages = profile;
            return amg::make_classical_coarsening<double>(c);
          },
          h, KrylovMethod{Cg{.params = k}}};
}

struct Row {
  double setup = std::numeric_limits<double>::infinity();
  double solve = std::numeric_limits<double>::infinity();
  int iterations = 0, levels = 0;
  bool converged = false;
  double relative_residual = 0;
  amg::StageTimes stages;  // of the last setup
  std::vector<amg::LevelSummary> levels_summary;  // of the last setup, after the solves
};

/// Setups and solves of `config` on the operator A (serial or distributed)
/// with its near-null space B.
Row run(const Communicator& comm, const Config& config,
        std::shared_ptr<const LevelOperator<double>> A, const NearNull& B,
        std::shared_ptr<const Reduction<double>> reduction, int repeat) {
  const Executor& exec = A->executor();
  Row row;
  std::unique_ptr<amg::Hierarchy<double>> H;
  for (int rep = 0; rep <= repeat; ++rep) {
    H.reset();
    const double t = timed(comm, exec, [&] {
      H = std::make_unique<amg::Hierarchy<double>>(A, config.coarsening(B), config.params,
                                                   reduction);
    });
    if (rep > 0) row.setup = std::min(row.setup, t);
  }
  row.levels = H->num_levels();
  row.stages = H->summary().setup_stage_seconds;
  const Vector<double> b(exec, A->rows(), 1.0);
  Vector<double> x(exec, A->rows()), r(exec, A->rows());
  for (int rep = 0; rep < 3; ++rep) {
    x.fill(0.0);
    SolveInfo info;
    const double t =
        timed(comm, exec, [&] { info = solve(config.method, *A, b, x, H.get(), *reduction); });
    if (rep > 0) row.solve = std::min(row.solve, t);
    row.iterations = info.iterations;
    row.converged = info.converged();
  }
  row.levels_summary = H->summary().levels;
  A->residual(b, x, r);
  row.relative_residual = reduction->norm2(r) / reduction->norm2(b);
  return row;
}

/// The parts of the first level's Galerkin product R (A P) and of the
/// transpose R = P^T, each the best of three on the slowest process, and on
/// one process the serial kernels on the same blocks beside them.
void galerkin_parts(const Communicator& comm, const DistributedOperator<double>& A) {
  const Executor& exec = A.executor();
  const bool root = comm.rank() == 0;
  amg::StageTimes times;
  auto coarsening = amg::make_classical_coarsening<double>({});
  const std::optional<amg::Transfer<double>> transfer = coarsening->coarsen(A, 0, times);
  if (!transfer) return;
  const auto& P = dynamic_cast<const DistributedOperator<double>&>(*transfer->P).matrix();
  const auto& R = dynamic_cast<const DistributedOperator<double>&>(*transfer->R).matrix();
  const DistributedCsrMatrix<double>& M = A.matrix();
  const auto best = [&](const char* what, auto&& f) {
    double t = std::numeric_limits<double>::infinity();
    for (int rep = 0; rep < 3; ++rep) t = std::min(t, timed(comm, exec, f));
    if (root) std::printf("#   galerkin part %-38s %.4f s\n", what, t);
  };
  best("A P (DistributedProduct)", [&] { (void)multiply(M, P); });
  const DistributedCsrMatrix<double> AP = multiply(M, P);
  best("R (A P) (DistributedProduct)", [&] { (void)multiply(R, AP); });
  best("owned_rows(P)", [&] { (void)owned_rows(P); });
  best("fetch_ghost_rows(P, A's plan)", [&] { (void)fetch_ghost_rows(P, M.halo_plan()); });
  best("owned_rows(A P)", [&] { (void)owned_rows(AP); });
  const RowBlock<double> ap_rows = owned_rows(AP);
  best("DistributedCsrMatrix(A P's rows)", [&] {
    (void)DistributedCsrMatrix<double>(AP.row_partition(), AP.col_partition(), ap_rows);
  });
  best("transpose(P) (distributed)", [&] { (void)transpose(P); });
  if (comm.size() == 1) {
    best("serial A P (SparseProduct)", [&] { (void)SparseProduct<CsrMatrix<double>>(M.diag(), P.diag()); });
    const SparseProduct<CsrMatrix<double>> ap(M.diag(), P.diag());
    best("serial R (A P) (SparseProduct)",
         [&] { (void)SparseProduct<CsrMatrix<double>>(R.diag(), ap.result()); });
    best("serial transpose(P)", [&] { (void)strata::transpose(P.diag()); });
  }
  if (root) {
    std::printf("#   A %lld nnz, P %lld nnz, A P %lld nnz (over all processes)\n",
                (long long)M.global_nnz(), (long long)P.global_nnz(), (long long)AP.global_nnz());
  }
}

/// A problem the configurations solve, made once for all that use it.
struct Problem {
  /// Rows (scalar unknowns) over all processes.
  size_type rows = 0;
  std::shared_ptr<const DistributedOperator<double>> A;
  /// This process's rows of the near-null space (empty: the coarsening's own).
  NearNull near_null;
  /// The same problem whole on this process, with its near-null space
  /// (--serial, one process).
  std::function<std::pair<std::shared_ptr<const LevelOperator<double>>, NearNull>()> serial;
};

/// The 7-point Laplacian on N x N x (N P) (weak) or N^3 (strong), split evenly.
Problem laplacian(const Communicator& comm, const Executor& exec, const Options& o) {
  const int P = comm.size();
  const size_type n = o.n > 0 ? o.n : (o.host ? 48 : 256);
  const size_type nx = n, ny = n, nz = o.weak ? n * P : n;
  Problem problem;
  problem.rows = nx * ny * nz;
  problem.A = std::make_shared<const DistributedOperator<double>>(
      gallery::poisson3d(RowPartition::uniform(comm, problem.rows), exec, nx, ny, nz));
  problem.serial = [=] {
    return std::make_pair(
        std::shared_ptr<const LevelOperator<double>>(
            std::make_shared<const CsrOperator<double>>(gallery::poisson3d(exec, nx, ny, nz))),
        NearNull{});
  };
  if (comm.rank() == 0) {
    std::printf("# 7-point Laplacian %lld x %lld x %lld (%s), %d processes on %s", (long long)nx,
                (long long)ny, (long long)nz, o.weak ? "weak" : "strong", P, exec.name().c_str());
  }
  return problem;
}

/// Q1 elasticity on N x N x (N P) elements (weak) or N^3 (strong), each
/// process generating its own nodes' rows and rigid-body modes.
Problem elasticity(const Communicator& comm, const Executor& exec, const Options& o) {
  const int P = comm.size();
  const size_type n = o.n > 0 ? o.n : (o.host ? 16 : 64);
  const size_type nex = n, ney = n, nez = o.weak ? n * P : n;
  const size_type rows = 3 * nex * (ney + 1) * (nez + 1);
  gallery::DistributedElasticityProblem generated =
      gallery::elasticity3d(RowPartition::uniform_nodes(comm, rows, 3), exec, nex, ney, nez);
  Problem problem;
  problem.rows = rows;
  problem.A = std::make_shared<const DistributedOperator<double>>(std::move(generated.A));
  problem.near_null = std::move(generated.rigid_body_modes);
  problem.serial = [=] {
    gallery::ElasticityProblem whole = gallery::elasticity3d(exec, nex, ney, nez);
    // Serial SA takes a block problem as BSR (SmoothedAggregationParams).
    return std::make_pair(
        std::shared_ptr<const LevelOperator<double>>(std::make_shared<const BsrOperator<double>>(
            std::make_shared<const BsrMatrix<double>>(to_bsr(whole.A, 3)))),
        std::move(whole.rigid_body_modes));
  };
  if (comm.rank() == 0) {
    std::printf(
        "# elasticity3d %lld x %lld x %lld elements, %lld rows (3 per node) (%s), %d "
        "processes on %s",
        (long long)nex, (long long)ney, (long long)nez, (long long)rows, o.weak ? "weak" : "strong",
        P, exec.name().c_str());
  }
  return problem;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int status = 0;
  {
    const Communicator comm = make_communicator(MPI_COMM_WORLD);
    const Options o = parse(argc, argv);
    const int P = comm.size();
    const bool root = comm.rank() == 0;
    Executor exec = Executor::host();
    if (!o.host) {
      if (!cuda_available()) usage("no CUDA device (give --host for the host)");
      exec = Executor::cuda(comm.rank() % cuda_device_count());
    }
    auto reduction = std::make_shared<const DistributedReduction<double>>(comm);
    // Each problem is made when a configuration first needs it.
    std::optional<Problem> poisson, elastic;
    const auto problem_of = [&](const std::string& config) -> const Problem& {
      std::optional<Problem>& slot = config == "elasticity" ? elastic : poisson;
      if (!slot) {
        slot = config == "elasticity" ? elasticity(comm, exec, o) : laplacian(comm, exec, o);
        if (root) {
          const std::string why = device_transfer_reason(comm);
          std::printf(", halo: %s%s%s\n", slot->A->matrix().halo_transfer(),
                      why.empty() ? "" : ", because ", why.c_str());
        }
      }
      return *slot;
    };
    if (o.galerkin_parts) galerkin_parts(comm, *problem_of("classical").A);
    for (const std::string& name : o.configs) {
      const Config config = make_config(name, exec, o);
      const Problem& problem = problem_of(name);
      const size_type rows = problem.rows;
      const auto print = [&](const char* path, const Row& row) {
        if (!root) return;
        std::printf(
            "DIST %-12s %-12s processes %d rows %lld rows_per_process %lld setup %.4f s solve "
            "%.4f s iterations %d levels %d converged %d relres %.2e\n",
            name.c_str(), path, P, (long long)rows, (long long)(rows / P), row.setup, row.solve,
            row.iterations, row.levels, int(row.converged), row.relative_residual);
        if (o.profile) {
          std::printf("#   %s %s setup stages:", name.c_str(), path);
          for (const auto& [stage, seconds] : row.stages) {
            std::printf(" %s %.4f,", stage.c_str(), seconds);
          }
          std::printf("\n");
        }
        if (o.profile_levels) {
          std::printf("#   %s %s solve by level (global rows, seconds over the 3 solves, this level alone):", name.c_str(), path);
          for (const amg::LevelSummary& l : row.levels_summary) {
            std::printf(" %lld %.4f,", (long long)l.rows, l.solve_seconds);
          }
          std::printf("\n");
        }
        std::fflush(stdout);
      };
      Row row;
      try {
        row = run(comm, config, problem.A, problem.near_null, reduction, o.repeat);
      } catch (const std::exception& e) {
        // Thrown alike on every process (the same settings and sizes).
        if (root)
          std::printf("DIST %-12s distributed  not available: %s\n", name.c_str(), e.what());
        continue;
      }
      if (!row.converged) status = 3;
      print("distributed", row);
      if (o.serial && P == 1) {
        // One process takes the serial path (HierarchyParams::
        // serial_on_one_process); the distributed kernels' own cost there:
        Config kept = config;
        kept.params.serial_on_one_process = false;
        row = run(comm, kept, problem.A, problem.near_null, reduction, o.repeat);
        if (!row.converged) status = 3;
        print("dist-kernels", row);
        const auto [serial, serial_near_null] = problem.serial();
        row = run(comm, config, serial, serial_near_null,
                  std::make_shared<const Reduction<double>>(), o.repeat);
        if (!row.converged) status = 3;
        print("serial", row);
      }
    }
  }
  MPI_Finalize();
  return status;
}
