// Classical coarsening of a distributed level: strength, PMIS across
// processes, the coarse numbering, and interpolation on an extended local
// problem (see distributed_classical.hpp for the stages and why each gives
// the serial result). Every kernel runs where A lives; the halo plan of the
// extended points is built on the host, as every HaloPlan is.

#include "core/amg/distributed_classical.hpp"

#include <algorithm>
#include <exception>
#include <string>
#include <utility>
#include <vector>

#include "core/amg/classical_internal.hpp"
#include "core/amg/stage_timer.hpp"
#include "core/distributed/communication.hpp"
#include "kernels/amg/classical_kernels.hpp"
#include "kernels/amg/distributed_classical_kernels.hpp"
#include "strata/core/primitives.hpp"
#include "strata/distributed/halo.hpp"
#include "strata/distributed/rows.hpp"

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
};

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

/// This process's rows of A with local columns: j < n owned, n + g ghost g
/// of A's column map (the layout of the kernels' "local view").
template <class T>
CsrMatrix<T> local_view(const DistributedCsrMatrix<T>& A) {
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
/// are influence + random_unit(seed, global row), with the influence
/// (how many points depend on a point) summed over every process's rows,
/// so each round equals the serial one. Ends when no process has an
/// undecided point. Collective.
template <class T>
Array<std::int32_t> pmis(const DistributedCsrMatrix<T>& A, const CsrMatrix<T>& L,
                         const Array<std::uint8_t>& strong, std::uint64_t seed) {
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
    return dk::pmis_weights(e, n, row_ptr, col_idx, strong.data(), seed, begin, influence.data(),
                            weight.data(), cf.data(), cand->data());
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

/// What interpolation needs beyond this process's rows, gathered on the
/// host where the halo plan is built: the sorted non-owned ids that the
/// owned rows and the ghosts' rows reach (the ghosts, then the points at
/// distance two), and for each the ghost row that holds its row (-1 for
/// the distance-two points, whose rows are not needed: only their C/F
/// state and coarse id are).
struct ExtendedPoints {
  std::vector<global_index> ids;
  std::vector<index_type> source;
};

ExtendedPoints extended_points(const std::vector<global_index>& ghosts,
                               const std::vector<global_index>& fetched_cols, global_index begin,
                               global_index end) {
  ExtendedPoints x;
  x.ids = ghosts;
  for (const global_index g : fetched_cols) {
    if (g < begin || g >= end) x.ids.push_back(g);
  }
  std::sort(x.ids.begin(), x.ids.end());
  x.ids.erase(std::unique(x.ids.begin(), x.ids.end()), x.ids.end());
  x.source.assign(x.ids.size(), -1);
  for (std::size_t u = 0; u < x.ids.size(); ++u) {
    const auto it = std::lower_bound(ghosts.begin(), ghosts.end(), x.ids[u]);
    if (it != ghosts.end() && *it == x.ids[u]) {
      x.source[u] = static_cast<index_type>(it - ghosts.begin());
    }
  }
  return x;
}

/// The interpolation of the owned rows: the serial stage on the extended
/// local problem E, whose rows are the owned rows (L's) and the ghosts'
/// rows (fetched from their owners), over local columns: owned points, then
/// every other point those rows reach in global order. The ghosts'
/// strength is computed here from their rows, as their owners compute it.
/// Points beyond this process have the C/F state and coarse id of their
/// owner (one halo exchange); their F points only relay (kIntermediate)
/// and their C points get rows of P that are dropped, so only the owned
/// rows come out, with the coarse columns in global order (the truncation's
/// ties then break as in the serial P). Keeps in `data` what refresh needs.
/// Collective.
template <class T>
DistributedCsrMatrix<T> interpolation(const DistributedCsrMatrix<T>& A, const CsrMatrix<T>& L,
                                      const Array<std::int32_t>& cf, const Array<index_type>& cmap,
                                      size_type owned_coarse, const RowPartition& coarse,
                                      const ClassicalParams& p, StageTimes* parts,
                                      RefreshData<T>& data) {
  const Executor& exec = A.executor();
  const size_type n = L.rows();
  const global_index begin = A.row_partition().begin(), end = A.row_partition().end();
  const size_type ghosts = A.column_map().size();

  // The coarse id of every owned point (-1: F), and of every extended point.
  Vector<global_index> ids(exec, n);
  exec.visit([&](const auto& e) {
    dk::coarse_ids(e, n, cf.data(), cmap.data(), coarse.begin(), ids.data());
  });
  const RowBlock<T> fetched = fetch_ghost_rows(A, A.halo_plan());
  const std::vector<global_index> ghost_ids = A.column_map().to_vector();
  const ExtendedPoints x = extended_points(ghost_ids, fetched.cols.to_vector(), begin, end);
  const auto count = static_cast<size_type>(x.ids.size());
  const auto plan = std::make_shared<const HaloPlan>(A.row_partition(), x.ids, exec);
  HaloExchange<global_index> exchange(plan, exec);
  exchange.begin(ids);
  const Vector<global_index>& extended_ids = exchange.finish();

  // E: local columns for the owned rows' ghosts and the fetched rows.
  const Array<global_index> point_ids(exec, x.ids);
  data.source = Array<index_type>(exec, x.source);
  data.ghost_column = Array<index_type>(exec, ghosts);
  data.fetched_col = Array<index_type>(exec, fetched.nnz());
  data.local_nnz = L.nnz();
  const size_type rows = n + count;
  Array<offset_type> ptr(exec, rows + 1);
  exec.visit([&](const auto& e) {
    dk::localize(e, ghosts, A.column_map().data(), begin, end, point_ids.data(), count,
                 data.ghost_column.data());
    dk::localize(e, fetched.nnz(), fetched.cols.data(), begin, end, point_ids.data(), count,
                 data.fetched_col.data());
    dk::extended_counts(e, n, count, L.row_ptr().data(), fetched.row_ptr.data(), data.source.data(),
                        ptr.data());
  });
  const offset_type nnz = exclusive_scan(ptr, ptr);
  Array<index_type> col(exec, nnz);
  Array<T> val(exec, nnz);
  exec.visit([&](const auto& e) {
    dk::extended_fill(e, n, count, L.row_ptr().data(), L.col_idx().data(), L.values().data(),
                      data.ghost_column.data(), fetched.row_ptr.data(), data.fetched_col.data(),
                      fetched.values.data(), data.source.data(), ptr.data(), col.data(),
                      val.data());
  });
  data.E = CsrMatrix<T>(rows, rows, std::move(ptr), std::move(col), std::move(val));
  data.strong = strength_flags(data.E, p);

  // Roles, P's rows and columns on E, and the global id of each column.
  Array<std::int32_t> marker(exec, count);
  Array<index_type> rank(exec, count);
  InterpolationStage<T>& s = data.stage;
  s.kind = p.interpolation;
  s.role = Array<std::int32_t>(exec, rows);
  s.cmap = Array<index_type>(exec, rows);
  s.dmap = Array<index_type>(exec, rows);
  const auto [targets, below] = exec.visit([&](const auto& e) {
    dk::mark_coarse(e, count, extended_ids.data(), marker.data());
    return std::pair{ck::enumerate(e, count, marker.data(), 1, rank.data()),
                     dk::count_below(e, count, extended_ids.data(), coarse.begin())};
  });
  s.nc = owned_coarse + targets;
  s.nd = n + targets;
  data.table = Array<global_index>(exec, s.nc);
  exec.visit([&](const auto& e) {
    dk::extended_roles(e, n, count, cf.data(), cmap.data(), coarse.begin(), owned_coarse,
                       extended_ids.data(), rank.data(), below, s.role.data(), s.cmap.data(),
                       s.dmap.data(), data.table.data());
  });
  data.P = build(s, data.E, data.strong, p.max_elements_per_row, p.truncation_factor, parts);
  const CsrMatrix<T>& P = data.P;

  // The owned rows (the first n of P), with global coarse columns.
  RowBlock<T> owned;
  owned.row_ptr = Array<offset_type>(exec, n + 1);
  copy_bytes(owned.row_ptr.data(), exec, P.row_ptr().data(), exec, owned.row_ptr.bytes());
  offset_type owned_nnz = 0;
  copy_bytes(&owned_nnz, Executor::host(), P.row_ptr().data() + n, exec, sizeof owned_nnz);
  owned.cols = Array<global_index>(exec, owned_nnz);
  owned.values = Array<T>(exec, owned_nnz);
  copy_bytes(owned.values.data(), exec, P.values().data(), exec, owned.values.bytes());
  exec.visit([&](const auto& e) {
    dk::globalize(e, owned_nnz, P.col_idx().data(), data.table.data(), owned.cols.data());
  });
  return DistributedCsrMatrix<T>(A.row_partition(), coarse, owned);
}

}  // namespace

template <class T>
DistributedClassicalLevel<T> distributed_classical_level(const DistributedCsrMatrix<T>& A,
                                                         const ClassicalParams& params,
                                                         std::uint64_t seed, bool aggressive,
                                                         StageTimes& times) {
  if (A.row_partition() != A.col_partition()) {
    throw invalid_argument(
        "classical coarsening: a distributed level must be square with its columns split like "
        "its rows; A is " +
        std::to_string(A.global_rows()) + " x " + std::to_string(A.global_cols()) +
        (A.global_rows() == A.global_cols() ? " with another column partition" : ""));
  }
  if (aggressive) {
    throw not_implemented(
        "classical coarsening: ClassicalParams.aggressive_levels = " +
        std::to_string(params.aggressive_levels) +
        " asks for aggressive coarsening of a distributed level, which is not implemented "
        "(its second PMIS pass needs the strength S^2 across processes); use "
        "aggressive_levels = 0 with a distributed matrix");
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
    level.splitting = pmis(A, L, strong, seed);
    owned_coarse = exec.visit([&](const auto& e) {
      return ck::enumerate(e, n, level.splitting.data(), ck::kCoarse, cmap.data());
    });
    coarse = RowPartition::from_local_rows(A.communicator(), owned_coarse);
  }
  if (coarse.global_size() == 0 || coarse.global_size() == A.global_rows()) return level;
  StageTimer t(exec, times, "interpolation");
  StageTimes* parts = params.profile_stages ? &times : nullptr;
  auto data = std::make_shared<RefreshData<T>>();
  level.P = std::make_shared<DistributedCsrMatrix<T>>(
      interpolation(A, L, level.splitting, cmap, owned_coarse, coarse, params, parts, *data));
  level.refresh_data = std::move(data);
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
                      static_cast<index_type*>(nullptr), data.E.values().data());
  });
  refresh_stage(data.stage, data.E, data.strong, data.P);
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
    const DistributedCsrMatrix<double>&, const ClassicalParams&, std::uint64_t, bool, StageTimes&);
template void refresh_distributed_level<double>(DistributedClassicalLevel<double>&,
                                                const DistributedCsrMatrix<double>&, StageTimes&);

}  // namespace strata::amg::detail
