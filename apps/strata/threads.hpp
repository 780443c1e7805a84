#pragma once
// How the program's OpenMP threads wait (see DEVELOPERS.md, "Threads on a
// shared machine").

namespace strata::app {

/// Makes the host backend's threads wait passively (sleep, not spin) when
/// the environment has not chosen: with OMP_WAIT_POLICY unset, sets it to
/// "passive" and executes the program again, since libgomp reads it once,
/// when it is loaded, before main. Returns (without executing anything)
/// when OMP_WAIT_POLICY is set, in a build without OpenMP, or when the
/// program cannot be executed again (it then runs with libgomp's default).
///
/// Why: libgomp's default lets idle threads spin for a while at every
/// barrier. On a machine whose cores are busy with other work, a spinning
/// thread holds a core that the thread it waits for needs, and each of the
/// thousands of parallel regions of a solve then waits for the scheduler:
/// measured 36 ms instead of 0.1 ms per SpMV (DEVELOPERS.md).
void settle_threads(int argc, char** argv);

}  // namespace strata::app
