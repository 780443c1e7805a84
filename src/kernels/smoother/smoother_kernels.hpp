#pragma once
// Kernel contract for the smoothers: the diagonal scalings (also the
// Jacobi-preconditioned spectral estimates' D^-1 and D^-1/2) and the fused
// vector updates of Jacobi and Chebyshev smoothing. All vectors have n
// entries in the executor's memory. The fused Jacobi sweep
// y = x + d .* (b - A x) is an SpMV epilogue and stays with the SpMV
// (kernels::csr::jacobi_sweep, kernels/matrix/csr_kernels.hpp).

#include "strata/core/executor.hpp"
#include "strata/core/types.hpp"
#include "strata/solver/diagonal_scaling.hpp"

namespace strata::kernels::smoother {

/// Which diagonal scaling diagonal_scaling() computes.
/// The level contract's choice (strata/solver/level_operator.hpp), taken as
/// it is: one enum for the public contract and the kernels.
using Scaling = DiagonalScaling;

/// Writes d_i for every row (see Scaling) and returns the first row whose
/// diagonal entry is zero, missing or not finite (or -1 when there is none).
/// For inverse_l1_norm the check is on a_ii as well: l1-Jacobi still needs a
/// diagonal to be a sensible smoother; for inverse_sqrt_diagonal a_ii must
/// also be positive.
///
/// (row_ptr, col_idx, values) is the block that holds the diagonal. A
/// distributed matrix passes its off-diagonal block as (outside_row_ptr,
/// outside_values): its entries count in the l1 norm of their row (the l1
/// row sum of the whole row, as Baker et al. define it for parallel
/// l1-Jacobi) and never as the diagonal. Both null: no such block.
template <class Exec, class T>
size_type diagonal_scaling(const Exec& exec, size_type rows, const offset_type* row_ptr,
                           const index_type* col_idx, const T* values,
                           const offset_type* outside_row_ptr, const T* outside_values,
                           Scaling scaling, T* d);

/// x_i += omega d_i (b_i - t_i), where t = A x: one Jacobi sweep after the SpMV.
template <class Exec, class T>
void jacobi_correct(const Exec& exec, size_type n, T omega, const T* d, const T* b, const T* t,
                    T* x);

/// r_i = d_i (b_i - t_i), where t = A x (t == nullptr means x = 0);
/// then p_i = r_i / theta and x_i += p_i (x_i = p_i when t == nullptr).
/// The first step of Chebyshev smoothing.
template <class Exec, class T>
void chebyshev_start(const Exec& exec, size_type n, T inv_theta, const T* d, const T* b, const T* t,
                     T* r, T* p, T* x);

/// r_i -= d_i t_i (t = A p), p_i = c_keep p_i + c_new r_i, x_i += p_i: one
/// later step of the Chebyshev three-term recurrence in one pass.
template <class Exec, class T>
void chebyshev_step(const Exec& exec, size_type n, T c_keep, T c_new, const T* d, const T* t, T* r,
                    T* p, T* x);

}  // namespace strata::kernels::smoother
