// The AMG hierarchy: setup in named stages, the cycles, the coarse solve,
// value-only resetup and the summary. Written once for host and device, and
// once for every kind of level: it sees levels only through the
// level-operator contract, and every global sum through its Reduction.

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
#include <tuple>
#include <utility>
#include <variant>

#include "core/amg/stage_timer.hpp"
#include "core/distributed/agglomeration.hpp"
#include "core/single_precision.hpp"
#include "kernels/amg/coarse_solve_kernels.hpp"
#include "strata/amg/amg.hpp"
#include "strata/distributed/operator.hpp"

namespace strata::amg {

const char* to_string(CycleType type) noexcept {
  switch (type) {
    case CycleType::V:
      return "V";
    case CycleType::W:
      return "W";
    case CycleType::F:
      return "F";
    case CycleType::K:
      return "K";
  }
  return "?";
}

SmootherParams default_smoother(Location where) {
  if (where == Location::host) return GaussSeidelParams{};
  return JacobiParams{.estimate_omega = true};
}

SmootherParams default_smoother(const Executor& exec) { return default_smoother(exec.location()); }

size_type default_coarse_size(const Executor& exec) { return exec.is_host() ? 64 : 600; }

const char* to_string(CyclePrecision precision) noexcept {
  switch (precision) {
    case CyclePrecision::full:
      return "double";
    case CyclePrecision::single:
      return "single";
    case CyclePrecision::automatic:
      return "auto";
  }
  return "?";
}

const char* to_string(HierarchyParams::KcycleFlavour flavour) noexcept {
  switch (flavour) {
    case HierarchyParams::KcycleFlavour::cg:
      return "cg";
    case HierarchyParams::KcycleFlavour::gmres:
      return "gmres";
  }
  return "?";
}

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

using detail::StageTimer;

/// Above this many rows the coarsest level is not inverted densely (the
/// inverse would need rows^2 values) but smoothed.
constexpr size_type max_dense_rows = 4096;
constexpr int coarse_smoothing_sweeps = 20;

}  // namespace

/// What the cycles run on, in the precision S they compute in: each
/// level's operator, transfer and smoother (the setup's own objects when S
/// is the hierarchy's type, rounded copies for the single-precision cycle),
/// the work vectors and the coarse inverse. The cycles themselves (V, W, F,
/// K and the coarse solve) are written once, here, for either precision.
template <class S>
struct Cycles {
  struct Level {
    std::shared_ptr<const LevelOperator<S>> A;
    std::shared_ptr<const LevelOperator<S>> P, R;  // to the next level; null on the coarsest
    std::shared_ptr<const Smoother<S>> smoother;   // null on a coarsest level inverted densely
    mutable Vector<S> b, x, r;  // right-hand side and solution (level 0 in single precision
                                // and coarse levels), residual
    // K-cycle: the two inner Krylov directions c, d and their images
    // v = A c, w = A d (levels solved by inner Krylov steps only).
    mutable Vector<S> kc, kv, kd, kw;
    mutable double seconds = 0;
  };

  const HierarchyParams* params = nullptr;
  std::shared_ptr<const Reduction<S>> reduction;
  std::vector<Level> levels;
  Array<S> coarse_inverse;  // column-major, or empty when the coarsest level is smoothed
  // A distributed coarsest level: the whole right-hand side and solution,
  // on every process (the direct solve is redundant, see build_coarse_solver).
  mutable Vector<S> coarse_b, coarse_x;

  int last() const { return static_cast<int>(levels.size()) - 1; }

  /// Whether level l's coarse-grid correction is computed by inner Krylov
  /// steps (a K-cycle level whose coarse level is not the coarsest).
  bool krylov_level(int l) const {
    return params->cycle == CycleType::K && l < params->kcycle_levels && l + 1 < last();
  }

  /// What one level's cycle runs on (install()'s input).
  struct Operators {
    std::shared_ptr<const LevelOperator<S>> A, P, R;
    std::shared_ptr<const Smoother<S>> smoother;
  };

  /// The levels' operators and the coarse inverse the cycles run on, after
  /// setup and after each resetup. The work vectors are kept when they
  /// exist already (a resetup changes values, not sizes); level 0 of a
  /// cycle in another precision than the caller's vectors has its own b
  /// and x.
  void install(const HierarchyParams& p, std::shared_ptr<const Reduction<S>> sums,
               std::vector<Operators> ops, Array<S> inverse, bool own_level_zero) {
    params = &p;
    reduction = std::move(sums);
    levels.resize(ops.size());
    for (std::size_t l = 0; l < ops.size(); ++l) {
      levels[l].A = std::move(ops[l].A);
      levels[l].P = std::move(ops[l].P);
      levels[l].R = std::move(ops[l].R);
      levels[l].smoother = std::move(ops[l].smoother);
    }
    coarse_inverse = std::move(inverse);
    for (int l = 0; l <= last(); ++l) {
      Level& level = levels[l];
      const Executor& e = level.A->executor();
      const size_type n = level.A->rows();
      if (level.r.size() == n && level.r.size() > 0) continue;
      level.r = Vector<S>(e, n);
      if (l > 0 || own_level_zero) {
        level.b = Vector<S>(e, n);
        level.x = Vector<S>(e, n);
      }
      if (l > 0 && krylov_level(l - 1)) {
        level.kc = Vector<S>(e, n);
        level.kv = Vector<S>(e, n);
        level.kd = Vector<S>(e, n);
        level.kw = Vector<S>(e, n);
      }
    }
    const auto& coarsest = *levels.back().A;
    const bool gathered = !coarse_inverse.empty() && coarsest.distributed();
    coarse_b = gathered ? Vector<S>(coarsest.executor(), coarsest.global_rows()) : Vector<S>();
    coarse_x = gathered ? Vector<S>(coarsest.executor(), coarsest.global_rows()) : Vector<S>();
  }

  /// x = A_c^-1 b on the coarsest level.
  void coarse_solve(const Vector<S>& b, Vector<S>& x, bool x_is_zero) const {
    const Level& c = levels.back();
    if (!coarse_inverse.empty()) {
      if (c.A->distributed()) {
        c.A->gather_all(b, coarse_b);
        c.A->executor().visit([&](const auto& e) {
          kernels::amg::dense_matvec(e, coarse_b.size(), coarse_inverse.data(), coarse_b.data(),
                                     coarse_x.data());
        });
        if (x.size() > 0) {
          copy_bytes(x.data(), x.executor(), coarse_x.data() + c.A->global_row_begin(),
                     coarse_x.executor(), x.values().bytes());
        }
        return;
      }
      c.A->executor().visit([&](const auto& e) {
        kernels::amg::dense_matvec(e, c.A->rows(), coarse_inverse.data(), b.data(), x.data());
      });
      return;
    }
    if (x_is_zero) {
      c.smoother->apply(b, x);
      c.smoother->smooth(b, x, coarse_smoothing_sweeps - 1);
    } else {
      c.smoother->smooth(b, x, coarse_smoothing_sweeps);
    }
  }

  /// One cycle of `type` on level l for A_l x = b; x_is_zero lets the first
  /// smoothing sweep skip the product A x.
  void cycle(int l, CycleType type, const Vector<S>& b, Vector<S>& x, bool x_is_zero) const {
    const Level& level = levels[l];
    const HierarchyParams& p = *params;
    auto start = Clock::now();
    if (l == last()) {
      coarse_solve(b, x, x_is_zero);
      account(level, start);
      return;
    }
    if (p.pre_sweeps > 0) {
      if (x_is_zero) {
        level.smoother->apply(b, x);
        level.smoother->smooth(b, x, p.pre_sweeps - 1);
      } else {
        level.smoother->smooth(b, x, p.pre_sweeps);
      }
    } else if (x_is_zero) {
      x.fill(S{0});
    }
    // r = b - A x; b_c = R r; x_c = 0
    level.A->residual(b, x, level.r);
    const Level& coarse = levels[l + 1];
    level.R->apply(level.r, coarse.b);
    account(level, start);
    if (type == CycleType::K && krylov_level(l)) {
      krylov_correction(l + 1);
    } else {
      // W: two W-cycles; F: an F-cycle, then a V-cycle; K below the K
      // levels: a V-cycle.
      const int visits = type == CycleType::V || type == CycleType::K ? 1 : 2;
      for (int v = 0; v < visits; ++v) {
        const CycleType next =
            type == CycleType::K || (type == CycleType::F && v == 1) ? CycleType::V : type;
        cycle(l + 1, next, coarse.b, coarse.x, v == 0);
      }
    }
    start = Clock::now();
    if (p.post_sweeps > 0) {
      // r (free now) = x + P x_c; the first sweep goes from r back into x
      // in one pass over A. Post-smoothing is the adjoint of pre-smoothing
      // (a forward Gauss-Seidel sweep runs backward), so the cycle is symmetric.
      level.P->apply(S{1}, coarse.x, S{1}, x, level.r);
      level.smoother->post_smooth(b, level.r, x, p.post_sweeps);
    } else {
      level.P->apply(S{1}, coarse.x, S{1}, x, x);  // x += P x_c
    }
    account(level, start);
  }

  /// The K-cycle's coarse-grid correction on level k (Algorithm 5, lines
  /// 11-25): x = the best combination of c = B r and d = B r~ (B: the cycle on
  /// level k, r~ = r - (alpha1/rho1) A c) in the A-norm (CG flavour) or the
  /// residual norm (GMRES flavour), where r = levels[k].b and x = levels[k].x.
  /// The second step is skipped when the first reduces ||r|| by the
  /// threshold. r is overwritten with r~. The inner products are summed in
  /// S (float in single precision), the coefficients formed from them in
  /// double.
  void krylov_correction(int k) const {
    const Level& c = levels[k];
    const LevelOperator<S>& A = *c.A;
    const Reduction<S>& sum = *reduction;
    const bool cg = params->kcycle_flavour == HierarchyParams::KcycleFlavour::cg;
    Vector<S>& r = c.b;
    cycle(k, CycleType::K, r, c.kc, true);  // c = B r
    double rho1, alpha1, rr;
    if (cg) {
      rho1 = sum.global(A.apply_dot(c.kc, c.kv));  // v = A c, c^T A c
      std::tie(alpha1, rr) = sum.global(dot2(r, c.kc, r));
    } else {
      A.apply(c.kc, c.kv);
      std::tie(rho1, alpha1) = sum.global(dot2(c.kv, c.kv, r));
      rr = sum.dot(r, r);
    }
    if (!(rho1 > 0) || !std::isfinite(rho1)) {
      // c is useless (B r = 0, or A not positive on it): no correction
      // beyond what the cycle gave.
      copy(c.kc.values(), c.x.values());
      return;
    }
    const double a1 = alpha1 / rho1;
    const double rt = sum.global(axpy_norm2_squared(S(-a1), c.kv, r));  // r~ = r - a1 v
    const double t = params->kcycle_threshold;
    if (rt <= t * t * rr) {
      axpby(S(a1), c.kc, S{0}, c.x);
      return;
    }
    cycle(k, CycleType::K, r, c.kd, true);  // d = B r~
    double gamma, beta, alpha2;
    if (cg) {
      beta = sum.global(A.apply_dot(c.kd, c.kw));  // w = A d, d^T A d
      std::tie(gamma, alpha2) = sum.global(dot2(c.kd, c.kv, r));
    } else {
      A.apply(c.kd, c.kw);
      std::tie(gamma, beta) = sum.global(dot2(c.kw, c.kv, c.kw));
      alpha2 = sum.dot(c.kw, r);
    }
    const double rho2 = beta - gamma * gamma / rho1;
    // d adds nothing new when rho2 is lost in S's rounding of beta (1e-14
    // in double as always, about 5e-6 in float).
    const double floor = std::max(1e-14, 40.0 * double(std::numeric_limits<S>::epsilon()));
    if (!(rho2 > floor * beta) || !std::isfinite(rho2)) {
      axpby(S(a1), c.kc, S{0}, c.x);
      return;
    }
    axpbyz(S(a1 - gamma * alpha2 / (rho1 * rho2)), c.kc, S(alpha2 / rho2), c.kd, c.x);
  }

  void account(const Level& level, Clock::time_point start) const {
    if (!params->profile_levels) return;
    level.A->executor().synchronize();
    level.seconds += seconds_since(start);
  }
};

template <class T>
struct Hierarchy<T>::Impl {
  /// A level as setup builds it and resetup refreshes it; the cycles run on
  /// `full` (these objects) or on `single` (their rounded copies).
  struct Level {
    std::shared_ptr<const LevelOperator<T>> A;
    std::optional<Transfer<T>> transfer;         // to the next level; absent on the coarsest
    std::unique_ptr<CoarseProduct<T>> galerkin;  // owns the next level's A
    std::shared_ptr<const Smoother<T>> smoother;
    double setup_seconds = 0;  // building this level's transfer, A_c and smoother
  };

  HierarchyParams params;
  std::shared_ptr<const Reduction<T>> reduction;
  std::unique_ptr<Coarsening<T>> coarsening;
  std::vector<Level> levels;
  /// The coarsest level's inverse (column-major), or empty when it is
  /// smoothed; kept here only until the cycle takes it.
  Array<T> coarse_inverse;
  Cycles<T> full;        // cycle_precision = full
  Cycles<float> single;  // cycle_precision = single
  std::string coarse_solver;
  StageTimes stage_times;
  std::size_t setup_bytes = 0;
  std::size_t setup_peak_bytes = 0;
  double setup_seconds = 0;
  double resetup_seconds = 0;
  /// A distributed operator on one process took the serial path (level_zero).
  bool serial_on_one_process = false;
  /// The operator the caller gave (setup or the last resetup): levels[0].A
  /// may be a form of it made by level_zero (a BSR copy on the serial path
  /// of smoothed aggregation), which resetup() must make again from the
  /// caller's changed values.
  std::shared_ptr<const LevelOperator<T>> given;

  const Executor& exec() const { return levels.front().A->executor(); }
  int last() const { return static_cast<int>(levels.size()) - 1; }
  /// Why cycle_precision = automatic kept double although it could have
  /// taken single (what had no single-precision form); empty otherwise.
  std::string precision_reason;

  /// The cycles compute in float (cycle_precision, resolved by build_cycle,
  /// which installs exactly one of the two cycles).
  bool single_precision() const { return !single.levels.empty(); }

  /// Throws for a double operator of level l that is not held (freed once
  /// rounded: single precision without resetup data).
  static void require_held(bool held, int l, const char* what) {
    if (!held) {
      throw invalid_argument(std::string("amg::Hierarchy: level ") + std::to_string(l) + "'s " +
                             what +
                             " is held in single precision only (cycle_precision single with "
                             "keep_resetup_data = false frees the double levels); keep the "
                             "resetup data or cycle in double to read it");
    }
  }

  /// Where cycle_precision = automatic tries single precision (see
  /// automatic_single_precision_rows).
  static bool automatic_candidate(const LevelOperator<T>& A0) {
    return A0.executor().is_cuda() && !A0.distributed() &&
           (dynamic_cast<const CsrOperator<T>*>(&A0) != nullptr ||
            dynamic_cast<const BsrOperator<T>*>(&A0) != nullptr) &&
           A0.rows() >= automatic_single_precision_rows;
  }

  /// Whether the smoother has a single-precision form (Smoother::
  /// to_single): asked first, so that automatic precision does not round
  /// the levels of a hierarchy smoothed by Gauss-Seidel or ILU only to
  /// find out at its smoother.
  bool smoother_has_single_form() const {
    return std::holds_alternative<JacobiParams>(params.smoother) ||
           std::holds_alternative<L1JacobiParams>(params.smoother) ||
           std::holds_alternative<ChebyshevParams>(params.smoother);
  }

  void build_smoother(Level& level) {
    StageTimer t(level.A->executor(), stage_times, "smoother");
    level.smoother = make_smoother(level.A, params.smoother, *reduction);
  }

  /// The cycle's levels from the setup's, after setup and after each
  /// resetup: shared in full precision; in single precision, every
  /// operator, transfer, smoother and the coarse inverse rounded to float,
  /// and the double smoothers then freed (the float cycle never uses them;
  /// a resetup builds them again).
  void build_cycle() {
    const CyclePrecision wanted = params.cycle_precision;
    precision_reason.clear();
    const bool candidate =
        wanted == CyclePrecision::automatic && automatic_candidate(*levels.front().A);
    if (candidate && !smoother_has_single_form()) {
      precision_reason =
          "the smoother " + smoother_name(params.smoother) + " has no single-precision form";
    } else if (wanted == CyclePrecision::single || candidate) {
      try {
        build_single_cycle();
        full = Cycles<T>{};
        return;
      } catch (const invalid_argument& e) {
        if (wanted == CyclePrecision::single) throw;
        precision_reason = e.what();
        single = Cycles<float>{};
      }
    }
    build_full_cycle();
  }

  void build_full_cycle() {
    std::vector<typename Cycles<T>::Operators> ops(levels.size());
    for (std::size_t l = 0; l < levels.size(); ++l) {
      const Level& level = levels[l];
      ops[l] = {level.A, level.transfer ? level.transfer->P : nullptr,
                level.transfer ? level.transfer->R : nullptr, level.smoother};
    }
    full.install(params, reduction, std::move(ops), std::move(coarse_inverse), false);
  }

  /// The rounded copies; throws invalid_argument naming the level and what
  /// has no single-precision form, before it changes anything the full
  /// cycle needs.
  void build_single_cycle() {
    StageTimer t(exec(), stage_times, "single precision");
    // Rounded aside and installed only when every level converted, so that
    // a conversion that throws (at a resetup too) leaves the cycle as it was.
    std::vector<Cycles<float>::Operators> ops(levels.size());
    const std::string mode = params.cycle_precision == CyclePrecision::single
                                 ? "amg::Hierarchy (cycle_precision single), "
                                 : "";
    // Without resetup data nothing needs the double levels below level 0
    // once their float copies exist: the copies then take patterns of their
    // own, and the double operators, transfers and coarse products are
    // freed. Level 0 stays: it is the caller's matrix, which the Krylov
    // method uses (or, on the serial path of smoothed aggregation, the BSR
    // form level_zero made of it, kept for its pattern).
    const bool drop = !params.keep_resetup_data;
    for (std::size_t l = 0; l < levels.size(); ++l) {
      const Level& level = levels[l];
      auto& c = ops[l];
      const std::string where = mode + "level " + std::to_string(l) + ": ";
      try {
        c.A = level.A->to_single(!(drop && l > 0));
        c.P = level.transfer ? level.transfer->P->to_single(!drop) : nullptr;
        c.R = level.transfer ? level.transfer->R->to_single(!drop) : nullptr;
        c.smoother = level.smoother ? level.smoother->to_single(c.A) : nullptr;
      } catch (const invalid_argument& e) {
        throw invalid_argument(where + e.what());
      }
    }
    Array<float> inverse =
        coarse_inverse.empty()
            ? Array<float>()
            : strata::detail::single_copy(coarse_inverse, "the coarsest level's inverse");
    // The single-precision levels live on one process (to_single refuses
    // distributed kinds), so their sums need no combining.
    single.install(params, std::make_shared<const Reduction<float>>(), std::move(ops),
                   std::move(inverse), true);
    coarse_inverse = Array<T>();
    for (Level& level : levels) level.smoother.reset();
    if (drop) {
      for (std::size_t l = 0; l < levels.size(); ++l) {
        if (l > 0) levels[l].A.reset();
        levels[l].transfer.reset();
        levels[l].galerkin.reset();
      }
    }
  }

  void build_coarse_solver() {
    StageTimer t(exec(), stage_times, "coarse solve");
    Level& c = levels.back();
    // A distributed coarsest level is inverted whole on every process (its
    // rows gathered by to_dense()), and each cycle gathers the right-hand
    // side to every process, which applies the whole inverse and keeps its
    // rows: one allgather per cycle, where solving on one process would
    // take a gather and a scatter, and the processes agree on the outcome
    // (singular or not) because they compute the same thing.
    const size_type n = c.A->global_rows();
    coarse_inverse = Array<T>();
    if (n > max_dense_rows) {
      coarse_solver = std::to_string(coarse_smoothing_sweeps) + " smoothing sweeps (" +
                      std::to_string(n) + " rows are too many to invert densely)";
      build_smoother(c);
      return;
    }
    Array<T> dense = c.A->to_dense();
    const size_type singular = c.A->executor().visit(
        [&](const auto& e) { return kernels::amg::dense_invert(e, n, dense.data(), T(1e-13)); });
    if (singular >= 0) {
      coarse_solver = std::to_string(coarse_smoothing_sweeps) +
                      " smoothing sweeps (the coarse matrix is singular to working precision "
                      "at elimination step " +
                      std::to_string(singular) + ")";
      build_smoother(c);
      return;
    }
    c.smoother.reset();
    coarse_inverse = std::move(dense);
    coarse_solver = "dense inverse of " + std::to_string(n) + " rows";
    if (c.A->distributed()) coarse_solver += " (on every process)";
  }

  /// Whether a level of `rows` rows whose coarsening gives `coarse_rows` <=
  /// coarse_size rows is itself the better coarsest level: nearer the target
  /// size in ratio (rows / coarse_size < coarse_size / coarse_rows) and at
  /// most twice the target (the dense inverse costs rows^3: a few
  /// milliseconds on the GPU at 1,200 rows, but a quarter of a second on two
  /// host cores, and host and device must build the same hierarchy). With
  /// the large coarsening ratios of
  /// aggregation (about 11 in 3D) "the first level below coarse_size" can
  /// land anywhere between coarse_size / 11 and coarse_size; stopping at the
  /// level nearest it keeps the coarsest level "about coarse_size" (the
  /// aggregation paper's 600). It matters for convergence: a V-cycle step
  /// from 1,000 rows down to 100 costs more accuracy than solving at 1,000
  /// (7-point 256^3, K-cycle: 32 iterations against 27).
  bool nearer_coarsest(size_type rows, size_type coarse_rows) const {
    const double target = double(params.coarse_size);
    return coarse_rows <= params.coarse_size && rows <= 2 * params.coarse_size &&
           double(rows) * double(coarse_rows) < target * target;
  }

  /// What the cycle needs of a coarsening's transfer: P (fine rows x coarse
  /// columns) and R (coarse rows x fine columns) on the level's executor.
  static void check_transfer(const Transfer<T>& t, const LevelOperator<T>& A, int l) {
    const std::string where =
        "amg::Hierarchy: the coarsening's transfer of level " + std::to_string(l);
    require(t.P != nullptr && t.R != nullptr, where + " lacks P or R");
    check_location(A.executor(), t.P->executor(), "P", "the level's operator");
    check_location(A.executor(), t.R->executor(), "R", "the level's operator");
    if (t.P->rows() != A.cols() || t.R->cols() != A.rows() || t.R->rows() != t.P->cols()) {
      throw dimension_mismatch(where + ": A is " + std::to_string(A.rows()) + " x " +
                               std::to_string(A.cols()) + ", P " + std::to_string(t.P->rows()) +
                               " x " + std::to_string(t.P->cols()) + ", R " +
                               std::to_string(t.R->rows()) + " x " + std::to_string(t.R->cols()) +
                               "; expected P with A's columns as rows and R shaped as P^T");
    }
  }

  /// f(level l's operator): the double one, or its float copy once the
  /// double one was freed (single precision without resetup data).
  template <class F>
  decltype(auto) visit_level(int l, F&& f) const {
    const auto& A = levels[static_cast<std::size_t>(l)].A;
    return A ? f(*A) : f(*single.levels[static_cast<std::size_t>(l)].A);
  }

  void report_level(int l, size_type coarse_rows, Clock::time_point setup_start) const {
    if (!params.on_level) return;
    const Level& level = levels[static_cast<std::size_t>(l)];
    // The coarsest level is reported after the cycle is built, which may
    // have freed its double operator.
    const auto [rows, nnz] =
        visit_level(l, [](const auto& A) { return std::pair(A.global_rows(), A.global_nnz()); });
    params.on_level({.level = l,
                     .rows = rows,
                     .nnz = nnz,
                     .coarse_rows = coarse_rows,
                     .seconds = level.setup_seconds,
                     .elapsed_seconds = seconds_since(setup_start)});
  }

  /// A on one process as its diagonal block (HierarchyParams::
  /// serial_on_one_process), which then holds every entry: the serial
  /// hierarchy on it is the distributed one without the halo machinery.
  std::shared_ptr<const LevelOperator<T>> level_zero(
      std::shared_ptr<const LevelOperator<T>> A) const {
    if (!params.serial_on_one_process) return A;
    const auto* d = dynamic_cast<const DistributedOperator<T>*>(A.get());
    if (d == nullptr) {
      // A scalar operator given to resetup() of a hierarchy that took the
      // serial path: the form setup gave level 0.
      return serial_on_one_process && dynamic_cast<const CsrOperator<T>*>(A.get()) != nullptr
                 ? coarsening->one_process_level_zero(std::move(A))
                 : A;
    }
    if (d->matrix().communicator().size() != 1) return A;
    require(d->matrix().offd().nnz() == 0 && d->matrix().local_cols() == d->matrix().global_cols(),
            "amg::Hierarchy: a distributed operator on one process has entries outside its "
            "diagonal block (internal error)");
    // Aliasing: the block lives as long as the distributed matrix it is part of.
    return coarsening->one_process_level_zero(std::make_shared<const CsrOperator<T>>(
        std::shared_ptr<const CsrMatrix<T>>(d->shared_matrix(), &d->matrix().diag())));
  }

  void setup(std::shared_ptr<const LevelOperator<T>> A0) {
    given = A0;
    if (A0->distributed()) {
      A0 = level_zero(std::move(A0));
      if (!A0->distributed()) {
        coarsening->coarsen_as_distributed();
        serial_on_one_process = true;
      }
    }
    const LevelOperator<T>& A = *A0;
    const auto start = Clock::now();
    const std::size_t bytes_before = A.executor().memory_stats().in_use;
    A.executor().reset_peak_memory();
    levels.clear();
    levels.reserve(static_cast<std::size_t>(params.max_levels));
    levels.emplace_back();
    levels[0].A = std::move(A0);
    for (int l = 0; l + 1 < params.max_levels; ++l) {
      const auto level_start = Clock::now();
      Level& fine = levels[l];
      // Global sizes, so that every process of a distributed level decides alike.
      const size_type fine_rows = fine.A->global_rows();
      if (fine_rows <= params.coarse_size) break;
      auto transfer = coarsening->coarsen(*fine.A, l, stage_times);
      if (transfer) check_transfer(*transfer, *fine.A, l);
      // A coarsening that is not kept still cost this (now coarsest) level's time.
      const size_type coarse_rows = transfer ? transfer->P->global_cols() : 0;
      if (coarse_rows == 0 || coarse_rows >= fine_rows ||
          (l > 0 && nearer_coarsest(fine_rows, coarse_rows))) {
        fine.A->executor().synchronize();
        fine.setup_seconds = seconds_since(level_start);
        break;
      }
      std::unique_ptr<CoarseProduct<T>> rap;
      {
        StageTimer t(A.executor(), stage_times, "galerkin");
        rap = coarsening->galerkin(*transfer->R, *fine.A, *transfer->P);
        if (!params.keep_resetup_data) {
          rap = std::make_unique<FixedCoarseProduct<T>>(rap->result()->clone());
        }
      }
      build_smoother(fine);  // synchronises: the level's device work is done
      fine.transfer = std::move(transfer);
      fine.galerkin = std::move(rap);
      fine.setup_seconds = seconds_since(level_start);
      Level next;
      next.A = fine.galerkin->result();
      report_level(l, next.A->global_rows(), start);
      levels.push_back(std::move(next));
    }
    if (!params.keep_resetup_data) {
      coarsening->release_refresh_data();
    } else if (params.lean_resetup_data) {
      coarsening->release_rebuildable_data();
      for (Level& level : levels) {
        if (level.galerkin) level.galerkin->release_intermediates();
      }
    }
    const auto coarsest_start = Clock::now();
    build_coarse_solver();
    build_cycle();
    A.executor().synchronize();
    levels.back().setup_seconds += seconds_since(coarsest_start);
    report_level(last(), 0, start);
    const MemoryStats after = A.executor().memory_stats();
    setup_bytes = after.in_use > bytes_before ? after.in_use - bytes_before : 0;
    setup_peak_bytes = after.peak_in_use > bytes_before ? after.peak_in_use - bytes_before : 0;
    setup_seconds = seconds_since(start);
  }
};

template <class T>
Hierarchy<T>::Hierarchy(std::shared_ptr<const LevelOperator<T>> A,
                        std::unique_ptr<Coarsening<T>> coarsening, const HierarchyParams& params,
                        std::shared_ptr<const Reduction<T>> reduction)
    : impl_(std::make_unique<Impl>()) {
  require(A != nullptr, "amg::Hierarchy: the operator is null");
  require(coarsening != nullptr, "amg::Hierarchy: the coarsening is null");
  require(params.max_levels >= 1,
          "amg::Hierarchy: max_levels must be >= 1, got " + std::to_string(params.max_levels));
  require(params.coarse_size >= 0,
          "amg::Hierarchy: coarse_size must be >= 0 (0: the executor's default), got " +
              std::to_string(params.coarse_size));
  require(params.agglomeration_rows >= 0,
          "amg::Hierarchy: agglomeration_rows must be >= 0 (0: never), got " +
              std::to_string(params.agglomeration_rows));
  require(params.kcycle_levels >= 0, "amg::Hierarchy: kcycle_levels must be >= 0, got " +
                                         std::to_string(params.kcycle_levels));
  require(params.kcycle_threshold >= 0 && params.kcycle_threshold < 1,
          "amg::Hierarchy: kcycle_threshold must lie in [0, 1), got " +
              std::to_string(params.kcycle_threshold));
  require(params.pre_sweeps >= 0 && params.post_sweeps >= 0,
          "amg::Hierarchy: sweeps must be >= 0, got pre " + std::to_string(params.pre_sweeps) +
              ", post " + std::to_string(params.post_sweeps));
  if (A->rows() != A->cols()) {
    throw dimension_mismatch("amg::Hierarchy: A must be square, it is " +
                             std::to_string(A->rows()) + " x " + std::to_string(A->cols()));
  }
  impl_->params = params;
  if (params.coarse_size == 0) impl_->params.coarse_size = default_coarse_size(A->executor());
  impl_->reduction = reduction ? std::move(reduction) : std::make_shared<const Reduction<T>>();
  impl_->coarsening =
      params.agglomeration_rows > 0
          ? strata::detail::make_agglomerating(std::move(coarsening), params.agglomeration_rows)
          : std::move(coarsening);
  impl_->setup(std::move(A));
}

template <class T>
Hierarchy<T>::Hierarchy(std::shared_ptr<const CsrMatrix<T>> A,
                        std::unique_ptr<Coarsening<T>> coarsening, const HierarchyParams& params,
                        std::shared_ptr<const Reduction<T>> reduction)
    : Hierarchy(std::make_shared<const CsrOperator<T>>(std::move(A)), std::move(coarsening), params,
                std::move(reduction)) {}

template <class T>
Hierarchy<T>::~Hierarchy() = default;

template <class T>
size_type Hierarchy<T>::rows() const {
  return impl_->levels.front().A->rows();
}
template <class T>
size_type Hierarchy<T>::cols() const {
  return impl_->levels.front().A->cols();
}
template <class T>
const Executor& Hierarchy<T>::executor() const {
  return impl_->exec();
}
template <class T>
int Hierarchy<T>::num_levels() const noexcept {
  return static_cast<int>(impl_->levels.size());
}
template <class T>
const HierarchyParams& Hierarchy<T>::params() const noexcept {
  return impl_->params;
}
template <class T>
const Reduction<T>& Hierarchy<T>::reduction() const noexcept {
  return *impl_->reduction;
}

template <class T>
std::shared_ptr<const LevelOperator<T>> Hierarchy<T>::shared_level_operator(int l) const {
  require(l >= 0 && l < num_levels(), "amg::Hierarchy: level " + std::to_string(l) +
                                          " is not in [0, " + std::to_string(num_levels()) + ")");
  impl_->require_held(impl_->levels[l].A != nullptr, l, "operator");
  return impl_->levels[l].A;
}

template <class T>
const LevelOperator<T>& Hierarchy<T>::level_operator(int l) const {
  return *shared_level_operator(l);
}

template <class T>
const CsrMatrix<T>& Hierarchy<T>::level_matrix(int l) const {
  return csr_matrix(level_operator(l), "amg::Hierarchy::level_matrix");
}

template <class T>
const LevelOperator<T>& Hierarchy<T>::level_interpolation_operator(int l) const {
  require(l >= 0 && l + 1 < num_levels(), "amg::Hierarchy::level_interpolation: level " +
                                              std::to_string(l) + " has no interpolation");
  impl_->require_held(impl_->levels[l].transfer.has_value(), l, "interpolation");
  return *impl_->levels[l].transfer->P;
}

template <class T>
const CsrMatrix<T>& Hierarchy<T>::level_interpolation(int l) const {
  return csr_matrix(level_interpolation_operator(l), "amg::Hierarchy::level_interpolation");
}

template <class T>
void Hierarchy<T>::apply(const Vector<T>& b, Vector<T>& x) const {
  check_location(executor(), b.executor(), "b", "the AMG hierarchy");
  check_location(executor(), x.executor(), "x", "the AMG hierarchy");
  if (b.size() != rows() || x.size() != rows()) {
    throw dimension_mismatch("amg::Hierarchy::apply: the hierarchy has " + std::to_string(rows()) +
                             " rows, b has " + std::to_string(b.size()) + " and x " +
                             std::to_string(x.size()));
  }
  const Impl& m = *impl_;
  if (!m.single_precision()) {
    m.full.cycle(0, m.params.cycle, b, x, true);
    return;
  }
  // b scaled by a power of two into float's range, x scaled back.
  const auto& top = m.single.levels.front();
  const int e = strata::detail::single_precision_exponent(b);
  // Scaled into float's range, neither conversion can overflow: no counts
  // to wait for.
  convert_unchecked(b.values(), top.b.values(), e);
  m.single.cycle(0, m.params.cycle, top.b, top.x, true);
  convert_unchecked(top.x.values(), x.values(), -e);
}

template <class T>
std::string Hierarchy<T>::describe() const {
  const auto& p = impl_->params;
  std::string cycle = std::string(to_string(p.cycle)) + "(" + std::to_string(p.pre_sweeps) + "," +
                      std::to_string(p.post_sweeps) + ")-cycle";
  if (p.cycle == CycleType::K) {
    cycle += " on " + std::to_string(p.kcycle_levels) + " levels (" + to_string(p.kcycle_flavour) +
             "), V below";
  }
  return "AMG (" + impl_->coarsening->name() + ", " + std::to_string(num_levels()) + " levels, " +
         cycle + ", " + smoother_name(p.smoother) +
         (impl_->single_precision() ? ", single-precision cycle" : "") + ")";
}

template <class T>
bool Hierarchy<T>::is_fixed() const {
  return impl_->single_precision() ? !impl_->single.krylov_level(0) : !impl_->full.krylov_level(0);
}

template <class T>
SolveInfo Hierarchy<T>::solve(const Vector<T>& b, Vector<T>& x, const KrylovParams& p) const {
  // x <- x + B (b - A x) with B one cycle: the Krylov layer's stationary
  // iteration, so the stopping test, history and statuses are the same code.
  return solve_stationary(p, *impl_->levels.front().A, b, x, *this, *impl_->reduction);
}

template <class T>
void Hierarchy<T>::resetup() {
  resetup(impl_->given);
}

template <class T>
void Hierarchy<T>::resetup(std::shared_ptr<const CsrMatrix<T>> A) {
  resetup(std::make_shared<const CsrOperator<T>>(std::move(A)));
}

template <class T>
void Hierarchy<T>::resetup(std::shared_ptr<const LevelOperator<T>> A) {
  require(A != nullptr, "amg::Hierarchy::resetup: the operator is null");
  Impl& m = *impl_;
  std::shared_ptr<const LevelOperator<T>> given = A;
  A = m.level_zero(std::move(A));
  const LevelOperator<T>& old = *m.levels.front().A;
  check_location(old.executor(), A->executor(), "A", "the AMG hierarchy");
  if (A->rows() != old.rows() || A->cols() != old.cols() || A->nnz() != old.nnz() ||
      A->kind() != old.kind()) {
    throw invalid_argument("amg::Hierarchy::resetup: the new operator is " + A->kind() + " " +
                           std::to_string(A->rows()) + " x " + std::to_string(A->cols()) +
                           " with " + std::to_string(A->nnz()) + " nonzeros, the hierarchy was " +
                           "built for " + old.kind() + " " + std::to_string(old.rows()) + " x " +
                           std::to_string(old.cols()) + " with " + std::to_string(old.nnz()) +
                           "; resetup needs the same pattern (build a new hierarchy)");
  }
  if (!m.params.keep_resetup_data) {
    throw invalid_argument(
        "amg::Hierarchy::resetup: the hierarchy was built with keep_resetup_data = false, so it "
        "kept nothing to refresh; build a new hierarchy, or keep the data (the default)");
  }
  const auto start = Clock::now();
  m.given = std::move(given);
  m.levels.front().A = std::move(A);
  const bool trusted = m.coarsening->refresh_keeps_patterns();
  for (int l = 0; l < m.last(); ++l) {
    auto& level = m.levels[l];
    m.coarsening->refresh(*level.A, l, *level.transfer, m.stage_times);
    {
      StageTimer t(level.A->executor(), m.stage_times, "galerkin");
      if (trusted) {
        // The coarsening kept P's and R's patterns; A's is checked on
        // level 0 only (the caller's; below it, the previous product's).
        level.galerkin->recompute_trusted(*level.transfer->R, *level.A, *level.transfer->P,
                                          /*check_a=*/l == 0);
      } else {
        level.galerkin->recompute(*level.transfer->R, *level.A, *level.transfer->P);
      }
    }
    m.levels[l + 1].A = level.galerkin->result();
    m.build_smoother(level);
  }
  m.build_coarse_solver();
  m.build_cycle();
  m.exec().synchronize();
  m.resetup_seconds = seconds_since(start);
}

template <class T>
HierarchySummary Hierarchy<T>::summary() const {
  HierarchySummary s;
  s.coarsening = impl_->coarsening->name();
  if (impl_->serial_on_one_process) s.coarsening += ", one process: the serial path";
  s.setup_stage_seconds = impl_->stage_times;
  s.setup_seconds = impl_->setup_seconds;
  s.resetup_seconds = impl_->resetup_seconds;
  s.coarse_solver = impl_->coarse_solver;
  s.cycle_precision = impl_->single_precision() ? "single" : "double";
  if (!impl_->precision_reason.empty()) {
    s.cycle_precision += " (auto kept double: " + impl_->precision_reason + ")";
  }
  s.setup_bytes = impl_->setup_bytes;
  s.setup_peak_bytes = impl_->setup_peak_bytes;
  double rows0 = 0, nnz0 = 0, rows_sum = 0, nnz_sum = 0;
  // A level's shape, from its double operator or its float copy
  // (visit_level).
  const auto shape = []<class S>(const LevelOperator<S>& A, LevelSummary& ls) {
    // Over all processes for a distributed level (counted at its
    // construction, so asking communicates nothing); the shortest and
    // longest rows are this process's.
    ls.rows = A.global_rows();
    ls.nnz = A.global_nnz();
    ls.kind = A.kind();
    if (const auto* bsr = dynamic_cast<const BsrOperator<S>*>(&A)) {
      ls.row_block_size = bsr->matrix().row_block_size();
      ls.col_block_size = bsr->matrix().col_block_size();
    }
    if (A.rows() > 0) {
      const auto [lo, hi] = A.row_nnz_range();
      ls.min_row_nnz = lo;
      ls.max_row_nnz = hi;
    }
  };
  for (int l = 0; l < num_levels(); ++l) {
    LevelSummary ls;
    impl_->visit_level(l, [&](const auto& A) { shape(A, ls); });
    if (ls.rows > 0) ls.mean_row_nnz = double(ls.nnz) / double(ls.rows);
    ls.coarsening_ratio =
        l == 0 ? 0.0 : double(s.levels.back().rows) / double(std::max<size_type>(1, ls.rows));
    ls.solve_seconds =
        impl_->single_precision() ? impl_->single.levels[l].seconds : impl_->full.levels[l].seconds;
    ls.setup_seconds = impl_->levels[l].setup_seconds;
    if (l == 0) {
      rows0 = double(ls.rows);
      nnz0 = double(ls.nnz);
    }
    rows_sum += double(ls.rows);
    nnz_sum += double(ls.nnz);
    s.levels.push_back(ls);
  }
  s.operator_complexity = nnz0 > 0 ? nnz_sum / nnz0 : 0;
  s.grid_complexity = rows0 > 0 ? rows_sum / rows0 : 0;
  return s;
}

std::string format_summary(const HierarchySummary& s) {
  std::string out;
  char line[256];
  std::snprintf(line, sizeof line, "  AMG hierarchy: %s, %zu levels\n", s.coarsening.c_str(),
                s.levels.size());
  out += line;
  // The kind column says where a blocked hierarchy keeps its blocks
  // ("BSR 3x3" fine, "BSR 6x6" coarse) and where a level is scalar ("CSR").
  // The column is as wide as its longest entry ("distributed CSR").
  int kind_width = 8;
  for (const auto& v : s.levels) kind_width = std::max(kind_width, int(v.kind.size()));
  out += "  level       rows          nnz   nnz/row (min  mean   max)   ratio  " +
         std::string("kind") + std::string(std::size_t(kind_width) - 4, ' ') + "   setup s";
  const bool timed = std::any_of(s.levels.begin(), s.levels.end(),
                                 [](const LevelSummary& l) { return l.solve_seconds > 0; });
  out += timed ? "   solve s\n" : "\n";
  for (std::size_t l = 0; l < s.levels.size(); ++l) {
    const auto& v = s.levels[l];
    std::snprintf(line, sizeof line, "  %5zu %10lld %12lld   %12lld %6.1f %5lld   %5.2f", l,
                  (long long)v.rows, (long long)v.nnz, (long long)v.min_row_nnz, v.mean_row_nnz,
                  (long long)v.max_row_nnz, v.coarsening_ratio);
    out += line;
    std::snprintf(line, sizeof line, "  %-*s  %8.4f", kind_width, v.kind.c_str(), v.setup_seconds);
    out += line;
    if (timed) {
      std::snprintf(line, sizeof line, "  %8.4f", v.solve_seconds);
      out += line;
    }
    out += "\n";
  }
  std::snprintf(line, sizeof line, "  operator complexity %.3f, grid complexity %.3f\n",
                s.operator_complexity, s.grid_complexity);
  out += line;
  if (!s.coarse_solver.empty()) out += "  coarsest level: " + s.coarse_solver + "\n";
  if (!s.cycle_precision.empty()) {
    out += "  cycle precision: " + s.cycle_precision +
           (s.cycle_precision == "single" ? " (levels, smoothers and coarse inverse in float; the "
                                            "Krylov method in double)"
                                          : "") +
           "\n";
  }
  std::snprintf(line, sizeof line,
                "  memory held by the hierarchy: %.1f MB (at most %.1f MB during setup)\n",
                double(s.setup_bytes) / 1e6, double(s.setup_peak_bytes) / 1e6);
  out += line;
  std::snprintf(line, sizeof line, "  setup %.4f s:", s.setup_seconds);
  out += line;
  for (const auto& [stage, seconds] : s.setup_stage_seconds) {
    std::snprintf(line, sizeof line, " %s %.4f,", stage.c_str(), seconds);
    out += line;
  }
  if (!s.setup_stage_seconds.empty()) out.pop_back();
  out += "\n";
  return out;
}

template class Hierarchy<double>;

}  // namespace strata::amg
