#pragma once
/// \file
/// Estimates of the largest eigenvalue of D^-1 A, for the damped-Jacobi
/// weight 4/(3 rho) of the aggregation paper and for Chebyshev's interval.
/// They work on any level operator; their global sums go through the
/// Reduction they are given.

#include "strata/solver/level_operator.hpp"

namespace strata {

/// Largest eigenvalue of D^-1 A for symmetric A with positive diagonal, by
/// `steps` Lanczos steps on the similar symmetric matrix D^-1/2 A D^-1/2
/// (from a fixed pseudo-random start, so it repeats). The largest Ritz value
/// approaches the eigenvalue from below. Fewer than 6 steps take the same
/// Ritz values from the Gram matrix of the Krylov basis, with one
/// synchronisation (and one global sum) instead of two per step. Throws
/// invalid_argument when a diagonal entry is not positive.
template <class T>
double lanczos_max_eigenvalue(const LevelOperator<T>& A, int steps = 10,
                              const Reduction<T>& reduction = Reduction<T>{});

/// Spectral radius of D^-1 A for general A, by at most `steps` (<= 10)
/// Arnoldi steps: the spectral radius of the small Hessenberg matrix.
/// Throws invalid_argument when a diagonal entry is zero or missing.
template <class T>
double arnoldi_spectral_radius(const LevelOperator<T>& A, int steps = 10,
                               const Reduction<T>& reduction = Reduction<T>{});

/// The same with D^-1 given (d_i = 1 / a_ii, on A's executor), for a caller
/// that has it already (a Jacobi smoother).
template <class T>
double arnoldi_spectral_radius(const LevelOperator<T>& A, const Vector<T>& inverse_diagonal,
                               int steps, const Reduction<T>& reduction = Reduction<T>{});

/// Largest eigenvalue of D^-1 A with D block diagonal (the point-block
/// smoothers' D; `inverse` holds D^-1, on A's executor), for symmetric
/// positive definite A and D, by `steps` Lanczos steps. Why this form: with
/// blocks there is no cheap D^-1/2 to make D^-1 A symmetric, but D^-1 A is
/// self-adjoint in the D inner product <u, v>_D = u^T D v, so Lanczos runs
/// in that inner product, carrying y = D v beside each Lanczos vector v (as
/// preconditioned CG carries the residual beside the preconditioned one):
/// alpha = v^T A v, D w = A v - alpha y_j - beta y_j-1, ||w||_D^2 =
/// (D^-1 D w)^T (D w). D itself is never needed. Fewer than 6 steps take
/// Arnoldi's Gram form instead (one synchronisation in all, where Lanczos
/// takes two a step; its Euclidean Ritz values lie in the field of values
/// of D^-1 A, so they may exceed rho slightly, the safe side for a
/// smoother's bound). Throws invalid_argument when D^-1 turns out not
/// positive definite (use Arnoldi then).
template <class T>
double lanczos_max_eigenvalue(const LevelOperator<T>& A, const BlockDiagonal<T>& inverse, int steps,
                              const Reduction<T>& reduction = Reduction<T>{});

/// Spectral radius of D^-1 A with D block diagonal (`inverse` holds D^-1),
/// for general A, by at most `steps` (<= 10) Arnoldi steps.
template <class T>
double arnoldi_spectral_radius(const LevelOperator<T>& A, const BlockDiagonal<T>& inverse,
                               int steps, const Reduction<T>& reduction = Reduction<T>{});

}  // namespace strata
