#pragma once
/// \file
/// Classical (Ruge-Stueben type) coarsening as BoomerAMG runs it on GPUs
/// (hypre paper, section 4.3; Li, Sjogren and Yang 2021 for the MM
/// interpolations). One level is built in named stages:
///
///  1. strength: classical strength of connection. Point i depends strongly
///     on j != i when, for a_ii >= 0,  a_ij < theta * min(0, min_{k != i} a_ik),
///     and for a_ii < 0,  a_ij > theta * max(0, max_{k != i} a_ik)
///     (theta = strength_threshold; ties are weak, as in hypre). With
///     max_row_sum < 1, a row with |sum_j a_ij| > max_row_sum * |a_ii| gets no
///     strong connections at all (hypre's semantics; 1.0 turns the test off).
///  2. splitting: PMIS, or HMIS (hypre's host default): the Ruge-Stueben
///     first pass, sequential over the whole level (so on the host only,
///     and independent of the thread count), whose C points are kept while
///     PMIS settles the points it left without a strong C neighbour. On one
///     process hypre's HMIS does the same, the first pass with its measures
///     and FIFO ties (hypre's PMIS after it makes a point that influences
///     none F at once; ours lets it wait, as below). PMIS: the weight
///     of point i is the number of points that
///     depend strongly on it plus a number in [0, 1) hashed from
///     (seed, level, global index), so host and device produce the same C/F
///     splitting, run after run. Points without strong connections in
///     either direction become F points with an empty interpolation row.
///     Unlike hypre, a point that influences no other point but depends on
///     some is not made F at once: it waits (and becomes C only if all the
///     points it depends on became F), so every F point with a strong
///     connection depends strongly on a C point. C points are independent
///     in the symmetrised strength graph within each round of PMIS.
///  3. interpolation: direct, or MM-ext / MM-ext+i / MM-ext+e, the products
///     W = A~_FF A^s_FC of submatrices of A restricted to strong connections
///     with the diagonal modifications of Li, Sjogren and Yang; then
///     truncation (relative threshold, then at most Pmax entries per row,
///     each row rescaled to keep its sum) and R = P^T.
///  4. (first `aggressive_levels` levels) aggressive coarsening: a second
///     PMIS pass on the C points with the A1 (or A2) strength
///     S_CC = ((S + I) S)_CC computed as the product (S_CF S_CC + I)(S_FC; S_CC),
///     and two-stage interpolation P = P1 P2 (each stage MM-ext or MM-ext+e,
///     each truncated, then P truncated again).
///
/// Everything runs where A lives (host or device) from one source.
///
/// Value-only resetup (refresh): keeps the strength pattern S, the C/F
/// splitting (both passes), and the patterns of every intermediate matrix and
/// of P (the entries the truncation chose); recomputes, from the new values
/// of A, the weak-connection sums and the D_beta / D_lambda scalings, the
/// values of the products, and P's values with each row rescaled to the row
/// sum of its untruncated row. It equals a fresh setup whenever the fresh
/// setup would make the same strength and truncation choices (in particular
/// when A is scaled by a constant).

#include <cstdint>
#include <memory>

#include "strata/amg/amg.hpp"

namespace strata::amg {

/// Interpolation formula of classical coarsening.
enum class Interpolation {
  /// Direct: each F point from its strong C neighbours only (Stueben),
  /// with separate scaling of negative and positive connections.
  direct,
  /// MM-ext: W = -(D_FF + D_gamma)^-1 (A^s_FC + A^s_FF D_beta^-1 A^s_FC).
  mm_ext,
  /// MM-ext+i: as MM-ext, with F point k's share of i in its denominator
  /// (beta_k + a_ki) and the matching diagonal correction (hypre's default on GPUs).
  mm_ext_i,
  /// MM-ext+e: as MM-ext, with the mean strong F-F connection mu_k of each F
  /// point added to its denominator (D_lambda = D_beta + D_mu).
  mm_ext_e,
};

/// "direct", "ext", "ext+i", "ext+e".
const char* to_string(Interpolation interpolation) noexcept;

/// C/F splitting of classical coarsening.
enum class Splitting {
  /// By where the level lives: hmis on a serial host level, pmis on a
  /// device and on a distributed level (whose splitting equals the serial
  /// PMIS one on any number of processes).
  automatic,
  /// PMIS (De Sterck, Yang and Heys 2006): parallel, host and device.
  pmis,
  /// HMIS (De Sterck, Yang and Heys 2006; hypre's coarsen type 10, its
  /// host default): the Ruge-Stueben first pass, then PMIS on the points
  /// it left without a strong C neighbour. Serial levels on the host only.
  /// Keeps more C points than PMIS (7-point 10^3: 500 of 1000 against 331),
  /// for fewer iterations at a higher operator complexity.
  hmis,
};

/// "auto", "pmis", "hmis".
const char* to_string(Splitting splitting) noexcept;

/// Parameters of classical coarsening. Defaults follow hypre's GPU setup,
/// the same on every executor. The automatic values (Splitting::automatic,
/// -1 for the counts below; the configuration's defaults, so what `strata
/// solve` runs) choose per level by where it lives, the library's host
/// recipe on a serial host level (measured in issue 16, bench/NOTES.md):
///  - splitting HMIS;
///  - Pmax 6 (hypre's 4 keeps 4 of the 6 equal C neighbours that HMIS
///    leaves a 7-point F point, always the same side: 8 iterations on
///    Laplace3D10 against 7, 9 on diffusion27 64^3 against 8);
///  - aggressive coarsening (A2, two-stage interpolation without stage
///    truncation, as hypre's agg_P12_max_elmts of 0, the product P1 P2
///    truncated to Pmax 6 like every level: without that truncation there
///    and below, poisson3d and jumps3d 64^3 took one iteration fewer (11
///    and 14), but 7-point 128^3 spent 2.0 s instead of 1.3 in its Galerkin
///    products for the same 12 iterations, bench/NOTES.md session 20) of a
///    level of at least
///    kAutomaticAggressiveRows rows whose HMIS splitting keeps at least
///    kAutomaticAggressiveFraction of its points (slow coarsening, which
///    makes the operator complexity grow: poisson3d 64^3 3.34 without,
///    1.68 with, at 11 PCG iterations against 8; 7-point 32^3 and smaller
///    keep the ordinary coarsening's fewer iterations);
/// and the device recipe (PMIS, Pmax 4, no aggressive level, stage Pmax 4)
/// on the device and on a distributed level (whose splitting equals the
/// serial PMIS one on any number of processes).
struct ClassicalParams {
  /// C/F splitting (automatic: hmis on a serial host level, else pmis).
  Splitting splitting = Splitting::pmis;
  /// theta of the classical strength test, in [0, 1].
  double strength_threshold = 0.25;
  /// Rows with |sum_j a_ij| > max_row_sum * |a_ii| get no strong connections
  /// when max_row_sum < 1 (hypre's semantics); 1.0 turns the test off.
  /// In (0, 1].
  double max_row_sum = 1.0;
  Interpolation interpolation = Interpolation::mm_ext_i;
  /// Pmax: at most this many entries per row of P (0 = no limit; -1 =
  /// automatic: 6 on a level of the host recipe, else 4).
  int max_elements_per_row = 4;
  /// Entries with |p_ij| < truncation_factor * max_j |p_ij| are dropped
  /// (0 = off), in [0, 1).
  double truncation_factor = 0.0;
  /// Aggressive coarsening on the first this many levels (0 = none; -1 =
  /// automatic: the host recipe's rule above, none elsewhere).
  int aggressive_levels = 0;
  /// Each stage of the two-stage interpolation: mm_ext or mm_ext_e.
  /// The default with A2 is the pair that meets issue 6's target of at most
  /// 25 PCG iterations on 7-point 128^3 (measured: A2 + ext+e 23, A2 + ext
  /// 24, A1 + ext+e 26, A1 + ext 26; operator complexity 1.56 against 2.77
  /// without aggressive coarsening).
  Interpolation aggressive_interpolation = Interpolation::mm_ext_e;
  /// 1: A1 strength for the second pass (i -> j by at least one path of
  /// length one or two), 2: A2 (at least two such paths, counted as the
  /// entries of S^2 + S as in the hypre paper; hypre's code counts a direct
  /// connection twice, so its A2 also keeps every direct connection). A2
  /// keeps more C points (7-point 128^3: 164,748 against 126,140 on level 1)
  /// and converges in fewer iterations (256^3: 25 against 28); A1 gives the
  /// lowest complexity.
  int aggressive_num_paths = 2;
  /// Pmax of each stage P1, P2 of the two-stage interpolation (0 = no limit;
  /// -1 = automatic: 0 on a level of the host recipe, else 4); the product
  /// P1 P2 is then truncated with max_elements_per_row.
  int aggressive_stage_max_elements = 4;
  /// Relative truncation threshold of each stage (0 = off), in [0, 1).
  double aggressive_stage_truncation_factor = 0.0;
  /// Seed of the PMIS weights (with HMIS: of the PMIS pass after the
  /// first, where that pass leaves points undecided).
  std::uint64_t seed = 1;
  /// Also report the parts of the stages ("interpolation: product",
  /// "interpolation: truncation", ...; each included in its stage's time).
  /// Costs a device synchronisation per part.
  bool profile_stages = false;
};

/// The automatic recipe's thresholds (see ClassicalParams).
inline constexpr size_type kAutomaticAggressiveRows = 50000;
inline constexpr double kAutomaticAggressiveFraction = 0.4;

/// ClassicalParams with every choice automatic (the configuration's
/// defaults): splitting, Pmax, aggressive levels and the stage Pmax.
inline ClassicalParams automatic_classical_params() {
  ClassicalParams p;
  p.splitting = Splitting::automatic;
  p.max_elements_per_row = -1;
  p.aggressive_levels = -1;
  p.aggressive_stage_max_elements = -1;
  return p;
}

/// Throws invalid_argument naming the first field out of range and its value.
void validate(const ClassicalParams& params);

/// The coarsening for amg::Hierarchy. Validates `params` (invalid_argument).
/// Stage times go to "strength", "splitting" and "interpolation".
///
/// Handed a DistributedOperator (strata/distributed/operator.hpp), it
/// coarsens across processes (collective) and returns P and R as
/// DistributedOperators: P's rows split like A's, its columns by the coarse
/// partition (each process's C points, in rank order). The splitting and P
/// are those of the serial coarsening of the whole matrix, whatever the
/// number of processes: PMIS hashes the global row index and exchanges the
/// ghosts' states every round, and each process interpolates its rows from
/// its own and its ghosts' rows (fetched); refresh() recomputes P's and R's
/// values on their patterns as the serial refresh does (collective).
/// Aggressive levels too: the second pass runs across processes on the
/// distance-two strength among C points, hashed by the fine global row, and
/// P = P1 P2 fetches the rows of P2 that P1's off-process columns reach.
template <class T>
std::unique_ptr<Coarsening<T>> make_classical_coarsening(const ClassicalParams& params);

/// The C/F splitting chosen on `level` by a classical coarsening made by
/// make_classical_coarsening (after Hierarchy setup): 1 for C points, -1 for
/// F points, one entry per row of that level's matrix, on its executor. For
/// an aggressive level it is the final splitting (C = points kept by both
/// passes). Throws invalid_argument for another coarsening or a level it
/// has not coarsened. On a distributed level: this process's rows (possibly
/// none). For tests and diagnostics.
template <class T>
const Array<std::int32_t>& classical_splitting(const Coarsening<T>& coarsening, int level);

// The stages one by one, for inspection and tests (the coarsening above runs
// the same kernels).

/// The strength matrix S of A: one entry of value 1 for each strong
/// connection i -> j (row i, column j), on A's executor.
template <class T>
CsrMatrix<T> strength_matrix(const CsrMatrix<T>& A, const ClassicalParams& params);

/// The PMIS splitting of the graph of S (each stored off-diagonal entry is an
/// edge i -> j): 1 for C, -1 for F, on S's executor. With the same seed it is
/// the splitting that the coarsening chooses on level 0 when S is its
/// strength matrix.
template <class T>
Array<std::int32_t> pmis_splitting(const CsrMatrix<T>& S, std::uint64_t seed = 1);

/// The HMIS splitting of the graph of S (as pmis_splitting), host only:
/// the splitting that the coarsening chooses on level 0 with
/// Splitting::hmis when S is its strength matrix.
template <class T>
Array<std::int32_t> hmis_splitting(const CsrMatrix<T>& S, std::uint64_t seed = 1);

/// The interpolation (rows of A x C points, truncated) that the coarsening
/// builds for A with the given splitting (1 = C, -1 = F), using the strength,
/// interpolation and truncation fields of params.
template <class T>
CsrMatrix<T> classical_interpolation(const CsrMatrix<T>& A, const Array<std::int32_t>& splitting,
                                     const ClassicalParams& params);

}  // namespace strata::amg
