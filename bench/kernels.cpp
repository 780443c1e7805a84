// Kernel microbenchmarks (Google Benchmark): vector operations and SpMV on
// the host and, when present, the device. Each reports bytes per second for
// the bytes the kernel must move at least; `--benchmark_format=json` gives
// machine-readable output. The SpMV comparison with cuSPARSE is
// `strata spmv`. The point-block Jacobi sweep on elasticity is timed beside
// the BSR SpMV of the same matrix (`--benchmark_filter=elasticity`).

#include <benchmark/benchmark.h>

#include <string>

#include "strata/strata.hpp"

namespace {

using namespace strata;

Executor executor_for(int device) { return device ? Executor::cuda() : Executor::host(); }

bool usable(benchmark::State& state, int device) {
  if (device && !cuda_available()) {
    state.SkipWithError("no CUDA device");
    return false;
  }
  return true;
}

void BM_axpy(benchmark::State& state) {
  const int device = static_cast<int>(state.range(1));
  if (!usable(state, device)) return;
  const auto exec = executor_for(device);
  const size_type n = state.range(0);
  Vector<double> x(exec, n, 1.0), y(exec, n, 2.0);
  for (auto _ : state) {
    axpy(0.5, x, y);
    exec.synchronize();
  }
  state.SetBytesProcessed(state.iterations() * 24 * n);
  state.SetLabel(exec.name());
}

void BM_dot(benchmark::State& state) {
  const int device = static_cast<int>(state.range(1));
  if (!usable(state, device)) return;
  const auto exec = executor_for(device);
  const size_type n = state.range(0);
  Vector<double> x(exec, n, 1.0), y(exec, n, 2.0);
  double sink = 0;
  for (auto _ : state) benchmark::DoNotOptimize(sink += dot(x, y));
  state.SetBytesProcessed(state.iterations() * 16 * n);
  state.SetLabel(exec.name());
}

void BM_spmv_poisson3d(benchmark::State& state) {
  const int device = static_cast<int>(state.range(1));
  if (!usable(state, device)) return;
  const auto exec = executor_for(device);
  const size_type n = state.range(0);
  auto A = gallery::poisson3d(exec, n, n, n);
  Vector<double> x(exec, A.cols(), 1.0), y(exec, A.rows(), 0.0);
  for (auto _ : state) {
    spmv(A, x, y);
    exec.synchronize();
  }
  state.SetBytesProcessed(state.iterations() *
                          (12 * A.nnz() + 4 * (A.rows() + 1) + 16 * A.rows()));
  state.SetLabel(exec.name() + " 7-point " + std::to_string(n) + "^3");
}

/// elasticity3d ne^3 as 3x3 blocks, on exec, and its scalar sizes.
BsrMatrix<double> elasticity_bsr(const Executor& exec, size_type ne) {
  return to_bsr(gallery::elasticity3d(exec, ne).A, 3);
}

/// The bytes a BSR SpMV must move: values, block columns, block row
/// offsets, x once and y once.
double bsr_spmv_bytes(const BsrMatrix<double>& A) {
  return 8.0 * A.nnz() + 4.0 * A.num_blocks() + 8.0 * (A.block_rows() + 1) + 16.0 * A.rows();
}

void BM_spmv_elasticity_bsr(benchmark::State& state) {
  const int device = static_cast<int>(state.range(1));
  if (!usable(state, device)) return;
  const auto exec = executor_for(device);
  const auto A = elasticity_bsr(exec, state.range(0));
  Vector<double> x(exec, A.cols(), 1.0), y(exec, A.rows(), 0.0);
  for (auto _ : state) {
    spmv(A, x, y);
    exec.synchronize();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * bsr_spmv_bytes(A)));
  state.SetLabel(exec.name() + " elasticity3d BSR 3x3 ne=" + std::to_string(state.range(0)));
}

/// One point-block Jacobi sweep x = x0 + D^-1 (b - A x0), fused into one
/// pass over A: set beside BM_spmv_elasticity_bsr, it shows what the fused
/// sweep costs over the SpMV alone (it reads b, x0 and the 9 inverted
/// values per block row in addition).
void BM_block_jacobi_sweep_elasticity(benchmark::State& state) {
  const int device = static_cast<int>(state.range(1));
  if (!usable(state, device)) return;
  const auto exec = executor_for(device);
  const BsrOperator<double> A(elasticity_bsr(exec, state.range(0)));
  const auto D = A.block_diagonal(BlockDiagonalKind::plain);
  Vector<double> b(exec, A.rows(), 1.0), x0(exec, A.rows(), 0.5), x(exec, A.rows(), 0.0);
  for (auto _ : state) {
    A.block_jacobi_sweep(D, 1.0, b, x0, x);
    exec.synchronize();
  }
  const double bytes = bsr_spmv_bytes(A.matrix()) + 16.0 * A.rows() + 8.0 * D.values().size();
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * bytes));
  state.SetLabel(exec.name() + " elasticity3d BSR 3x3 ne=" + std::to_string(state.range(0)));
}

/// The setup of point-block smoothing: inverting every 3x3 diagonal block.
void BM_block_diagonal_inverse_elasticity(benchmark::State& state) {
  const int device = static_cast<int>(state.range(1));
  if (!usable(state, device)) return;
  const auto exec = executor_for(device);
  const auto A = elasticity_bsr(exec, state.range(0));
  for (auto _ : state) {
    auto D = BlockDiagonal<double>::inverse(A);
    exec.synchronize();
    benchmark::DoNotOptimize(D.values().data());
  }
  state.SetLabel(exec.name() + " elasticity3d BSR 3x3 ne=" + std::to_string(state.range(0)));
}

BENCHMARK(BM_axpy)->ArgsProduct({{1 << 20, 1 << 24}, {0, 1}})->UseRealTime();
BENCHMARK(BM_dot)->ArgsProduct({{1 << 20, 1 << 24}, {0, 1}})->UseRealTime();
BENCHMARK(BM_spmv_poisson3d)->ArgsProduct({{64, 128}, {0, 1}})->UseRealTime();
BENCHMARK(BM_spmv_elasticity_bsr)->Args({32, 0})->Args({64, 1})->Args({128, 1})->UseRealTime();
BENCHMARK(BM_block_jacobi_sweep_elasticity)
    ->Args({32, 0})
    ->Args({64, 1})
    ->Args({128, 1})
    ->UseRealTime();
BENCHMARK(BM_block_diagonal_inverse_elasticity)->Args({32, 0})->Args({64, 1})->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
