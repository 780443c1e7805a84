// DistributedCsrMatrix (strata/distributed/matrix.hpp): the split of owned
// rows into the diagonal and off-diagonal blocks, the column map, the halo
// plan, the overlapped SpMV, and scattering from one process.

#include "strata/distributed/matrix.hpp"

#include <exception>
#include <string>
#include <utility>

#include "core/distributed/communication.hpp"
#include "core/distributed/overlap.hpp"
#include "core/distributed/split.hpp"
#include "kernels/distributed/distributed_kernels.hpp"
#include "kernels/matrix/csr_kernels.hpp"
#include "strata/core/primitives.hpp"

namespace strata {

namespace {

/// One element of a device or host array, read on the host.
template <class X>
X element(const Array<X>& a, size_type k) {
  X value{};
  copy_bytes(&value, Executor::host(), a.data() + k, a.executor(), sizeof(X));
  return value;
}

template <class T>
void check_local_rows(const RowPartition& rows, const RowPartition& cols,
                      const RowBlock<T>& local) {
  const char* who = "DistributedCsrMatrix";
  if (rows.processes() != cols.processes()) {
    throw invalid_argument(std::string(who) + ": the row partition is over " +
                           std::to_string(rows.processes()) +
                           " processes and the column partition over " +
                           std::to_string(cols.processes()) + "; expected the same communicator");
  }
  const Executor& exec = local.executor();
  check_location(exec, local.cols.executor(), "local.cols", "local.row_ptr");
  check_location(exec, local.values.executor(), "local.values", "local.row_ptr");
  if (local.row_ptr.size() != rows.local_size() + 1) {
    throw invalid_argument(
        std::string(who) + ": local.row_ptr has " + std::to_string(local.row_ptr.size()) +
        " entries; expected " + std::to_string(rows.local_size() + 1) +
        " (one per owned row plus one: this process owns rows [" + std::to_string(rows.begin()) +
        ", " + std::to_string(rows.end()) + ") of " + std::to_string(rows.global_size()) + ")");
  }
  if (local.cols.size() != local.values.size()) {
    throw invalid_argument(std::string(who) + ": local.cols has " +
                           std::to_string(local.cols.size()) + " entries and local.values " +
                           std::to_string(local.values.size()) + "; expected one each per entry");
  }
  const offset_type first = element(local.row_ptr, 0);
  const offset_type last = element(local.row_ptr, local.row_ptr.size() - 1);
  if (first != 0 || last != local.cols.size()) {
    throw invalid_argument(std::string(who) + ": local.row_ptr runs from " + std::to_string(first) +
                           " to " + std::to_string(last) +
                           "; expected 0 to the number of entries, " +
                           std::to_string(local.cols.size()));
  }
  const size_type decreasing = exec.visit([&](const auto& e) {
    return kernels::distributed::first_decreasing_offset(e, rows.local_size(),
                                                         local.row_ptr.data());
  });
  if (decreasing >= 0) {
    throw invalid_argument(std::string(who) + ": local.row_ptr decreases at row " +
                           std::to_string(decreasing) + " (" +
                           std::to_string(element(local.row_ptr, decreasing)) + " then " +
                           std::to_string(element(local.row_ptr, decreasing + 1)) +
                           "); expected row pointers that never decrease");
  }
  const size_type bad = exec.visit([&](const auto& e) {
    return kernels::distributed::first_bad_column(e, local.cols.size(), local.cols.data(),
                                                  cols.global_size());
  });
  if (bad >= 0) {
    throw invalid_argument(std::string(who) + ": local.cols[" + std::to_string(bad) +
                           "] = " + std::to_string(element(local.cols, bad)) +
                           " is not a global column id; expected one in [0, " +
                           std::to_string(cols.global_size()) + ")");
  }
  checked_index(cols.local_size(), "DistributedCsrMatrix: this process's columns");
}

}  // namespace

template <class T>
DistributedVector<T>::DistributedVector(RowPartition partition, Vector<T> local)
    : partition_(std::move(partition)), local_(std::move(local)) {
  if (local_.size() != partition_.local_size()) {
    throw dimension_mismatch("DistributedVector: local has " + std::to_string(local_.size()) +
                             " entries; expected this process's block of " +
                             std::to_string(partition_.local_size()) + " (rows [" +
                             std::to_string(partition_.begin()) + ", " +
                             std::to_string(partition_.end()) + "))");
  }
}

template <class T>
DistributedCsrMatrix<T>::DistributedCsrMatrix(RowPartition rows, RowPartition cols,
                                              const RowBlock<T>& local)
    : rows_(std::move(rows)), cols_(std::move(cols)) {
  const Communicator& comm = rows_.communicator();
  std::exception_ptr failure;
  try {
    check_local_rows(rows_, cols_, local);
  } catch (...) {
    failure = std::current_exception();
  }
  detail::agree_on_failure(comm, failure, "DistributedCsrMatrix");

  // Split each row into the owned columns and the others: a flag per owned
  // entry, scanned, is each entry's position in its block (a thread per
  // entry, coalesced, where a thread per row would stride).
  const Executor& exec = local.executor();
  const size_type n = rows_.local_size();
  const offset_type nnz = local.cols.size();
  namespace kd = kernels::distributed;
  offset_type diag_nnz = 0;
  const Array<offset_type> position =
      detail::block_positions(exec, nnz, local.cols.data(), cols_.begin(), cols_.end(), diag_nnz);
  const offset_type offd_nnz = nnz - diag_nnz;
  Array<offset_type> diag_ptr(exec, n + 1), offd_ptr(exec, n + 1);
  Array<index_type> diag_col(exec, diag_nnz);
  Array<T> diag_val(exec, diag_nnz), offd_val(exec, offd_nnz);
  Array<global_index> offd_global(exec, offd_nnz);
  const kd::SplitTarget<T> target{diag_col.data(), diag_val.data(), offd_global.data(),
                                  offd_val.data()};
  exec.visit([&](const auto& e) {
    kd::split_pointers(e, n, local.row_ptr.data(), position.data(), diag_ptr.data(),
                       offd_ptr.data());
    kd::split_entries(e, nnz, local.cols.data(), local.values.data(), position.data(),
                      cols_.begin(), cols_.end(), target);
  });

  Array<index_type> offd_col = detail::compress_columns(offd_global, column_map_);
  const size_type ghosts = column_map_.size();

  try {
    diag_ = CsrMatrix<T>(n, cols_.local_size(), std::move(diag_ptr), std::move(diag_col),
                         std::move(diag_val));
    offd_ = CsrMatrix<T>(n, checked_index(ghosts, "DistributedCsrMatrix: ghost columns"),
                         std::move(offd_ptr), std::move(offd_col), std::move(offd_val));
    diag_.validate();  // duplicate columns in a row, values that are not finite
    offd_.validate();
  } catch (...) {
    failure = std::current_exception();
  }
  detail::agree_on_failure(comm, failure, "DistributedCsrMatrix");

  plan_ = std::make_shared<const HaloPlan>(cols_, column_map_.to_vector(), exec);
  exchange_ = std::make_unique<HaloExchange<T>>(plan_, exec);
  global_nnz_ = detail::sum_over_processes(comm, local_nnz());
  list_offd_rows();
}

template <class T>
DistributedCsrMatrix<T>::DistributedCsrMatrix(RowPartition rows, RowPartition cols,
                                              CsrMatrix<T> diag, CsrMatrix<T> offd,
                                              Array<global_index> column_map,
                                              std::shared_ptr<const HaloPlan> plan,
                                              size_type global_nnz)
    : rows_(std::move(rows)),
      cols_(std::move(cols)),
      diag_(std::move(diag)),
      offd_(std::move(offd)),
      column_map_(std::move(column_map)),
      plan_(std::move(plan)),
      exchange_(std::make_unique<HaloExchange<T>>(plan_, diag_.executor())),
      global_nnz_(global_nnz) {
  list_offd_rows();
}

template <class T>
void DistributedCsrMatrix<T>::list_offd_rows() {
  const Executor& exec = offd_.executor();
  const size_type n = offd_.rows();
  Array<offset_type> position(exec, n + 1);
  exec.visit([&](const auto& e) {
    kernels::distributed::nonempty_row_flags(e, n, offd_.row_ptr().data(), position.data());
  });
  const offset_type count = exclusive_scan(position, position);
  offd_rows_ = Array<index_type>(exec, count);
  exec.visit([&](const auto& e) {
    kernels::distributed::list_flagged_rows(e, n, position.data(), offd_rows_.data());
  });
}

template <class T>
DistributedCsrMatrix<T>::DistributedCsrMatrix(DistributedCsrMatrix&&) noexcept = default;
template <class T>
DistributedCsrMatrix<T>& DistributedCsrMatrix<T>::operator=(DistributedCsrMatrix&&) noexcept =
    default;
template <class T>
DistributedCsrMatrix<T>::~DistributedCsrMatrix() = default;

template <class T>
const char* DistributedCsrMatrix<T>::halo_transfer() const noexcept {
  return exchange_->transfer();
}

template <class T>
DistributedCsrMatrix<T> DistributedCsrMatrix<T>::to(const Executor& target) const {
  return DistributedCsrMatrix(rows_, cols_, diag_.to(target), offd_.to(target),
                              column_map_.to(target),
                              std::make_shared<const HaloPlan>(plan_->to(target)), global_nnz_);
}

template <class T>
void DistributedCsrMatrix<T>::apply(T alpha, const Vector<T>& x, T beta, const Vector<T>& z,
                                    Vector<T>& y) const {
  detail::check_product_operands("DistributedCsrMatrix::apply", executor(), local_rows(),
                                 local_cols(), x, z, y);
  detail::overlapped_product(
      *plan_, *exchange_, x, [&] { spmv(alpha, diag_, x, beta, z, y); },
      [&](const Vector<T>& ghosts) {
        if (offd_rows_.size() == 0) return;
        executor().visit([&](const auto& e) {
          kernels::distributed::spmv_listed_rows(e, offd_rows_.size(), offd_rows_.data(),
                                                 offd_.row_ptr().data(), offd_.col_idx().data(),
                                                 offd_.values().data(), alpha, ghosts.data(),
                                                 y.data());
        });
      });
}

template <class T>
void DistributedCsrMatrix<T>::jacobi_sweep(const Vector<T>& d, const Vector<T>& b,
                                           const Vector<T>& x0, Vector<T>& x) const {
  const char* who = "DistributedCsrMatrix::jacobi_sweep";
  detail::check_product_operands(who, executor(), local_rows(), local_cols(), x0, b, x);
  check_location(executor(), d.executor(), "d", who);
  if (d.size() != local_rows() || local_rows() != local_cols()) {
    throw dimension_mismatch(std::string(who) + ": this process's block of A is " +
                             std::to_string(local_rows()) + " x " + std::to_string(local_cols()) +
                             " and d has " + std::to_string(d.size()) +
                             " entries; expected a square block and d of local_rows() entries");
  }
  detail::overlapped_product(
      *plan_, *exchange_, x0,
      [&] {
        executor().visit([&](const auto& e) {
          kernels::csr::jacobi_sweep(e, diag_.rows(), diag_.nnz(), diag_.max_row_nnz(),
                                     diag_.row_ptr().data(), diag_.col_idx().data(),
                                     diag_.values().data(), d.data(), b.data(), x0.data(),
                                     x.data());
        });
      },
      [&](const Vector<T>& ghosts) {
        if (offd_rows_.size() == 0) return;
        executor().visit([&](const auto& e) {
          kernels::distributed::jacobi_listed_rows(e, offd_rows_.size(), offd_rows_.data(),
                                                   offd_.row_ptr().data(), offd_.col_idx().data(),
                                                   offd_.values().data(), d.data(), ghosts.data(),
                                                   x.data());
        });
      });
}

template <class T>
T DistributedCsrMatrix<T>::apply_dot(const Vector<T>& x, Vector<T>& y) const {
  const char* who = "DistributedCsrMatrix::apply_dot";
  detail::check_product_operands(who, executor(), local_rows(), local_cols(), x, y, y);
  if (row_partition() != col_partition()) {
    throw dimension_mismatch(std::string(who) +
                             ": needs a square operator whose columns are split like its rows; A "
                             "is " + std::to_string(global_rows()) + " x " +
                             std::to_string(global_cols()));
  }
  T local{0};
  detail::overlapped_product(
      *plan_, *exchange_, x, [&] { local = spmv_dot(diag_, x, y); },
      [&](const Vector<T>& ghosts) {
        if (offd_rows_.size() == 0) return;
        local += executor().visit([&](const auto& e) {
          return kernels::distributed::spmv_listed_rows_dot(
              e, offd_rows_.size(), offd_rows_.data(), offd_.row_ptr().data(),
              offd_.col_idx().data(), offd_.values().data(), ghosts.data(), x.data(), y.data());
        });
      });
  return local;
}

template <class T>
void spmv(const DistributedCsrMatrix<T>& A, const DistributedVector<T>& x,
          DistributedVector<T>& y) {
  detail::spmv_on_distributed_vectors(A, x, y);
}

// ---------------------------------------------------------------- scatter / gather

namespace {

/// The root's check of a scatter, agreed on by every process.
void check_root(const RowPartition& partition, int root, size_type rows, size_type cols,
                const char* who) {
  std::exception_ptr failure;
  try {
    if (root < 0 || root >= partition.processes()) {
      throw invalid_argument(std::string(who) + ": root = " + std::to_string(root) +
                             "; expected a rank in [0, " + std::to_string(partition.processes()) +
                             ")");
    }
    if (partition.communicator().rank() == root &&
        (rows != partition.global_size() || (cols >= 0 && cols != partition.global_size()))) {
      throw invalid_argument(std::string(who) + ": the root's matrix is " + std::to_string(rows) +
                             (cols >= 0 ? " x " + std::to_string(cols) : std::string()) +
                             "; expected " + std::to_string(partition.global_size()) +
                             " rows (the partition's global size)" +
                             (cols >= 0 ? " and as many columns" : ""));
    }
  } catch (...) {
    failure = std::current_exception();
  }
  detail::agree_on_failure(partition.communicator(), failure, who);
}

}  // namespace

template <class T>
DistributedCsrMatrix<T> scatter_rows(const CsrMatrix<T>& global, const RowPartition& partition,
                                     const Executor& exec, int root) {
  const Communicator& comm = partition.communicator();
  check_root(partition, root, global.rows(), global.cols(), "scatter_rows");
  const bool is_root = comm.rank() == root;
  const size_type n = partition.local_size();
  std::vector<offset_type> row_ptr(static_cast<std::size_t>(n) + 1, 0);
  std::vector<global_index> cols;
  std::vector<T> values;
  if (is_root) {
    // Each process's rows: row pointers rebased to 0, columns as 64-bit ids.
    const CsrMatrix<T> host = global.to(Executor::host());
    const auto ptr = host.row_ptr().host_view();
    const auto col = host.col_idx().host_view();
    const auto val = host.values().host_view();
    const int processes = partition.processes();
    std::vector<std::vector<offset_type>> part_ptr(static_cast<std::size_t>(processes));
    std::vector<std::vector<global_index>> part_col(static_cast<std::size_t>(processes));
    std::vector<std::vector<T>> part_val(static_cast<std::size_t>(processes));
    detail::RequestSet messages;
    for (int r = 0; r < processes; ++r) {
      const size_type b = partition.offset(r), e = partition.offset(r + 1);
      auto& p = part_ptr[static_cast<std::size_t>(r)];
      auto& c = part_col[static_cast<std::size_t>(r)];
      auto& v = part_val[static_cast<std::size_t>(r)];
      p.resize(static_cast<std::size_t>(e - b) + 1);
      for (size_type i = b; i <= e; ++i) p[static_cast<std::size_t>(i - b)] = ptr[i] - ptr[b];
      c.assign(col.begin() + ptr[b], col.begin() + ptr[e]);
      v.assign(val.begin() + ptr[b], val.begin() + ptr[e]);
      if (r == root) continue;
      messages.send(comm, p.data(), p.size() * sizeof(offset_type), r, detail::Tag::scatter);
      messages.send(comm, c.data(), c.size() * sizeof(global_index), r, detail::Tag::scatter);
      messages.send(comm, v.data(), v.size() * sizeof(T), r, detail::Tag::scatter);
    }
    row_ptr = std::move(part_ptr[static_cast<std::size_t>(root)]);
    cols = std::move(part_col[static_cast<std::size_t>(root)]);
    values = std::move(part_val[static_cast<std::size_t>(root)]);
    messages.wait_all();
  } else {
    detail::RequestSet messages;
    messages.receive(comm, row_ptr.data(), row_ptr.size() * sizeof(offset_type), root,
                     detail::Tag::scatter);
    messages.wait_all();  // the row pointers say how many entries follow
    cols.resize(static_cast<std::size_t>(row_ptr.back()));
    values.resize(static_cast<std::size_t>(row_ptr.back()));
    messages.receive(comm, cols.data(), cols.size() * sizeof(global_index), root,
                     detail::Tag::scatter);
    messages.receive(comm, values.data(), values.size() * sizeof(T), root, detail::Tag::scatter);
    messages.wait_all();
  }
  const RowBlock<T> local{Array<offset_type>(exec, row_ptr), Array<global_index>(exec, cols),
                          Array<T>(exec, values)};
  return DistributedCsrMatrix<T>(partition, local);
}

template <class T>
DistributedVector<T> scatter_vector(const Vector<T>& global, const RowPartition& partition,
                                    const Executor& exec, int root) {
  const Communicator& comm = partition.communicator();
  check_root(partition, root, global.size(), -1, "scatter_vector");
  std::vector<T> mine(static_cast<std::size_t>(partition.local_size()));
  if (comm.rank() == root) {
    const std::vector<T> all = global.to_vector();
    detail::RequestSet messages;
    for (int r = 0; r < partition.processes(); ++r) {
      const size_type b = partition.offset(r), count = partition.local_size(r);
      if (r == root) {
        std::copy(all.begin() + b, all.begin() + b + count, mine.begin());
      } else if (count > 0) {
        messages.send(comm, all.data() + b, static_cast<std::size_t>(count) * sizeof(T), r,
                      detail::Tag::scatter);
      }
    }
    messages.wait_all();
  } else if (!mine.empty()) {
    detail::RequestSet messages;
    messages.receive(comm, mine.data(), mine.size() * sizeof(T), root, detail::Tag::scatter);
    messages.wait_all();
  }
  return DistributedVector<T>(partition, Vector<T>(Array<T>(exec, mine)));
}

template <class T>
Vector<T> gather_vector(const DistributedVector<T>& x, int root) {
  const RowPartition& partition = x.partition();
  const Communicator& comm = partition.communicator();
  check_root(partition, root, partition.global_size(), -1, "gather_vector");
  const std::vector<T> mine = x.local().to_vector();
  if (comm.rank() != root) {
    if (!mine.empty()) {
      detail::RequestSet messages;
      messages.send(comm, mine.data(), mine.size() * sizeof(T), root, detail::Tag::scatter);
      messages.wait_all();
    }
    return Vector<T>(Executor::host(), 0);
  }
  std::vector<T> all(static_cast<std::size_t>(partition.global_size()));
  detail::RequestSet messages;
  for (int r = 0; r < partition.processes(); ++r) {
    const size_type b = partition.offset(r), count = partition.local_size(r);
    if (r == root) {
      std::copy(mine.begin(), mine.end(), all.begin() + b);
    } else if (count > 0) {
      messages.receive(comm, all.data() + b, static_cast<std::size_t>(count) * sizeof(T), r,
                       detail::Tag::scatter);
    }
  }
  messages.wait_all();
  return Vector<T>(Array<T>(Executor::host(), all));
}

template class DistributedVector<double>;
template class DistributedCsrMatrix<double>;
template void spmv<double>(const DistributedCsrMatrix<double>&, const DistributedVector<double>&,
                           DistributedVector<double>&);
template DistributedCsrMatrix<double> scatter_rows<double>(const CsrMatrix<double>&,
                                                           const RowPartition&, const Executor&,
                                                           int);
template DistributedVector<double> scatter_vector<double>(const Vector<double>&,
                                                          const RowPartition&, const Executor&,
                                                          int);
template Vector<double> gather_vector<double>(const DistributedVector<double>&, int);

}  // namespace strata
