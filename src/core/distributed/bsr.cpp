// DistributedBsrMatrix (strata/distributed/bsr.hpp): the block form of a
// distributed CSR matrix split at node boundaries, its halo plan over the
// ghost nodes' unknowns, the overlapped SpMV, and the expansion back to CSR.

#include "strata/distributed/bsr.hpp"

#include <exception>
#include <string>
#include <utility>
#include <vector>

#include "core/distributed/communication.hpp"
#include "core/distributed/overlap.hpp"
#include "core/distributed/split.hpp"
#include "kernels/distributed/distributed_kernels.hpp"

namespace strata {

namespace {

constexpr const char* who = "DistributedBsrMatrix";

/// The same block sizes on every process: a process that passed others
/// would build blocks its neighbours cannot read (one allgather).
void check_same_block_sizes(const Communicator& comm, int r, int c) {
  const int mine[2] = {r, c};
  std::vector<int> all(2 * static_cast<std::size_t>(comm.size()));
  detail::allgather(comm, mine, sizeof mine, all.data());
  for (int p = 1; p < comm.size(); ++p) {
    const int pr = all[2 * static_cast<std::size_t>(p)];
    const int pc = all[2 * static_cast<std::size_t>(p) + 1];
    if (pr != all[0] || pc != all[1]) {
      throw invalid_argument(std::string(who) + ": process " + std::to_string(p) +
                             " passed block sizes " + std::to_string(pr) + "x" +
                             std::to_string(pc) + " and process 0 " + std::to_string(all[0]) + "x" +
                             std::to_string(all[1]) +
                             "; expected the same block sizes on every process");
    }
  }
}

/// The node partition of `scalar` (the rows or columns of A) with nodes of
/// b; throws naming the first process whose block begins inside a node.
/// Every process holds the whole offset table, so every one finds the same
/// process and throws the same message.
RowPartition node_partition(const RowPartition& scalar, int b, const char* size_name,
                            const char* what) {
  if (b < 1) {
    throw invalid_argument(std::string(who) + ": " + size_name + " = " + std::to_string(b) +
                           "; expected a block size >= 1");
  }
  if (scalar.global_size() % b != 0) {
    throw invalid_argument(std::string(who) + ": A has " + std::to_string(scalar.global_size()) +
                           " " + what + "s, not a multiple of " + size_name + " = " +
                           std::to_string(b) + "; expected whole nodes of " + std::to_string(b));
  }
  std::vector<global_index> nodes(scalar.offsets().size());
  for (int p = 0; p < scalar.processes(); ++p) {
    const global_index first = scalar.offset(p);
    if (first % b != 0) {
      const global_index node = first / b;
      throw invalid_argument(std::string(who) + ": process " + std::to_string(p) + "'s " + what +
                             "s begin at global " + what + " " + std::to_string(first) +
                             ", inside node " + std::to_string(node) + " (" + what + "s " +
                             std::to_string(node * b) + " to " + std::to_string(node * b + b - 1) +
                             ") of " + size_name + " = " + std::to_string(b) +
                             "; expected every process's " + what + "s to begin at a multiple of " +
                             std::to_string(b));
    }
    nodes[static_cast<std::size_t>(p)] = first / b;
  }
  nodes.back() = scalar.global_size() / b;
  return RowPartition(scalar.communicator(), std::move(nodes));
}

/// The scalar partition of nodes of b unknowns.
RowPartition unknowns_of(const RowPartition& nodes, int b) {
  std::vector<global_index> offsets = nodes.offsets();
  for (global_index& o : offsets) o *= b;
  return RowPartition(nodes.communicator(), std::move(offsets));
}

/// The global ids of the unknowns of `nodes`, node after node, on their
/// executor.
Array<global_index> unknowns_of_nodes(const Array<global_index>& nodes, int b) {
  const Executor& exec = nodes.executor();
  Array<global_index> out(exec, nodes.size() * b);
  exec.visit([&](const auto& e) {
    kernels::distributed::node_unknowns(e, nodes.size(), nodes.data(), b, out.data());
  });
  return out;
}

}  // namespace

template <class T>
DistributedBsrMatrix<T>::DistributedBsrMatrix(const DistributedCsrMatrix<T>& A, int row_block_size,
                                              int col_block_size) {
  const Communicator& comm = A.communicator();
  const int c = col_block_size;
  const Executor& exec = A.executor();
  const Array<global_index>& ghosts = A.column_map();
  // The off-diagonal block's columns index the sorted ghost unknowns; its
  // ghost nodes are their distinct nodes, and each column becomes the
  // position of its node times c plus its place in the node (in 32 bits:
  // checked here, with everything else a process may refuse alone, before
  // the collectives below).
  Array<index_type> node_position;
  size_type ghost_unknowns = 0;
  std::exception_ptr failure;
  try {
    check_same_block_sizes(comm, row_block_size, col_block_size);
    block_rows_ = node_partition(A.row_partition(), row_block_size, "row_block_size", "row");
    block_cols_ = node_partition(A.col_partition(), col_block_size, "col_block_size", "column");
    Array<global_index> ghost_nodes(exec, ghosts.size());
    exec.visit([&](const auto& e) {
      kernels::distributed::node_ids(e, ghosts.size(), ghosts.data(), c, ghost_nodes.data());
    });
    node_position = detail::compress_columns(ghost_nodes, column_map_);
    ghost_unknowns = column_map_.size() * c;
    (void)checked_index(ghost_unknowns, "DistributedBsrMatrix: ghosts");
  } catch (...) {
    failure = std::current_exception();
  }
  detail::agree_on_failure(comm, failure, who);
  rows_ = A.row_partition();
  cols_ = A.col_partition();

  // The diagonal block's local columns are whole nodes already.
  diag_ = to_bsr(A.diag(), row_block_size, col_block_size);

  const CsrMatrix<T>& offd = A.offd();
  Array<index_type> offd_col(exec, offd.nnz());
  exec.visit([&](const auto& e) {
    kernels::distributed::ghost_node_columns(e, offd.nnz(), offd.col_idx().data(),
                                             node_position.data(), ghosts.data(), c,
                                             offd_col.data());
  });
  const CsrMatrix<T> offd_by_nodes(
      offd.rows(), checked_index(ghost_unknowns, "DistributedBsrMatrix: ghosts"),
      offd.row_ptr().clone(), std::move(offd_col), offd.values().clone());
  offd_ = to_bsr(offd_by_nodes, row_block_size, col_block_size);

  plan_ =
      std::make_shared<const HaloPlan>(cols_, unknowns_of_nodes(column_map_, c).to_vector(), exec);
  exchange_ = std::make_unique<HaloExchange<T>>(plan_, exec);
  global_nnz_ = detail::sum_over_processes(comm, local_nnz());
}

template <class T>
DistributedBsrMatrix<T>::DistributedBsrMatrix(RowPartition block_rows, RowPartition block_cols,
                                              BsrMatrix<T> diag, BsrMatrix<T> offd,
                                              Array<global_index> column_map,
                                              std::shared_ptr<const HaloPlan> plan,
                                              size_type global_nnz)
    : block_rows_(std::move(block_rows)),
      block_cols_(std::move(block_cols)),
      rows_(unknowns_of(block_rows_, diag.row_block_size())),
      cols_(unknowns_of(block_cols_, diag.col_block_size())),
      diag_(std::move(diag)),
      offd_(std::move(offd)),
      column_map_(std::move(column_map)),
      plan_(std::move(plan)),
      exchange_(std::make_unique<HaloExchange<T>>(plan_, diag_.executor())),
      global_nnz_(global_nnz) {}

template <class T>
DistributedBsrMatrix<T>::DistributedBsrMatrix(DistributedBsrMatrix&&) noexcept = default;
template <class T>
DistributedBsrMatrix<T>& DistributedBsrMatrix<T>::operator=(DistributedBsrMatrix&&) noexcept =
    default;
template <class T>
DistributedBsrMatrix<T>::~DistributedBsrMatrix() = default;

template <class T>
const char* DistributedBsrMatrix<T>::halo_transfer() const noexcept {
  return exchange_->transfer();
}

template <class T>
DistributedBsrMatrix<T> DistributedBsrMatrix<T>::to(const Executor& target) const {
  return DistributedBsrMatrix(block_rows_, block_cols_, diag_.to(target), offd_.to(target),
                              column_map_.to(target),
                              std::make_shared<const HaloPlan>(plan_->to(target)), global_nnz_);
}

template <class T>
std::string DistributedBsrMatrix<T>::describe() const {
  return "distributed BSR " + std::to_string(row_block_size()) + "x" +
         std::to_string(col_block_size()) + " " + std::to_string(global_rows()) + "x" +
         std::to_string(global_cols()) + ", " + std::to_string(local_rows()) + " local rows, " +
         std::to_string(local_nnz()) + " local nonzeros (" + std::to_string(local_blocks()) +
         " blocks), " + std::to_string(communicator().size()) + " processes";
}

template <class T>
void DistributedBsrMatrix<T>::apply(T alpha, const Vector<T>& x, T beta, const Vector<T>& z,
                                    Vector<T>& y) const {
  detail::check_product_operands("DistributedBsrMatrix::apply", executor(), local_rows(),
                                 local_cols(), x, z, y);
  detail::overlapped_product(
      *plan_, *exchange_, x,
      [&] {
        // The BSR kernel adds beta y, so z goes into y first (not read when
        // beta == 0, so that NaN there is ignored).
        if (beta != T{0} && z.data() != y.data()) copy(z.values(), y.values());
        spmv(alpha, diag_, x, beta, y);
      },
      [&](const Vector<T>& ghosts) {
        if (offd_.nnz() > 0) spmv(alpha, offd_, ghosts, T{1}, y);
      });
}

template <class T>
void spmv(const DistributedBsrMatrix<T>& A, const DistributedVector<T>& x,
          DistributedVector<T>& y) {
  detail::spmv_on_distributed_vectors(A, x, y);
}

template <class T>
DistributedCsrMatrix<T> to_csr(const DistributedBsrMatrix<T>& A) {
  // The expanded off-diagonal block's columns are the ghost nodes'
  // unknowns in order, which are the plan's ghosts.
  return DistributedCsrMatrix<T>(A.rows_, A.cols_, to_csr(A.diag_), to_csr(A.offd_),
                                 unknowns_of_nodes(A.column_map_, A.col_block_size()), A.plan_,
                                 A.global_nnz_);
}

template class DistributedBsrMatrix<double>;
template void spmv<double>(const DistributedBsrMatrix<double>&, const DistributedVector<double>&,
                           DistributedVector<double>&);
template DistributedCsrMatrix<double> to_csr<double>(const DistributedBsrMatrix<double>&);

}  // namespace strata
