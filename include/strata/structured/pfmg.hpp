#pragma once
/// \file
/// PFMG: hypre's structured semicoarsening multigrid with pointwise
/// smoothing (Ashby and Falgout 1996; the hypre paper, section 3.6), on the
/// structured interface and its box-loop kernels, on the host and the device.
///
/// Setup, level by level (as hypre's pfmg_setup.c):
///  1. Coarsening direction: the direction of strongest coupling. Like
///     hypre, the coupling of direction d is estimated once on the finest
///     matrix as c_d = mean over cells of -(sum of the coefficients whose
///     offset moves in d), read as a mesh spacing dxyz_d = 1/sqrt(c_d); each
///     level coarsens the direction of smallest dxyz among those with more
///     than one cell, and doubles that dxyz.
///  2. Semicoarsening by two in that direction: the coarse cells are the fine
///     cells with an even index there (n cells -> (n + 1) / 2).
///  3. Interpolation from the stencil: the matrix stencil collapsed onto the
///     coarsening direction gives each odd fine cell the weights
///     wl = -a_left / a_collapsed and wr = -a_right / a_collapsed; even fine
///     cells take their coarse cell's value. Restriction is P^T.
///  4. The coarse operator by the Galerkin product P^T A P computed directly
///     on the stencils (a 7-point stencil becomes 15-point, a 27-point stays
///     27-point), never through CSR; or, for star stencils, ParFlow's
///     non-Galerkin operator (PfmgCoarseOperator::non_galerkin), which
///     keeps the fine stencil's offsets on every level.
/// Relaxation: weighted Jacobi with hypre's per-level weight
/// 2 / (3 - alpha), alpha the share of 1/dxyz^2 outside the coarsening
/// direction (2/3 when the coefficients vary a lot), or red-black
/// Gauss-Seidel (symmetric: red then black before, black then red after).
/// With skip_relax (hypre's `skip`, on by default as in the hypre library;
/// hypre's `struct` test driver turns it off), a level is not relaxed when
/// the error is already smooth in its coarsening direction: a relaxed level
/// smooths the directions strongly coupled on it (spacing dxyz below
/// sqrt(2) times the smallest, i.e. at least half the strongest coupling),
/// and a direction stays smooth until it is coarsened. On isotropic
/// problems this is hypre's rule (relax when the direction was coarsened
/// since the last relaxed level); unlike hypre's, it does not count a
/// weakly coupled direction as smoothed, which on strongly anisotropic
/// problems kept the iterations from being independent of the grid size.
///
/// The coarsest level is relaxed only (no direct solve), as in hypre: with
/// as many sweeps as its longest side has cells (at most about four per
/// level, at least the cycle's pre and post sweeps), which is the cycle's
/// own sweeps when it is one cell.
///
/// Periodic grids (as hypre's PFMG): a periodic direction with an even
/// number of cells n is halved into a periodic coarse direction of n / 2
/// cells; interpolation, restriction and the Galerkin product wrap around
/// it, and the smoothers and products read the periodic images from the
/// vectors' ghosts. A periodic direction with an odd number of cells is not
/// coarsened further (hypre stops coarsening there altogether; this goes on
/// in the other directions), so periods of the form 2^k, or 2^k times a
/// small odd number, give the usual convergence, while a large odd period
/// leaves a large coarsest level and slow convergence. Red-black
/// Gauss-Seidel colours by (i + j + k) mod 2, which is not a 2-colouring
/// across an odd period (cells 0 and n - 1 are neighbours of one colour);
/// there a colour's sweep updates those neighbours together, a Jacobi step
/// between them, as on the wider coarse Galerkin stencils: still convergent
/// and symmetric, so the cycle stays a valid preconditioner for CG.
/// A periodic direction of one cell (the end of its halving) folds: every
/// offset in it reaches the cell itself, so such a level's stencil entries
/// are merged into those without that offset, and the smoothers divide by
/// the true diagonal. Periodic in every direction, A is singular (the
/// constants are in its null space for a Laplacian): PCG with PFMG solves
/// it for a consistent b (zero mean). When A is periodic in every
/// direction and its rows sum to zero (relative to the diagonal, 1e-12),
/// every coarse operator has the constants in its null space too, and the
/// hierarchy ends on one cell whose merged diagonal is zero up to
/// rounding; like hypre (which skips a coarsest level with a zero
/// diagonal), that level is not relaxed: its correction could only add a
/// constant, and dividing by the rounding left of the diagonal would make
/// it huge.
///
/// A Pfmg is a LinearOperator: apply(b, x) is one V-cycle from x = 0, so it
/// preconditions CG (the cycle is symmetric) and GMRES; solve() iterates it
/// as a stand-alone solver. Limits of this version: one box, stencils of
/// reach 1 (up to 27 points), a nonzero diagonal. A symmetrically stored A
/// (Storage::symmetric; StructMatrix::to_symmetric converts a full one) is
/// expanded to full storage for the setup, and the cycle keeps every level
/// in symmetric storage: its sweeps and residuals read about half the
/// coefficients (hypre's `struct` driver stores its matrices so too).

#include <array>
#include <memory>
#include <string>
#include <vector>

#include "strata/amg/amg.hpp"
#include "strata/solver/krylov.hpp"
#include "strata/structured/matrix.hpp"

namespace strata::structured {

/// The pointwise smoother of PFMG.
enum class PfmgRelaxation {
  /// hypre's relax_type 1.
  weighted_jacobi,
  /// hypre's relax_type 2; an exact Gauss-Seidel sweep on 5/7-point stencils,
  /// a colour-by-colour Jacobi on the wider coarse Galerkin stencils and
  /// across an odd period (see the file comment).
  red_black_gauss_seidel,
};

/// "weighted_jacobi", "red_black_gauss_seidel".
const char* to_string(PfmgRelaxation relaxation) noexcept;

/// How PFMG forms its coarse operators.
enum class PfmgCoarseOperator {
  /// P^T A P on the stencils (hypre's rap_type 0): a 7-point stencil grows
  /// to 15 and then 27 points on the coarse levels.
  galerkin,
  /// Ashby and Falgout's ParFlow operator (hypre's rap_type 1), for star
  /// stencils (5-point, 7-point): every level keeps the fine offsets, with
  /// the Galerkin coupling across the coarsened direction, the couplings of
  /// the slab a coarse cell stands for along it, and the Galerkin row sums
  /// (kernels::structured::non_galerkin_product). About half the bytes of
  /// a V-cycle.
  non_galerkin,
  /// non_galerkin for a star stencil whose couplings do not vary much over
  /// the grid (hypre's test for its Jacobi weight: the variance of a
  /// direction's coupling per cell at most a tenth of its squared mean),
  /// galerkin otherwise: jumping coefficients need the Galerkin operator
  /// (jumps3d: 22 PCG iterations against 39 with non_galerkin). The test
  /// counts the cells next to a Dirichlet boundary, whose couplings there
  /// are zero: a grid of 3 or 4 cells in a non-periodic direction varies
  /// enough to get galerkin (and hypre's Jacobi weight 2/3).
  automatic,
};

/// "galerkin", "non_galerkin", "automatic".
const char* to_string(PfmgCoarseOperator coarse_operator) noexcept;

struct PfmgParams {
  PfmgRelaxation relaxation = PfmgRelaxation::weighted_jacobi;
  /// Sweeps before and after the coarse-grid correction (>= 0, not both 0).
  int pre_sweeps = 1;
  int post_sweeps = 1;
  /// Skip relaxation where it does little (see the file comment).
  bool skip_relax = true;
  /// Upper bound on the number of levels; 0: coarsen down to one cell.
  int max_levels = 0;
  /// Jacobi weight for every level; 0: hypre's per-level weight.
  double jacobi_weight = 0.0;
  /// Galerkin or ParFlow's non-Galerkin coarse operators, or the choice
  /// between them by the stencil and the coefficients; non_galerkin needs a
  /// star stencil (offsets on the axes only).
  PfmgCoarseOperator coarse_operator = PfmgCoarseOperator::automatic;
  /// The precision apply() cycles in (PCG and the stand-alone solve stay in
  /// double). single: every level's operator and weights rounded to float
  /// once after setup, the V-cycle computed in float on b scaled by a
  /// power of two (mixed precision, as for AMG). automatic: single on a
  /// CUDA device from amg::automatic_single_precision_rows cells on (where
  /// the cycle is memory-bound), double elsewhere. cycle() always runs in
  /// double.
  amg::CyclePrecision cycle_precision = amg::CyclePrecision::automatic;
  /// On a CUDA device, the single-precision cycle is recorded once (at the
  /// second apply(), after the first has loaded every kernel) and then
  /// replayed as one CUDA graph: one launch in place of some 150 (25
  /// levels at 256^3), whose host-side cost otherwise leaves the GPU idle
  /// on the small coarse levels. false: every apply() launches its kernels.
  bool record_cycle = true;
};

/// What the setup built on one level.
struct PfmgLevel {
  /// Cells per direction.
  std::array<std::int64_t, 3> extent{};
  /// Stencil entries of the level's operator (both of each pair {o, -o},
  /// also where the cycle stores one).
  int stencil_size = 0;
  /// Direction coarsened to reach the next level (-1 on the coarsest).
  int coarsening_direction = -1;
  /// Whether the level is relaxed (false: skipped, or a singular one-cell
  /// coarsest level; see the file comment).
  bool relaxed = true;
  /// Jacobi weight of the level (1 for Gauss-Seidel).
  double weight = 1.0;
};

/// The PFMG hierarchy of a structured matrix.
template <class T>
class Pfmg final : public LinearOperator<T> {
 public:
  /// Builds the hierarchy on A's executor, periodic directions included.
  /// Throws invalid_argument for a stencil without a centre entry or
  /// reaching more than one cell, a zero or non-finite diagonal (naming the
  /// cell) or bad parameters.
  explicit Pfmg(std::shared_ptr<const StructMatrix<T>> A, PfmgParams params = {});
  ~Pfmg() override;

  size_type rows() const override;
  size_type cols() const override;
  const Executor& executor() const override;
  /// x = one V-cycle applied to b from a zero initial guess (x, b plain
  /// vectors of rows() values).
  void apply(const Vector<T>& b, Vector<T>& x) const override;
  /// apply(), returning b^T x: in the single-precision cycle the dot comes
  /// from the pass that brings x back to T (PCG's r^T z).
  T apply_dot(const Vector<T>& b, Vector<T>& x) const override;
  std::string describe() const override;

  /// One V-cycle from the x given (structured vectors on A's grid).
  void cycle(const StructVector<T>& b, StructVector<T>& x) const;

  /// Stand-alone PFMG: x <- x + V-cycle(b - A x) until the stopping test
  /// of `params` holds (strata::solve_stationary on A).
  SolveInfo solve(const Vector<T>& b, Vector<T>& x, const KrylovParams& params = {}) const;

  int num_levels() const noexcept;
  const PfmgLevel& level(int l) const;
  /// The matrix of level l in the cycle's storage (symmetric when A is
  /// stored so; 0: A itself, or its copy with the entries of a one-cell
  /// periodic direction merged).
  const StructMatrix<T>& level_matrix(int l) const;
  /// Interpolation weights (wl, wr over the fine cells of level l, l <
  /// num_levels() - 1), for tests that check the Galerkin product.
  std::pair<const Array<T>*, const Array<T>*> interpolation(int l) const;
  /// Sum over levels of cells x stencil entries, divided by that of level 0.
  double operator_complexity() const;
  const PfmgParams& params() const noexcept;
  /// The coarse operators built: galerkin or non_galerkin (automatic
  /// resolved).
  PfmgCoarseOperator coarse_operator() const noexcept;
  /// The precision apply() cycles in: full or single (automatic resolved).
  amg::CyclePrecision cycle_precision() const noexcept;

 private:
  T apply_and_dot(const Vector<T>& b, Vector<T>& x, bool want_dot) const;

  struct Data;
  std::unique_ptr<Data> data_;
};

}  // namespace strata::structured
