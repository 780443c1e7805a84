#pragma once
// The process's own wall clock, for reports that say what a user waited
// for: a fresh `strata solve` also pays for loading its libraries, starting
// the CUDA driver and loading kernels, which setup and solve times alone
// hide (issue 22's cold start).

namespace strata::app::wall_clock {

/// Seconds since this process started. The part before the first call
/// (loading the program and its shared libraries, static initializers) is
/// read from the kernel's process start time (Linux /proc, 10 ms ticks);
/// after it the steady clock counts. Where /proc cannot be read, the first
/// call is time zero. Call it first thing in main() to anchor it.
double since_start();

/// The part of since_start() that passed before its first call.
double before_first_call();

}  // namespace strata::app::wall_clock
