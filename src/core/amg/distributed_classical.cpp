// Classical coarsening of a distributed level: strength, PMIS across
// processes, the coarse numbering, and interpolation on an extended local
// problem (see distributed_classical.hpp for the stages and why each gives
// the serial result). Every kernel runs where A lives; the halo plan of the
// extended points is built on the host, as every HaloPlan is.

#include "core/amg/distributed_classical.hpp"

#include <algorithm>
#include <cstddef>
#include <exception>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/amg/classical_internal.hpp"
#include "core/amg/stage_timer.hpp"
#include "core/distributed/communication.hpp"
#include "core/distributed/split.hpp"
#include "kernels/amg/classical_kernels.hpp"
#include "kernels/amg/distributed_classical_kernels.hpp"
#include "strata/core/primitives.hpp"
#include "strata/distributed/halo.hpp"
#include "strata/distributed/rows.hpp"
#include "strata/matrix/spgemm.hpp"

namespace strata::amg::detail {

/// What refresh_distributed_level needs, kept from setup.
template <class T>
struct DistributedClassicalLevel<T>::RefreshData {
  /// The extended local problem (its values rewritten by refresh) and its
  /// strength flags (kept, as the serial refresh keeps S).
  CsrMatrix<T> E;
  Array<std::uint8_t> strong;
  /// How E was made: the local columns of the owned rows' ghosts and of the
  /// fetched rows' entries, and the fetched row of each extended point.
  Array<index_type> ghost_column, fetched_col, source;
  size_type local_nnz = 0;
  /// The interpolation stage on E (operands, product, truncation choice),
  /// its truncated result, and the global coarse id of each local column.
  InterpolationStage<T> stage;
  CsrMatrix<T> P;
  Array<global_index> table;
  /// Two-stage interpolation of an aggressive level (P = P1 P2, then
  /// truncated): `stage` is P1's, `second` P2's, both on E. P is then the
  /// truncated product (this process's rows only) and `table` the global
  /// coarse id of each of its columns. P2's owned rows form the distributed
  /// P2, from which the rows that P1's other columns reach are fetched
  /// along p2_plan (over the first-pass coarse partition); X (P1's owned
  /// rows, columns [owned | others]) times Y (P2's owned rows, then the
  /// fetched ones) is the product.
  bool two_stage = false;
  InterpolationStage<T> second;
  CsrMatrix<T> P1, P2;
  Array<global_index> table2;
  std::shared_ptr<DistributedCsrMatrix<T>> P2_rows;
  std::shared_ptr<const HaloPlan> p2_plan;
  Array<index_type> owned_p2_col, fetched_p2_col;
  CsrMatrix<T> X, Y;
  std::optional<SparseProduct<CsrMatrix<T>>> P12;
  bool final_truncated = false;
};

template <class T>
CsrMatrix<T> local_view(const DistributedCsrMatrix<T>& A) {
  namespace dk = kernels::distributed_classical;
  const Executor& exec = A.executor();
  RowBlock<T> rows = owned_rows(A);
  const size_type n = A.local_rows();
  const size_type ghosts = A.column_map().size();
  Array<index_type> cols(exec, rows.nnz());
  exec.visit([&](const auto& e) {
    dk::localize(e, rows.nnz(), rows.cols.data(), A.row_partition().begin(),
                 A.row_partition().end(), A.column_map().data(), ghosts, cols.data());
  });
  return CsrMatrix<T>(n, n + ghosts, std::move(rows.row_ptr), std::move(cols),
                      std::move(rows.values));
}

template CsrMatrix<double> local_view(const DistributedCsrMatrix<double>&);

namespace {

namespace dk = kernels::distributed_classical;

template <class T>
using RefreshData = typename DistributedClassicalLevel<T>::RefreshData;

/// The plan of `A` as a shared pointer that does not own it (the exchanges
/// made from it live only while A does, inside one coarsening call).
std::shared_ptr<const HaloPlan> borrowed(const HaloPlan& plan) {
  return std::shared_ptr<const HaloPlan>(std::shared_ptr<const HaloPlan>(), &plan);
}

/// The reverse of a halo exchange: each process sends its values of its
/// ghosts back to their owners, and receives, for every value that it sends
/// in the forward direction, what that neighbour holds for it; returned in
/// the plan's send order (send_count() values, matching send_indices()),
/// for the caller to combine (PMIS adds influence counts and ANDs
/// candidacies: what other processes' rows say about this process's points).
/// Collective. Device data goes to MPI directly when MPI is CUDA-aware, else
/// through host copies.
template <class V>
Array<V> reverse_exchange(const HaloPlan& plan, const Array<V>& ghost_values) {
  const Communicator& comm = plan.communicator();
  const Executor& exec = ghost_values.executor();
  Array<V> received(exec, plan.send_count());
  const bool direct = exec.is_host() || comm.cuda_aware();
  Array<V> send_stage, receive_stage;
  const V* send_base = ghost_values.data();
  V* receive_base = received.data();
  if (!direct) {
    send_stage = ghost_values.to(Executor::host());
    receive_stage = Array<V>(Executor::host(), plan.send_count());
    send_base = send_stage.data();
    receive_base = receive_stage.data();
  } else {
    exec.synchronize();  // MPI reads the ghost values itself
  }
  strata::detail::RequestSet messages;
  for (const HaloNeighbour& s : plan.sends()) {
    messages.receive(comm, receive_base + s.offset, static_cast<std::size_t>(s.count) * sizeof(V),
                     s.rank, strata::detail::Tag::halo_reverse);
  }
  for (const HaloNeighbour& r : plan.receives()) {
    messages.send(comm, send_base + r.offset, static_cast<std::size_t>(r.count) * sizeof(V), r.rank,
                  strata::detail::Tag::halo_reverse);
  }
  messages.wait_all();
  if (!direct) copy(receive_stage, received);
  return received;
}

/// The classical strength flags of L's entries (the serial kernel: a row's
/// test reads only that row, here both of its blocks).
template <class T>
Array<std::uint8_t> strength_flags(const CsrMatrix<T>& L, const ClassicalParams& p) {
  Array<std::uint8_t> strong(L.executor(), L.nnz());
  L.executor().visit([&](const auto& e) {
    ck::strength(e, L.rows(), L.nnz(), L.row_ptr().data(), L.col_idx().data(), L.values().data(),
                 p.strength_threshold, p.max_row_sum, strong.data());
  });
  return strong;
}

/// PMIS over all processes (the serial pmis() round by round): each round
/// the ghosts' weights come by halo exchange, every process marks the
/// candidates its rows rule out (its own points and its ghosts), the
/// ghosts' marks go back to their owners, the surviving candidates' flags
/// come forward again, and the round's C and F points are decided. Weights
/// are influence + random_unit(seed, hash id), with the influence (how many
/// points depend on a point) summed over every process's rows, so each
/// round equals the serial one; ties go to the larger global row of A.
/// The hash id of owned point i is hash_begin + i, or hash_begin +
/// hash_offset[i] (the second pass of aggressive coarsening, whose graph's
/// rows are C points numbered in the order of their fine rows: it hashes
/// their fine rows, as the serial pass does, and its ties then break as
/// the serial ones by fine row). Points without edges become C with
/// isolated_coarse, else F. Ends when no process has an undecided point.
/// Collective.
template <class T>
Array<std::int32_t> pmis(const DistributedCsrMatrix<T>& A, const CsrMatrix<T>& L,
                         const Array<std::uint8_t>& strong, std::uint64_t seed,
                         global_index hash_begin, const index_type* hash_offset,
                         bool isolated_coarse) {
  const Executor& exec = A.executor();
  const Communicator& comm = A.communicator();
  const size_type n = L.rows();
  const size_type ghosts = L.cols() - n;
  const global_index begin = A.row_partition().begin();
  const std::shared_ptr<const HaloPlan> plan = borrowed(A.halo_plan());
  const Array<index_type>& send_indices = plan->send_indices();
  const offset_type* row_ptr = L.row_ptr().data();
  const index_type* col_idx = L.col_idx().data();

  // Influence: the dependences on each point from every process's rows.
  Array<std::int32_t> influence(exec, n, 0), ghost_influence(exec, ghosts, 0);
  exec.visit([&](const auto& e) {
    dk::pmis_influence(e, n, row_ptr, col_idx, strong.data(), influence.data(),
                       ghost_influence.data());
  });
  {
    const Array<std::int32_t> received = reverse_exchange(*plan, ghost_influence);
    exec.visit([&](const auto& e) {
      dk::add_at(e, received.size(), received.data(), send_indices.data(), influence.data());
    });
  }

  Vector<double> weight(exec, n);
  // Candidacy flags this round and next, swapped by pointer.
  Vector<std::int32_t> flags_a(exec, n), flags_b(exec, n);
  Vector<std::int32_t>* cand = &flags_a;
  Vector<std::int32_t>* next = &flags_b;
  Array<std::int32_t> cf(exec, n);
  size_type undecided = exec.visit([&](const auto& e) {
    return dk::pmis_weights(e, n, row_ptr, col_idx, strong.data(), seed, hash_begin, hash_offset,
                            isolated_coarse, influence.data(), weight.data(), cf.data(),
                            cand->data());
  });
  HaloExchange<double> weights(plan, exec);
  HaloExchange<std::int32_t> candidates(plan, exec);
  Array<std::int32_t> ghost_cand(exec, ghosts);
  while (strata::detail::sum_over_processes(comm, undecided) > 0) {
    weights.begin(weight);
    const Vector<double>& ghost_weight = weights.finish();
    ghost_cand.fill(1);
    exec.visit([&](const auto& e) {
      dk::pmis_select(e, n, row_ptr, col_idx, strong.data(), begin, A.column_map().data(),
                      weight.data(), ghost_weight.data(), cand->data(), ghost_cand.data());
    });
    const Array<std::int32_t> ruled_out = reverse_exchange(*plan, ghost_cand);
    exec.visit([&](const auto& e) {
      dk::clear_at(e, ruled_out.size(), ruled_out.data(), send_indices.data(), cand->data());
    });
    candidates.begin(*cand);
    const Vector<std::int32_t>& ghost_final = candidates.finish();
    undecided = exec.visit([&](const auto& e) {
      return dk::pmis_decide(e, n, row_ptr, col_idx, strong.data(), cand->data(),
                             ghost_final.data(), cf.data(), weight.data(), next->data());
    });
    std::swap(cand, next);
  }
  return cf;
}

/// What interpolation needs beyond this process's rows: the sorted
/// non-owned ids that the owned rows and the ghosts' rows reach (the
/// ghosts, then the points at distance two), and for each the ghost row
/// that holds its row (-1 for the distance-two points, whose rows are not
/// needed: only their C/F state and coarse id are); and the local columns
/// of E that the ghosts and the fetched rows' entries become (owned points
/// first, then the extended points). Found on the matrix's executor: the
/// ghosts' rows reach millions of (repeated) ids on coarse levels, whose
/// sort on the host took 0.3-0.8 s of a 2-4 GPU setup; the sort's positions
/// are the local columns, so no search follows it.
struct ExtendedPoints {
  Array<global_index> ids;
  Array<index_type> source;
  Array<index_type> ghost_column, fetched_col;
};

ExtendedPoints extended_points(size_type n, const Array<global_index>& ghosts,
                               const Array<global_index>& fetched_cols, global_index begin,
                               global_index end) {
  const Executor& exec = ghosts.executor();
  const size_type g = ghosts.size(), f = fetched_cols.size();
  // extended_candidates stands an owned id in for ghosts[0]: fetched rows
  // come only for ghosts.
  require(g > 0 || f == 0, "distributed classical interpolation: " + std::to_string(f) +
                               " fetched entries without ghost rows (internal error)");
  Array<global_index> candidates(exec, g + f);
  exec.visit([&](const auto& e) {
    dk::extended_candidates(e, g, ghosts.data(), f, fetched_cols.data(), begin, end,
                            candidates.data());
  });
  ExtendedPoints x;
  x.ids = Array<global_index>(exec, 0);
  const Array<index_type> position = strata::detail::compress_columns(candidates, x.ids);
  x.source = Array<index_type>(exec, x.ids.size(), index_type{-1});
  x.ghost_column = Array<index_type>(exec, g);
  x.fetched_col = Array<index_type>(exec, f);
  exec.visit([&](const auto& e) {
    dk::extended_columns(e, n, g, f, position.data(), fetched_cols.data(), begin, end,
                         x.ghost_column.data(), x.fetched_col.data(), x.source.data());
  });
  return x;
}

/// The extended local problem E: this process's rows (L's) and its ghosts'
/// rows (fetched from their owners), over local columns: owned points, then
/// every other point those rows reach in global order (the "extended
/// points"). The ghosts' strength is computed here from their rows, as
/// their owners compute it. Fills data's E, strong and the maps refresh
/// uses; returns the plan that brings the extended points' values from
/// their owners (over A's rows). Collective.
template <class T>
std::shared_ptr<const HaloPlan> extended_problem(const DistributedCsrMatrix<T>& A,
                                                 const CsrMatrix<T>& L, const ClassicalParams& p,
                                                 RefreshData<T>& data, StageTimes* parts) {
  const Executor& exec = A.executor();
  const size_type n = L.rows();
  const global_index begin = A.row_partition().begin(), end = A.row_partition().end();
  std::optional<PartTimer> part(std::in_place, parts, exec, "extended problem: ghost rows");
  const RowBlock<T> fetched = fetch_ghost_rows(A, A.halo_plan());
  part.emplace(parts, exec, "extended problem: points");
  ExtendedPoints x = extended_points(n, A.column_map(), fetched.cols, begin, end);
  const auto count = static_cast<size_type>(x.ids.size());
  part.emplace(parts, exec, "extended problem: halo plan");
  auto plan = std::make_shared<const HaloPlan>(A.row_partition(), x.ids.to_vector(), exec);
  part.emplace(parts, exec, "extended problem: rows and strength");

  data.source = std::move(x.source);
  data.ghost_column = std::move(x.ghost_column);
  data.fetched_col = std::move(x.fetched_col);
  data.local_nnz = L.nnz();
  const size_type rows = n + count;
  Array<offset_type> ptr(exec, rows + 1);
  exec.visit([&](const auto& e) {
    dk::extended_counts(e, n, count, L.row_ptr().data(), fetched.row_ptr.data(), data.source.data(),
                        ptr.data());
  });
  const offset_type nnz = exclusive_scan(ptr, ptr);
  Array<index_type> col(exec, nnz);
  Array<T> val(exec, nnz);
  exec.visit([&](const auto& e) {
    dk::extended_fill(e, n, count, L.row_ptr().data(), L.col_idx().data(), L.values().data(),
                      data.ghost_column.data(), fetched.row_ptr.data(), data.fetched_col.data(),
                      fetched.values.data(), data.source.data(), ptr.data(), nnz, col.data(),
                      val.data());
  });
  data.E = CsrMatrix<T>(rows, rows, std::move(ptr), std::move(col), std::move(val));
  data.strong = strength_flags(data.E, p);
  return plan;
}

/// The global coarse ids of the extended points (-1: not coarse), from the
/// ids their owners hold (`owned`, one per owned point). Collective.
Vector<global_index> extended_coarse_ids(const std::shared_ptr<const HaloPlan>& plan,
                                         const Vector<global_index>& owned) {
  HaloExchange<global_index> exchange(plan, owned.values().executor());
  exchange.begin(owned);
  return exchange.finish().clone();
}

/// The targets among the extended points: each one's rank among them (from
/// an enumerate), their number, and how many have coarse ids below
/// coarse_begin (before the owned targets in global order).
struct ExtendedTargets {
  Array<index_type> rank;
  size_type count = 0;
  size_type below = 0;
};

ExtendedTargets extended_targets(const Vector<global_index>& coarse_id, global_index coarse_begin) {
  const Executor& exec = coarse_id.values().executor();
  const size_type m = coarse_id.size();
  ExtendedTargets t;
  t.rank = Array<index_type>(exec, m);
  Array<std::int32_t> marker(exec, m);
  exec.visit([&](const auto& e) {
    dk::mark_coarse(e, m, coarse_id.data(), marker.data());
    t.count = ck::enumerate(e, m, marker.data(), 1, t.rank.data());
    t.below = dk::count_below(e, m, coarse_id.data(), coarse_begin);
  });
  return t;
}

/// The roles of one-stage interpolation of the owned rows on E (owned C
/// points are targets, owned F points interpolated, extended C points
/// targets whose rows are dropped, extended F points relays), with the
/// coarse columns in global order, so that the truncation's ties break as
/// in the serial P. Fills s (kind, roles, maps, sizes) and table (the
/// global coarse id of each column); returns how many extended targets
/// come before the owned ones.
template <class T>
size_type one_stage_roles(InterpolationStage<T>& s, Interpolation kind, size_type n,
                          const Array<std::int32_t>& cf, const Array<index_type>& cmap,
                          size_type owned_coarse, const RowPartition& coarse,
                          const Vector<global_index>& extended_id, Array<global_index>& table) {
  const Executor& exec = cf.executor();
  const size_type count = extended_id.size();
  const ExtendedTargets targets = extended_targets(extended_id, coarse.begin());
  s.kind = kind;
  s.role = Array<std::int32_t>(exec, n + count);
  s.cmap = Array<index_type>(exec, n + count);
  s.dmap = Array<index_type>(exec, n + count);
  s.nc = owned_coarse + targets.count;
  s.nd = n + targets.count;
  table = Array<global_index>(exec, s.nc);
  exec.visit([&](const auto& e) {
    dk::extended_roles(e, n, count, cf.data(), cmap.data(), coarse.begin(), owned_coarse,
                       extended_id.data(), targets.rank.data(), targets.below, s.role.data(),
                       s.cmap.data(), s.dmap.data(), table.data());
  });
  return targets.below;
}

/// Rows [first, first + rows) of P with global column ids (table[c] for
/// local column c), in stored order.
template <class T>
RowBlock<T> row_block(const CsrMatrix<T>& P, size_type first, size_type rows,
                      const Array<global_index>& table) {
  const Executor& exec = P.executor();
  offset_type bounds[2] = {0, 0};
  copy_bytes(&bounds[0], Executor::host(), P.row_ptr().data() + first, exec, sizeof(offset_type));
  copy_bytes(&bounds[1], Executor::host(), P.row_ptr().data() + first + rows, exec,
             sizeof(offset_type));
  const auto nnz = static_cast<size_type>(bounds[1] - bounds[0]);
  RowBlock<T> block;
  block.row_ptr = Array<offset_type>(exec, rows + 1);
  block.cols = Array<global_index>(exec, nnz);
  block.values = Array<T>(exec, nnz);
  exec.visit([&](const auto& e) {
    dk::row_slice(e, first, rows, P.row_ptr().data(), P.col_idx().data(), table.data(),
                  block.row_ptr.data(), block.cols.data());
  });
  copy_bytes(block.values.data(), exec, P.values().data() + bounds[0], exec, nnz * sizeof(T));
  return block;
}

/// The global coarse ids of the owned points (-1 for F), for cf/cmap.
Vector<global_index> owned_coarse_ids(const Array<std::int32_t>& cf, const Array<index_type>& cmap,
                                      global_index coarse_begin) {
  const Executor& exec = cf.executor();
  Vector<global_index> ids(exec, cf.size());
  exec.visit([&](const auto& e) {
    dk::coarse_ids(e, cf.size(), cf.data(), cmap.data(), coarse_begin, ids.data());
  });
  return ids;
}

/// The interpolation of the owned rows: the serial stage on the extended
/// local problem E (extended_problem()). Points beyond this process have
/// the C/F state and coarse id of their owner (one halo exchange); their F
/// points only relay (kIntermediate) and their C points get rows of P that
/// are dropped, so only the owned rows come out. Keeps in `data` what
/// refresh needs. Collective.
template <class T>
DistributedCsrMatrix<T> interpolation(const DistributedCsrMatrix<T>& A, const CsrMatrix<T>& L,
                                      const Array<std::int32_t>& cf, const Array<index_type>& cmap,
                                      size_type owned_coarse, const RowPartition& coarse,
                                      const ClassicalParams& p, StageTimes* parts,
                                      RefreshData<T>& data) {
  const size_type n = L.rows();
  const Executor& exec = A.executor();
  const auto plan = extended_problem(A, L, p, data, parts);
  std::optional<PartTimer> part(std::in_place, parts, exec, "interpolation: roles");
  const Vector<global_index> extended_id =
      extended_coarse_ids(plan, owned_coarse_ids(cf, cmap, coarse.begin()));
  one_stage_roles(data.stage, p.interpolation, n, cf, cmap, owned_coarse, coarse, extended_id,
                  data.table);
  part.reset();
  data.P =
      build(data.stage, data.E, data.strong, p.max_elements_per_row, p.truncation_factor, parts);
  part.emplace(parts, exec, "interpolation: distributed P");
  return DistributedCsrMatrix<T>(A.row_partition(), coarse, row_block(data.P, 0, n, data.table));
}

/// What aggressive coarsening of a distributed level gives: the final
/// splitting of the owned rows, and P.
template <class T>
struct AggressiveResult {
  Array<std::int32_t> splitting;
  std::shared_ptr<DistributedCsrMatrix<T>> P;
};

/// The strength graph of the second pass among the first-pass C points:
/// this process's C points' rows of the serial S_CC = ((S + I) S)_CC
/// (A1: count >= 1, A2: >= 2; no diagonal), computed on E, whose rows hold
/// every row of S a path of length two from an owned point passes through
/// (the owned rows and the ghosts'), with the C points of E numbered as
/// P1's columns (s1). Returned as a distributed matrix over the first-pass
/// coarse partition (values 1).
template <class T>
DistributedCsrMatrix<T> second_pass_graph(const RefreshData<T>& data,
                                          const InterpolationStage<T>& s1, size_type below,
                                          size_type owned_coarse, const RowPartition& coarse,
                                          int num_paths) {
  const Executor& exec = data.E.executor();
  // Targets of s1 are exactly E's first-pass C points, so its roles serve
  // as the C/F marker of the serial kernel.
  static_assert(ck::kTarget == ck::kCoarse);
  CsrMatrix<float> graph = exec.visit([&](const auto& e) {
    const auto operands =
        ck::second_pass_operands(e, data.E.rows(), data.E.row_ptr().data(), data.E.col_idx().data(),
                                 data.strong.data(), s1.role.data(), s1.cmap.data(), s1.nc);
    const CsrMatrix<float> paths = spgemm(operands.first, operands.second);
    return ck::second_pass_graph(e, paths, num_paths);
  });
  // The graph's rows are E's C points in P1's column order: the owned ones
  // are rows [below, below + owned_coarse).
  RowBlock<T> rows;
  offset_type bounds[2] = {0, 0};
  copy_bytes(&bounds[0], Executor::host(), graph.row_ptr().data() + below, exec,
             sizeof(offset_type));
  copy_bytes(&bounds[1], Executor::host(), graph.row_ptr().data() + below + owned_coarse, exec,
             sizeof(offset_type));
  const auto nnz = static_cast<size_type>(bounds[1] - bounds[0]);
  rows.row_ptr = Array<offset_type>(exec, owned_coarse + 1);
  rows.cols = Array<global_index>(exec, nnz);
  rows.values = Array<T>(exec, nnz, T{1});
  exec.visit([&](const auto& e) {
    dk::row_slice(e, below, owned_coarse, graph.row_ptr().data(), graph.col_idx().data(),
                  data.table.data(), rows.row_ptr.data(), rows.cols.data());
  });
  return DistributedCsrMatrix<T>(coarse, coarse, rows);
}

/// P = P1 P2 from the two stages on E (data.P1, data.P2; data.table holds
/// P1's column ids): X = P1's owned rows, Y = P2's rows for X's columns
/// (the owned ones, then those fetched from the distributed P2), Y's
/// columns compacted in global order, so that each row of the product lists
/// its columns as the serial product does and sums each entry over P1's row
/// in its stored (global) order as the serial one does. Then truncated as
/// the serial P1 P2. Fills the two-stage part of data, and data.P and
/// data.table (the product's columns). Collective.
template <class T>
void two_stage_product(const RowPartition& coarse, const RowPartition& coarse2,
                       size_type owned_coarse, size_type below, const ClassicalParams& p,
                       RefreshData<T>& data) {
  const Executor& exec = data.E.executor();
  const size_type n = data.E.rows() - data.source.size();
  // P2's owned rows (the first owned_coarse rows on E) as a distributed matrix.
  const RowBlock<T> owned = row_block(data.P2, 0, owned_coarse, data.table2);
  data.P2_rows = std::make_shared<DistributedCsrMatrix<T>>(coarse, coarse2, owned);
  // The rows of P2 for P1's other columns: E's first-pass C points beyond
  // this process, in global order.
  std::vector<global_index> others = data.table.to_vector();
  others.erase(others.begin() + static_cast<std::ptrdiff_t>(below),
               others.begin() + static_cast<std::ptrdiff_t>(below + owned_coarse));
  const auto other_count = static_cast<size_type>(others.size());
  data.p2_plan = std::make_shared<const HaloPlan>(coarse, others, exec);
  const RowBlock<T> fetched = fetch_ghost_rows(*data.P2_rows, *data.p2_plan);
  // Y's columns: the final coarse ids its rows reach, in global order
  // (sorted on the executor), and each entry's position among them.
  const size_type owned_nnz = owned.nnz(), fetched_nnz = fetched.nnz();
  Array<global_index> entries(exec, owned_nnz + fetched_nnz);
  copy_bytes(entries.data(), exec, owned.cols.data(), exec, owned.cols.bytes());
  copy_bytes(entries.data() + owned_nnz, exec, fetched.cols.data(), exec, fetched.cols.bytes());
  Array<global_index> columns(exec, 0);
  const Array<index_type> position = strata::detail::compress_columns(entries, columns);
  const size_type column_count = columns.size();
  data.owned_p2_col = Array<index_type>(exec, owned_nnz);
  data.fetched_p2_col = Array<index_type>(exec, fetched_nnz);
  copy_bytes(data.owned_p2_col.data(), exec, position.data(), exec, data.owned_p2_col.bytes());
  copy_bytes(data.fetched_p2_col.data(), exec, position.data() + owned_nnz, exec,
             data.fetched_p2_col.bytes());
  Array<offset_type> ptr(exec, owned_coarse + other_count + 1);
  exec.visit([&](const auto& e) {
    dk::stacked_counts(e, owned_coarse, other_count, owned.row_ptr.data(), fetched.row_ptr.data(),
                       ptr.data());
  });
  const offset_type y_nnz = exclusive_scan(ptr, ptr);
  Array<index_type> y_col(exec, y_nnz);
  Array<T> y_val(exec, y_nnz);
  exec.visit([&](const auto& e) {
    dk::stacked_fill(e, owned_coarse, other_count, owned.row_ptr.data(), data.owned_p2_col.data(),
                     owned.values.data(), fetched.row_ptr.data(), data.fetched_p2_col.data(),
                     fetched.values.data(), ptr.data(), y_nnz, y_col.data(), y_val.data());
  });
  data.Y = CsrMatrix<T>(owned_coarse + other_count, column_count, std::move(ptr), std::move(y_col),
                        std::move(y_val));
  // X: P1's owned rows, its columns renumbered to Y's row order. The
  // entries keep their (global) order, which fixes the order of the sums.
  offset_type x_nnz = 0;
  copy_bytes(&x_nnz, Executor::host(), data.P1.row_ptr().data() + n, exec, sizeof x_nnz);
  Array<offset_type> x_ptr(exec, n + 1);
  copy_bytes(x_ptr.data(), exec, data.P1.row_ptr().data(), exec, x_ptr.bytes());
  Array<index_type> x_col(exec, x_nnz);
  Array<T> x_val(exec, x_nnz);
  copy_bytes(x_val.data(), exec, data.P1.values().data(), exec, x_val.bytes());
  exec.visit([&](const auto& e) {
    dk::owned_columns_first(e, x_nnz, data.P1.col_idx().data(), below, owned_coarse, x_col.data());
  });
  data.X = CsrMatrix<T>(n, owned_coarse + other_count, std::move(x_ptr), std::move(x_col),
                        std::move(x_val));
  data.P12.emplace(data.X, data.Y);
  data.P = truncate(data.P12->result(), p.max_elements_per_row, p.truncation_factor,
                    data.final_truncated);
  data.table = std::move(columns);
  data.two_stage = true;
}

/// Aggressive coarsening of a distributed level, the serial aggressive()
/// across processes: the second-pass strength among the first-pass C
/// points (second_pass_graph()), PMIS on it over all processes hashed by
/// the fine global row with isolated points kept as C, and the two-stage
/// interpolation P = P1 P2 (both stages on E, then two_stage_product()),
/// or, when the second pass keeps every C point, one stage with the final
/// truncation, as the serial code does. `cf`, `cmap`, `owned_coarse` and
/// `coarse` are the first pass's. Collective.
template <class T>
AggressiveResult<T> aggressive_level(const DistributedCsrMatrix<T>& A, const CsrMatrix<T>& L,
                                     const Array<std::int32_t>& cf, const Array<index_type>& cmap,
                                     size_type owned_coarse, const RowPartition& coarse,
                                     const ClassicalParams& p, std::uint64_t second_seed,
                                     StageTimes& times, RefreshData<T>& data) {
  const Executor& exec = A.executor();
  const size_type n = L.rows();
  StageTimes* parts = p.profile_stages ? &times : nullptr;
  InterpolationStage<T>& s1 = data.stage;
  std::shared_ptr<const HaloPlan> plan;
  size_type below = 0;
  std::optional<DistributedCsrMatrix<T>> graph;
  {  // strength of the second pass (and E, which it is computed on)
    StageTimer t(exec, times, "strength");
    PartTimer part(p.profile_stages, exec, times, "strength: second pass");
    plan = extended_problem(A, L, p, data, parts);
    const Vector<global_index> extended_id =
        extended_coarse_ids(plan, owned_coarse_ids(cf, cmap, coarse.begin()));
    below = one_stage_roles(s1, p.aggressive_interpolation, n, cf, cmap, owned_coarse, coarse,
                            extended_id, data.table);
    graph.emplace(second_pass_graph(data, s1, below, owned_coarse, coarse, p.aggressive_num_paths));
  }
  Array<std::int32_t> cf2;
  Array<index_type> c2map(exec, owned_coarse);
  size_type owned_coarse2 = 0;
  RowPartition coarse2;
  {  // second PMIS pass, on the C points (hashed by their fine global row)
    StageTimer t(exec, times, "splitting");
    PartTimer part(p.profile_stages, exec, times, "splitting: second pass");
    const CsrMatrix<T> G = local_view(*graph);
    const Array<std::uint8_t> edges(exec, G.nnz(), std::uint8_t{1});  // no diagonal in G
    Array<index_type> points(exec, owned_coarse);
    exec.visit([&](const auto& e) {
      ck::list_points(e, n, cf.data(), ck::kCoarse, cmap.data(), points.data());
    });
    cf2 = pmis(*graph, G, edges, second_seed, A.row_partition().begin(), points.data(), true);
    owned_coarse2 = exec.visit([&](const auto& e) {
      return ck::enumerate(e, owned_coarse, cf2.data(), ck::kCoarse, c2map.data());
    });
    coarse2 = RowPartition::from_local_rows(A.communicator(), owned_coarse2);
  }
  StageTimer t(exec, times, "interpolation");
  AggressiveResult<T> result;
  if (coarse2.global_size() == coarse.global_size()) {
    // Nothing more to remove: one-stage interpolation, truncated as the
    // final P (the serial aggressive() does the same).
    data.P = build(s1, data.E, data.strong, p.max_elements_per_row, p.truncation_factor, parts);
    result.splitting = cf.clone();
    result.P = std::make_shared<DistributedCsrMatrix<T>>(A.row_partition(), coarse,
                                                         row_block(data.P, 0, n, data.table));
    return result;
  }
  // The final splitting, and the roles of P2 on E: the owned points' from
  // the serial kernel, the extended points' from their owners' final C ids.
  Array<std::int32_t> role(exec, n);
  Array<index_type> column(exec, n), row(exec, n);
  result.splitting = Array<std::int32_t>(exec, n);
  exec.visit([&](const auto& e) {
    ck::two_stage_roles(e, n, cf.data(), cmap.data(), cf2.data(), c2map.data(), role.data(),
                        column.data(), row.data(), result.splitting.data());
  });
  const Vector<global_index> final_id =
      extended_coarse_ids(plan, owned_coarse_ids(result.splitting, column, coarse2.begin()));
  const ExtendedTargets targets = extended_targets(final_id, coarse2.begin());
  const size_type count = final_id.size();
  InterpolationStage<T>& s2 = data.second;
  s2.kind = p.aggressive_interpolation;
  s2.role = Array<std::int32_t>(exec, n + count);
  s2.cmap = Array<index_type>(exec, n + count);
  s2.dmap = Array<index_type>(exec, n + count);
  s2.nc = owned_coarse2 + targets.count;
  s2.nd = owned_coarse + targets.count;
  data.table2 = Array<global_index>(exec, s2.nc);
  exec.visit([&](const auto& e) {
    dk::two_stage_extended_roles(e, n, count, role.data(), column.data(), row.data(), owned_coarse,
                                 coarse2.begin(), owned_coarse2, final_id.data(),
                                 targets.rank.data(), targets.below, s2.role.data(), s2.cmap.data(),
                                 s2.dmap.data(), data.table2.data());
  });
  const int stage_max = p.aggressive_stage_max_elements;
  const double stage_factor = p.aggressive_stage_truncation_factor;
  data.P1 = build(s1, data.E, data.strong, stage_max, stage_factor, parts);
  data.P2 = build(s2, data.E, data.strong, stage_max, stage_factor, parts);
  {
    PartTimer part(p.profile_stages, exec, times, "interpolation: P1 P2");
    two_stage_product<T>(coarse, coarse2, owned_coarse, below, p, data);
  }
  result.P = std::make_shared<DistributedCsrMatrix<T>>(A.row_partition(), coarse2,
                                                       row_block(data.P, 0, n, data.table));
  return result;
}

/// New values of the two-stage P (data.P) for new values of E: both
/// stages, the distributed P2 and its fetched rows, the product and its
/// truncation, each on its pattern of setup. Collective.
template <class T>
void refresh_two_stage(RefreshData<T>& data) {
  const Executor& exec = data.E.executor();
  refresh_stage(data.stage, data.E, data.strong, data.P1);
  refresh_stage(data.second, data.E, data.strong, data.P2);
  DistributedCsrMatrix<T>& P2 = *data.P2_rows;
  const RowPartition& coarse2 = P2.col_partition();
  exec.visit([&](const auto& e) {
    dk::split_values(e, P2.local_rows(), data.P2.row_ptr().data(), data.P2.col_idx().data(),
                     data.P2.values().data(), data.table2.data(), coarse2.begin(), coarse2.end(),
                     P2.diag().row_ptr().data(), P2.diag_values().data(),
                     P2.offd().row_ptr().data(), P2.offd_values().data());
  });
  const RowBlock<T> fetched = fetch_ghost_rows(P2, *data.p2_plan);
  copy_bytes(data.X.values().data(), exec, data.P1.values().data(), exec, data.X.values().bytes());
  const size_type owned_rows = P2.local_rows();
  exec.visit([&](const auto& e) {
    dk::stacked_fill(e, owned_rows, data.Y.rows() - owned_rows, data.P2.row_ptr().data(),
                     static_cast<const index_type*>(nullptr), data.P2.values().data(),
                     fetched.row_ptr.data(), static_cast<const index_type*>(nullptr),
                     fetched.values.data(), data.Y.row_ptr().data(), data.Y.nnz(),
                     static_cast<index_type*>(nullptr), data.Y.values().data());
  });
  data.P12->recompute(data.X, data.Y);
  truncated_values(data.P12->result(), data.final_truncated, data.P);
}

}  // namespace

template <class T>
DistributedClassicalLevel<T> distributed_classical_level(const DistributedCsrMatrix<T>& A,
                                                         const ClassicalParams& params,
                                                         std::uint64_t seed,
                                                         std::uint64_t second_seed, bool aggressive,
                                                         StageTimes& times) {
  if (A.row_partition() != A.col_partition()) {
    throw invalid_argument(
        "classical coarsening: a distributed level must be square with its columns split like "
        "its rows; A is " +
        std::to_string(A.global_rows()) + " x " + std::to_string(A.global_cols()) +
        (A.global_rows() == A.global_cols() ? " with another column partition" : ""));
  }
  const Executor& exec = A.executor();
  const size_type n = A.local_rows();
  DistributedClassicalLevel<T> level;
  CsrMatrix<T> L;
  Array<std::uint8_t> strong;
  {  // 1. strength
    StageTimer t(exec, times, "strength");
    L = local_view(A);
    strong = strength_flags(L, params);
  }
  Array<index_type> cmap(exec, n);
  size_type owned_coarse = 0;
  RowPartition coarse;
  {  // 2. splitting, and 3. the coarse partition
    StageTimer t(exec, times, "splitting");
    level.splitting = pmis(A, L, strong, seed, A.row_partition().begin(), nullptr, false);
    owned_coarse = exec.visit([&](const auto& e) {
      return ck::enumerate(e, n, level.splitting.data(), ck::kCoarse, cmap.data());
    });
    coarse = RowPartition::from_local_rows(A.communicator(), owned_coarse);
  }
  if (coarse.global_size() == 0 || coarse.global_size() == A.global_rows()) return level;
  auto data = std::make_shared<RefreshData<T>>();
  if (aggressive) {
    AggressiveResult<T> result = aggressive_level(A, L, level.splitting, cmap, owned_coarse, coarse,
                                                  params, second_seed, times, *data);
    level.splitting = std::move(result.splitting);
    level.P = std::move(result.P);
  } else {
    StageTimer t(exec, times, "interpolation");
    StageTimes* parts = params.profile_stages ? &times : nullptr;
    level.P = std::make_shared<DistributedCsrMatrix<T>>(
        interpolation(A, L, level.splitting, cmap, owned_coarse, coarse, params, parts, *data));
  }
  level.refresh_data = std::move(data);
  StageTimer t(exec, times, "interpolation");
  PartTimer part(params.profile_stages, exec, times, "interpolation: transpose");
  level.R = std::make_shared<DistributedCsrMatrix<T>>(transpose(*level.P));
  return level;
}

template <class T>
void refresh_distributed_level(DistributedClassicalLevel<T>& level,
                               const DistributedCsrMatrix<T>& A, StageTimes& times) {
  require(level.refresh_data != nullptr && level.P != nullptr,
          "classical coarsening: refresh of a distributed level whose refresh data was released "
          "(keep_resetup_data = false) or that was not coarsened");
  RefreshData<T>& data = *level.refresh_data;
  const Executor& exec = A.executor();
  StageTimer t(exec, times, "interpolation");
  // New values of E: this process's rows and its ghosts' rows, which must
  // have the pattern of setup on every process before the product's
  // collective steps begin.
  const CsrMatrix<T> L = local_view(A);
  const RowBlock<T> fetched = fetch_ghost_rows(A, A.halo_plan());
  std::exception_ptr failure;
  if (A.local_rows() != level.P->local_rows() || L.nnz() != data.local_nnz ||
      fetched.nnz() != data.fetched_col.size()) {
    failure = std::make_exception_ptr(invalid_argument(
        "classical coarsening: refresh of a distributed level with a matrix of another pattern "
        "(this process's rows have " +
        std::to_string(L.nnz()) + " entries and its ghosts' rows " + std::to_string(fetched.nnz()) +
        "; at setup " + std::to_string(data.local_nnz) + " and " +
        std::to_string(data.fetched_col.size()) + ")"));
  }
  strata::detail::agree_on_failure(A.communicator(), failure, "classical coarsening refresh");
  const size_type n = L.rows();
  const size_type count = data.E.rows() - n;
  exec.visit([&](const auto& e) {
    dk::extended_fill(e, n, count, L.row_ptr().data(), L.col_idx().data(), L.values().data(),
                      data.ghost_column.data(), fetched.row_ptr.data(), data.fetched_col.data(),
                      fetched.values.data(), data.source.data(), data.E.row_ptr().data(),
                      data.E.nnz(), static_cast<index_type*>(nullptr), data.E.values().data());
  });
  if (data.two_stage) {
    refresh_two_stage<T>(data);
  } else {
    refresh_stage(data.stage, data.E, data.strong, data.P);
  }
  // P's owned rows into its two blocks, then R = P^T on its pattern.
  DistributedCsrMatrix<T>& P = *level.P;
  const RowPartition& coarse = P.col_partition();
  exec.visit([&](const auto& e) {
    dk::split_values(e, n, data.P.row_ptr().data(), data.P.col_idx().data(), data.P.values().data(),
                     data.table.data(), coarse.begin(), coarse.end(), P.diag().row_ptr().data(),
                     P.diag_values().data(), P.offd().row_ptr().data(), P.offd_values().data());
  });
  const DistributedCsrMatrix<T> R = transpose(P);
  copy(R.diag().values(), level.R->diag_values());
  copy(R.offd().values(), level.R->offd_values());
}

template DistributedClassicalLevel<double> distributed_classical_level<double>(
    const DistributedCsrMatrix<double>&, const ClassicalParams&, std::uint64_t, std::uint64_t, bool,
    StageTimes&);
template void refresh_distributed_level<double>(DistributedClassicalLevel<double>&,
                                                const DistributedCsrMatrix<double>&, StageTimes&);

}  // namespace strata::amg::detail
