#pragma once
/// \file
/// Parameters of the Gauss-Seidel smoothers: hybrid l1 Gauss-Seidel (the
/// host form, hypre's relax 8/13/14/88/89 family), multicolor Gauss-Seidel
/// and two-stage Gauss-Seidel (the device forms, hypre's relax 11/12). All
/// three run on the host and on the device with the same results on both
/// (each kernel is written once and is deterministic), need the level in
/// CSR form (invalid_argument naming the kind otherwise) and are chosen
/// through SmootherParams (strata/smoother/smoother.hpp).
///
/// Direction. A forward sweep visits the rows (blocks, colors) in
/// increasing order, a backward sweep in decreasing order, a symmetric
/// sweep forward then backward. As an AMG smoother, post-smoothing runs the
/// adjoint sweep of pre-smoothing (forward down, backward up, as hypre's
/// default relax 13/14), so for symmetric A the V-cycle is a symmetric
/// preconditioner and CG can use it. As a stand-alone preconditioner,
/// apply() is one sweep from x = 0: only the symmetric sweep is a
/// symmetric (for SPD A, positive definite) preconditioner for CG; the
/// forward and backward sweeps are for GMRES, FGMRES and BiCGSTAB.

#include <cstdint>

#include "strata/core/types.hpp"

namespace strata {

/// The order of a Gauss-Seidel sweep (see the file comment).
enum class GaussSeidelSweep { forward, backward, symmetric };

/// "forward", "backward", "symmetric".
const char* to_string(GaussSeidelSweep sweep) noexcept;

/// Hybrid l1 Gauss-Seidel (Baker, Falgout, Kolev, Yang, "Multigrid
/// smoothers for ultraparallel computing", SISC 2011, section 6; hypre's
/// relax 8 (symmetric), 13 (forward) and 14 (backward) with its truncated
/// l1 norms). The rows are split into blocks of `block_rows` consecutive
/// rows, fixed by the matrix and not by the thread count, so every number
/// of threads gives the same iterates. Within a block the sweep is
/// Gauss-Seidel; couplings to other blocks use x from the start of the
/// sweep (Jacobi), and half their absolute values join the diagonal:
///   x_i += omega (b_i - (A x)_i) / (a_ii + s_i / 2),
///   s_i = sum_{j in another block} |a_ij|,
/// with s_i / 2 dropped where s_i <= 2/3 a_ii (hypre's truncation, its
/// l1-norm option 4). For SPD A and omega = 1 the sweep converges however
/// the blocks fall: with M the block lower triangle plus that diagonal,
/// M + M^T - A = D + diag(s) - A_offblock (or D - A_offblock on truncated
/// rows) is strictly diagonally dominant, hence positive definite. A matrix
/// of at most block_rows rows gets exact Gauss-Seidel. Larger blocks smooth
/// better: on tucker21935 (21,936 rows with dense rows coupling across the
/// matrix) one block gave 24 AMG-PCG iterations and any split 31 to 33;
/// on 64^3 stencils 4096- and 65536-row blocks gave the same counts within
/// one. The default keeps one block up to 32768 rows and gives a problem of
/// n rows n / 32768 parallel tasks (30 at 10^6 rows).
struct GaussSeidelParams {
  GaussSeidelSweep sweep = GaussSeidelSweep::forward;
  /// Relaxation weight (1: Gauss-Seidel; SOR above, in (0, 2)).
  double omega = 1.0;
  /// Rows per block (>= 1): the unit of parallel work.
  size_type block_rows = 32768;
};

/// Multicolor Gauss-Seidel: the rows are colored so that no two rows of one
/// color are coupled (a distance-1 coloring of the pattern of A, computed
/// on A's executor by the Jones-Plassmann algorithm: rounds in which every
/// row whose random key beats its uncolored neighbours' takes the smallest
/// color its neighbours lack; Luby's keys come from a counter-based hash of
/// (`seed`, row), so the coloring is the same on host and device and from
/// run to run), then a sweep updates one color at a time,
/// all rows of a color in parallel:
///   x_i += omega (b_i - (A x)_i) / a_ii.
/// That is Gauss-Seidel in the color ordering. Each color is one pass over
/// its rows of A, so a sweep costs about one SpMV plus a launch per color.
struct MulticolorGaussSeidelParams {
  GaussSeidelSweep sweep = GaussSeidelSweep::forward;
  /// Relaxation weight, in (0, 2).
  double omega = 1.0;
  /// Seed of the coloring's random keys.
  std::uint64_t seed = 0x5eed;
};

/// Two-stage Gauss-Seidel (hypre's relax 11 and 12; Berger-Vergiat et al.,
/// "Two-stage Gauss-Seidel preconditioners and smoothers for Krylov
/// solvers on a GPU cluster", 2021): a Gauss-Seidel sweep
/// x += omega (D + L)^-1 (b - A x) whose triangular solve (D + L) y = r is
/// replaced by `inner_sweeps` Jacobi sweeps y <- D^-1 (r - L y) from
/// y = D^-1 r (backward: U for L). Every step is a parallel pass over A, so
/// the sweep runs at SpMV speed on the device; inner_sweeps = 1 is relax
/// 11, 2 is relax 12, 0 is Jacobi, and many sweeps approach Gauss-Seidel.
struct TwoStageGaussSeidelParams {
  GaussSeidelSweep sweep = GaussSeidelSweep::forward;
  /// Relaxation weight of the outer update, in (0, 2).
  double omega = 1.0;
  /// Jacobi sweeps of the inner triangular solve (>= 0).
  int inner_sweeps = 1;
  /// Use the row l1 norms sum_j |a_ij| for D (in the inner sweeps and the
  /// triangle's diagonal). With D the diagonal (hypre's choice), the
  /// smoother can be indefinite where the strict triangle outweighs the
  /// diagonal (measured: tucker21935, bcsstk13, elast2d gave CG
  /// "indefinite"); with the l1 norms, M + M^T - A tends to 2 D_l1 - D,
  /// positive definite, as the inner sweeps grow, at the cost of weaker
  /// smoothing where D would do.
  bool l1 = false;
};

}  // namespace strata
