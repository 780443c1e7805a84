// The level kinds the library ships (CSR, BSR) and the Galerkin products
// between them.

#include "strata/solver/level_operator.hpp"

#include <string>

#include "core/single_precision.hpp"
#include "kernels/amg/coarse_solve_kernels.hpp"
#include "kernels/matrix/bsr_kernels.hpp"
#include "kernels/matrix/csr_kernels.hpp"
#include "kernels/smoother/smoother_kernels.hpp"
#include "strata/matrix/galerkin.hpp"

namespace strata {

namespace {

template <class T>
std::pair<size_type, size_type> row_range(const Executor& exec, size_type rows,
                                          const Array<offset_type>& row_ptr) {
  if (rows == 0) return {0, 0};
  return exec.visit(
      [&](const auto& e) { return kernels::csr::row_length_range(e, rows, row_ptr.data()); });
}

template <class T>
Array<T> dense_of(const CsrMatrix<T>& A) {
  require(A.rows() == A.cols(), "LevelOperator::to_dense: the operator must be square, it is " +
                                    std::to_string(A.rows()) + " x " + std::to_string(A.cols()));
  const size_type n = A.rows();
  Array<T> dense(A.executor(), n * n);
  A.executor().visit([&](const auto& e) {
    kernels::amg::csr_to_dense(e, n, A.row_ptr().data(), A.col_idx().data(), A.values().data(),
                               dense.data());
  });
  return dense;
}

/// R A P by two row-wise sparse products, R (A P), on CSR operands.
template <class T>
class SpgemmCoarseProduct final : public CoarseProduct<T> {
 public:
  SpgemmCoarseProduct(const CsrMatrix<T>& R, const CsrMatrix<T>& A, const CsrMatrix<T>& P)
      : product_(std::make_shared<GalerkinProduct<CsrMatrix<T>>>(R, A, P)),
        op_(std::make_shared<const CsrOperator<T>>(
            std::shared_ptr<const CsrMatrix<T>>(product_, &product_->result()))) {}
  std::shared_ptr<const LevelOperator<T>> result() const override { return op_; }
  void recompute(const LevelOperator<T>& R, const LevelOperator<T>& A,
                 const LevelOperator<T>& P) override {
    const char* who = "Galerkin product (CSR) recompute";
    product_->recompute(csr_matrix(R, who), csr_matrix(A, who), csr_matrix(P, who));
  }
  void recompute_trusted(const LevelOperator<T>& R, const LevelOperator<T>& A,
                         const LevelOperator<T>& P, bool check_a) override {
    const char* who = "Galerkin product (CSR) recompute";
    product_->recompute_trusted(csr_matrix(R, who), csr_matrix(A, who), csr_matrix(P, who),
                                check_a);
  }
  void release_intermediates() override { product_->release_intermediate(); }

 private:
  // Holders of op_ keep the product (and so A_c) alive.
  std::shared_ptr<GalerkinProduct<CsrMatrix<T>>> product_;
  std::shared_ptr<const CsrOperator<T>> op_;
};

/// The block sizes of a blocked R A P: `left` is R's column and A's row
/// block size, `right` A's column and P's row block size. A BSR operand
/// decides them; where neither neighbour is BSR they are 1.
struct InnerBlocks {
  int left = 1;
  int right = 1;
};

template <class T>
const BsrMatrix<T>* bsr_of(const LevelOperator<T>& A) {
  const auto* bsr = dynamic_cast<const BsrOperator<T>*>(&A);
  return bsr ? &bsr->matrix() : nullptr;
}

template <class T>
InnerBlocks inner_blocks(const LevelOperator<T>& R, const LevelOperator<T>& A,
                         const LevelOperator<T>& P) {
  const BsrMatrix<T>* r = bsr_of(R);
  const BsrMatrix<T>* a = bsr_of(A);
  const BsrMatrix<T>* p = bsr_of(P);
  InnerBlocks in;
  if (r) {
    in.left = r->col_block_size();
  } else if (a) {
    in.left = a->row_block_size();
  }
  if (a) {
    in.right = a->col_block_size();
  } else if (p) {
    in.right = p->row_block_size();
  }
  return in;
}

/// A BSR operand as it is, or a CSR operand as BSR with the block sizes its
/// neighbours need (a copy, made by to_bsr: the blocks its entries touch,
/// zero-filled). So mixed kinds multiply blocked too, and a CSR matrix with
/// 1x1 blocks is its own BSR form.
template <class T>
struct BlockForm {
  const BsrMatrix<T>* matrix = nullptr;
  BsrMatrix<T> converted;
  BlockForm(const LevelOperator<T>& A, int row_block, int col_block, const char* who) {
    if (const BsrMatrix<T>* bsr = bsr_of(A)) {
      matrix = bsr;
    } else if (const auto* csr = dynamic_cast<const CsrOperator<T>*>(&A)) {
      converted = to_bsr(csr->matrix(), row_block, col_block);
      matrix = &converted;
    } else {
      throw invalid_argument(std::string(who) + ": an operand is a " + A.kind() +
                             " operator; the library multiplies CSR and BSR operators only (a "
                             "coarsening with other kinds provides its own galerkin())");
    }
  }
};

/// R A P where R, A or P is a block matrix, by the blocked Galerkin product
/// (GalerkinProduct<BsrMatrix>): A_c is a BSR matrix with R's row block size
/// and P's column block size (1 for a CSR operand), and nothing is expanded
/// to scalar form. CSR operands are converted to BSR (BlockForm), again at
/// each recompute (the conversion keeps their block pattern, which
/// recompute() checks and recompute_trusted() takes on trust where asked).
/// A_c keeps its pattern; recompute() writes new values into it.
template <class T>
class BlockedCoarseProduct final : public CoarseProduct<T> {
 public:
  BlockedCoarseProduct(const LevelOperator<T>& R, const LevelOperator<T>& A,
                       const LevelOperator<T>& P) {
    const char* who = "Galerkin product (block)";
    if (R.cols() != A.rows() || A.cols() != P.rows()) {
      throw dimension_mismatch(std::string(who) + ": R is " + R.describe() + ", A is " +
                               A.describe() + ", P is " + P.describe() +
                               "; R A P needs R.cols() == A.rows() and A.cols() == P.rows()");
    }
    const InnerBlocks in = inner_blocks(R, A, P);
    const BlockForm<T> r(R, 1, in.left, who), a(A, in.left, in.right, who), p(P, in.right, 1, who);
    product_ = std::make_shared<GalerkinProduct<BsrMatrix<T>>>(*r.matrix, *a.matrix, *p.matrix);
    op_ = std::make_shared<const BsrOperator<T>>(
        std::shared_ptr<const BsrMatrix<T>>(product_, &product_->result()));
  }
  std::shared_ptr<const LevelOperator<T>> result() const override { return op_; }
  void recompute(const LevelOperator<T>& R, const LevelOperator<T>& A,
                 const LevelOperator<T>& P) override {
    refresh(R, A, P,
            [&](const auto& r, const auto& a, const auto& p) { product_->recompute(r, a, p); });
  }
  void recompute_trusted(const LevelOperator<T>& R, const LevelOperator<T>& A,
                         const LevelOperator<T>& P, bool check_a) override {
    refresh(R, A, P, [&](const auto& r, const auto& a, const auto& p) {
      product_->recompute_trusted(r, a, p, check_a);
    });
  }
  void release_intermediates() override { product_->release_intermediate(); }

 private:
  /// Calls recompute(r, a, p) on the operands in block form.
  template <class F>
  static void refresh(const LevelOperator<T>& R, const LevelOperator<T>& A,
                      const LevelOperator<T>& P, F&& recompute) {
    const char* who = "Galerkin product (block) recompute";
    const InnerBlocks in = inner_blocks(R, A, P);
    const BlockForm<T> r(R, 1, in.left, who), a(A, in.left, in.right, who), p(P, in.right, 1, who);
    recompute(*r.matrix, *a.matrix, *p.matrix);
  }

  // Holders of op_ keep the product (and so A_c) alive.
  std::shared_ptr<GalerkinProduct<BsrMatrix<T>>> product_;
  std::shared_ptr<const BsrOperator<T>> op_;
};

template <class T>
size_type csr_scaling(const CsrMatrix<T>& A, DiagonalScaling kind, Vector<T>& d) {
  check_location(A.executor(), d.executor(), "d", "A");
  if (A.rows() != A.cols() || d.size() != A.rows()) {
    throw dimension_mismatch(
        "LevelOperator::scaling: needs a square operator and d with one "
        "entry per row; A is " +
        std::to_string(A.rows()) + " x " + std::to_string(A.cols()) + ", d has " +
        std::to_string(d.size()));
  }
  return A.executor().visit([&](const auto& e) {
    return kernels::smoother::diagonal_scaling(e, A.rows(), A.row_ptr().data(), A.col_idx().data(),
                                               A.values().data(), nullptr,
                                               static_cast<const T*>(nullptr), kind, d.data());
  });
}

/// A fused sweep's vectors live where A does (checked once, here).
template <class T>
void check_sweep_locations(const Executor& exec, const Vector<T>& b, const Vector<T>& x0,
                           const Vector<T>& x) {
  check_location(exec, b.executor(), "b", "A");
  check_location(exec, x0.executor(), "x0", "A");
  check_location(exec, x.executor(), "x", "A");
}

/// The checks of a scalar Jacobi sweep x = x0 + d .* (b - A x0) of a square
/// `rows` x `cols` operator described by `what`.
template <class T>
void check_jacobi_sweep(const Executor& exec, size_type rows, size_type cols,
                        const std::string& what, const Vector<T>& d, const Vector<T>& b,
                        const Vector<T>& x0, const Vector<T>& x) {
  check_location(exec, d.executor(), "d", "A");
  check_sweep_locations(exec, b, x0, x);
  if (rows != cols || d.size() != rows || b.size() != rows || x0.size() != rows ||
      x.size() != rows) {
    throw dimension_mismatch("jacobi_sweep: A is " + what + ", d, b, x0 and x have " +
                             std::to_string(d.size()) + ", " + std::to_string(b.size()) + ", " +
                             std::to_string(x0.size()) + " and " + std::to_string(x.size()) +
                             " entries");
  }
  require(x0.data() != x.data() || x.size() == 0,
          "jacobi_sweep: x0 and x must be in separate storage");
}

}  // namespace

// ------------------------------------------------------------------- CSR

template <class T>
CsrOperator<T>::CsrOperator(std::shared_ptr<const CsrMatrix<T>> A) : A_(std::move(A)) {
  require(A_ != nullptr, "CsrOperator: the matrix is null");
}

template <class T>
std::string CsrOperator<T>::describe() const {
  return "CSR " + std::to_string(A_->rows()) + "x" + std::to_string(A_->cols()) + ", " +
         std::to_string(A_->nnz()) + " nonzeros";
}

template <class T>
std::pair<size_type, size_type> CsrOperator<T>::row_nnz_range() const {
  return row_range<T>(A_->executor(), A_->rows(), A_->row_ptr());
}

template <class T>
size_type CsrOperator<T>::scaling(DiagonalScaling kind, Vector<T>& d) const {
  return csr_scaling(*A_, kind, d);
}

template <class T>
void CsrOperator<T>::jacobi_sweep(const Vector<T>& d, const Vector<T>& b, const Vector<T>& x0,
                                  Vector<T>& x) const {
  const CsrMatrix<T>& A = *A_;
  const Executor& exec = A.executor();
  check_jacobi_sweep(exec, A.rows(), A.cols(),
                     std::to_string(A.rows()) + " x " + std::to_string(A.cols()), d, b, x0, x);
  exec.visit([&](const auto& e) {
    kernels::csr::jacobi_sweep(e, A.rows(), A.nnz(), A.max_row_nnz(), A.row_ptr().data(),
                               A.col_idx().data(), A.values().data(), d.data(), b.data(), x0.data(),
                               x.data());
  });
}

template <class T>
Array<T> CsrOperator<T>::to_dense() const {
  return dense_of(*A_);
}

template <class T>
std::unique_ptr<CoarseProduct<T>> CsrOperator<T>::galerkin(const LevelOperator<T>& R,
                                                           const LevelOperator<T>& P) const {
  return make_coarse_product(R, *this, P);
}

template <class T>
std::shared_ptr<const LevelOperator<T>> CsrOperator<T>::clone() const {
  return std::make_shared<const CsrOperator<T>>(A_->clone());
}

// ------------------------------------------------------------------- BSR

template <class T>
BsrOperator<T>::BsrOperator(std::shared_ptr<const BsrMatrix<T>> A) : A_(std::move(A)) {
  require(A_ != nullptr, "BsrOperator: the matrix is null");
}

template <class T>
std::string BsrOperator<T>::kind() const {
  return "BSR " + std::to_string(A_->row_block_size()) + "x" + std::to_string(A_->col_block_size());
}

template <class T>
std::string BsrOperator<T>::describe() const {
  return kind() + " " + std::to_string(A_->rows()) + "x" + std::to_string(A_->cols()) + ", " +
         std::to_string(A_->num_blocks()) + " blocks";
}

template <class T>
std::pair<size_type, size_type> BsrOperator<T>::row_nnz_range() const {
  // Every scalar row of block row I holds (blocks of I) * c entries.
  const auto [lo, hi] = row_range<T>(A_->executor(), A_->block_rows(), A_->row_ptr());
  return {lo * A_->col_block_size(), hi * A_->col_block_size()};
}

template <class T>
void BsrOperator<T>::apply(T alpha, const Vector<T>& x, T beta, const Vector<T>& z,
                           Vector<T>& y) const {
  if (beta != T{0} && z.data() != y.data()) copy(z.values(), y.values());
  spmv(alpha, *A_, x, beta, y);
}

template <class T>
size_type BsrOperator<T>::scaling(DiagonalScaling kind, Vector<T>& d) const {
  require(
      A_->row_block_size() == A_->col_block_size(),
      "BsrOperator::scaling: the diagonal needs square blocks, this operator is " + this->kind());
  // The scalar form holds the same rows in the same order (blocks expanded).
  return csr_scaling(to_csr(*A_), kind, d);
}

template <class T>
int BsrOperator<T>::diagonal_block_size() const {
  const bool square =
      A_->row_block_size() == A_->col_block_size() && A_->block_rows() == A_->block_cols();
  return square ? A_->row_block_size() : 0;
}

template <class T>
BlockDiagonal<T> BsrOperator<T>::block_diagonal(BlockDiagonalKind kind) const {
  return BlockDiagonal<T>::inverse(*A_, kind);
}

template <class T>
void BsrOperator<T>::jacobi_sweep(const Vector<T>& d, const Vector<T>& b, const Vector<T>& x0,
                                  Vector<T>& x) const {
  const BsrMatrix<T>& A = *A_;
  const Executor& exec = A.executor();
  check_jacobi_sweep(exec, A.rows(), A.cols(), kind(), d, b, x0, x);
  const int bs = diagonal_block_size();
  if (bs == 0 || !kernels::bsr::has_fast_path(bs, bs)) {
    LevelOperator<T>::jacobi_sweep(d, b, x0, x);
    return;
  }
  exec.visit([&](const auto& e) {
    kernels::bsr::diagonal_sweep(e, A.block_rows(), A.num_blocks(), bs, A.row_ptr().data(),
                                 A.col_idx().data(), A.values().data(), d.data(), b.data(),
                                 x0.data(), x.data());
  });
}

template <class T>
void BsrOperator<T>::block_jacobi_sweep(const BlockDiagonal<T>& inverse, T omega,
                                        const Vector<T>& b, const Vector<T>& x0,
                                        Vector<T>& x) const {
  const BsrMatrix<T>& A = *A_;
  const Executor& exec = A.executor();
  check_location(exec, inverse.executor(), "inverse", "A");
  check_sweep_locations(exec, b, x0, x);
  const int bs = diagonal_block_size();
  if (bs == 0 || inverse.block_size() != bs || inverse.block_rows() != A.block_rows() ||
      b.size() != A.rows() || x0.size() != A.rows() || x.size() != A.rows()) {
    throw dimension_mismatch(
        "block_jacobi_sweep: A is " + kind() + " with " + std::to_string(A.block_rows()) + " x " +
        std::to_string(A.block_cols()) + " blocks, the inverse has " +
        std::to_string(inverse.block_rows()) + " blocks of " +
        std::to_string(inverse.block_size()) + "x" + std::to_string(inverse.block_size()) +
        ", b, x0 and x have " + std::to_string(b.size()) + ", " + std::to_string(x0.size()) +
        " and " + std::to_string(x.size()) + " entries");
  }
  require(x0.data() != x.data() || x.size() == 0,
          "block_jacobi_sweep: x0 and x must be in separate storage");
  if (!kernels::bsr::has_fast_path(bs, bs)) {
    LevelOperator<T>::block_jacobi_sweep(inverse, omega, b, x0, x);
    return;
  }
  exec.visit([&](const auto& e) {
    kernels::bsr::jacobi_sweep(e, A.block_rows(), A.num_blocks(), bs, A.row_ptr().data(),
                               A.col_idx().data(), A.values().data(), inverse.values().data(),
                               omega, b.data(), x0.data(), x.data());
  });
}

template <class T>
Array<T> BsrOperator<T>::to_dense() const {
  return dense_of(to_csr(*A_));
}

template <class T>
std::unique_ptr<CoarseProduct<T>> BsrOperator<T>::galerkin(const LevelOperator<T>& R,
                                                           const LevelOperator<T>& P) const {
  return make_coarse_product(R, *this, P);
}

template <class T>
std::shared_ptr<const LevelOperator<T>> BsrOperator<T>::clone() const {
  return std::make_shared<const BsrOperator<T>>(A_->clone());
}

namespace {

/// `a` shared with its owner `owner` (share) or copied.
template <class I, class Owner>
Array<I> pattern_array(const Array<I>& a, const std::shared_ptr<Owner>& owner, bool share) {
  return share ? Array<I>::alias(a, owner) : a.clone();
}

}  // namespace

template <class T>
std::shared_ptr<const LevelOperator<float>> CsrOperator<T>::to_single(bool share_pattern) const {
  const CsrMatrix<T>& A = *A_;
  return std::make_shared<const CsrOperator<float>>(
      CsrMatrix<float>(A.rows(), A.cols(), pattern_array(A.row_ptr(), A_, share_pattern),
                       pattern_array(A.col_idx(), A_, share_pattern),
                       detail::single_copy(A.values(), "to_single of a " + kind() + " operator")));
}

template <class T>
std::shared_ptr<const LevelOperator<float>> BsrOperator<T>::to_single(bool share_pattern) const {
  const BsrMatrix<T>& A = *A_;
  return std::make_shared<const BsrOperator<float>>(BsrMatrix<float>(
      A.block_rows(), A.block_cols(), A.row_block_size(), A.col_block_size(),
      pattern_array(A.row_ptr(), A_, share_pattern), pattern_array(A.col_idx(), A_, share_pattern),
      detail::single_copy(A.values(), "to_single of a " + kind() + " operator")));
}

// ------------------------------------------------------- the products

template <class T>
std::unique_ptr<CoarseProduct<T>> make_coarse_product(const LevelOperator<T>& R,
                                                      const LevelOperator<T>& A,
                                                      const LevelOperator<T>& P) {
  const auto* r = dynamic_cast<const CsrOperator<T>*>(&R);
  const auto* a = dynamic_cast<const CsrOperator<T>*>(&A);
  const auto* p = dynamic_cast<const CsrOperator<T>*>(&P);
  if (r && a && p) {
    return std::make_unique<SpgemmCoarseProduct<T>>(r->matrix(), a->matrix(), p->matrix());
  }
  return std::make_unique<BlockedCoarseProduct<T>>(R, A, P);
}

template <class T>
const CsrMatrix<T>& csr_matrix(const LevelOperator<T>& A, const char* who) {
  const auto* csr = dynamic_cast<const CsrOperator<T>*>(&A);
  if (!csr) {
    throw invalid_argument(std::string(who) + " needs a CSR level, got a " + A.kind() +
                           " operator (" + A.describe() + ")");
  }
  return csr->matrix();
}

// float: the single-precision AMG cycle's levels (to_single()).
template class CsrOperator<float>;
template class BsrOperator<float>;
template class CsrOperator<double>;
template class BsrOperator<double>;
template std::unique_ptr<CoarseProduct<double>> make_coarse_product<double>(
    const LevelOperator<double>&, const LevelOperator<double>&, const LevelOperator<double>&);
template const CsrMatrix<double>& csr_matrix<double>(const LevelOperator<double>&, const char*);

}  // namespace strata
