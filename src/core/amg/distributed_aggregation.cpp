// Aggregation coarsening of a distributed level: strength through a
// distributed transpose, MIS(2) across processes, aggregates that span
// processes, and the near-null space orthonormalized on each aggregate's
// owner (see distributed_aggregation.hpp for the stages and why each gives
// the serial result). Every kernel runs where A lives; halo plans are built
// on the host, as every HaloPlan is.

#include "core/amg/distributed_aggregation.hpp"

#include <algorithm>
#include <exception>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "core/amg/aggregation_internal.hpp"
#include "core/amg/distributed_classical.hpp"
#include "core/amg/stage_timer.hpp"
#include "core/distributed/communication.hpp"
#include "kernels/amg/aggregation_kernels.hpp"
#include "kernels/amg/distributed_classical_kernels.hpp"
#include "kernels/base/random.hpp"
#include "strata/core/primitives.hpp"
#include "strata/distributed/halo.hpp"
#include "strata/distributed/rows.hpp"
#include "strata/matrix/transpose.hpp"

namespace strata::amg::detail {

namespace {

namespace agg = kernels::aggregation;
namespace dk = kernels::distributed_classical;

/// The symmetric strength graph of this process's rows over local columns
/// (owned points, then the graph's ghosts in global order), with the plan
/// that brings the ghosts' values.
template <class T>
struct DistributedStrength {
  StrengthGraph<T> S;
  std::shared_ptr<const HaloPlan> plan;
  Array<global_index> ghost_ids;
  size_type ghosts() const noexcept { return ghost_ids.size(); }
};

/// Stage 1. The serial graph has an edge i-j when (i, j) or (j, i) is
/// stored and C_ij or C_ji (strength_graph on A + 0 A^T). C_ij needs only
/// row i; C_ji and the entries stored only as (j, i) live in row j, which
/// may be another process's: each process marks its rows' entries (code 2
/// strong, 1 stored), the marks are transposed (the diagonal block's here,
/// the off-diagonal block's across processes: only the boundary's entries
/// travel), and each row's graph is the union of its entries and its
/// transposed entries (union_counts/union_fill, row by row). The weights are the serial
/// expression on the stored entries (0 for transposed-only ones), and the
/// influence counts the C_ji, as the serial mark_strong does. Row by row
/// and only the boundary's marks across processes, because a global sort
/// of (row, column) keys or a transpose of all the marks cost several
/// times the rest of the stage (bench/NOTES.md, issue 17 item 5).
template <class T>
DistributedStrength<T> distributed_strength(const DistributedCsrMatrix<T>& A, double alpha) {
  const Executor& exec = A.executor();
  const size_type n = A.local_rows();
  const global_index first = A.row_partition().begin(), last = A.row_partition().end();
  const CsrMatrix<T> L = local_view(A);
  RowBlock<T> marks = owned_rows(A);  // L's entries with global columns
  Array<T> sign(exec, n), strongest(exec, n), weight(exec, marks.nnz());
  const CsrMatrix<T>& diag = A.diag();
  const CsrMatrix<T>& offd = A.offd();
  Array<T> diag_code(exec, diag.nnz());
  RowBlock<T> offd_codes;  // the off-diagonal block with global columns
  offd_codes.row_ptr = Array<offset_type>(exec, n + 1);
  offd_codes.cols = Array<global_index>(exec, offd.nnz());
  offd_codes.values = Array<T>(exec, offd.nnz());
  const auto offset = static_cast<index_type>(n);
  exec.visit([&](const auto& e) {
    agg::row_strength(e, n, L.nnz(), L.row_ptr().data(), L.col_idx().data(), L.values().data(),
                      sign.data(), strongest.data());
    agg::strength_codes(e, n, L.row_ptr().data(), L.col_idx().data(), L.values().data(), 0,
                        T(alpha), sign.data(), strongest.data(), marks.values.data(),
                        weight.data());
    agg::strength_codes(e, n, diag.row_ptr().data(), diag.col_idx().data(), diag.values().data(), 0,
                        T(alpha), sign.data(), strongest.data(), diag_code.data(),
                        static_cast<T*>(nullptr));
    agg::strength_codes(e, n, offd.row_ptr().data(), offd.col_idx().data(), offd.values().data(),
                        offset, T(alpha), sign.data(), strongest.data(), offd_codes.values.data(),
                        static_cast<T*>(nullptr));
    dk::row_slice(e, 0, n, offd.row_ptr().data(), offd.col_idx().data(), A.column_map().data(),
                  offd_codes.row_ptr.data(), offd_codes.cols.data());
  });
  // Transposed: the diagonal block's codes here, the off-diagonal block's
  // (the few entries along the process boundaries) across processes.
  // A structurally symmetric block with sorted rows (most PDE matrices)
  // finds each transposed code in place, on the block's own pattern: the
  // transpose of the whole block cost more than the rest of the stage.
  Array<T> code_t(exec, diag.nnz());
  const size_type asymmetric = exec.visit([&](const auto& e) {
    return agg::transposed_values(e, n, diag.row_ptr().data(), diag.col_idx().data(),
                                  diag_code.data(), code_t.data());
  });
  const CsrMatrix<T> local_t =
      asymmetric == 0
          ? CsrMatrix<T>(n, n, diag.row_ptr().clone(), diag.col_idx().clone(), std::move(code_t))
          : transpose(CsrMatrix<T>(n, n, diag.row_ptr().clone(), diag.col_idx().clone(),
                                   std::move(diag_code)));
  const RowBlock<T> remote_t = owned_rows(
      transpose(DistributedCsrMatrix<T>(A.row_partition(), A.col_partition(), offd_codes)));
  agg::TransposedCodes<T> t;
  t.local_ptr = local_t.row_ptr().data();
  t.local_cols = local_t.col_idx().data();
  t.local_code = local_t.values().data();
  t.remote_ptr = remote_t.row_ptr.data();
  t.remote_cols = remote_t.cols.data();
  t.remote_code = remote_t.values.data();

  DistributedStrength<T> D;
  StrengthGraph<T>& S = D.S;
  S.influence = Array<index_type>(exec, n);
  Array<offset_type> row_ptr(exec, n + 1);
  exec.visit([&](const auto& e) {
    agg::union_counts(e, n, first, marks.row_ptr.data(), marks.cols.data(), marks.values.data(), t,
                      row_ptr.data(), S.influence.data());
  });
  const size_type edges = exclusive_scan(row_ptr, row_ptr);
  Array<global_index> cols(exec, edges);
  S.weight = Array<T>(exec, edges);
  exec.visit([&](const auto& e) {
    agg::union_fill(e, n, first, marks.row_ptr.data(), marks.cols.data(), marks.values.data(),
                    weight.data(), t, row_ptr.data(), cols.data(), S.weight.data());
  });
  // The graph's ghosts, sorted: every column beyond this process that an
  // edge can reach, A's ghosts and the transposed boundary's columns (both
  // as small as the process boundary), not read off the edges themselves,
  // which would copy the whole graph to the host (most of the setup on a
  // GPU). A ghost that no edge kept costs one value in each exchange and
  // nothing else.
  std::vector<global_index> ghosts = A.column_map().to_vector();
  {
    const std::vector<global_index> remote = remote_t.cols.to_vector();
    ghosts.insert(ghosts.end(), remote.begin(), remote.end());
  }
  std::sort(ghosts.begin(), ghosts.end());
  ghosts.erase(std::unique(ghosts.begin(), ghosts.end()), ghosts.end());
  D.plan = std::make_shared<const HaloPlan>(A.row_partition(), ghosts, exec);
  D.ghost_ids = Array<global_index>(exec, ghosts);
  S.col_idx = Array<index_type>(exec, edges);
  exec.visit([&](const auto& e) {
    dk::localize(e, edges, cols.data(), first, last, D.ghost_ids.data(), D.ghosts(),
                 S.col_idx.data());
  });
  S.row_ptr = std::move(row_ptr);
  return D;
}

/// `owned` followed by the ghosts' values (one halo exchange).
template <class V>
Array<V> with_ghosts(HaloExchange<V>& exchange, const Vector<V>& owned, size_type ghosts) {
  const Executor& exec = owned.executor();
  const size_type n = owned.size();
  Array<V> all(exec, n + ghosts);
  exchange.begin(owned);
  const Vector<V>& received = exchange.finish();
  if (n > 0) copy_bytes(all.data(), exec, owned.data(), exec, sizeof(V) * n);
  if (ghosts > 0) copy_bytes(all.data() + n, exec, received.data(), exec, sizeof(V) * ghosts);
  return all;
}

/// Tuples travel as 64-bit integers (the halo exchanges' type); the bits
/// are the kernels' unsigned tuples.
std::uint64_t* tuples(Vector<std::int64_t>& v) {
  return reinterpret_cast<std::uint64_t*>(v.data());
}
std::uint64_t* tuples(Array<std::int64_t>& v) { return reinterpret_cast<std::uint64_t*>(v.data()); }

}  // namespace

template <class T>
DistributedAggregates distributed_aggregates(const DistributedCsrMatrix<T>& A, double alpha,
                                             std::uint64_t seed, int level, StageTimes* times) {
  if (A.row_partition() != A.col_partition()) {
    throw invalid_argument(
        "aggregation coarsening: a distributed level must be square with its columns split "
        "like its rows; it has " +
        std::to_string(A.global_rows()) + " x " + std::to_string(A.global_cols()) +
        " entries with other partitions");
  }
  if (A.global_rows() > std::numeric_limits<index_type>::max()) {
    throw invalid_argument("aggregation coarsening: a distributed level has " +
                           std::to_string(A.global_rows()) +
                           " rows; MIS(2) packs a global row into 32 bits and numbers "
                           "aggregates with 32-bit ids, so at most 2^31 - 1 rows");
  }
  const Executor& exec = A.executor();
  const Communicator& comm = A.communicator();
  const size_type n = A.local_rows();
  const global_index first = A.row_partition().begin();
  std::optional<StageTimer> clock;
  if (times != nullptr) clock.emplace(exec, *times, "strength");
  DistributedStrength<T> D = distributed_strength(A, alpha);
  if (times != nullptr) clock.emplace(exec, *times, "aggregation");
  const StrengthGraph<T>& S = D.S;
  const size_type g = D.ghosts();
  const offset_type* rp = S.row_ptr.data();
  const index_type* ci = S.col_idx.data();

  // MIS(2): Algorithm 2 with the global row in the hash and the tuples.
  Array<std::int8_t> state(exec, n + g);
  Array<std::uint32_t> priority(exec, n);
  exec.visit([&](const auto& e) {
    agg::mis2_init(e, n, rp, S.influence.data(),
                   kernels::base::splitmix64(seed, std::uint64_t(level)), first, state.data(),
                   priority.data());
  });
  HaloExchange<std::int64_t> exchange(D.plan, exec);
  Vector<std::int64_t> self(exec, n), tuple(exec, n);
  const auto exchange_states = [&] {
    // The ghosts' states, unpacked from the tuples their owners pack.
    exec.visit([&](const auto& e) {
      agg::mis2_pack(e, n, first, state.data(), priority.data(), tuples(self));
    });
    Array<std::int64_t> all = with_ghosts(exchange, self, g);
    exec.visit(
        [&](const auto& e) { agg::mis2_unpack_state(e, g, tuples(all) + n, state.data() + n); });
    return all;
  };
  DistributedAggregates result;
  const size_type global_rows = A.global_rows();
  // Every process runs the same iterations: the loop's test is a sum over
  // processes, and each iteration decides at least the largest undecided
  // tuple of the whole graph.
  for (size_type undecided = global_rows; undecided > 0;) {
    Array<std::int64_t> packed = exchange_states();
    exec.visit([&](const auto& e) {
      agg::mis2_propagate_packed(e, n, rp, ci, tuples(packed), tuples(tuple));
    });
    Array<std::int64_t> propagated = with_ghosts(exchange, tuple, g);
    const size_type local = exec.visit([&](const auto& e) {
      return agg::mis2_decide(e, n, rp, ci, tuples(propagated), first, state.data());
    });
    ++result.iterations;
    undecided = strata::detail::sum_over_processes(comm, local);
    if (undecided > 0 && result.iterations > global_rows + 1) {
      throw error("aggregate: distributed MIS(2) did not finish after " +
                  std::to_string(result.iterations) + " iterations (internal error)");
    }
  }
  exchange_states();

  // Roots numbered in global order: counted here, the processes' counts
  // scanned, then numbered from this process's offset.
  Vector<index_type> aggregate(exec, n);
  const size_type roots = exec.visit(
      [&](const auto& e) { return agg::number_roots(e, n, state.data(), 0, aggregate.data()); });
  const RowPartition owners = RowPartition::from_local_rows(comm, roots);
  result.first = owners.begin();
  result.owned = roots;
  result.global_count = owners.global_size();
  const auto offset = static_cast<index_type>(result.first);
  exec.visit(
      [&](const auto& e) { agg::number_roots(e, n, state.data(), offset, aggregate.data()); });
  // Nearest root: the ghosts' aggregates before each pass, their
  // distances before the second.
  HaloExchange<std::int32_t> ids(D.plan, exec);
  const agg::PointIds point_ids{first, n, D.ghost_ids.data()};
  Array<index_type> all = with_ghosts(ids, aggregate, g);
  Vector<std::int32_t> distance(exec, n);
  exec.visit([&](const auto& e) {
    agg::join_adjacent_root(e, n, rp, ci, S.weight.data(), state.data(), point_ids, all.data(),
                            distance.data());
  });
  if (n > 0) copy_bytes(aggregate.data(), exec, all.data(), exec, sizeof(index_type) * n);
  all = with_ghosts(ids, aggregate, g);
  const Array<std::int32_t> all_distance = with_ghosts(ids, distance, g);
  const size_type left = exec.visit([&](const auto& e) {
    return agg::join_distance_two(e, n, rp, ci, S.weight.data(), all_distance.data(), point_ids,
                                  all.data());
  });
  if (strata::detail::sum_over_processes(comm, left) > 0) {
    throw error("aggregate: " + std::to_string(left) +
                " points here are farther than two strong connections from every MIS(2) root "
                "(internal error)");
  }
  result.aggregate = Array<index_type>(exec, n);
  if (n > 0) copy_bytes(result.aggregate.data(), exec, all.data(), exec, sizeof(index_type) * n);
  return result;
}

template <class T>
DistributedInterpolation<T> distributed_interpolation(const DistributedCsrMatrix<T>& A,
                                                      const DistributedAggregates& aggregates,
                                                      const Array<T>& near_null_space,
                                                      int columns) {
  const Executor& exec = A.executor();
  const Communicator& comm = A.communicator();
  const size_type n = A.local_rows();
  const int k = columns;
  require(k >= 1, "aggregation coarsening: columns must be >= 1, got " + std::to_string(k));
  std::exception_ptr failure;
  try {
    check_location(exec, near_null_space.executor(), "near_null_space", "the level");
    if (near_null_space.size() != n * k) {
      throw dimension_mismatch("aggregation coarsening: the near-null space has " +
                               std::to_string(near_null_space.size()) + " values here, expected " +
                               std::to_string(n) + " rows x " + std::to_string(k) + " columns");
    }
  } catch (...) {
    failure = std::current_exception();
  }
  strata::detail::agree_on_failure(comm, failure, "aggregation coarsening");
  const size_type local_coarse = aggregates.owned * k;
  const RowPartition coarse = RowPartition::from_local_rows(comm, local_coarse);
  checked_index(coarse.global_size(), "aggregation coarsening: aggregates x columns");

  // The tentative P with B's rows, then transposed: each aggregate's rows
  // of B arrive at its owner.
  RowBlock<T> tentative;
  tentative.row_ptr = Array<offset_type>(exec, n + 1);
  const size_type nnz = exec.visit([&](const auto& e) {
    return agg::interpolation_pattern(e, n, aggregates.aggregate.data(), k,
                                      tentative.row_ptr.data());
  });
  tentative.cols = Array<global_index>(exec, nnz);
  tentative.values = Array<T>(exec, nnz);
  exec.visit([&](const auto& e) {
    agg::interpolation_fill(e, n, aggregates.aggregate.data(), k, near_null_space.data(),
                            tentative.row_ptr.data(), tentative.cols.data(),
                            tentative.values.data());
  });
  RowBlock<T> rows =
      owned_rows(transpose(DistributedCsrMatrix<T>(A.row_partition(), coarse, tentative)));
  // Each row in global column order, the order of the serial R = P^T, so
  // that Gram-Schmidt sums as the serial stage sums.
  exec.visit([&](const auto& e) {
    agg::sort_rows(e, local_coarse, rows.row_ptr.data(), rows.cols.data(), rows.values.data());
  });
  DistributedInterpolation<T> result;
  result.coarse_near_null_space = Array<T>(exec, local_coarse * k);
  Array<index_type> keep(exec, local_coarse);
  const size_type dropped = exec.visit([&](const auto& e) {
    return agg::orthonormalize_aggregates(e, aggregates.owned, k, rows.row_ptr.data(), nullptr,
                                          rows.values.data(), nullptr, static_cast<T*>(nullptr),
                                          result.coarse_near_null_space.data(), keep.data(),
                                          T(aggregate_drop_tolerance));
  });
  result.dropped = strata::detail::sum_over_processes(comm, dropped);
  RowPartition kept = coarse;
  if (result.dropped > 0) {
    // B is rank-deficient on some aggregates: their dropped columns are rows
    // of R here; the kept ones are renumbered in global order (the scan of
    // the processes' kept counts), as the serial drop_columns renumbers.
    Array<index_type> new_index(exec, local_coarse);
    const size_type kept_here = exclusive_scan(keep, new_index);
    kept = RowPartition::from_local_rows(comm, kept_here);
    RowBlock<T> kept_rows;
    kept_rows.row_ptr = Array<offset_type>(exec, kept_here + 1);
    exec.visit([&](const auto& e) {
      agg::kept_row_lengths(e, local_coarse, kept_here, keep.data(), new_index.data(),
                            rows.row_ptr.data(), kept_rows.row_ptr.data());
    });
    const size_type kept_nnz = exclusive_scan(kept_rows.row_ptr, kept_rows.row_ptr);
    kept_rows.cols = Array<global_index>(exec, kept_nnz);
    kept_rows.values = Array<T>(exec, kept_nnz);
    Array<T> kept_B(exec, kept_here * k);
    exec.visit([&](const auto& e) {
      agg::copy_kept_rows(e, local_coarse, kept_here, keep.data(), new_index.data(),
                          rows.row_ptr.data(), rows.cols.data(), rows.values.data(),
                          kept_rows.row_ptr.data(), kept_rows.cols.data(), kept_rows.values.data(),
                          k, result.coarse_near_null_space.data(), kept_B.data());
    });
    rows = std::move(kept_rows);
    result.coarse_near_null_space = std::move(kept_B);
  }
  result.R = std::make_shared<DistributedCsrMatrix<T>>(kept, A.row_partition(), rows);
  result.P = std::make_shared<DistributedCsrMatrix<T>>(transpose(*result.R));
  return result;
}

template DistributedAggregates distributed_aggregates<double>(const DistributedCsrMatrix<double>&,
                                                              double, std::uint64_t, int,
                                                              StageTimes*);
template DistributedInterpolation<double> distributed_interpolation<double>(
    const DistributedCsrMatrix<double>&, const DistributedAggregates&, const Array<double>&, int);

}  // namespace strata::amg::detail
