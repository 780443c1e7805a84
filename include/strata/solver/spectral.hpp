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
/// approaches the eigenvalue from below. Throws invalid_argument when a
/// diagonal entry is not positive.
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

}  // namespace strata
