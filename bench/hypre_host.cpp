// The host peer of strata_bench_distributed --host (issue 17, item 9):
// hypre's BoomerAMG-PCG from the library the system provides (Debian's
// libhypre-dev, 2.26), on the same 7-point Laplacian in the same numbering
// (x fastest; 6 on the diagonal, -1 to each neighbour), each process the
// same contiguous rows, b = ones, x0 = 0, relative tolerance 1e-8 on the
// residual norm (hypre's PCG with two-norm), hypre's default BoomerAMG
// settings (HMIS coarsening, ext+i interpolation, hybrid Gauss-Seidel).
//
//   mpirun -np P strata_bench_hypre_host [--weak N | --strong N] [--repeat R]
//
// Times: the best of R setups and R solves (after one of each), between
// barriers, so the slowest process's. Rank 0 prints one line:
//   HYPRE classical processes P rows N setup S s solve S s iterations K
// which scripts/cpu-mpi-bench sets beside Strata's DIST lines.

#include <HYPRE.h>
#include <HYPRE_IJ_mv.h>
#include <HYPRE_parcsr_ls.h>
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string>
#include <vector>

namespace {

[[noreturn]] void usage(const std::string& why) {
  std::fprintf(stderr,
               "strata_bench_hypre_host: %s\nusage: strata_bench_hypre_host [--weak N | --strong "
               "N] [--repeat R]\n",
               why.c_str());
  MPI_Abort(MPI_COMM_WORLD, 2);
  std::exit(2);
}

long long positive(const std::string& flag, const char* text) {
  char* end = nullptr;
  const long long v = std::strtoll(text, &end, 10);
  if (end == text || *end != '\0' || v < 1) {
    usage(flag + " " + text + ": expected an integer >= 1");
  }
  return v;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  HYPRE_Init();
  bool weak = true;
  long long n = 48;
  int repeat = 2;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if ((a == "--weak" || a == "--strong") && i + 1 < argc) {
      weak = a == "--weak";
      n = positive(a, argv[++i]);
    } else if (a == "--repeat" && i + 1 < argc) {
      repeat = static_cast<int>(positive(a, argv[++i]));
    } else {
      usage("unknown or incomplete argument " + a);
    }
  }
  const long long nx = n, ny = n, nz = weak ? n * size : n;
  const long long rows = nx * ny * nz;
  // The rows of each process: Strata's RowPartition::uniform split.
  const long long base = rows / size, extra = rows % size;
  const long long first = rank * base + std::min<long long>(rank, extra);
  const long long last = first + base + (rank < extra ? 1 : 0) - 1;  // inclusive

  HYPRE_IJMatrix ij;
  HYPRE_IJMatrixCreate(MPI_COMM_WORLD, first, last, first, last, &ij);
  HYPRE_IJMatrixSetObjectType(ij, HYPRE_PARCSR);
  HYPRE_IJMatrixInitialize(ij);
  const long long plane = nx * ny;
  for (long long row = first; row <= last; ++row) {
    const long long i = row % nx, j = (row / nx) % ny, k = row / plane;
    HYPRE_BigInt cols[7];
    HYPRE_Real values[7];
    HYPRE_Int count = 0;
    const auto add = [&](long long c, double v) {
      cols[count] = static_cast<HYPRE_BigInt>(c);
      values[count++] = v;
    };
    if (k > 0) add(row - plane, -1.0);
    if (j > 0) add(row - nx, -1.0);
    if (i > 0) add(row - 1, -1.0);
    add(row, 6.0);
    if (i + 1 < nx) add(row + 1, -1.0);
    if (j + 1 < ny) add(row + nx, -1.0);
    if (k + 1 < nz) add(row + plane, -1.0);
    HYPRE_BigInt r = static_cast<HYPRE_BigInt>(row);
    HYPRE_IJMatrixSetValues(ij, 1, &count, &r, cols, values);
  }
  HYPRE_IJMatrixAssemble(ij);
  HYPRE_ParCSRMatrix A;
  HYPRE_IJMatrixGetObject(ij, reinterpret_cast<void**>(&A));

  const auto vector = [&](double value) {
    HYPRE_IJVector v;
    HYPRE_IJVectorCreate(MPI_COMM_WORLD, first, last, &v);
    HYPRE_IJVectorSetObjectType(v, HYPRE_PARCSR);
    HYPRE_IJVectorInitialize(v);
    std::vector<HYPRE_BigInt> index(static_cast<std::size_t>(last - first + 1));
    std::vector<HYPRE_Real> values(index.size(), value);
    for (std::size_t q = 0; q < index.size(); ++q) index[q] = first + static_cast<long long>(q);
    HYPRE_IJVectorSetValues(v, static_cast<HYPRE_Int>(index.size()), index.data(), values.data());
    HYPRE_IJVectorAssemble(v);
    return v;
  };
  HYPRE_IJVector ij_b = vector(1.0), ij_x = vector(0.0);
  HYPRE_ParVector b, x;
  HYPRE_IJVectorGetObject(ij_b, reinterpret_cast<void**>(&b));
  HYPRE_IJVectorGetObject(ij_x, reinterpret_cast<void**>(&x));

  double best_setup = std::numeric_limits<double>::infinity(), best_solve = best_setup;
  HYPRE_Int iterations = 0;
  double relative = 0;
  for (int rep = 0; rep <= repeat; ++rep) {
    HYPRE_Solver pcg, amg;
    HYPRE_ParCSRPCGCreate(MPI_COMM_WORLD, &pcg);
    HYPRE_PCGSetTol(pcg, 1e-8);
    HYPRE_PCGSetMaxIter(pcg, 500);
    HYPRE_PCGSetTwoNorm(pcg, 1);
    HYPRE_BoomerAMGCreate(&amg);
    HYPRE_BoomerAMGSetMaxIter(amg, 1);
    HYPRE_BoomerAMGSetTol(amg, 0.0);
    HYPRE_PCGSetPrecond(pcg, reinterpret_cast<HYPRE_PtrToSolverFcn>(HYPRE_BoomerAMGSolve),
                        reinterpret_cast<HYPRE_PtrToSolverFcn>(HYPRE_BoomerAMGSetup), amg);
    HYPRE_ParVectorSetConstantValues(x, 0.0);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    HYPRE_ParCSRPCGSetup(pcg, A, b, x);
    MPI_Barrier(MPI_COMM_WORLD);
    const double setup = MPI_Wtime() - t0;
    t0 = MPI_Wtime();
    HYPRE_ParCSRPCGSolve(pcg, A, b, x);
    MPI_Barrier(MPI_COMM_WORLD);
    const double solve = MPI_Wtime() - t0;
    if (rep > 0) {
      best_setup = std::min(best_setup, setup);
      best_solve = std::min(best_solve, solve);
    }
    HYPRE_PCGGetNumIterations(pcg, &iterations);
    HYPRE_PCGGetFinalRelativeResidualNorm(pcg, &relative);
    HYPRE_BoomerAMGDestroy(amg);
    HYPRE_ParCSRPCGDestroy(pcg);
  }
  if (rank == 0) {
    std::printf(
        "HYPRE classical    %-12s processes %d rows %lld rows_per_process %lld setup %.4f s solve "
        "%.4f s iterations %d relres %.2e\n",
        weak ? "weak" : "strong", size, rows, rows / size, best_setup, best_solve,
        static_cast<int>(iterations), relative);
  }
  HYPRE_IJVectorDestroy(ij_b);
  HYPRE_IJVectorDestroy(ij_x);
  HYPRE_IJMatrixDestroy(ij);
  HYPRE_Finalize();
  MPI_Finalize();
  return 0;
}
