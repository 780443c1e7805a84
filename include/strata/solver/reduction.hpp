#pragma once
/// \file
/// The one path every global reduction takes: dot products and norms of
/// Krylov methods, K-cycles, spectral estimates and stopping tests.
///
/// Vector operations (strata::dot, dot2, norm2, ...) compute the *local*
/// partial sums of the data in this process; a Reduction turns local
/// partial sums into global ones. Serially there is nothing to combine; with
/// MPI an implementation all-reduces them. Keeping this the only place where
/// sums cross processes is what lets every algorithm stay the same for
/// distributed vectors (AMGCL's InnerProduct idea): the MPI build replaces
/// one object, not the algorithms.

#include <cmath>
#include <utility>

#include "strata/core/span.hpp"
#include "strata/matrix/vector.hpp"

namespace strata {

/// Combines local partial sums. The default combines nothing (one process).
template <class T>
class Reduction {
 public:
  virtual ~Reduction() = default;

  /// Replaces each local partial sum by the global one, in place. The one
  /// function an MPI implementation overrides.
  virtual void combine(Span<T> partial_sums) const { (void)partial_sums; }

  /// The global value of one local partial sum.
  T global(T local) const {
    combine(Span<T>(&local, 1));
    return local;
  }
  /// The global values of two local partial sums, in one combination.
  std::pair<T, T> global(std::pair<T, T> local) const {
    T pair[2] = {local.first, local.second};
    combine(Span<T>(pair, 2));
    return {pair[0], pair[1]};
  }
  /// x^T y over all processes.
  T dot(const Vector<T>& x, const Vector<T>& y) const { return global(strata::dot(x, y)); }
  /// ||x||_2 over all processes.
  T norm2(const Vector<T>& x) const { return std::sqrt(dot(x, x)); }
};

}  // namespace strata
