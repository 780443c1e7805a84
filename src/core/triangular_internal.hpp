#pragma once
// For the benchmark and the device tests: how the device runs the
// level-scheduled triangular solve. Not part of the installed API.

namespace strata::detail {

/// per_level: the levels separated by kernel boundaries (the default:
/// nothing spins inside a kernel), launched as one recorded CUDA graph per
/// solve, runs of small levels merged into single-block kernels, each
/// level's kernel started early by programmatic dependent launch so that
/// only its reads of x wait for the previous level
/// (kernels::triangular::solve_levels).
/// recorded: the same graph without the early start (each level's kernel
/// starts when the previous one has finished).
/// launched: a thread-per-row kernel launched from the host per level (the
/// path before the graph; kept for comparison in the benchmark).
/// sync_free: one kernel for all levels; a thread per row, the rows handed
/// out in level order by an atomic ticket, each waiting on flags set by the
/// rows it depends on (the thread-per-row synchronization-free SpTrSV of
/// Liu et al. 2016 / Su et al. 2020, "CapelliniSpTRSV"), so no launch per
/// level. launched and sync_free sum each row in stored order (the host's
/// sums); per_level and recorded run the same kernels, which sum a row by
/// lanes: equal to each other bit for bit, to the others up to rounding.
enum class TriangularDeviceSchedule { per_level, recorded, launched, sync_free };

/// Sets the schedule of every later device solve and returns the previous
/// one. The host ignores it.
TriangularDeviceSchedule triangular_device_schedule(TriangularDeviceSchedule schedule);

}  // namespace strata::detail
