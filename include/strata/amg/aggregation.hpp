#pragma once
/// \file
/// Unsmoothed aggregation AMG on the GPU (the aggregation paper: Gandham,
/// Esler, Zhang, "A GPU accelerated aggregation algebraic multigrid method").
///
/// One level is built in the paper's named stages (Algorithm 1), each a
/// function below that runs where A lives (host or device, same source, same
/// result):
///
///  1. strength_graph: signed classic strength (equation 3),
///       C_ij = 1  when  -s_i a_ij > alpha max_{k != i} (-s_i a_ik),  s_i = sign(a_ii),
///     made symmetric (an edge i-j when C_ij or C_ji) for the graph algorithms;
///  2. aggregate: parallel MIS(2) (Algorithm 2) on that graph, then every other
///     point joins its nearest root (distance one first, then two);
///  3. piecewise_constant_interpolation: P with one block of k entries per
///     row from the near-null space B, orthonormal columns per aggregate
///     (Algorithm 3; B = ones by default), R = P^T, and the coarse B (the
///     R-factors of the per-aggregate QR) for the next level;
///  4. the Galerkin product R A P by sorting and segmented reduction
///     (equation 7, SortReduceCoarseProduct), kept so that a value-only
///     resetup is a gather plus a segmented sum.
///
/// The solve side (K-cycles, damped Jacobi with omega = 4/(3 rho)) belongs to
/// the hierarchy and the smoothers: see amg::HierarchyParams::kcycle_levels
/// and JacobiParams::estimate_omega. A typical set-up, as in the paper:
///
///     auto A = share(gallery::poisson3d(exec, 64, 64, 64));
///     amg::Hierarchy<double> H(A,
///         amg::make_aggregation_coarsening<double>({.dimension = 3}),
///         {.cycle = amg::CycleType::K,
///          .smoother = JacobiParams{.estimate_omega = true}});
///     solve(KrylovMethod{Fcg{}}, CsrOperator<double>(A), b, x, &H);
///
/// Reproducibility: MIS(2) draws its random values from a counter-based hash
/// of (seed, level, global row), and every step compares or sums in a fixed
/// order without fused multiply-adds, so the host and the device build the
/// same aggregates and bit-identical coarse matrices, run after run.
///
/// Distributed levels (a DistributedOperator): the same stages across
/// processes give the serial result whatever the number of processes and
/// the partition. The strength marks are transposed across processes so
/// that each row's graph is the serial symmetric one; MIS(2) hashes and
/// packs the global row, exchanges the ghosts' tuples before each round of
/// maximum propagation and stops when no process has an undecided point;
/// roots are numbered in global order (a scan over processes) and points
/// join the nearest root with the ghosts' aggregates exchanged. Aggregates
/// therefore SPAN processes: each belongs to its root's process (the coarse
/// partition), P has off-process entries, and a spanning aggregate's rows
/// of B are gathered to its owner by a distributed transpose,
/// orthonormalized there in global order, and returned by transposing R.
/// The coarse B stays on the owners. Limits: a distributed level has at
/// most 2^31 - 1 rows over all processes (MIS(2) packs the global row
/// into 32 bits of its tuple; larger levels are refused by name), and the
/// union of a row with its transposed row is found by scanning, which is
/// quadratic in the row's length: a row coupled to a large part of the
/// matrix (a constraint, a pinned value) makes the strength stage slow
/// (a hub row over 40,000 points: 1.4 s against 0.04 s serially).

#include <cstdint>
#include <memory>
#include <vector>

#include "strata/amg/amg.hpp"

namespace strata::amg {

/// Parameters of the aggregation coarsening.
struct AggregationParams {
  /// alpha of equation 3, in [0, 1). Negative: chosen from `dimension`
  /// (0.5 for 3, 0.25 for 2 and 1), the paper's defaults.
  double strength_threshold = -1;
  /// Dimension hint of the problem (1, 2 or 3); only used to choose the
  /// strength threshold.
  int dimension = 3;
  /// Seed of the MIS(2) random values (a counter-based hash of seed, level
  /// and global row: the same on host and device, and on any number of
  /// processes).
  std::uint64_t seed = 1;
  /// Form R A P with the general SpGEMM path (two row-wise sparse products)
  /// instead of the aggregation's own product: sort + segmented reduction
  /// on the device (SortReduceCoarseProduct), row by row on the host
  /// (RowwiseCoarseProduct); for comparison.
  bool galerkin_by_spgemm = false;
};

/// The strength threshold `params` asks for (resolving the default).
double strength_threshold(const AggregationParams& params);

/// Makes the coarsening. `near_null_space` holds the k >= 0 columns of B on
/// the finest level (each with A.rows() entries, on A's executor; on a
/// distributed level this process's rows; checked at setup); empty means
/// B = ones (k = 1). Throws invalid_argument naming the
/// field and its value when `params` is out of range, or when the vectors
/// differ in size.
template <class T>
std::unique_ptr<Coarsening<T>> make_aggregation_coarsening(
    const AggregationParams& params, std::vector<Vector<T>> near_null_space = {});

// ------------------------------------------------------------------ stages

/// The symmetric strength graph of one level, on A's executor.
template <class T>
struct StrengthGraph {
  /// Row i lists every j != i with C_ij = 1 or C_ji = 1 (a symmetric
  /// pattern, columns in the order of A's rows).
  Array<offset_type> row_ptr;
  Array<index_type> col_idx;
  /// Coupling of each edge as row i sees it: -s_i a_ij / max_k(-s_i a_ik)
  /// (0 when a_ij is not stored). Aggregation uses it to pick the root a
  /// point joins.
  Array<T> weight;
  /// influence[i] = #{j : C_ji = 1}, the points that depend strongly on i
  /// (the integer part of Algorithm 2's v_i).
  Array<index_type> influence;
  /// True when A's pattern was not symmetric and was symmetrised first
  /// (a missing a_ji counts as zero).
  bool symmetrized = false;

  size_type rows() const noexcept { return influence.size(); }
  size_type edges() const noexcept { return col_idx.size(); }
};

/// Stage 1: signed classic strength with threshold alpha in [0, 1).
template <class T>
StrengthGraph<T> strength_graph(const CsrMatrix<T>& A, double alpha);

/// Result of stage 2.
struct Aggregates {
  /// aggregate[i]: the aggregate of point i, or -1 when i has no strong
  /// connection at all (it is left out of P: smoothing alone handles it, as
  /// in PyAMG's standard aggregation).
  Array<index_type> aggregate;
  /// root[a]: the MIS(2) root of aggregate a; roots ascend with a.
  Array<index_type> root;
  /// MIS(2) iterations (each two rounds of maximum propagation).
  int iterations = 0;

  size_type count() const noexcept { return root.size(); }
};

/// Stage 2: MIS(2) roots (Algorithm 2: tuples (state, influence + random
/// value, index), two rounds of maximum propagation per iteration), numbered
/// in index order; then every other point joins the root it is adjacent to,
/// or else the aggregate of the distance-one neighbour it is most strongly
/// coupled to. Ties go to the stronger coupling, then the smaller index.
/// `level` only varies the random values between levels.
template <class T>
Aggregates aggregate(const StrengthGraph<T>& S, std::uint64_t seed, int level = 0);

/// Result of stage 3.
template <class T>
struct PiecewiseConstantInterpolation {
  /// Interpolation (fine rows x coarse columns) and R = P^T.
  CsrMatrix<T> P;
  CsrMatrix<T> R;
  /// The coarse near-null space, column-major (P.cols() x columns).
  Array<T> coarse_near_null_space;
  int columns = 1;
  /// Coarse columns dropped because B restricted to their aggregate was
  /// rank-deficient (an aggregate with fewer points than columns).
  size_type dropped = 0;
};

/// Stage 3 (Algorithm 3 for k columns): P(i, a k + c) = Q_a(i, c), where
/// B restricted to aggregate a is Q_a R_a (thin QR, modified Gram-Schmidt
/// over the aggregate's points in ascending order), so P^T P = I and
/// B = P B_c with B_c(a k + r, c) = R_a(r, c). `near_null_space` is
/// column-major (n x columns) on the aggregates' executor.
template <class T>
PiecewiseConstantInterpolation<T> piecewise_constant_interpolation(const Aggregates& aggregates,
                                                                   const Array<T>& near_null_space,
                                                                   int columns);

/// Stage 4: A_c = P^T A P by the aggregation paper's equation 7: every
/// product p_iI a_ij p_jJ is mapped to the key (I, J) = I * n_c + J, the keys
/// are sorted stably and the products of equal keys summed (a segmented
/// reduction) in that order. The products of one row i with the same J sit
/// side by side in A's order and are summed first, within the row (for
/// piecewise-constant P a row of A meets only one or a few aggregates), so
/// the sort sees a few keys per row instead of one per nonzero. The sorted
/// source indices and segment starts are kept, so recompute() is a gather
/// and segmented sums over them: no sorting, no allocation. For the usual P
/// with one entry in every row (k = 1, every point aggregated) the kept plan
/// is flattened to the products p_iI a_ij p_jJ themselves, coarse nonzero by
/// coarse nonzero in sorted order, so recompute() is one pass of contiguous
/// index reads (on an H200 at 256^3: 20-30 ms to build, 3 ms to recompute).
/// Assumes R = P^T (what the aggregation coarsening builds); R is only
/// checked for its shape.
template <class T>
class SortReduceCoarseProduct final : public CoarseProduct<T> {
 public:
  SortReduceCoarseProduct(const CsrMatrix<T>& R, const CsrMatrix<T>& A, const CsrMatrix<T>& P);
  std::shared_ptr<const LevelOperator<T>> result() const override { return op_; }
  /// A_c as a CSR matrix.
  const CsrMatrix<T>& matrix() const noexcept { return *Ac_; }
  /// New values of A and P on the patterns of construction (shapes and
  /// nonzero counts are checked: invalid_argument). Equals a fresh product
  /// bit for bit.
  void recompute(const CsrMatrix<T>& R, const CsrMatrix<T>& A, const CsrMatrix<T>& P);
  /// The same for CSR level operators (invalid_argument for other kinds).
  void recompute(const LevelOperator<T>& R, const LevelOperator<T>& A,
                 const LevelOperator<T>& P) override;
  /// Length of the sorted sequence: products p_iI s_(i,J) of an entry of
  /// P's row i and a row-combined slot (at most nnz(A) k^2).
  size_type contributions() const noexcept { return sorted_products_; }

 private:
  std::shared_ptr<CsrMatrix<T>> Ac_;  // values recomputed in place
  std::shared_ptr<const CsrOperator<T>> op_;
  // Step 1, per row of A: its pairs (nonzero, entry of P) and which of the
  // row's slots each adds into; the slot values (scratch of recompute).
  Array<offset_type> pair_ptr_, slot_ptr_;
  Array<index_type> pair_slot_;
  Array<T> slot_values_;
  // Step 2, in sorted order: the entry of P on the left and the slot;
  // coarse nonzero r sums [segment_start_[r], segment_start_[r+1]).
  Array<offset_type> left_, slot_, segment_start_;
  // One entry in every row of P: the plan flattened to the products
  // p[left] a[entry] p[right] themselves (no slots), coarse nonzero by
  // coarse nonzero.
  bool single_entry_ = false;
  Array<offset_type> entry_, right_;
  size_type sorted_products_ = 0;
  size_type a_rows_ = 0, a_nnz_ = 0, p_rows_ = 0, p_cols_ = 0, p_nnz_ = 0;
};

/// Stage 4 on the host: A_c = R A P row by row, each coarse row summed into
/// a dense accumulator of n_c entries per thread (Gustavson's method for
/// the triple product). On the host the sort of sort/reduce costs more than
/// the whole product (7-point 128^3 on two cores: see bench/NOTES.md), while
/// one coarse row's accumulator stays in cache. The pattern is kept, so
/// recompute() repeats only the sums; each coarse entry is summed in a
/// fixed order (R's fine rows, then A's and P's entries as stored), so the
/// result does not depend on the thread count. Host matrices only
/// (location_mismatch otherwise); any R, A, P of matching shapes.
template <class T>
class RowwiseCoarseProduct final : public CoarseProduct<T> {
 public:
  RowwiseCoarseProduct(const CsrMatrix<T>& R, const CsrMatrix<T>& A, const CsrMatrix<T>& P);
  std::shared_ptr<const LevelOperator<T>> result() const override { return op_; }
  /// A_c as a CSR matrix.
  const CsrMatrix<T>& matrix() const noexcept { return *Ac_; }
  /// New values of R, A and P on the patterns of construction (shapes and
  /// nonzero counts are checked: invalid_argument). Equals a fresh product
  /// bit for bit.
  void recompute(const CsrMatrix<T>& R, const CsrMatrix<T>& A, const CsrMatrix<T>& P);
  /// The same for CSR level operators (invalid_argument for other kinds).
  void recompute(const LevelOperator<T>& R, const LevelOperator<T>& A,
                 const LevelOperator<T>& P) override;

 private:
  std::shared_ptr<CsrMatrix<T>> Ac_;  // values recomputed in place
  std::shared_ptr<const CsrOperator<T>> op_;
  size_type r_nnz_ = 0, a_rows_ = 0, a_nnz_ = 0, p_cols_ = 0, p_nnz_ = 0;
};

}  // namespace strata::amg
