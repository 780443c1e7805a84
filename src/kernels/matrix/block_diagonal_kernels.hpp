#pragma once
// Kernel contract for the inverted diagonal blocks of a BSR matrix with
// square b x b blocks (strata/matrix/block_diagonal.hpp) and the block
// smoother updates built on them. The fused point-block Jacobi sweep is an
// SpMV epilogue and stays with the BSR SpMV (kernels::bsr::jacobi_sweep,
// kernels/matrix/bsr_kernels.hpp). `inverse` holds block_rows blocks of b*b
// values, row-major; vectors have block_rows * b entries. The public entry
// points (src/core/block_diagonal.cpp, src/core/solver/level_operator.cpp)
// have checked locations, sizes and block sizes.

#include "strata/core/executor.hpp"
#include "strata/core/types.hpp"

namespace strata::kernels::block_diagonal {

/// What invert() found wrong with a block row (the code in its result).
enum class BlockDefect { none = 0, missing = 1, non_finite = 2, singular = 3 };

/// Whether the kernels below have a compiled fast path for b x b blocks
/// (the square sizes of the BSR SpMV: 1, 2, 3, 4, 6). Other sizes run
/// loops with a run-time b.
constexpr bool has_fast_path(int b) { return b == 1 || b == 2 || b == 3 || b == 4 || b == 6; }

/// inverse_I = D_I^-1 for every block row I, D_I = the diagonal block A_II,
/// plus (l1) diag(s) with s_a = sum of |a_ij| over the entries of scalar row
/// a outside the diagonal block. Gauss-Jordan elimination with partial
/// pivoting; a pivot that is not above 16 b eps max|D_I| is singular.
/// Returns I * 4 + BlockDefect of the first defective block row I, or -1.
/// `workspace` (block_rows * b * b values) is used only when b has no fast
/// path (nullptr otherwise).
template <class Exec, class T>
size_type invert(const Exec& exec, size_type block_rows, int b, const offset_type* row_ptr,
                 const index_type* col_idx, const T* values, bool l1, T* inverse, T* workspace);

/// y = alpha D^-1 x + beta y (beta == 0: y not read); x and y distinct.
/// Scalar row (I, a) sums j = 0..b-1 of inverse_I(a, j) x_(I, j) in order.
template <class Exec, class T>
void apply(const Exec& exec, size_type block_rows, int b, const T* inverse, T alpha, const T* x,
           T beta, T* y);

/// The first step of Chebyshev smoothing in D^-1 A with block D (the block
/// form of kernels::smoother::chebyshev_start): r = D^-1 (rhs - t) (t ==
/// nullptr: t = 0, x = 0), p = inv_theta r, x += p (x = p when t ==
/// nullptr). r, p, x distinct from rhs and t.
template <class Exec, class T>
void chebyshev_start(const Exec& exec, size_type block_rows, int b, const T* inverse, T inv_theta,
                     const T* rhs, const T* t, T* r, T* p, T* x);

/// A later Chebyshev step: r -= D^-1 t (t = A p), p = c_keep p + c_new r,
/// x += p.
template <class Exec, class T>
void chebyshev_step(const Exec& exec, size_type block_rows, int b, const T* inverse, T c_keep,
                    T c_new, const T* t, T* r, T* p, T* x);

}  // namespace strata::kernels::block_diagonal
