#pragma once
// What `strata solve` learns about A at load (cheaply) and the defaults it
// takes from that: the Krylov method and, for aggregation AMG, the cycle.
// Settings the user gave (a flag or a --config key) are never changed.

#include <set>
#include <string>
#include <vector>

#include "problem.hpp"
#include "strata/config/solver_config.hpp"

namespace strata::app {

/// What the load tells about A.
struct MatrixFacts {
  bool symmetric = true;
  /// Why `symmetric` is what it is ("the gallery problem poisson3d is
  /// symmetric", "A is not numerically symmetric (max |a_ij - a_ji| = 0.5)").
  std::string symmetry_reason;
  size_type positive_diagonal = 0;
  size_type negative_diagonal = 0;
  /// Rows without a nonzero value (no entry, or only stored zeros), and
  /// the first of them (0-based; -1 for none).
  size_type zero_rows = 0;
  long long first_zero_row = -1;
  /// Every row sums to zero (to rounding): constants are in A's null space
  /// (a pure Neumann problem), so A x = b has a solution only for b
  /// orthogonal to them.
  bool constant_null_space = false;
};

/// Gallery problems know their symmetry and have positive diagonals and no
/// zero rows; a matrix from a file is analysed on the host (on a host copy
/// when it was moved to a device). `A` is p.A after loading.
MatrixFacts inspect(const Problem& p, const CsrMatrix<double>& A);

/// Throws invalid_argument for a system that cannot be solved as given: A
/// with a negative diagonal and no positive one ("A appears negative
/// definite: solve with -A"), A with a row of zeros (singular).
void refuse_hopeless(const MatrixFacts& facts, const std::string& name);

/// Sets the defaults that follow the matrix in `cfg` for every setting
/// whose path is not in `given`, and returns one line per choice made,
/// saying what and why (empty when nothing was chosen):
///   - solver.type: cg for a symmetric A, gmres otherwise; with a K-cycle
///     (asked for, or chosen below) fcg or fgmres;
///   - preconditioner.amg.cycle: K (the aggregation paper's method) with
///     aggregation AMG, when the method is free or one that takes it.
std::vector<std::string> choose_defaults(config::SolverConfig& cfg, const MatrixFacts& facts,
                                         const std::set<std::string>& given);

}  // namespace strata::app
