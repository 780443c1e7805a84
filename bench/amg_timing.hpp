#pragma once
// The AMG benchmarks' setup and value-only resetup measurements: the best
// of several runs after a warm-up, and what one resetup spent per stage.

#include <algorithm>
#include <limits>
#include <memory>

#include "bench_timing.hpp"
#include "strata/amg/amg.hpp"

namespace strata::bench {

/// `repeat` + 1 setups (the first a warm-up), each into H after the
/// previous hierarchy is freed (outside the timing); returns the best time.
/// `make` returns a new hierarchy.
template <class Make>
double time_setup(const Executor& exec, int repeat, std::unique_ptr<amg::Hierarchy<double>>& H,
                  Make&& make) {
  double best = std::numeric_limits<double>::infinity();
  for (int rep = 0; rep <= repeat; ++rep) {
    H.reset();
    exec.synchronize();
    const auto t0 = Clock::now();
    H = make();
    exec.synchronize();
    if (rep > 0) best = std::min(best, seconds_since(t0));
  }
  return best;
}

struct ResetupTiming {
  double seconds = 0;        // best of `repeat`
  amg::StageTimes stages;    // one resetup's
};

/// `repeat` + 1 resetups of H (the first a warm-up). One resetup's stage
/// times are the growth of the hierarchy's stage sums over all of them,
/// from `after_setup` (the sums setup left), divided by their number.
inline ResetupTiming time_resetup(const Executor& exec, amg::Hierarchy<double>& H, int repeat,
                                  const amg::StageTimes& after_setup) {
  ResetupTiming t;
  t.seconds = std::numeric_limits<double>::infinity();
  for (int rep = 0; rep <= repeat; ++rep) {
    exec.synchronize();
    const auto t0 = Clock::now();
    H.resetup();
    exec.synchronize();
    if (rep > 0) t.seconds = std::min(t.seconds, seconds_since(t0));
  }
  for (const auto& [stage, s] : H.summary().setup_stage_seconds) {
    const auto before = after_setup.find(stage);
    const double delta = s - (before == after_setup.end() ? 0.0 : before->second);
    if (delta > 0) t.stages[stage] = delta / (repeat + 1);
  }
  return t;
}

}  // namespace strata::bench
