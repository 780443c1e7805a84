#pragma once
// Kernel contract for the smoothers and Krylov methods: the diagonal
// scalings, and the fused vector updates that save passes over memory in
// their inner loops. All vectors have n entries in the executor's memory.

#include <utility>

#include "strata/core/executor.hpp"
#include "strata/core/types.hpp"

namespace strata::kernels::solver {

/// Which diagonal scaling diagonal_scaling() computes.
enum class Scaling : int {
  /// d_i = 1 / a_ii
  inverse_diagonal = 0,
  /// d_i = 1 / sum_j |a_ij| (the l1 row norm)
  inverse_l1_norm = 1,
  /// d_i = sqrt(1 / a_ii), for the symmetric scaling D^-1/2 A D^-1/2 of
  /// Lanczos; a_ii must be positive.
  inverse_sqrt_diagonal = 2,
};

/// Writes d_i for every row (see Scaling) and returns the first row whose
/// diagonal entry is zero, missing or not finite (or -1 when there is none).
/// For inverse_l1_norm the check is on a_ii as well: l1-Jacobi still needs a
/// diagonal to be a sensible smoother; for inverse_sqrt_diagonal a_ii must
/// also be positive.
template <class Exec, class T>
size_type diagonal_scaling(const Exec& exec, size_type rows, const offset_type* row_ptr,
                           const index_type* col_idx, const T* values, Scaling scaling, T* d);

/// x_i += omega d_i (b_i - t_i), where t = A x: one Jacobi sweep after the SpMV.
template <class Exec, class T>
void jacobi_correct(const Exec& exec, size_type n, T omega, const T* d, const T* b, const T* t,
                    T* x);

/// r_i = d_i (b_i - t_i), where t = A x (t == nullptr means x = 0);
/// then p_i = r_i / theta and x_i += p_i (x_i = p_i when t == nullptr).
/// The first step of Chebyshev smoothing.
template <class Exec, class T>
void chebyshev_start(const Exec& exec, size_type n, T inv_theta, const T* d, const T* b,
                     const T* t, T* r, T* p, T* x);

/// r_i -= d_i t_i (t = A p), p_i = c_keep p_i + c_new r_i, x_i += p_i: one
/// later step of the Chebyshev three-term recurrence in one pass.
template <class Exec, class T>
void chebyshev_step(const Exec& exec, size_type n, T c_keep, T c_new, const T* d, const T* t,
                    T* r, T* p, T* x);

/// CG's update with a diagonal preconditioner fused in: x += alpha p,
/// r -= alpha q, z_i = d_i r_i; returns {r^T r, r^T z}. One pass over seven
/// vectors instead of three kernels and two reductions.
template <class Exec, class T>
std::pair<T, T> cg_update_diagonal(const Exec& exec, size_type n, T alpha, const T* p,
                                   const T* q, const T* d, T* x, T* r, T* z);

/// Most vectors block_dot and block_update_norm2 take at once (an Arnoldi
/// basis of the spectral estimates, at most 10 steps).
inline constexpr int max_block = 11;

/// out[j] = V_j^T w for j < k, and out[k] = w^T w, in one pass over w
/// (k <= max_block; V holds k device or host pointers as the executor
/// needs). Classical Gram-Schmidt's projections with one synchronisation
/// instead of k + 1 (fixed order: repeats bit for bit).
template <class Exec, class T>
void block_dot(const Exec& exec, size_type n, int k, const T* const* V, const T* w, T* out);

/// w -= sum_{j<k} h_j V_j, returning ||w||^2 (one pass).
template <class Exec, class T>
T block_update_norm2(const Exec& exec, size_type n, int k, const T* const* V, const T* h, T* w);

/// Most vectors block_gram takes.
inline constexpr int max_gram = 6;

/// The Gram matrix of k <= max_gram vectors in one pass:
/// out[i * k + j] = V_i^T V_j (full, symmetric). Fixed order.
template <class Exec, class T>
void block_gram(const Exec& exec, size_type n, int k, const T* const* V, T* out);

/// v_i = 0.5 + u_i with u_i in [0, 1) from a counter-based hash of i
/// (splitmix64): the start vector of the spectral estimates, generated where
/// it is used, the same on host and device, no entry zero.
template <class Exec, class T>
void hashed_start_vector(const Exec& exec, size_type n, T* v);

/// CG's update for other preconditioners: x += alpha p, r -= alpha q;
/// returns r^T r.
template <class Exec, class T>
T cg_update(const Exec& exec, size_type n, T alpha, const T* p, const T* q, T* x, T* r);

}  // namespace strata::kernels::solver
