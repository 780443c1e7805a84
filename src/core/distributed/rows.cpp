// Rows across processes (strata/distributed/rows.hpp): owned rows with
// global columns, fetching other processes' rows along a halo plan, the
// distributed sparse product with value-only recompute, and the transpose.

#include "strata/distributed/rows.hpp"

#include <exception>
#include <string>
#include <utility>
#include <vector>

#include "core/distributed/communication.hpp"
#include "core/distributed/device_transport.hpp"
#include "core/distributed/split.hpp"
#include "kernels/distributed/distributed_kernels.hpp"
#include "strata/core/primitives.hpp"
#include "strata/matrix/bsr.hpp"
#include "strata/matrix/bsr_spgemm.hpp"
#include "strata/matrix/spgemm.hpp"
#include "strata/matrix/transpose.hpp"

namespace strata {

namespace {

namespace kd = kernels::distributed;

template <class T>
kd::SplitRows<T> blocks_of(const DistributedCsrMatrix<T>& M) {
  return {M.diag().row_ptr().data(), M.diag().col_idx().data(), M.diag().values().data(),
          M.offd().row_ptr().data(), M.offd().col_idx().data(), M.offd().values().data(),
          M.column_map().data(),     M.col_partition().begin()};
}

/// Rows `rows` of M (every owned row when null) with global columns, on M's
/// executor.
template <class T>
RowBlock<T> gather_rows(const DistributedCsrMatrix<T>& M, const Array<index_type>* rows) {
  const Executor& exec = M.executor();
  const size_type count = rows ? rows->size() : M.local_rows();
  const index_type* which = rows ? rows->data() : nullptr;
  const kd::SplitRows<T> blocks = blocks_of(M);
  RowBlock<T> out;
  out.row_ptr = Array<offset_type>(exec, count + 1);
  exec.visit([&](const auto& e) { kd::row_lengths(e, count, which, blocks, out.row_ptr.data()); });
  const offset_type nnz = exclusive_scan(out.row_ptr, out.row_ptr);
  out.cols = Array<global_index>(exec, nnz);
  out.values = Array<T>(exec, nnz);
  exec.visit([&](const auto& e) {
    kd::gather_global_rows(e, count, which, blocks, out.row_ptr.data(), nnz, out.cols.data(),
                           out.values.data());
  });
  return out;
}

/// Rows in host memory, as they travel.
template <class T>
struct HostRows {
  std::vector<offset_type> ptr{0};
  std::vector<global_index> cols;
  std::vector<T> values;
};

template <class T>
HostRows<T> to_host(const RowBlock<T>& rows) {
  return {rows.row_ptr.to_vector(), rows.cols.to_vector(), rows.values.to_vector()};
}

template <class T>
RowBlock<T> from_host(const HostRows<T>& rows, const Executor& exec) {
  return {Array<offset_type>(exec, rows.ptr), Array<global_index>(exec, rows.cols),
          Array<T>(exec, rows.values)};
}

/// Sends to each neighbour n of `to` the rows [n.offset, n.offset + n.count)
/// of `packed`, and receives from each neighbour n of `from` the rows that
/// land at [n.offset, n.offset + n.count) of the result (`rows` in all).
/// Lengths first, so each side knows the size of the entries' messages.
template <class T>
HostRows<T> exchange_host_rows(const Communicator& comm, const std::vector<HaloNeighbour>& to,
                               const HostRows<T>& packed, const std::vector<HaloNeighbour>& from,
                               size_type rows) {
  const auto bytes = [](size_type count, std::size_t size) {
    return static_cast<std::size_t>(count) * size;
  };
  std::vector<offset_type> send_lengths(packed.ptr.size() - 1);
  for (std::size_t k = 0; k + 1 < packed.ptr.size(); ++k) {
    send_lengths[k] = packed.ptr[k + 1] - packed.ptr[k];
  }
  std::vector<offset_type> lengths(static_cast<std::size_t>(rows));
  detail::RequestSet messages;
  for (const HaloNeighbour& n : from) {
    if (n.count == 0) continue;
    messages.receive(comm, lengths.data() + n.offset, bytes(n.count, sizeof(offset_type)), n.rank,
                     detail::Tag::row_lengths);
  }
  for (const HaloNeighbour& n : to) {
    if (n.count == 0) continue;
    messages.send(comm, send_lengths.data() + n.offset, bytes(n.count, sizeof(offset_type)), n.rank,
                  detail::Tag::row_lengths);
  }
  messages.wait_all();

  HostRows<T> in;
  in.ptr.assign(static_cast<std::size_t>(rows) + 1, 0);
  for (size_type k = 0; k < rows; ++k) in.ptr[k + 1] = in.ptr[k] + lengths[k];
  in.cols.resize(static_cast<std::size_t>(in.ptr.back()));
  in.values.resize(static_cast<std::size_t>(in.ptr.back()));
  for (const HaloNeighbour& n : from) {
    const offset_type first = in.ptr[n.offset], entries = in.ptr[n.offset + n.count] - first;
    if (entries == 0) continue;
    messages.receive(comm, in.cols.data() + first, bytes(entries, sizeof(global_index)), n.rank,
                     detail::Tag::row_columns);
    messages.receive(comm, in.values.data() + first, bytes(entries, sizeof(T)), n.rank,
                     detail::Tag::row_values);
  }
  for (const HaloNeighbour& n : to) {
    const offset_type first = packed.ptr[n.offset],
                      entries = packed.ptr[n.offset + n.count] - first;
    if (entries == 0) continue;
    messages.send(comm, packed.cols.data() + first, bytes(entries, sizeof(global_index)), n.rank,
                  detail::Tag::row_columns);
    messages.send(comm, packed.values.data() + first, bytes(entries, sizeof(T)), n.rank,
                  detail::Tag::row_values);
  }
  messages.wait_all();
  return in;
}

/// The neighbours' row ranges as ranges of their entries under `ptr`
/// (host copy of the rows' offsets).
std::vector<HaloNeighbour> entry_ranges(const std::vector<HaloNeighbour>& by_rows,
                                        const std::vector<offset_type>& ptr) {
  std::vector<HaloNeighbour> out;
  out.reserve(by_rows.size());
  for (const HaloNeighbour& n : by_rows) {
    const offset_type first = ptr[static_cast<std::size_t>(n.offset)];
    const offset_type last = ptr[static_cast<std::size_t>(n.offset + n.count)];
    out.push_back({n.rank, static_cast<size_type>(first), static_cast<size_type>(last - first)});
  }
  return out;
}

/// exchange_host_rows for rows in device memory through the device
/// transport (NCCL's stream-ordered sends and receives): the entries never
/// visit the host, which would copy them out and back for every fetch of
/// the distributed setup (ext+i's extended problem, the products' rows of
/// P and A P, the transposes). Only the offsets do, once the lengths have
/// arrived, so that each side can size and place its messages of entries.
template <class T>
RowBlock<T> exchange_device_rows(const std::shared_ptr<detail::DeviceTransport>& transport,
                                 const std::vector<HaloNeighbour>& to, const RowBlock<T>& packed,
                                 const std::vector<HaloNeighbour>& from, size_type rows) {
  const Executor& exec = packed.row_ptr.executor();
  const auto exchange = detail::make_device_exchange(transport, exec);
  const size_type sent = packed.rows();
  Array<offset_type> send_lengths(exec, sent);
  exec.visit([&](const auto& e) {
    kd::row_lengths_of(e, sent, packed.row_ptr.data(), send_lengths.data());
  });
  RowBlock<T> in;
  in.row_ptr = Array<offset_type>(exec, rows + 1, offset_type{0});
  exchange->start(to, send_lengths.data(), from, in.row_ptr.data(), sizeof(offset_type));
  exchange->complete();
  const offset_type nnz = exclusive_scan(in.row_ptr, in.row_ptr);
  const std::vector<HaloNeighbour> to_entries = entry_ranges(to, packed.row_ptr.to_vector());
  const std::vector<HaloNeighbour> from_entries = entry_ranges(from, in.row_ptr.to_vector());
  in.cols = Array<global_index>(exec, nnz);
  in.values = Array<T>(exec, nnz);
  exchange->start(to_entries, packed.cols.data(), from_entries, in.cols.data(),
                  sizeof(global_index));
  exchange->start(to_entries, packed.values.data(), from_entries, in.values.data(), sizeof(T));
  exchange->complete();
  return in;
}

/// Sends to each neighbour n of `to` the rows [n.offset, n.offset + n.count)
/// of `packed`, and receives from each neighbour n of `from` the rows that
/// land at [n.offset, n.offset + n.count) of the result (`rows` in all), on
/// packed's executor, along `plan`'s neighbours: device to device through
/// the plan's device transport when it has one and the rows are on a
/// device, else through host memory and MPI. The plan's transport was
/// decided collectively when the plan was made, so every process takes
/// the same path (one posting NCCL sends to another's MPI receives would
/// hang).
template <class T>
RowBlock<T> exchange_rows(const HaloPlan& plan, const std::vector<HaloNeighbour>& to,
                          const RowBlock<T>& packed, const std::vector<HaloNeighbour>& from,
                          size_type rows) {
  const Executor& exec = packed.row_ptr.executor();
  if (exec.is_cuda() && plan.device_transport()) {
    return exchange_device_rows(plan.device_transport(), to, packed, from, rows);
  }
  return from_host(exchange_host_rows(plan.communicator(), to, to_host(packed), from, rows),
                   exec);
}

/// a followed by b (both on one executor).
template <class X>
Array<X> concatenate(const Array<X>& a, const Array<X>& b) {
  const Executor& exec = a.executor();
  Array<X> out(exec, a.size() + b.size());
  if (a.size() > 0) copy_bytes(out.data(), exec, a.data(), exec, a.bytes());
  if (b.size() > 0) copy_bytes(out.data() + a.size(), exec, b.data(), b.executor(), b.bytes());
  return out;
}

/// The row pointers of `top`'s rows followed by `bottom`'s.
inline Array<offset_type> stack_pointers(const Array<offset_type>& top,
                                         const Array<offset_type>& bottom) {
  const Executor& exec = top.executor();
  const size_type top_rows = top.size() - 1, bottom_rows = bottom.size() - 1;
  Array<offset_type> out(exec, top_rows + bottom_rows + 1);
  copy_bytes(out.data(), exec, top.data(), exec, top.bytes());
  offset_type shift = 0;
  copy_bytes(&shift, Executor::host(), top.data() + top_rows, exec, sizeof(offset_type));
  exec.visit([&](const auto& e) {
    kd::shift_offsets(e, bottom_rows, bottom.data() + 1, shift, out.data() + top_rows + 1);
  });
  return out;
}

/// The plan's send indices on `exec`: the plan's own array when it lives
/// there, else a copy kept in `storage`.
const Array<index_type>& send_indices_on(const HaloPlan& plan, const Executor& exec,
                                         Array<index_type>& storage) {
  if (plan.executor() == exec) return plan.send_indices();
  storage = plan.send_indices().to(exec);
  return storage;
}

}  // namespace

template <class T>
RowBlock<T> owned_rows(const DistributedCsrMatrix<T>& M) {
  return gather_rows(M, nullptr);
}

template <class T>
RowBlock<T> fetch_ghost_rows(const DistributedCsrMatrix<T>& M, const HaloPlan& plan) {
  if (plan.partition() != M.row_partition()) {
    throw invalid_argument(
        "fetch_ghost_rows: the plan reads vectors of " +
        std::to_string(plan.partition().global_size()) +
        " rows split over its processes differently from M's rows (" +
        std::to_string(M.global_rows()) +
        "); expected a plan over M's row partition (the column plan of a matrix whose columns are "
        "split like M's rows)");
  }
  const Executor& exec = M.executor();
  Array<index_type> storage;
  const Array<index_type>& indices = send_indices_on(plan, exec, storage);
  return exchange_rows(plan, plan.sends(), gather_rows(M, &indices), plan.receives(),
                       plan.ghost_count());
}

// ---------------------------------------------------------------- product

template <class T>
struct DistributedProduct<T>::Local {
  CsrMatrix<T> X_ext;  // [X_diag | X_offd]
  CsrMatrix<T> Y_ext;  // [Y_own; Y_ghost], compact columns
  /// Sorted ids that may appear outside the own block of Y's columns; a
  /// compact column c >= own_count is foreign[c - own_count].
  Array<global_index> foreign;
  global_index own_begin = 0;
  size_type own_count = 0;
  std::unique_ptr<SparseProduct<CsrMatrix<T>>> product;
  /// The blocked local product (ProductBlocks), when the operands line up:
  /// X_ext and Y_ext in blocks, and the product's blocks as scalars.
  ProductBlocks blocks;
  std::unique_ptr<SparseProduct<BsrMatrix<T>>> blocked;
  CsrMatrix<T> blocked_result;
  Array<global_index> c_cols;  // the local product's columns as global ids
  size_type x_nnz = 0, y_nnz = 0;

  /// The local product X_ext Y_ext (scalar or blocked), computed anew.
  void multiply() {
    if (blocked) {
      blocked->recompute(to_bsr(X_ext, blocks.rows, blocks.inner),
                         to_bsr(Y_ext, blocks.inner, blocks.cols));
      blocked_result = to_csr(blocked->result());
    } else {
      product->recompute(X_ext, Y_ext);
    }
  }
  const CsrMatrix<T>& result() const { return blocked ? blocked_result : product->result(); }

  /// Whether X's rows, the compact columns of X_ext (X's own, then its
  /// ghosts in the order of X's column map) and of Y_ext (Y's own, then
  /// `foreign`) all come in whole aligned nodes of the given sizes, so that
  /// the compact numbering's blocks are the matrices' nodes.
  bool lines_up(const DistributedCsrMatrix<T>& X) const {
    const ProductBlocks& b = blocks;
    if (b.rows == 1 && b.inner == 1 && b.cols == 1) return false;
    const auto whole = [](global_index begin, size_type count, int m) {
      return begin % m == 0 && count % m == 0;
    };
    if (!whole(X.row_partition().begin(), X.local_rows(), b.rows) ||
        !whole(X.col_partition().begin(), X.local_cols(), b.inner) ||
        !whole(own_begin, own_count, b.cols) || X.column_map().size() % b.inner != 0 ||
        foreign.size() % b.cols != 0) {
      return false;
    }
    const Executor& exec = X.executor();
    return exec.visit([&](const auto& e) {
      return kd::split_nodes(e, X.column_map().size(), X.column_map().data(), b.inner) == 0 &&
             kd::split_nodes(e, foreign.size(), foreign.data(), b.cols) == 0;
    });
  }

  /// X_ext's values (and its pattern when `pattern`).
  void fill_x(const DistributedCsrMatrix<T>& X, bool pattern) {
    const Executor& exec = X.executor();
    const size_type n = X.local_rows();
    const auto diag_cols = static_cast<index_type>(X.local_cols());
    if (!pattern) {
      exec.visit([&](const auto& e) {
        kd::hstack_entries(e, n, blocks_of(X), diag_cols, X_ext.row_ptr().data(), X_ext.nnz(),
                           nullptr, X_ext.values().data());
      });
      return;
    }
    Array<offset_type> ptr(exec, n + 1);
    Array<index_type> cols(exec, X.local_nnz());
    Array<T> values(exec, X.local_nnz());
    exec.visit([&](const auto& e) {
      kd::hstack_pointers(e, n, X.diag().row_ptr().data(), X.offd().row_ptr().data(), ptr.data());
      kd::hstack_entries(e, n, blocks_of(X), diag_cols, ptr.data(), X.local_nnz(), cols.data(),
                         values.data());
    });
    X_ext = CsrMatrix<T>(n, checked_index(X.local_cols() + X.offd().cols(), "X's columns"),
                         std::move(ptr), std::move(cols), std::move(values));
  }

  /// The rows of Y that X's rows reach: its own, then the fetched ones.
  static RowBlock<T> rows_of_y(const DistributedCsrMatrix<T>& X, const DistributedCsrMatrix<T>& Y) {
    RowBlock<T> own = owned_rows(Y);
    const RowBlock<T> ghost = fetch_ghost_rows(Y, X.halo_plan());
    if (ghost.rows() == 0) return own;  // nothing fetched: no copy
    return {stack_pointers(own.row_ptr, ghost.row_ptr), concatenate(own.cols, ghost.cols),
            concatenate(own.values, ghost.values)};
  }
};

template <class T>
DistributedProduct<T>::DistributedProduct(const DistributedCsrMatrix<T>& X,
                                          const DistributedCsrMatrix<T>& Y, ProductBlocks blocks)
    : local_(std::make_unique<Local>()) {
  if (blocks.rows < 1 || blocks.inner < 1 || blocks.cols < 1) {
    throw invalid_argument("DistributedProduct: node sizes " + std::to_string(blocks.rows) + ", " +
                           std::to_string(blocks.inner) + ", " + std::to_string(blocks.cols) +
                           "; expected sizes >= 1 (1, 1, 1 for a scalar product)");
  }
  if (X.col_partition() != Y.row_partition()) {
    throw invalid_argument("DistributedProduct: X has " + std::to_string(X.global_cols()) +
                           " columns (" + std::to_string(X.local_cols()) + " here) and Y " +
                           std::to_string(Y.global_rows()) + " rows (" +
                           std::to_string(Y.local_rows()) +
                           " here); expected X's columns split like Y's rows");
  }
  check_location(X.executor(), Y.executor(), "Y", "X");
  const Executor& exec = X.executor();
  Local& L = *local_;
  L.fill_x(X, true);
  L.x_nnz = X.local_nnz();
  L.y_nnz = Y.local_nnz();

  RowBlock<T> rows = Local::rows_of_y(X, Y);
  const size_type own_rows = Y.local_rows(), ghost_rows = X.offd().cols();
  // The ids beyond the own block: the own rows' off-diagonal ids (Y's
  // column map, sorted) and whatever the fetched rows hold (few rows).
  const offset_type own_nnz = Y.local_nnz();
  Array<global_index> ghost_cols(exec, rows.cols.size() - own_nnz);
  if (ghost_cols.size() > 0) {
    copy_bytes(ghost_cols.data(), exec, rows.cols.data() + own_nnz, exec, ghost_cols.bytes());
  }
  Array<global_index> ids = concatenate(Y.column_map(), ghost_cols);
  Array<std::int32_t> ones(exec, ids.size(), 1), runs(exec, 0);
  stable_sort_by_key(ids, ones);
  L.foreign = Array<global_index>(exec, 0);
  const size_type foreign = reduce_by_key(ids, ones, L.foreign, runs);
  L.own_begin = Y.col_partition().begin();
  L.own_count = Y.local_cols();

  Array<index_type> compact(exec, rows.cols.size());
  exec.visit([&](const auto& e) {
    kd::compact_columns(e, rows.cols.size(), rows.cols.data(), L.own_begin, L.own_count,
                        L.foreign.data(), foreign, compact.data());
  });
  L.Y_ext = CsrMatrix<T>(own_rows + ghost_rows,
                         checked_index(L.own_count + foreign, "DistributedProduct: Y's columns"),
                         std::move(rows.row_ptr), std::move(compact), std::move(rows.values));
  L.blocks = blocks;
  if (L.lines_up(X)) {
    L.blocked = std::make_unique<SparseProduct<BsrMatrix<T>>>(
        to_bsr(L.X_ext, blocks.rows, blocks.inner), to_bsr(L.Y_ext, blocks.inner, blocks.cols));
    L.blocked_result = to_csr(L.blocked->result());
  } else {
    L.product = std::make_unique<SparseProduct<CsrMatrix<T>>>(L.X_ext, L.Y_ext);
  }

  const CsrMatrix<T>& C = L.result();
  L.c_cols = Array<global_index>(exec, C.nnz());
  exec.visit([&](const auto& e) {
    kd::expand_columns(e, C.nnz(), C.col_idx().data(), L.own_begin, L.own_count, L.foreign.data(),
                       L.c_cols.data());
  });
  const RowBlock<T> block{C.row_ptr().clone(), L.c_cols.clone(), C.values().clone()};
  C_ = std::make_shared<DistributedCsrMatrix<T>>(X.row_partition(), Y.col_partition(), block);
}

template <class T>
DistributedProduct<T>::~DistributedProduct() = default;
template <class T>
DistributedProduct<T>::DistributedProduct(DistributedProduct&&) noexcept = default;
template <class T>
DistributedProduct<T>& DistributedProduct<T>::operator=(DistributedProduct&&) noexcept = default;

template <class T>
void DistributedProduct<T>::recompute(const DistributedCsrMatrix<T>& X,
                                      const DistributedCsrMatrix<T>& Y) {
  Local& L = *local_;
  if (X.local_nnz() != L.x_nnz || Y.local_nnz() != L.y_nnz || X.local_rows() != L.X_ext.rows() ||
      Y.local_cols() != L.own_count) {
    throw invalid_argument(
        "DistributedProduct::recompute: X or Y does not have the pattern of construction (X has " +
        std::to_string(X.local_nnz()) + " local entries, was " + std::to_string(L.x_nnz) + "; Y " +
        std::to_string(Y.local_nnz()) + ", was " + std::to_string(L.y_nnz) + ")");
  }
  const Executor& exec = X.executor();
  L.fill_x(X, false);
  RowBlock<T> rows = Local::rows_of_y(X, Y);
  if (rows.values.size() != L.Y_ext.nnz()) {
    throw invalid_argument("DistributedProduct::recompute: the rows of Y that X reaches hold " +
                           std::to_string(rows.values.size()) + " entries, " +
                           std::to_string(L.Y_ext.nnz()) +
                           " at construction; expected the pattern of construction");
  }
  L.Y_ext.values() = std::move(rows.values);
  L.multiply();

  // The local product's values into C's blocks, split as at construction
  // (the same flags and scan as DistributedCsrMatrix's constructor; the
  // columns are unchanged, so only the values are written).
  const CsrMatrix<T>& C = L.result();
  DistributedCsrMatrix<T>& target = *C_;
  const global_index begin = target.col_partition().begin(), end = target.col_partition().end();
  offset_type owned = 0;
  const Array<offset_type> position =
      detail::block_positions(exec, C.nnz(), L.c_cols.data(), begin, end, owned);
  const kd::SplitTarget<T> split{nullptr, target.diag_values().data(), nullptr,
                                 target.offd_values().data()};
  exec.visit([&](const auto& e) {
    kd::split_entries(e, C.nnz(), L.c_cols.data(), C.values().data(), position.data(), begin, end,
                      split);
  });
}

template <class T>
bool DistributedProduct<T>::blocked() const noexcept {
  return local_->blocked != nullptr;
}

template <class T>
DistributedCsrMatrix<T> multiply(const DistributedCsrMatrix<T>& X,
                                 const DistributedCsrMatrix<T>& Y) {
  DistributedProduct<T> product(X, Y);
  return std::move(*product.result());
}

// -------------------------------------------------------------- transpose

template <class T>
DistributedCsrMatrix<T> transpose(const DistributedCsrMatrix<T>& M) {
  const Executor& exec = M.executor();
  const HaloPlan& plan = M.halo_plan();
  const global_index row_begin = M.row_partition().begin();
  const auto widen = [&](const Array<index_type>& cols) {
    Array<global_index> out(exec, cols.size());
    exec.visit([&](const auto& e) {
      kd::expand_columns(e, cols.size(), cols.data(), row_begin,
                         static_cast<std::int64_t>(M.local_rows()), nullptr, out.data());
    });
    return out;
  };
  // This process's part of its own rows of M^T, and the transposed rows of
  // the off-diagonal block, which belong to the owners of its columns.
  const CsrMatrix<T> D = strata::transpose(M.diag());
  CsrMatrix<T> O = strata::transpose(M.offd());
  // O serves only to send: its values move into the message (the braced
  // list evaluates left to right, so its columns are read first).
  const RowBlock<T> outgoing{O.row_ptr().clone(), widen(O.col_idx()), std::move(O.values())};
  const RowBlock<T> received =
      exchange_rows(plan, plan.receives(), outgoing, plan.sends(), plan.send_count());
  if (received.nnz() == 0) {
    // Nothing from other processes (one process, or no off-diagonal entry
    // of theirs points here): the own part is the whole of these rows.
    const RowBlock<T> block{D.row_ptr().clone(), widen(D.col_idx()), D.values().clone()};
    return DistributedCsrMatrix<T>(M.col_partition(), M.row_partition(), block);
  }
  Array<index_type> storage;
  const Array<index_type>& targets = send_indices_on(plan, exec, storage);

  // The received entries (the process boundary's, few) keyed by their row
  // and sorted stably, so each row keeps the plan's (rank) order; then each
  // row is its own entries followed by its received ones. Only the few
  // received entries are sorted: sorting every entry by row took 4.5 times
  // the serial transpose of P on two GPUs.
  const size_type n = M.local_cols();
  Array<index_type> keys(exec, received.nnz());
  exec.visit([&](const auto& e) {
    kd::row_keys(e, received.rows(), received.row_ptr.data(), targets.data(), received.nnz(),
                 keys.data());
  });
  Array<index_type> keys_for_values = keys.clone();
  Array<global_index> received_cols = received.cols.clone();
  Array<T> received_values = received.values.clone();
  stable_sort_by_key(keys, received_cols);
  stable_sort_by_key(keys_for_values, received_values);
  Array<offset_type> received_ptr(exec, n + 1);
  RowBlock<T> block;
  block.row_ptr = Array<offset_type>(exec, n + 1);
  exec.visit([&](const auto& e) {
    kd::offsets_from_sorted_keys(e, n, keys.data(), keys.size(), received_ptr.data());
    kd::add_offsets(e, n + 1, D.row_ptr().data(), received_ptr.data(), block.row_ptr.data());
  });
  const offset_type nnz = D.nnz() + received.nnz();
  block.cols = Array<global_index>(exec, nnz);
  block.values = Array<T>(exec, nnz);
  exec.visit([&](const auto& e) {
    kd::merge_rows(e, n, D.row_ptr().data(), D.col_idx().data(), row_begin, D.values().data(),
                   received_ptr.data(), received_cols.data(), received_values.data(),
                   block.row_ptr.data(), nnz, block.cols.data(), block.values.data());
  });
  return DistributedCsrMatrix<T>(M.col_partition(), M.row_partition(), block);
}

template <class T>
DistributedCsrMatrix<T> from_diagonal_block(RowPartition rows, RowPartition cols,
                                            const CsrMatrix<T>& local) {
  if (local.rows() != rows.local_size() || local.cols() != cols.local_size()) {
    throw dimension_mismatch("from_diagonal_block: local is " + std::to_string(local.rows()) +
                             " x " + std::to_string(local.cols()) + "; expected this process's " +
                             std::to_string(rows.local_size()) + " rows x " +
                             std::to_string(cols.local_size()) + " columns");
  }
  const Executor& exec = local.executor();
  Array<global_index> global(exec, local.nnz());
  exec.visit([&](const auto& e) {
    kd::expand_columns(e, local.nnz(), local.col_idx().data(), cols.begin(),
                       static_cast<std::int64_t>(cols.local_size()), nullptr, global.data());
  });
  const RowBlock<T> block{local.row_ptr().clone(), std::move(global), local.values().clone()};
  return DistributedCsrMatrix<T>(std::move(rows), std::move(cols), block);
}

template DistributedCsrMatrix<double> from_diagonal_block(RowPartition, RowPartition,
                                                          const CsrMatrix<double>&);
template RowBlock<double> owned_rows(const DistributedCsrMatrix<double>&);
template RowBlock<double> fetch_ghost_rows(const DistributedCsrMatrix<double>&, const HaloPlan&);
template class DistributedProduct<double>;
template DistributedCsrMatrix<double> multiply(const DistributedCsrMatrix<double>&,
                                               const DistributedCsrMatrix<double>&);
template DistributedCsrMatrix<double> transpose(const DistributedCsrMatrix<double>&);

}  // namespace strata
