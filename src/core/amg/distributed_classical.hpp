#pragma once
// Internal to classical coarsening: one level of it on a distributed matrix
// (distributed_classical.cpp). classical.cpp's coarsening calls it when its
// level is a DistributedOperator; the stages are the serial ones, and each
// gives what the serial stage gives on the whole matrix:
//
//  1. strength of this process's rows, both blocks at once (the serial
//     kernel on the rows with local columns: owned, then ghosts);
//  2. PMIS with weights hashed from the global row index, the ghosts'
//     weights and candidacies exchanged every round, so the splitting is the
//     serial one whatever the number of processes;
//  3. the coarse partition (an exclusive scan of the processes' C counts)
//     and the coarse ids of the ghosts' and distance-two points;
//  4. interpolation: the serial stage (classical_internal.hpp) run on an
//     extended local problem, this process's rows and its ghosts' rows
//     (fetched) over compact local columns, for the owned rows only.
//
// An aggressive level adds the serial aggressive path between 3 and 4: the
// second-pass strength ((S + I) S)_CC of the owned C points, computed on the
// extended local problem (every path of length two from an owned point
// passes through an owned or a ghost row); PMIS on that graph across
// processes, hashed by the fine global row as the serial pass hashes; and
// two-stage interpolation, P1 and P2 both on the extended local problem,
// then P1 P2 with P2's rows for P1's off-process columns fetched from their
// owners, truncated as the serial product.

#include <cstdint>
#include <memory>

#include "strata/amg/amg.hpp"
#include "strata/amg/classical.hpp"
#include "strata/distributed/matrix.hpp"

namespace strata::amg::detail {

/// This process's rows of A with local columns: j < n owned, n + g ghost g
/// of A's column map (the layout of the distributed kernels' "local
/// view"), on A's executor. Shared with distributed aggregation.
template <class T>
CsrMatrix<T> local_view(const DistributedCsrMatrix<T>& A);

/// One distributed level: the splitting of the owned rows (kCoarse or
/// kFine), and P and R = P^T when the level was coarsened (null when every
/// point or no point became C over all processes, as in the serial
/// coarsening). P and R are shared with the hierarchy's Transfer; refresh
/// writes their values in place.
template <class T>
struct DistributedClassicalLevel {
  Array<std::int32_t> splitting;
  std::shared_ptr<DistributedCsrMatrix<T>> P, R;
  /// What refresh needs: the extended local problem, its strength flags,
  /// the interpolation stage(s) with their products and truncation choices
  /// (defined in distributed_classical.cpp; null when released).
  struct RefreshData;
  std::shared_ptr<RefreshData> refresh_data;
};

/// Collective. Coarsens A (square, columns split like its rows) with the
/// strength, interpolation and truncation fields of `params` and the PMIS
/// seeds `seed` and `second_seed` (the serial coarsening's seeds of the
/// level's first and second pass), aggressively (the second pass and
/// two-stage interpolation with the aggressive fields of `params`) when
/// `aggressive` (whether the serial coarsening would be aggressive on this
/// level). The splitting is the final one (C = kept by both passes). Adds
/// the stage times to "strength", "splitting" and "interpolation". Throws
/// invalid_argument when A is not square with matching partitions.
template <class T>
DistributedClassicalLevel<T> distributed_classical_level(const DistributedCsrMatrix<T>& A,
                                                         const ClassicalParams& params,
                                                         std::uint64_t seed,
                                                         std::uint64_t second_seed, bool aggressive,
                                                         StageTimes& times);

/// Collective. New values of level.P and level.R for new values of A
/// (A's pattern and partition unchanged), as the serial refresh computes
/// them: the strength flags, the splitting and P's pattern are kept, the
/// values recomputed from A's rows and the ghosts' rows fetched again.
/// Adds its time to "interpolation". Throws invalid_argument (on every
/// process) when the refresh data was released or a process's rows of A
/// (or its ghosts' rows) no longer have the pattern of setup.
template <class T>
void refresh_distributed_level(DistributedClassicalLevel<T>& level,
                               const DistributedCsrMatrix<T>& A, StageTimes& times);

}  // namespace strata::amg::detail
