#pragma once
/// \file
/// Blocked smoothed aggregation (SA) for systems such as linear elasticity,
/// kept in block form and resident where the matrix lives (the blocked GAMG
/// paper, petsc-blocked-device-gamg; Vanek, Mandel and Brezina's smoothed
/// aggregation).
///
/// One level is built in named stages, on the host or the device from the
/// same source and with the same result:
///
///  1. block strength: the nodes are the block rows; block connection
///     (I, J) is strong when
///         ||A_IJ||_F > theta sqrt(||A_II||_F ||A_JJ||_F)
///     (the symmetric rule of PyAMG and PETSc, on Frobenius norms of the
///     b x b blocks, so it is independent of the rows' scaling; the ratio
///     is rounded to a multiple of 2^-24, so that host and device, whose
///     coarse levels differ in the last bits, see the same ties);
///  2. aggregation: the MIS(2) of aggregation.hpp (amg::aggregate) on that
///     node graph, so a node's b unknowns always share an aggregate;
///  3. tentative prolongator: per aggregate a thin QR of the near-null space
///     B restricted to the aggregate's rows (the per-aggregate modified
///     Gram-Schmidt of aggregation.hpp), giving a BSR P_tent with one b x k
///     block per block row (3 x 6 for 3D elasticity with rigid-body modes,
///     6 x 6 below) and the coarse near-null space from the R factors.
///     Where B is rank-deficient on an aggregate (few nodes, or vectors
///     that coincide there) the dependent columns are replaced by
///     orthonormal completions with zero coarse B, instead of dropped, so
///     that every coarse level keeps its k x k blocks; an aggregate with
///     fewer unknowns than k cannot be completed and is an error;
///  4. prolongator smoothing: P = (I - omega D^-1 A_f) P_tent, D the block
///     diagonal of A_f (b x b blocks, inverted), omega = damping /
///     rho(D^-1 A_f); A_f is A, or A with its weak connections lumped into
///     the diagonal (filter_weak). The product keeps its pattern, so a
///     value-only resetup recomputes only values;
///  5. R = P^T stored as BSR (k x b blocks) and the Galerkin product R A P
///     of the level (BSR k x k coarse operators).
///
/// A typical set-up for 3D elasticity:
///
///     auto problem = gallery::elasticity3d(exec, 32);
///     auto A = share(to_bsr(problem.A, 3));
///     amg::Hierarchy<double> H(std::make_shared<BsrOperator<double>>(A),
///         amg::make_smoothed_aggregation_coarsening<double>(
///             {}, amg::rigid_body_modes(problem.coordinates, 3)));
///
/// Value-only resetup (Hierarchy::resetup, a Newton step): the aggregates,
/// P_tent and the pattern of P are kept; D^-1 is recomputed from the new
/// values, and so is omega (a fresh spectral estimate: the spectrum moves
/// with the values, and a too-small rho makes the smoothed P unstable), then
/// P's values on the kept pattern, and R's from P's through a kept map. So
/// a resetup gives the P that a fresh setup on the new values gives when
/// that setup finds the same aggregates.
///
/// Smoothers: SA's coarse spaces are built for a smoother that damps the
/// high end of D^-1 A well. With Chebyshev (ChebyshevParams, GAMG's
/// default; point-block on BSR levels) PCG takes 12-14 iterations on
/// elasticity3d n = 8..16 and at most 23 on the shared hypre/PyAMG
/// elasticity matrices; the point-block l1-Jacobi (the hierarchy's
/// default) takes about twice as many (28-32 on elasticity3d).

#include <cstdint>
#include <memory>
#include <vector>

#include "strata/amg/amg.hpp"

namespace strata::amg {

/// Parameters of the smoothed-aggregation coarsening.
struct SmoothedAggregationParams {
  /// Unknowns per node (block size of the fine level). 0: from the fine
  /// operator (a BsrOperator's square block size, 1 for a CsrOperator).
  /// A CsrOperator with block_size > 1 is refused (convert it with to_bsr).
  int block_size = 0;
  /// theta of the symmetric block strength rule (stage 1), in [0, 1).
  /// 0 keeps every stored block whose norm is not zero (PyAMG's and PETSc's
  /// default); on elasticity3d that links each node to its whole 27-node
  /// neighbourhood, MIS(2) then makes aggregates of about 5^3 nodes, and
  /// PCG iterations grow with n (33, 42, 52 at n = 8, 12, 16 with the
  /// scalar l1-Jacobi). 0.05 drops only the weakest couplings of the
  /// hexahedral stencil and gives flat counts (30, 34, 33; 14, 15, 15 with
  /// the scalar Chebyshev) at an operator complexity of about 1.1; 0.2
  /// leaves too many nodes isolated (unaggregated) and fails. Measured in
  /// issue 23, before the point-block smoothers. A level where theta leaves
  /// no connection strong (a scalar 27-point stencil couples at 1/26 of its
  /// diagonal) is aggregated with theta 0 instead of ending the hierarchy
  /// there; the coarsening's name says from which level.
  double strength_threshold = 0.05;
  /// Drop weak connections from the matrix used to smooth P (PETSc/PyAMG
  /// filtering): the weak blocks of a row are removed and their row sums
  /// added to the diagonal block's diagonal, so A_f keeps A's action on
  /// constants and P stays sparser. Off by default: on elasticity3d with
  /// theta = 0.1 it makes P 10% sparser for 5 more iterations.
  bool filter_weak = false;
  /// omega = prolongator_damping / rho(D^-1 A), D block diagonal (4/3 is
  /// the classical choice: it minimises the energy of the smoothed basis
  /// functions for a spectrum spread over (0, rho]). Must be in (0, 2).
  double prolongator_damping = 4.0 / 3.0;
  /// false: unsmoothed aggregation with the blocked tentative prolongator
  /// only (cheaper setup, more iterations).
  bool smooth_prolongator = true;
  /// Seed of the MIS(2) random values (as AggregationParams::seed).
  std::uint64_t seed = 1;
  /// What a value-only resetup (Hierarchy::resetup) does with the smoothed
  /// P. true: keeps P and R as setup built them and recomputes the coarse
  /// operators R A P and the smoothers only (the reuse of the PETSc paper,
  /// PETSc's -pc_gamg_reuse_interpolation): the cheap path for the small
  /// changes of a Newton or time step, where the old P still spans the
  /// near-null space well; the data that re-smoothing needs is freed after
  /// setup. false: re-smooths P_tent with the new values (new block
  /// diagonal, new rho(D^-1 A)) on the kept aggregates, so P equals what a
  /// fresh setup on the kept aggregates builds; for large changes of values.
  /// Measured on elasticity3d n = 64 on an H200 (issue 23): resetup 25 ms
  /// with re-smoothing against a 48 ms setup, before the coarse products
  /// were made faster.
  bool resetup_keeps_prolongator = true;
};

/// Makes the coarsening. `near_null_space` holds the k columns of B on the
/// finest level, each with A.rows() entries on A's executor (checked at
/// setup with validate_near_null_space). Empty: the block_size
/// "translations" (column c is 1 on unknown c of every node, 0 elsewhere);
/// for block size 1 that is the constant vector, i.e. scalar smoothed
/// aggregation. Throws invalid_argument naming the field and value when
/// `params` is out of range.
template <class T>
std::unique_ptr<Coarsening<T>> make_smoothed_aggregation_coarsening(
    const SmoothedAggregationParams& params, std::vector<Vector<T>> near_null_space = {});

/// Rigid-body modes from nodal coordinates (interleaved, `dimension` per
/// node): 3 modes in 2D (translations x, y; the rotation (-y, x)), 6 in 3D
/// (translations x, y, z; rotations about x, y, z through the origin, as
/// gallery::rigid_body_modes). Each mode has coordinates.size() entries on
/// the coordinates' executor. The rotations are about the origin: the span
/// is the same about any point, and the per-aggregate QR removes the
/// offset. Throws invalid_argument unless dimension is 2 or 3 and divides
/// coordinates.size().
template <class T>
std::vector<Vector<T>> rigid_body_modes(const Vector<T>& coordinates, int dimension);

/// Checks a near-null space before setup: at least one vector, each with
/// `rows` entries on one executor, `block_size` >= 1 dividing `rows`, all
/// entries finite, and numerically full column rank (the Gram matrix B^T B
/// has no pivot below 1e-10 of its largest diagonal entry, so no vector is,
/// up to rounding, a combination of the others). Throws invalid_argument
/// naming the vector (near_null_space[c]) or argument, the value and what
/// was expected.
template <class T>
void validate_near_null_space(const std::vector<Vector<T>>& B, size_type rows, int block_size);

}  // namespace strata::amg
