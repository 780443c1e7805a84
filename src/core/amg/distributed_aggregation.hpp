#pragma once
// Internal to aggregation coarsening: one level of it on a distributed
// matrix (distributed_aggregation.cpp). The stages are the serial ones of
// strata/amg/aggregation.hpp, each giving what the serial stage gives on the
// whole matrix, so the aggregates, P and the coarse near-null space do not
// depend on the number of processes:
//
//  1. strength: each process marks C_ij for its rows (both blocks); the
//     marks are transposed (the diagonal block's locally, the off-diagonal
//     block's across processes), so every process also knows C_ji for its
//     rows, and the symmetric graph is the union of a row and its
//     transposed row, exactly as the serial graph of A + 0 A^T;
//  2. MIS(2) with priorities hashed from the global row and tuples packing
//     the global row: each iteration, the ghosts' packed (state, priority,
//     id) tuples come by halo exchange before the first round of maximum
//     propagation and the first round's maxima before the second; the loop
//     ends when no process has an undecided point (a sum over processes);
//  3. roots numbered in global order (an exclusive scan of the processes'
//     root counts: the serial numbering); points join the nearest root with
//     the ghosts' states, aggregate ids and distances exchanged between the
//     passes, so an aggregate may SPAN processes; it belongs to the process
//     of its root (the coarse partition);
//  4. the tentative P with B's rows, transposed (each aggregate's rows of B
//     reach its owner), orthonormalized there over the aggregate's points
//     in global order as the serial stage does, and transposed back: P and
//     R = P^T with the serial values, the coarse B kept on the owner.

#include <cstdint>
#include <memory>
#include <optional>

#include "strata/amg/aggregation.hpp"
#include "strata/distributed/matrix.hpp"

namespace strata::amg::detail {

/// Stage 2's result on a distributed level.
struct DistributedAggregates {
  /// The global aggregate id of each owned row (-1: no strong connection),
  /// on the matrix's executor.
  Array<index_type> aggregate;
  /// Aggregates whose root is on this process; they are the global ids
  /// [first, first + owned).
  size_type owned = 0;
  global_index first = 0;
  size_type global_count = 0;
  /// MIS(2) iterations (the same on every process and as serially).
  int iterations = 0;
};

/// Collective. Stages 1 and 2 on A (square, columns split like its rows):
/// the serial aggregate(strength_graph(whole A, alpha), seed, level) on
/// this process's rows. Throws invalid_argument (on every process) when A
/// is not square with matching partitions or has 2^31 rows or more (MIS(2)
/// packs a global row into 32 bits). With `times`, adds the stages' times
/// to "strength" and "aggregation".
template <class T>
DistributedAggregates distributed_aggregates(const DistributedCsrMatrix<T>& A, double alpha,
                                             std::uint64_t seed, int level,
                                             StageTimes* times = nullptr);

/// Stage 3's result on a distributed level.
template <class T>
struct DistributedInterpolation {
  std::shared_ptr<DistributedCsrMatrix<T>> P, R;
  /// This process's coarse rows of the next near-null space, column-major.
  Array<T> coarse_near_null_space;
  /// Columns dropped over all processes (rank-deficient aggregates).
  size_type dropped = 0;
};

/// Collective. P (A's rows x aggregates * columns, columns split by the
/// aggregates' owners) and R = P^T with the serial values for this
/// process's rows of the near-null space B (column-major, A.local_rows() x
/// columns, on A's executor).
template <class T>
DistributedInterpolation<T> distributed_interpolation(const DistributedCsrMatrix<T>& A,
                                                      const DistributedAggregates& aggregates,
                                                      const Array<T>& near_null_space, int columns);

}  // namespace strata::amg::detail
