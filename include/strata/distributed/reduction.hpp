#pragma once
/// \file
/// The Reduction of distributed solves: combine() turns every process's
/// partial sums into the global sums, the same bits on every process and
/// from run to run for a fixed number of processes.
///
/// Why not MPI_Allreduce with MPI_SUM: the order in which MPI adds the
/// contributions depends on its reduction algorithm (message sizes, the
/// number of processes, the library's tuning), so two runs, or two
/// processes, may see sums that differ in the last bits, and iterative
/// solvers amplify such differences into different iteration counts.
/// Instead every process gathers all partial sums (MPI_Allgather of k
/// values per process) and adds them itself in rank order, starting from
/// rank 0's: a fixed order that depends only on the number of processes,
/// and on one process exactly the serial sum. The cost is k * processes
/// values per reduction instead of k, which for the few scalars of a
/// Krylov step is latency-bound either way.

#include "strata/distributed/communicator.hpp"
#include "strata/solver/reduction.hpp"

namespace strata {

template <class T>
class DistributedReduction final : public Reduction<T> {
 public:
  explicit DistributedReduction(Communicator comm) : comm_(std::move(comm)) {}
  /// Collective: every process calls it with the same number of sums.
  void combine(Span<T> partial_sums) const override;
  const Communicator& communicator() const noexcept { return comm_; }

 private:
  Communicator comm_;
};

}  // namespace strata
