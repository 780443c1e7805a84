#pragma once
// For the benchmark and the device tests: how the device runs the
// level-scheduled triangular solve. Not part of the installed API.

namespace strata::detail {

/// per_level: one kernel per level, the levels separated by the kernel
/// boundaries (the default: nothing waits inside a kernel).
/// sync_free: one kernel for all levels; a thread per row, the rows handed
/// out in level order by an atomic ticket, each waiting on flags set by the
/// rows it depends on (the thread-per-row synchronization-free SpTrSV of
/// Liu et al. 2016 / Su et al. 2020, "CapelliniSpTRSV"), so no launch per
/// level. The same sums in the same order: the same results.
enum class TriangularDeviceSchedule { per_level, sync_free };

/// Sets the schedule of every later device solve and returns the previous
/// one. The host ignores it.
TriangularDeviceSchedule triangular_device_schedule(TriangularDeviceSchedule schedule);

}  // namespace strata::detail
