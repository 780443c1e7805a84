#pragma once
/// \file
/// Algebraic multigrid: the hierarchy, its cycles and its summary, shared by
/// every coarsening (classical, aggregation).
///
/// A coarsening turns a level's matrix A into transfer operators P and R
/// (R = P^T stored explicitly); the Galerkin product R A P gives the next
/// level. Setup stops at `max_levels`, at the level nearest `coarse_size`
/// rows (see HierarchyParams::coarse_size), or when the coarsening cannot
/// reduce the size further. The coarsest level is solved directly (a dense
/// inverse, on the device for a device hierarchy). Everything lives on A's
/// executor.
///
/// The layers, top to bottom:
///
///     Krylov methods (solve)  ---- Reduction: every global dot and norm
///            |                         ^
///     Hierarchy: setup stages, V/W/F/K cycles, coarse solve, resetup
///            |                sees levels only through
///     LevelOperator<T>  <----- Smoother<T>, spectral estimates
///       CsrOperator | BsrOperator | (a kind of your own)
///            |
///     Coarsening<T>: coarsen (P, R) / refresh / galerkin (CoarseProduct)
///       classical (CSR) | aggregation (CSR) | (your own)
///            |
///     matrices and kernels (CSR, BSR, SpGEMM, transpose), host or CUDA

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "strata/smoother/smoother.hpp"
#include "strata/solver/krylov.hpp"
#include "strata/solver/level_operator.hpp"

namespace strata::amg {

/// Seconds spent per named setup stage ("strength", "splitting",
/// "interpolation", "galerkin", ...), summed over levels.
using StageTimes = std::map<std::string, double>;

/// What a coarsening produces for one level: interpolation P (fine rows x
/// coarse columns) and restriction R (R = P^T stored explicitly), as level
/// operators of any kind (CSR, BSR, ...). The hierarchy shares them with
/// the coarsening, which may keep its own handle to refresh their values.
template <class T>
struct Transfer {
  std::shared_ptr<const LevelOperator<T>> P;
  std::shared_ptr<const LevelOperator<T>> R;
};

/// A coarse operator kept without what recomputing it would need (the
/// product's intermediates and plans): HierarchyParams::keep_resetup_data =
/// false. recompute() throws invalid_argument.
template <class T>
class FixedCoarseProduct final : public CoarseProduct<T> {
 public:
  explicit FixedCoarseProduct(std::shared_ptr<const LevelOperator<T>> Ac) : Ac_(std::move(Ac)) {}
  std::shared_ptr<const LevelOperator<T>> result() const override { return Ac_; }
  void recompute(const LevelOperator<T>&, const LevelOperator<T>&,
                 const LevelOperator<T>&) override {
    throw invalid_argument(
        "amg: this coarse operator was kept without its product plan "
        "(HierarchyParams::keep_resetup_data = false); it cannot be recomputed");
  }

 private:
  std::shared_ptr<const LevelOperator<T>> Ac_;
};

/// The coarsening contract (narrow, as in amgcl): build P and R for a level,
/// and refresh P's values when only A's values changed (the resetup of a
/// Newton step: no new strength, splitting or aggregates). A coarsening
/// sees levels through the level-operator contract; one that needs a
/// particular kind (classical and aggregation need CSR: csr_matrix()) says
/// so by name when handed another. It may hand the next level a different
/// kind than its own: the Galerkin product of its R and P decides.
template <class T>
class Coarsening {
 public:
  virtual ~Coarsening() = default;
  /// P and R for the level `level` operator A, or nothing when A cannot be
  /// coarsened further (every point would stay). Adds its stage times to
  /// `times`. The coarsening may keep per-level state for refresh().
  virtual std::optional<Transfer<T>> coarsen(const LevelOperator<T>& A, int level,
                                             StageTimes& times) = 0;
  /// New values of P (and R) for new values of A with the same pattern,
  /// written into the operators of `transfer` (which the coarsening made)
  /// or by replacing them. The default keeps P: right for coarsenings whose
  /// P does not depend on A's values (piecewise-constant aggregation).
  virtual void refresh(const LevelOperator<T>& A, int level, Transfer<T>& transfer,
                       StageTimes& times) {
    (void)A, (void)level, (void)transfer, (void)times;
  }
  /// Whether refresh() keeps the patterns of P and R (new values only, in
  /// operators of the same shape and pattern). The hierarchy's resetup then
  /// recomputes the Galerkin products without fingerprinting them again
  /// (CoarseProduct::recompute_trusted): true for the library's classical,
  /// aggregation and smoothed-aggregation coarsenings. The default, false,
  /// has every recompute check every operand's pattern.
  virtual bool refresh_keeps_patterns() const { return false; }
  /// The Galerkin product for this coarsening's P. The default is the
  /// level's own (A.galerkin(R, P)); a coarsening with a special P may do
  /// better (the aggregation paper's sort and segmented reduction for
  /// piecewise-constant P).
  virtual std::unique_ptr<CoarseProduct<T>> galerkin(const LevelOperator<T>& R,
                                                     const LevelOperator<T>& A,
                                                     const LevelOperator<T>& P) {
    return A.galerkin(R, P);
  }
  /// The coarse rows of level `level`'s transfer were moved to other
  /// processes after coarsen() (agglomeration): a coarsening that keeps
  /// data per coarse row for the next level (aggregation's coarse
  /// near-null space) passes each such vector through `move`, which takes a
  /// vector split like the coarse rows were and returns it split like they
  /// are now (collective). The default keeps no such data.
  virtual void move_coarse_rows(int level, const std::function<Vector<T>(const Vector<T>&)>& move) {
    (void)level, (void)move;
  }
  /// The hierarchy coarsens the one process's block of a distributed
  /// operator by the serial path (HierarchyParams::serial_on_one_process):
  /// the coarsening then accepts and refuses what it would on a distributed
  /// level. Classical: the parallel recipe for automatic choices (the
  /// hierarchy every number of processes builds) and hmis refused;
  /// smoothed aggregation: a scalar CSR level 0 with block_size > 1 (made
  /// BSR, as on one process without MPI). Called before the first
  /// coarsen(). The default has no such choices.
  virtual void coarsen_as_distributed() {}
  /// The form in which the serial path on one process keeps level 0, given
  /// the process's block as scalar CSR (at setup and at each resetup). The
  /// default keeps it; smoothed aggregation with block_size > 1 makes it
  /// BSR, so that its smoother and Galerkin product run on blocks (the
  /// hierarchy then holds that copy of A beside the caller's).
  virtual std::shared_ptr<const LevelOperator<T>> one_process_level_zero(
      std::shared_ptr<const LevelOperator<T>> block) const {
    return block;
  }
  /// Frees what refresh() would need (HierarchyParams::keep_resetup_data =
  /// false); refresh() may then throw. The default keeps nothing extra.
  virtual void release_refresh_data() {}
  /// Frees what refresh() can rebuild from what it keeps
  /// (HierarchyParams::lean_resetup_data): refresh() then rebuilds it each
  /// time and frees it again, giving the same P. The default frees nothing.
  virtual void release_rebuildable_data() {}
  /// Name for the summary ("classical PMIS + ext+i", "aggregation MIS(2)").
  virtual std::string name() const = 0;
};

/// V, W and F cycles; K: the K-cycle of Notay (the aggregation paper's
/// Algorithm 5), in which the coarse-grid correction of the top
/// `kcycle_levels` levels is two steps of a Krylov method (CG or GMRES
/// flavour) preconditioned by the cycle on the next level; the levels below
/// take V-cycles. A K-cycle is not a fixed linear map (its inner Krylov
/// coefficients depend on the vector): precondition FCG or FGMRES with it.
enum class CycleType { V, W, F, K };

/// "V", "W", "F", "K".
const char* to_string(CycleType type) noexcept;

/// The precision the cycles compute in (HierarchyParams::cycle_precision).
/// full: the hierarchy's value type (double). single: the levels'
/// operators, transfers, smoothers and coarse inverse rounded to float once
/// setup is done, and every cycle computed in float: mixed precision, as
/// hypre and AmgX offer it, under a Krylov method that stays in double.
/// automatic: single where it was measured to win (see
/// automatic_single_precision_rows), full elsewhere.
enum class CyclePrecision { full, single, automatic };

/// CyclePrecision::automatic takes single precision for a CSR or BSR level
/// 0 on a CUDA device with at least this many rows (2^20), on one process,
/// when every level has a single-precision form (its smoother too), and
/// full precision otherwise. Measured on an H200 (bench/NOTES.md): at
/// 256^3 the float cycle solves 1.2x faster (7-point and 27-point,
/// classical and aggregation) in the same iterations, and setup + solve is
/// 5-12% faster; blocked smoothed aggregation on elasticity3d at 2.7M rows
/// solves 1.4x faster in the same iterations; at 64^3 (262,144 rows) the
/// fixed costs (the conversions, a scaling reduction per application) make
/// it 13% slower. The host keeps double: two cores gained nothing from it.
inline constexpr size_type automatic_single_precision_rows = size_type{1} << 20;

/// "double" (full), "single", "auto".
const char* to_string(CyclePrecision precision) noexcept;

/// What setup reports as each level is finished (HierarchyParams::on_level).
struct LevelBuilt {
  /// 0 = finest.
  int level = 0;
  size_type rows = 0;
  size_type nnz = 0;
  /// Rows of the next, coarser level; 0 when this is the coarsest level
  /// (whose report comes after its coarse solver is built).
  size_type coarse_rows = 0;
  /// Seconds this level took (as LevelSummary::setup_seconds).
  double seconds = 0;
  /// Seconds since setup began.
  double elapsed_seconds = 0;
};

/// Parameters of the hierarchy and its cycle.
struct HierarchyParams {
  int max_levels = 25;
  /// Target size of the coarsest level, which is solved directly. Setup
  /// stops at the first level with at most this many rows, or one level
  /// earlier when that level is nearer the target in ratio (its rows /
  /// coarse_size < coarse_size / the next level's rows) and has at most
  /// twice coarse_size rows. Level 0 is always coarsened when it is larger.
  /// 0 (the default): default_coarse_size() of the matrix's executor.
  size_type coarse_size = 0;
  CycleType cycle = CycleType::V;
  /// K-cycle only: levels 0 .. kcycle_levels-1 compute their coarse-grid
  /// correction with two inner Krylov steps (fewer when the first already
  /// reduces the coarse residual by kcycle_threshold); the levels below use
  /// V-cycles. The paper finds two levels enough for grid independence on
  /// the GPU, where coarse levels are inefficient (each K level doubles the
  /// visits of every level below it).
  int kcycle_levels = 2;
  /// The inner Krylov method of the K-cycle: CG (minimises the A-norm of the
  /// error; for symmetric positive definite A) or GMRES (minimises the
  /// residual norm; also for nonsymmetric A).
  enum class KcycleFlavour { cg, gmres };
  KcycleFlavour kcycle_flavour = KcycleFlavour::cg;
  /// Skip the second inner step when the first leaves at most this fraction
  /// of the coarse residual norm (Notay's t = 0.25).
  double kcycle_threshold = 0.25;
  int pre_sweeps = 1;
  int post_sweeps = 1;
  /// Smoother on every level but the coarsest (l1-Jacobi, as hypre on
  /// GPUs). default_smoother(exec) is the library's default for an
  /// executor, which the configuration's "auto" takes.
  SmootherParams smoother = L1JacobiParams{};
  /// Time every level of every cycle (synchronises the device per level,
  /// which costs some speed; off by default).
  bool profile_levels = false;
  /// Keep what a value-only resetup() needs: the coarsening's interpolation
  /// operands and the Galerkin products' intermediates and plans (classical
  /// AMG on 7-point 256^3: several GB; see bench/NOTES.md). false frees them
  /// once setup is done, and resetup() then throws invalid_argument.
  bool keep_resetup_data = true;
  /// With keep_resetup_data: keep only what a resetup cannot rebuild from
  /// the patterns (strength flags, splittings, interpolation roles and
  /// truncation choices, the products' schedules), not the intermediates
  /// (classical interpolation's operands and untruncated products, the
  /// Galerkin products' A P). resetup() rebuilds those, patterns and values,
  /// and frees them again: the same hierarchy, a resetup that costs more
  /// (the products' symbolic phases again), and much less memory held
  /// between resetups (classical AMG, 7-point Poisson 256^3 on an H100:
  /// 5.6 GB held against 14.8 GB, resetup 0.11 s against 0.07 s, and 4.8 GB
  /// more while a resetup runs; bench/NOTES.md). Ignored without
  /// keep_resetup_data.
  bool lean_resetup_data = false;
  /// The cycle in the hierarchy's precision (full), or in single precision
  /// (single): setup builds the hierarchy in double as always, then rounds
  /// each level's operator, P, R, smoother data and the coarse inverse to
  /// float and frees its double smoothers; apply() scales the residual by
  /// the power of two that brings its largest entry into [1, 2) (exact),
  /// rounds it, cycles in float and returns the correction in double. The
  /// cycle then moves about two thirds of the bytes (4-byte values and
  /// vectors beside 4-byte column indices), while the Krylov method around
  /// it, its residuals and its stopping test stay in double, so it still
  /// reaches tolerances far below float's 1e-7: a preconditioner needs only
  /// to be a good approximation (a float V-cycle is linear only to float's
  /// rounding, which CG tolerates in practice: the same iterations on every
  /// case of bench/NOTES.md). With
  /// keep_resetup_data the hierarchy holds the float values besides its
  /// double levels, sharing their patterns (resetup() refreshes the double
  /// levels and rounds again); without it the double levels below level 0
  /// and the double transfers are freed once rounded, and
  /// level_operator(l > 0) and level_interpolation_operator() then throw
  /// invalid_argument. Smoothers: Jacobi, l1-Jacobi and Chebyshev
  /// (scalar and block); levels: CSR and BSR on one process. With single,
  /// others throw invalid_argument at setup naming what has no
  /// single-precision form; automatic (the default) then keeps double and
  /// says why in the summary (HierarchySummary::cycle_precision).
  CyclePrecision cycle_precision = CyclePrecision::automatic;
  /// Distributed levels only (agglomeration, hypre's and PETSc GAMG's
  /// processor reduction): a coarse level of fewer rows than this, over
  /// all processes, is gathered onto process 0 with every level below it
  /// (its transfer composed with the redistribution), so that the small
  /// levels' products exchange no halo and the coarsest level needs no
  /// gather. 0 (the default): never, until the gain is measured across
  /// GPUs; the coarsest level is then solved on every process.
  size_type agglomeration_rows = 0;
  /// A distributed operator whose processes are one (`mpirun -np 1`) is
  /// its diagonal block: the hierarchy is then built and cycled by the
  /// serial path on that block (shared, not copied), the same hierarchy
  /// `strata solve` builds without MPI, so one process pays nothing for
  /// the halo and column-map machinery (issue 17's 5% bound). The Krylov
  /// method around it still runs on the distributed operator. false keeps
  /// the distributed path on one process: for testing and measuring it.
  bool serial_on_one_process = true;
  /// Called on the setting-up thread once per level as setup finishes it,
  /// finest first, then once for the coarsest level: a long setup can
  /// report progress while it runs (`strata solve` prints a line per level)
  /// without timing code of its own. The level's device work is finished
  /// when it is called; the call itself is all it costs. Empty: nothing is
  /// called. An exception it throws ends the setup and propagates.
  std::function<void(const LevelBuilt&)> on_level = nullptr;
};

/// "cg", "gmres".
const char* to_string(HierarchyParams::KcycleFlavour flavour) noexcept;

/// The library's default smoother of classical AMG, by where the levels
/// live (the one place that decides it):
/// - host: hybrid l1 Gauss-Seidel, forward on the way down and backward on
///   the way up (GaussSeidelParams{}; hypre's host default, relax 13/14),
///   which keeps the V-cycle symmetric for CG and, with blocks fixed by
///   the matrix, gives the same iterations on any number of threads;
/// - device: damped Jacobi with omega = 4 / (3 rho(D^-1 A)), rho estimated
///   per level (JacobiParams with estimate_omega), as the aggregation paper
///   smooths. It costs the same per sweep as l1-Jacobi (hypre's GPU
///   default), whose D_l1 damps a Laplacian row by 1/2 where this damps it
///   by about 2/3; it took 25-35% fewer PCG iterations on every matrix tried
///   (bench/NOTES.md, session 22) for a few SpMVs per level of setup. The
///   Gauss-Seidel forms (multicolor, two-stage) and Chebyshev cost more per
///   iteration than they save on the device.
SmootherParams default_smoother(const Executor& exec);
/// The same by where the levels live (a configuration judged before any
/// executor exists).
SmootherParams default_smoother(Location where);

/// The library's default target size of the coarsest level, by executor:
/// - host: 64 rows. The direct solve of a small level costs nothing on a
///   CPU, and stopping lower keeps at least three levels on problems of a
///   few thousand rows, as hypre's host defaults do (measured in issue 16:
///   with 600, tucker21935 stopped at 2 levels and bcsstk13 at 639 rows);
/// - device: 600 rows, where each extra small level costs kernel launches
///   more than its work.
size_type default_coarse_size(const Executor& exec);

/// One row of the hierarchy summary.
struct LevelSummary {
  /// Over all processes for a distributed level.
  size_type rows = 0;
  size_type nnz = 0;
  /// Shortest and longest rows: this process's, for a distributed level
  /// (the summary is not collective).
  size_type min_row_nnz = 0;
  double mean_row_nnz = 0;
  size_type max_row_nnz = 0;
  /// rows of the level above / rows of this level (0 for level 0).
  double coarsening_ratio = 0;
  /// The level operator's kind (LevelOperator::kind(): "CSR", "BSR 3x3"),
  /// so that a blocked hierarchy shows where its levels keep their blocks.
  std::string kind;
  /// Rows and columns of the operator's blocks: 1 x 1 for a scalar (CSR)
  /// level, r x c for BSR (6 x 6 on the coarse levels of 3D smoothed
  /// aggregation with rigid-body modes).
  int row_block_size = 1;
  int col_block_size = 1;
  /// Seconds in this level's part of the cycles (profile_levels only).
  double solve_seconds = 0;
  /// Seconds of the last setup spent on this level: its coarsening (the
  /// transfer to the next level), the Galerkin product that makes the next
  /// level's matrix, and its smoother; on the coarsest level, its coarse
  /// solver and the cycle's work vectors.
  double setup_seconds = 0;
};

/// The whole summary: what `strata solve` prints and puts in its JSON.
struct HierarchySummary {
  std::string coarsening;
  std::vector<LevelSummary> levels;
  /// sum of nnz over levels / nnz of level 0.
  double operator_complexity = 0;
  /// sum of rows over levels / rows of level 0.
  double grid_complexity = 0;
  /// How the coarsest level is solved: "dense inverse of N rows", or
  /// smoothing sweeps and why (too many rows, or a singular matrix).
  std::string coarse_solver;
  /// The precision the cycles compute in, "double" or "single", and for
  /// an automatic choice that could not take single precision, why.
  std::string cycle_precision;
  StageTimes setup_stage_seconds;
  double setup_seconds = 0;
  /// The last value-only resetup (0 when there was none).
  double resetup_seconds = 0;
  /// Bytes the hierarchy holds on its executor after setup (levels below 0,
  /// transfers, smoothers, coarse inverse, and what resetup needs when it is
  /// kept): the executor's in-use memory after setup minus before.
  std::size_t setup_bytes = 0;
  /// The most the setup had in use at once above what was in use before it
  /// (setup_bytes plus its largest transient scratch): what a problem must
  /// leave free. Setup restarts the executor's peak count
  /// (Executor::reset_peak_memory()) to measure it.
  std::size_t setup_peak_bytes = 0;
};

/// An AMG hierarchy, usable as a preconditioner (one cycle from a zero
/// initial guess per apply) or as a stand-alone solver (solve()). It shares
/// ownership of the finest operator and owns everything else; every global
/// sum of its cycles (K-cycle), solve() and smoothers' spectral estimates
/// goes through its Reduction.
template <class T>
class Hierarchy final : public LinearOperator<T> {
 public:
  /// Builds the hierarchy of A (any level kind) with `coarsening`.
  /// `reduction` (default: one process) combines global sums.
  Hierarchy(std::shared_ptr<const LevelOperator<T>> A, std::unique_ptr<Coarsening<T>> coarsening,
            const HierarchyParams& params = {},
            std::shared_ptr<const Reduction<T>> reduction = nullptr);
  /// The same for a CSR matrix (shared, not copied).
  Hierarchy(std::shared_ptr<const CsrMatrix<T>> A, std::unique_ptr<Coarsening<T>> coarsening,
            const HierarchyParams& params = {},
            std::shared_ptr<const Reduction<T>> reduction = nullptr);
  ~Hierarchy() override;
  Hierarchy(const Hierarchy&) = delete;
  Hierarchy& operator=(const Hierarchy&) = delete;

  size_type rows() const override;
  size_type cols() const override;
  const Executor& executor() const override;
  /// x = one cycle applied to b from x = 0.
  void apply(const Vector<T>& b, Vector<T>& x) const override;
  std::string describe() const override;
  /// False for a K-cycle with at least one inner Krylov level: its apply()
  /// is not a fixed linear map, so it needs a flexible method (FCG, FGMRES).
  bool is_fixed() const override;

  /// Cycles x <- x + cycle(b - A x) until the Krylov stopping test of
  /// `params` holds (stand-alone AMG; strata::solve_stationary).
  SolveInfo solve(const Vector<T>& b, Vector<T>& x, const KrylovParams& params) const;

  /// New values of the finest operator with the same pattern: refreshes P,
  /// R, the Galerkin products, the smoothers and the coarse inverse without
  /// redoing the coarsening. This form takes the operator the hierarchy
  /// holds, whose values the caller changed in place (through its own
  /// handle to the matrix).
  void resetup();
  /// The same with another operator of the same kind and pattern, which
  /// then replaces the one held. Throws invalid_argument when the shape or
  /// the number of entries differs, or when the hierarchy was built with
  /// keep_resetup_data = false.
  void resetup(std::shared_ptr<const LevelOperator<T>> A);
  void resetup(std::shared_ptr<const CsrMatrix<T>> A);

  int num_levels() const noexcept;
  /// The operator of level l (0 = finest). Throws invalid_argument for
  /// l > 0 once the double levels were freed (a single-precision cycle
  /// without resetup data, see HierarchyParams::cycle_precision), as do
  /// the interpolation accessors below for every level.
  const LevelOperator<T>& level_operator(int l) const;
  /// The same, shared.
  std::shared_ptr<const LevelOperator<T>> shared_level_operator(int l) const;
  /// The CSR matrix of level l (invalid_argument when that level is
  /// another kind).
  const CsrMatrix<T>& level_matrix(int l) const;
  /// P of level l (to level l + 1).
  const LevelOperator<T>& level_interpolation_operator(int l) const;
  /// P of level l as CSR (invalid_argument when it is another kind).
  const CsrMatrix<T>& level_interpolation(int l) const;
  HierarchySummary summary() const;
  const HierarchyParams& params() const noexcept;
  const Reduction<T>& reduction() const noexcept;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// The summary as a table, for printing.
std::string format_summary(const HierarchySummary& summary);

}  // namespace strata::amg
