#pragma once
// Timing of the named AMG setup stages (amg::StageTimes), shared by the
// hierarchy and the coarsenings.

#include <chrono>
#include <optional>

#include "strata/amg/amg.hpp"

namespace strata::amg::detail {

/// Adds the time since construction to times[stage] when it goes out of
/// scope, after the executor's queued work has finished (a stage's time
/// includes its device work). `stage` must outlive the timer.
class StageTimer {
 public:
  StageTimer(const Executor& exec, StageTimes& times, const char* stage)
      : exec_(exec), times_(times), stage_(stage), start_(Clock::now()) {}
  ~StageTimer() {
    exec_.synchronize();
    times_[stage_] += std::chrono::duration<double>(Clock::now() - start_).count();
  }
  StageTimer(const StageTimer&) = delete;
  StageTimer& operator=(const StageTimer&) = delete;

 private:
  using Clock = std::chrono::steady_clock;
  const Executor& exec_;
  StageTimes& times_;
  const char* stage_;
  Clock::time_point start_;
};

/// A StageTimer when `enabled`, nothing otherwise: the optional parts of a
/// stage, which cost a device synchronisation each.
class PartTimer {
 public:
  PartTimer(bool enabled, const Executor& exec, StageTimes& times, const char* part) {
    if (enabled) timer_.emplace(exec, times, part);
  }
  /// Enabled when `times` is given (the stages' optional `parts`).
  PartTimer(StageTimes* times, const Executor& exec, const char* part) {
    if (times != nullptr) timer_.emplace(exec, *times, part);
  }

 private:
  std::optional<StageTimer> timer_;
};

}  // namespace strata::amg::detail
