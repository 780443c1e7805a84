// Kernel microbenchmarks (Google Benchmark): vector operations and SpMV on
// the host and, when present, the device. Each reports bytes per second for
// the bytes the kernel must move at least; `--benchmark_format=json` gives
// machine-readable output. The SpMV comparison with cuSPARSE is
// `strata spmv`.

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

BENCHMARK(BM_axpy)->ArgsProduct({{1 << 20, 1 << 24}, {0, 1}})->UseRealTime();
BENCHMARK(BM_dot)->ArgsProduct({{1 << 20, 1 << 24}, {0, 1}})->UseRealTime();
BENCHMARK(BM_spmv_poisson3d)->ArgsProduct({{64, 128}, {0, 1}})->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
