#pragma once
/// \file
/// Sparse triangular solves (SpTrSV) on the host and the device: the
/// triangular systems of ILU preconditioners and Gauss-Seidel smoothers.
///
/// Two algorithms (the hypre paper, sections 4.2 and 4.4):
///  - level_scheduled: the exact solve. An analysis gives every row a level,
///    1 + the largest level of the rows it depends on (Anderson and Saad's
///    level scheduling); the rows of one level are independent and solved
///    in parallel, one level after the other. The levels are computed where
///    the matrix lives (on the device by a dependency-count topological
///    pass), and the triangle is stored again with its rows in level order.
///    The host sums each row in its stored order; the device sums it by
///    groups of lanes in a fixed order. Neither depends on the thread count
///    or the run: host and device agree up to rounding, and each repeats
///    bit for bit.
///  - jacobi: the iterative solve (Anzt, Chow, Dongarra 2015, "Iterative
///    sparse triangular solves for preconditioning"): `sweeps` Jacobi
///    iterations x_{k+1} = D^-1 (b - (T - D) x_k) from x_0 = 0, each an
///    SpMV-like pass with full parallelism. T - D is nilpotent, so the
///    iteration is exact after as many sweeps as the triangle has levels,
///    and as a preconditioner a few sweeps usually suffice.
///
/// The solver copies the triangle it needs (the strict part and the inverse
/// diagonal) and keeps no reference to the input matrix; entries of the
/// other triangle are ignored, so one combined factor L\U (strictly lower
/// L with unit diagonal, U on and above the diagonal) serves both solves, as
/// with cuSPARSE SpSV.

#include <cstdint>
#include <memory>
#include <vector>

#include "strata/matrix/csr.hpp"

namespace strata {

namespace detail {
/// The device's recorded level-scheduled solve (a CUDA graph and what it
/// reads), defined in the CUDA backend; made by the first device solve.
struct TriangularGraphState;
}  // namespace detail

/// Which triangle of the matrix a solve reads.
enum class Triangle { lower, upper };

/// How a triangular system is solved (see the file comment).
enum class TriangularAlgorithm { level_scheduled, jacobi };

/// What a TriangularSolver solves, and how.
struct TriangularSolveParams {
  Triangle triangle = Triangle::lower;
  /// Take the diagonal as ones (the stored diagonal is not read), as for
  /// the L of an LU factorization.
  bool unit_diagonal = false;
  TriangularAlgorithm algorithm = TriangularAlgorithm::level_scheduled;
  /// jacobi: the number of Jacobi sweeps (>= 1); the first gives D^-1 b.
  int sweeps = 3;
};

/// Solves T x = b for the triangle T of a square CSR matrix, on the
/// executor where the matrix lives.
template <class T>
class TriangularSolver {
 public:
  /// The analysis: copies the triangle and, for level_scheduled, computes
  /// the levels and the level order on A's executor. Throws
  /// dimension_mismatch for a non-square A, and invalid_argument naming the
  /// first row whose diagonal entry is zero, missing or not finite (unless
  /// unit_diagonal), or sweeps < 1 for jacobi.
  TriangularSolver(const CsrMatrix<T>& A, const TriangularSolveParams& params);

  /// x = T^-1 b (level_scheduled), or the result of the Jacobi sweeps from
  /// x = 0. b and x live on executor(), have rows() entries, and are
  /// separate vectors. Not safe to call on one solver from two threads at
  /// once (it keeps scratch state, as a smoother does). On a device the
  /// first level-scheduled solve records the levels as a CUDA graph for
  /// the executor's stream (it synchronizes once); later solves replay it,
  /// and a solve on another stream records again.
  void solve(const Vector<T>& b, Vector<T>& x) const;

  size_type rows() const noexcept { return rows_; }
  const Executor& executor() const noexcept { return inv_diag_.executor(); }
  const TriangularSolveParams& params() const noexcept { return params_; }
  /// Entries of the strict triangle.
  size_type strict_nnz() const noexcept { return col_.size(); }
  /// level_scheduled: the number of levels (the length of the longest
  /// dependency chain, plus one; 0 without rows); jacobi: 0.
  size_type levels() const noexcept {
    return level_ptr_.empty() ? 0 : static_cast<size_type>(level_ptr_.size()) - 1;
  }
  /// level_scheduled: the first position of each level in the level order
  /// and, last, rows() (levels() + 1 entries, on the host).
  const std::vector<offset_type>& level_ptr() const noexcept { return level_ptr_; }
  /// level_scheduled: the rows in level order (rows of one level ascending);
  /// jacobi: empty.
  const Array<index_type>& level_order() const noexcept { return order_; }

 private:
  TriangularSolveParams params_;
  size_type rows_ = 0;
  // The strict triangle (level order for level_scheduled, natural order
  // for jacobi) and 1 / a_ii in the same order.
  Array<offset_type> ptr_;
  Array<index_type> col_;
  Array<T> val_;
  Array<T> inv_diag_;
  Array<index_type> order_;
  std::vector<offset_type> level_ptr_;
  mutable Array<T> scratch_;  // jacobi: the previous iterate
  // The device's one-kernel schedule (src/core/triangular_internal.hpp):
  // per-row flags, set to the current epoch when the row is solved.
  mutable Array<std::int32_t> ready_;
  mutable std::int32_t epoch_ = 0;
  // The device's level-scheduled solve, recorded once and replayed. It
  // names the arrays above by address (a move carries both along), and is
  // remade by a solve that finds other arrays, device or stream.
  mutable std::shared_ptr<detail::TriangularGraphState> graph_;
};

}  // namespace strata
