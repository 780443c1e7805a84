#pragma once
// Timing helpers shared by the benchmark programs: wall-clock seconds with a
// device synchronisation where the work is asynchronous, and the memory a
// step takes.

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <functional>
#include <limits>

#include "strata/core/executor.hpp"

namespace strata::bench {

using Clock = std::chrono::steady_clock;

inline double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

/// Best time of `repeat` runs of f (after one warm-up run), in seconds; the
/// executor is synchronised around every run.
template <class F>
double best_time(const Executor& exec, int repeat, F&& f) {
  f();
  exec.synchronize();
  double best = std::numeric_limits<double>::infinity();
  for (int r = 0; r < repeat; ++r) {
    const auto t0 = Clock::now();
    f();
    exec.synchronize();
    best = std::min(best, seconds_since(t0));
  }
  return best;
}

/// Peak memory above what is in use now, while f runs (the executor's
/// allocator statistics: the device pool on a GPU).
inline std::size_t peak_extra(const Executor& exec, const std::function<void()>& f) {
  exec.synchronize();
  const std::size_t before = exec.memory_stats().in_use;
  exec.reset_peak_memory();
  f();
  const std::size_t peak = exec.memory_stats().peak_in_use;
  return peak > before ? peak - before : 0;
}

/// Bytes of a CSR or BSR matrix's three arrays.
template <class Matrix>
std::size_t matrix_bytes(const Matrix& M) {
  return M.row_ptr().bytes() + M.col_idx().bytes() + M.values().bytes();
}

}  // namespace strata::bench
