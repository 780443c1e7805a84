#pragma once
/// \file
/// Parameters of the ILU smoother and preconditioner (one alternative of
/// SmootherParams, strata/smoother/smoother.hpp).
///
/// M = L U from an incomplete factorization of A (strata/matrix/ilu.hpp),
/// applied as x = U^-1 (L^-1 b) with two triangular solves
/// (strata/matrix/triangular.hpp): level-scheduled (exact) or a fixed
/// number of Jacobi sweeps (approximate, fully parallel; then M^-1 is a
/// fixed polynomial in the factors, still the same linear map every time).
/// As an AMG smoother, smooth() is x <- x + M^-1 (b - A x); as a
/// stand-alone preconditioner it suits nonsymmetric systems (GMRES,
/// BiCGSTAB); for symmetric A, ILU(0) and ILU(k) with exact solves are
/// symmetric too and CG may use them. Needs a CSR level; other level kinds
/// are refused by name.

#include "strata/matrix/triangular.hpp"

namespace strata {

struct IluParams {
  enum class Factorization {
    /// ILU(0): no fill; factored where A lives (host or device).
    ilu0,
    /// ILU(k): fill up to level_of_fill; the pattern on the host, the
    /// numeric factorization where A lives.
    iluk,
    /// ILUT: drop_tolerance and max_fill_per_row; factored on the host and
    /// copied to A's executor.
    ilut,
  };
  Factorization factorization = Factorization::ilu0;
  /// iluk: the largest level of fill kept (>= 0; 0 is ILU(0)).
  int level_of_fill = 1;
  /// ilut: entries below drop_tolerance * ||a_i||_2 are dropped (>= 0).
  double drop_tolerance = 1e-3;
  /// ilut: entries kept in each row of L and of U besides the diagonal (>= 0).
  int max_fill_per_row = 10;
  /// How L and U are solved: level_scheduled (exact) or jacobi sweeps.
  TriangularAlgorithm triangular_solve = TriangularAlgorithm::level_scheduled;
  /// jacobi: sweeps per triangular solve (>= 1).
  int triangular_sweeps = 3;
};

}  // namespace strata
