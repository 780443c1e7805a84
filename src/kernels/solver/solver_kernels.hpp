#pragma once
// Kernel contract for the Krylov methods and the spectral estimates: the
// fused vector updates that save passes over memory in their inner loops.
// (The diagonal scalings and the smoothers' updates are the smoother family,
// kernels/smoother/smoother_kernels.hpp.) All vectors have n entries in the
// executor's memory.

#include <utility>

#include "strata/core/executor.hpp"
#include "strata/core/types.hpp"

namespace strata::kernels::solver {

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

/// v_i = 0.5 + u_i with u_i in [0, 1) from a counter-based hash of the
/// global index first + i (splitmix64): the start vector of the spectral
/// estimates, generated where it is used, the same on host and device, no
/// entry zero. `first` is the global index of entry 0 (0 unless the vector
/// is one process's rows of a distributed one), so the whole vector is the
/// same however its rows are split over processes.
template <class Exec, class T>
void hashed_start_vector(const Exec& exec, size_type n, size_type first, T* v);

/// CG's update for other preconditioners: x += alpha p, r -= alpha q;
/// returns r^T r.
template <class Exec, class T>
T cg_update(const Exec& exec, size_type n, T alpha, const T* p, const T* q, T* x, T* r);

}  // namespace strata::kernels::solver
