// BlockDiagonal: the inverted diagonal blocks of a BSR matrix, built and
// applied where the matrix lives. Operands are checked here, once.

#include "strata/matrix/block_diagonal.hpp"

#include <string>

#include "core/single_precision.hpp"
#include "kernels/matrix/block_diagonal_kernels.hpp"

namespace strata {

namespace {

template <class T>
void check_square_blocks(const BsrMatrix<T>& A, const char* who) {
  if (A.row_block_size() != A.col_block_size()) {
    throw invalid_argument(std::string(who) + ": A has " + std::to_string(A.row_block_size()) +
                           "x" + std::to_string(A.col_block_size()) +
                           " blocks; the block diagonal needs square blocks");
  }
  if (A.block_rows() != A.block_cols()) {
    throw invalid_argument(std::string(who) + ": A has " + std::to_string(A.block_rows()) + " x " +
                           std::to_string(A.block_cols()) +
                           " blocks; the block diagonal needs as many block rows as block columns");
  }
}

/// Inverts A's diagonal blocks into `inverse`; throws naming the first bad
/// block row.
template <class T>
void invert_into(const BsrMatrix<T>& A, BlockDiagonalKind kind, Array<T>& inverse,
                 const char* who) {
  const int b = A.row_block_size();
  Array<T> workspace;
  if (!kernels::block_diagonal::has_fast_path(b)) {
    workspace = Array<T>(A.executor(), static_cast<size_type>(b) * b * A.block_rows());
  }
  const size_type bad = A.executor().visit([&](const auto& e) {
    return kernels::block_diagonal::invert(
        e, A.block_rows(), b, A.row_ptr().data(), A.col_idx().data(), A.values().data(),
        kind == BlockDiagonalKind::l1, inverse.data(), workspace.data());
  });
  if (bad < 0) return;
  using kernels::block_diagonal::BlockDefect;
  const auto defect = static_cast<BlockDefect>(bad % 4);
  const char* what = defect == BlockDefect::missing      ? "has no diagonal block"
                     : defect == BlockDefect::non_finite ? "has a diagonal block that is not finite"
                                                         : "has a singular diagonal block";
  throw invalid_argument(std::string(who) + ": block row " + std::to_string(bad / 4) +
                         " (0-based) of " + std::to_string(A.block_rows()) + " " + what +
                         (kind == BlockDiagonalKind::l1 ? " (l1 kind)" : "") +
                         "; expected an invertible " + std::to_string(b) + "x" + std::to_string(b) +
                         " block");
}

}  // namespace

template <class T>
BlockDiagonal<T> BlockDiagonal<T>::inverse(const BsrMatrix<T>& A, BlockDiagonalKind kind) {
  check_square_blocks(A, "BlockDiagonal::inverse");
  const int b = A.row_block_size();
  Array<T> values(A.executor(), static_cast<size_type>(b) * b * A.block_rows());
  invert_into(A, kind, values, "BlockDiagonal::inverse");
  return BlockDiagonal(A.block_rows(), b, kind, std::move(values));
}

template <class T>
void BlockDiagonal<T>::recompute(const BsrMatrix<T>& A) {
  check_square_blocks(A, "BlockDiagonal::recompute");
  check_location(executor(), A.executor(), "A", "BlockDiagonal::recompute");
  if (A.block_rows() != block_rows_ || A.row_block_size() != block_size_) {
    throw invalid_argument("BlockDiagonal::recompute: A has " + std::to_string(A.block_rows()) +
                           " block rows of " + std::to_string(A.row_block_size()) + "x" +
                           std::to_string(A.row_block_size()) + " blocks; expected " +
                           std::to_string(block_rows_) + " of " + std::to_string(block_size_) +
                           "x" + std::to_string(block_size_) + " as at construction");
  }
  invert_into(A, kind_, values_, "BlockDiagonal::recompute");
}

template <class T>
void BlockDiagonal<T>::apply(T alpha, const Vector<T>& x, T beta, Vector<T>& y) const {
  check_location(executor(), x.executor(), "x", "BlockDiagonal::apply");
  check_location(executor(), y.executor(), "y", "BlockDiagonal::apply");
  if (x.size() != rows() || y.size() != rows()) {
    throw dimension_mismatch("BlockDiagonal::apply: D has " + std::to_string(rows()) +
                             " rows, x has " + std::to_string(x.size()) + " and y " +
                             std::to_string(y.size()) + " entries");
  }
  if (x.data() == y.data() && x.size() > 0) {
    throw invalid_argument(
        "BlockDiagonal::apply: x and y are the same vector; y = D^-1 x needs separate storage");
  }
  executor().visit([&](const auto& e) {
    kernels::block_diagonal::apply(e, block_rows_, block_size_, values_.data(), alpha, x.data(),
                                   beta, y.data());
  });
}

template <class T>
BlockDiagonal<float> BlockDiagonal<T>::to_single() const {
  return BlockDiagonal<float>(
      block_rows_, block_size_, kind_,
      detail::single_copy(values_, "the inverted " + std::to_string(block_size_) + "x" +
                                       std::to_string(block_size_) + " diagonal blocks"));
}

template class BlockDiagonal<float>;
template class BlockDiagonal<double>;

}  // namespace strata
