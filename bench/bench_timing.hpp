#pragma once
// Timing helpers shared by the benchmark programs: wall-clock seconds with a
// device synchronisation where the work is asynchronous.

#include <algorithm>
#include <chrono>
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

}  // namespace strata::bench
