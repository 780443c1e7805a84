// Unsmoothed aggregation AMG (the aggregation paper's Algorithm 1): the
// stages strength -> MIS(2) aggregation -> piecewise-constant interpolation
// -> Galerkin by sort and segmented reduction, each checked here and run
// where A lives by the kernels of kernels/amg/aggregation_kernels.hpp.

#include "strata/amg/aggregation.hpp"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <exception>
#include <string>

#include "core/amg/aggregation_internal.hpp"
#include "core/amg/distributed_aggregation.hpp"
#include "core/amg/stage_timer.hpp"
#include "core/distributed/communication.hpp"
#include "kernels/amg/aggregation_kernels.hpp"
#include "kernels/base/random.hpp"
#include "strata/core/primitives.hpp"
#include "strata/distributed/operator.hpp"
#include "strata/distributed/rows.hpp"
#include "strata/matrix/transpose.hpp"

namespace strata::amg {

namespace {

namespace agg = kernels::aggregation;

using detail::StageTimer;

using detail::number;

void validate(const AggregationParams& p) {
  if (p.dimension < 1 || p.dimension > 3) {
    throw invalid_argument("AggregationParams.dimension must be 1, 2 or 3, got " +
                           std::to_string(p.dimension));
  }
  if (std::isnan(p.strength_threshold) || p.strength_threshold >= 1) {
    throw invalid_argument(
        "AggregationParams.strength_threshold must lie in [0, 1) (or be "
        "negative for the default of the dimension), got " +
        number(p.strength_threshold));
  }
}

/// The per-level random stream: seed and level mixed (splitmix64).
std::uint64_t level_seed(std::uint64_t seed, int level) {
  return kernels::base::splitmix64(seed, static_cast<std::uint64_t>(level));
}

constexpr double drop_tolerance = detail::aggregate_drop_tolerance;

}  // namespace

double strength_threshold(const AggregationParams& params) {
  validate(params);
  if (params.strength_threshold >= 0) return params.strength_threshold;
  return params.dimension == 3 ? 0.5 : 0.25;
}

// ------------------------------------------------------------ 1. strength

template <class T>
StrengthGraph<T> strength_graph(const CsrMatrix<T>& A, double alpha) {
  require(alpha >= 0 && alpha < 1,
          "strength_graph: the threshold alpha must lie in [0, 1), got " + number(alpha));
  if (A.rows() != A.cols()) {
    throw dimension_mismatch("strength_graph: A must be square, it is " + std::to_string(A.rows()) +
                             " x " + std::to_string(A.cols()));
  }
  const Executor& exec = A.executor();
  const size_type n = A.rows();
  Array<T> sign(exec, n), strongest(exec, n);
  Array<std::uint8_t> strong(exec, A.nnz());
  Array<offset_type> row_ptr(exec, n + 1, offset_type{0});
  StrengthGraph<T> S;
  S.influence = Array<index_type>(exec, n);
  const size_type missing = exec.visit([&](const auto& e) {
    const bool sorted = agg::row_strength(e, n, A.nnz(), A.row_ptr().data(), A.col_idx().data(),
                                          A.values().data(), sign.data(), strongest.data());
    return agg::mark_strong(e, n, A.nnz(), A.row_ptr().data(), A.col_idx().data(),
                            A.values().data(), sorted, T(alpha), sign.data(), strongest.data(),
                            strong.data(), row_ptr.data(), S.influence.data());
  });
  if (missing > 0) {
    // A structurally nonsymmetric pattern: add the missing transposed
    // entries as zeros, so that every edge is seen from both ends.
    const CsrMatrix<T> symmetric = exec.visit([&](const auto& e) {
      return agg::symmetrize_pattern(e, n, A.nnz(), A.row_ptr().data(), A.col_idx().data(),
                                     A.values().data());
    });
    StrengthGraph<T> result = strength_graph(symmetric, alpha);
    result.symmetrized = true;
    return result;
  }
  const size_type edges = exclusive_scan(row_ptr, row_ptr);
  S.row_ptr = std::move(row_ptr);
  S.col_idx = Array<index_type>(exec, edges);
  S.weight = Array<T>(exec, edges);
  exec.visit([&](const auto& e) {
    agg::fill_strength_graph(e, n, A.nnz(), A.row_ptr().data(), A.col_idx().data(),
                             A.values().data(), sign.data(), strongest.data(), strong.data(),
                             S.row_ptr.data(), S.col_idx.data(), S.weight.data());
  });
  return S;
}

// ---------------------------------------------------------- 2. aggregation

template <class T>
Aggregates aggregate(const StrengthGraph<T>& S, std::uint64_t seed, int level) {
  const Executor& exec = S.influence.executor();
  const size_type n = S.rows();
  require(S.row_ptr.size() == n + 1, "aggregate: the strength graph has " +
                                         std::to_string(S.row_ptr.size()) + " row offsets for " +
                                         std::to_string(n) + " rows");
  Array<std::int8_t> state(exec, n);
  Array<std::uint32_t> priority(exec, n);
  Array<std::uint64_t> tuple(exec, n);
  Aggregates result;
  result.aggregate = Array<index_type>(exec, n);
  const offset_type* rp = S.row_ptr.data();
  const index_type* ci = S.col_idx.data();
  exec.visit([&](const auto& e) {
    agg::mis2_init(e, n, rp, S.influence.data(), level_seed(seed, level), 0, state.data(),
                   priority.data());
    // Algorithm 2: each iteration decides at least the largest undecided
    // tuple, so it ends; in practice after a handful of iterations.
    size_type rounds = 0;
    if constexpr (std::is_same_v<std::decay_t<decltype(e)>, HostExec>) {
      rounds = agg::mis2_rounds(e, n, rp, ci, state.data(), priority.data(), tuple.data());
    } else {
      for (size_type undecided = n; undecided > 0 && rounds <= n; ++rounds) {
        agg::mis2_propagate(e, n, rp, ci, state.data(), priority.data(), tuple.data());
        undecided = agg::mis2_decide(e, n, rp, ci, tuple.data(), 0, state.data());
      }
    }
    if (rounds > n) {
      throw error("aggregate: MIS(2) did not finish after " + std::to_string(rounds) +
                  " iterations (internal error)");
    }
    result.iterations = static_cast<int>(rounds);
    const size_type roots = agg::number_roots(e, n, state.data(), 0, result.aggregate.data());
    result.root = Array<index_type>(exec, roots);
    agg::list_roots(e, n, state.data(), result.aggregate.data(), 0, result.root.data());
    const size_type left = agg::join_nearest_root(e, n, rp, ci, S.weight.data(), state.data(),
                                                  result.aggregate.data());
    if (left > 0) {
      throw error("aggregate: " + std::to_string(left) +
                  " points are farther than two strong connections from every MIS(2) root "
                  "(internal error)");
    }
  });
  return result;
}

// -------------------------------------------------------- 3. interpolation

namespace detail {

template <class T>
OrthonormalizedAggregates<T> orthonormalize(const Aggregates& aggregates,
                                            const Array<T>& near_null_space, int columns) {
  const Executor& exec = aggregates.aggregate.executor();
  const size_type n = aggregates.aggregate.size();
  const size_type count = aggregates.count();
  require(columns >= 1,
          "piecewise_constant_interpolation: columns must be >= 1, got " + std::to_string(columns));
  check_location(exec, near_null_space.executor(), "near_null_space", "the aggregates");
  if (near_null_space.size() != n * columns) {
    throw dimension_mismatch("piecewise_constant_interpolation: the near-null space has " +
                             std::to_string(near_null_space.size()) + " values, expected " +
                             std::to_string(n) + " rows x " + std::to_string(columns) + " columns");
  }
  const size_type coarse = count * columns;
  checked_index(coarse, "piecewise_constant_interpolation: aggregates x columns");
  Array<offset_type> row_ptr(exec, n + 1);
  const size_type nnz = exec.visit([&](const auto& e) {
    return agg::interpolation_pattern(e, n, aggregates.aggregate.data(), columns, row_ptr.data());
  });
  Array<index_type> col_idx(exec, nnz);
  Array<T> values(exec, nnz);
  exec.visit([&](const auto& e) {
    agg::interpolation_fill(e, n, aggregates.aggregate.data(), columns, near_null_space.data(),
                            row_ptr.data(), col_idx.data(), values.data());
  });
  OrthonormalizedAggregates<T> result{
      CsrMatrix<T>(n, coarse, std::move(row_ptr), std::move(col_idx), std::move(values)),
      CsrMatrix<T>(), Array<T>(exec, coarse * columns), Array<index_type>(exec, coarse), 0};
  // Algorithm 3: R = P^T lists each aggregate's points; normalise (QR) there.
  result.R = transpose(result.P);
  CsrMatrix<T>& P = result.P;
  CsrMatrix<T>& R = result.R;
  result.dropped = exec.visit([&](const auto& e) {
    return agg::orthonormalize_aggregates(e, count, columns, R.row_ptr().data(), R.col_idx().data(),
                                          R.values().data(), P.row_ptr().data(), P.values().data(),
                                          result.coarse_B.data(), result.keep.data(),
                                          T(drop_tolerance));
  });
  return result;
}

}  // namespace detail

template <class T>
PiecewiseConstantInterpolation<T> piecewise_constant_interpolation(const Aggregates& aggregates,
                                                                   const Array<T>& near_null_space,
                                                                   int columns) {
  detail::OrthonormalizedAggregates<T> q =
      detail::orthonormalize(aggregates, near_null_space, columns);
  const Executor& exec = aggregates.aggregate.executor();
  const size_type n = aggregates.aggregate.size();
  const size_type coarse = q.P.cols();
  PiecewiseConstantInterpolation<T> result;
  result.columns = columns;
  result.dropped = q.dropped;
  if (result.dropped > 0) {
    // B is rank-deficient on some aggregates: renumber the kept columns.
    Array<index_type> new_index(exec, coarse);
    const size_type kept_cols = exclusive_scan(q.keep, new_index);
    Array<T> kept_B(exec, kept_cols * columns);
    q.P = exec.visit([&](const auto& e) {
      return agg::drop_columns(e, n, coarse, kept_cols, q.P.row_ptr().data(), q.P.col_idx().data(),
                               q.P.values().data(), q.keep.data(), new_index.data(), columns,
                               q.coarse_B.data(), kept_B.data());
    });
    q.coarse_B = std::move(kept_B);
    q.R = transpose(q.P);
  }
  result.P = std::move(q.P);
  result.R = std::move(q.R);
  result.coarse_near_null_space = std::move(q.coarse_B);
  return result;
}

// ------------------------------------------------------------- 4. Galerkin

template <class T>
SortReduceCoarseProduct<T>::SortReduceCoarseProduct(const CsrMatrix<T>& R, const CsrMatrix<T>& A,
                                                    const CsrMatrix<T>& P) {
  const Executor& exec = A.executor();
  check_location(exec, P.executor(), "P", "A");
  check_location(exec, R.executor(), "R", "A");
  if (A.rows() != A.cols() || P.rows() != A.cols() || R.rows() != P.cols() ||
      R.cols() != P.rows() || R.nnz() != P.nnz()) {
    throw dimension_mismatch(
        "SortReduceCoarseProduct: needs a square A, P with A.cols() rows "
        "and R = P^T; A is " +
        std::to_string(A.rows()) + " x " + std::to_string(A.cols()) + ", P " +
        std::to_string(P.rows()) + " x " + std::to_string(P.cols()) + ", R " +
        std::to_string(R.rows()) + " x " + std::to_string(R.cols()));
  }
  const size_type coarse = P.cols();
  auto plan = exec.visit([&](const auto& e) {
    return agg::galerkin_plan(e, A.rows(), A.row_ptr().data(), A.col_idx().data(),
                              P.row_ptr().data(), P.col_idx().data(), coarse);
  });
  const size_type coarse_nnz = plan.col_idx.size();
  Array<T> values(exec, coarse_nnz);
  single_entry_ = plan.single_entry;
  sorted_products_ = plan.sorted_products;
  pair_ptr_ = std::move(plan.pair_ptr);
  pair_slot_ = std::move(plan.pair_slot);
  slot_ptr_ = std::move(plan.slot_ptr);
  if (!single_entry_) {
    offset_type slots = 0;  // slot_ptr_[rows], the last offset only
    copy_bytes(&slots, Executor::host(), slot_ptr_.data() + A.rows(), exec, sizeof slots);
    slot_values_ = Array<T>(exec, slots);
  }
  left_ = std::move(plan.left);
  slot_ = std::move(plan.slot);
  entry_ = std::move(plan.entry);
  right_ = std::move(plan.right);
  segment_start_ = std::move(plan.segment_start);
  Ac_ = std::make_shared<CsrMatrix<T>>(coarse, coarse, std::move(plan.row_ptr),
                                       std::move(plan.col_idx), std::move(values));
  op_ = std::make_shared<const CsrOperator<T>>(Ac_);
  a_rows_ = A.rows();
  a_nnz_ = A.nnz();
  p_rows_ = P.rows();
  p_cols_ = P.cols();
  p_nnz_ = P.nnz();
  recompute(R, A, P);
}

template <class T>
void SortReduceCoarseProduct<T>::recompute(const LevelOperator<T>& R, const LevelOperator<T>& A,
                                           const LevelOperator<T>& P) {
  const char* who = "SortReduceCoarseProduct::recompute";
  recompute(csr_matrix(R, who), csr_matrix(A, who), csr_matrix(P, who));
}

template <class T>
void SortReduceCoarseProduct<T>::recompute(const CsrMatrix<T>& R, const CsrMatrix<T>& A,
                                           const CsrMatrix<T>& P) {
  const Executor& exec = Ac_->executor();
  check_location(exec, A.executor(), "A", "the coarse product");
  check_location(exec, P.executor(), "P", "the coarse product");
  check_location(exec, R.executor(), "R", "the coarse product");
  if (A.rows() != a_rows_ || A.nnz() != a_nnz_ || P.rows() != p_rows_ || P.cols() != p_cols_ ||
      P.nnz() != p_nnz_) {
    throw invalid_argument("SortReduceCoarseProduct::recompute: the patterns changed (A has " +
                           std::to_string(A.rows()) + " rows and " + std::to_string(A.nnz()) +
                           " nonzeros, P is " + std::to_string(P.rows()) + " x " +
                           std::to_string(P.cols()) + " with " + std::to_string(P.nnz()) +
                           "; built for " + std::to_string(a_rows_) + ", " +
                           std::to_string(a_nnz_) + " and " + std::to_string(p_rows_) + " x " +
                           std::to_string(p_cols_) + " with " + std::to_string(p_nnz_) + ")");
  }
  (void)R;  // R = P^T: its values are P's
  exec.visit([&](const auto& e) {
    agg::GalerkinPlanView plan;
    plan.single_entry = single_entry_;
    plan.pair_ptr = pair_ptr_.data();
    plan.pair_slot = pair_slot_.data();
    plan.slot_ptr = slot_ptr_.data();
    plan.left = left_.data();
    plan.slot = slot_.data();
    plan.entry = entry_.data();
    plan.right = right_.data();
    plan.segment_start = segment_start_.data();
    agg::galerkin_values(e, A.rows(), Ac_->nnz(), A.row_ptr().data(), A.col_idx().data(),
                         P.row_ptr().data(), plan, A.values().data(), P.values().data(),
                         slot_values_.data(), Ac_->values().data());
  });
}

template <class T>
RowwiseCoarseProduct<T>::RowwiseCoarseProduct(const CsrMatrix<T>& R, const CsrMatrix<T>& A,
                                              const CsrMatrix<T>& P) {
  const Executor& exec = A.executor();
  require(exec.is_host(), "RowwiseCoarseProduct: host matrices only; A is on " + exec.name() +
                              " (the device's product is SortReduceCoarseProduct)");
  check_location(exec, P.executor(), "P", "A");
  check_location(exec, R.executor(), "R", "A");
  if (A.rows() != A.cols() || P.rows() != A.cols() || R.rows() != P.cols() ||
      R.cols() != A.rows()) {
    throw dimension_mismatch(
        "RowwiseCoarseProduct: needs a square A, P with A.cols() rows and "
        "R with P.cols() rows and A.rows() columns; A is " +
        std::to_string(A.rows()) + " x " + std::to_string(A.cols()) + ", P " +
        std::to_string(P.rows()) + " x " + std::to_string(P.cols()) + ", R " +
        std::to_string(R.rows()) + " x " + std::to_string(R.cols()));
  }
  const size_type coarse = P.cols();
  Array<offset_type> row_ptr;
  Array<index_type> col_idx;
  Array<T> values;
  // Pattern and values in one pass; recompute() sums the same way.
  exec.visit([&](const auto& e) {
    if constexpr (std::is_same_v<std::decay_t<decltype(e)>, HostExec>) {
      agg::galerkin_rows_product(e, coarse, R.row_ptr().data(), R.col_idx().data(),
                                 R.values().data(), A.row_ptr().data(), A.col_idx().data(),
                                 A.values().data(), P.row_ptr().data(), P.col_idx().data(),
                                 P.values().data(), row_ptr, col_idx, values);
    }
  });
  Ac_ = std::make_shared<CsrMatrix<T>>(coarse, coarse, std::move(row_ptr), std::move(col_idx),
                                       std::move(values));
  op_ = std::make_shared<const CsrOperator<T>>(Ac_);
  r_nnz_ = R.nnz();
  a_rows_ = A.rows();
  a_nnz_ = A.nnz();
  p_cols_ = P.cols();
  p_nnz_ = P.nnz();
}

template <class T>
void RowwiseCoarseProduct<T>::recompute(const LevelOperator<T>& R, const LevelOperator<T>& A,
                                        const LevelOperator<T>& P) {
  const char* who = "RowwiseCoarseProduct::recompute";
  recompute(csr_matrix(R, who), csr_matrix(A, who), csr_matrix(P, who));
}

template <class T>
void RowwiseCoarseProduct<T>::recompute(const CsrMatrix<T>& R, const CsrMatrix<T>& A,
                                        const CsrMatrix<T>& P) {
  const Executor& exec = Ac_->executor();
  check_location(exec, A.executor(), "A", "the coarse product");
  check_location(exec, P.executor(), "P", "the coarse product");
  check_location(exec, R.executor(), "R", "the coarse product");
  if (R.nnz() != r_nnz_ || A.rows() != a_rows_ || A.nnz() != a_nnz_ || P.cols() != p_cols_ ||
      P.nnz() != p_nnz_) {
    throw invalid_argument("RowwiseCoarseProduct::recompute: the patterns changed (A has " +
                           std::to_string(A.rows()) + " rows and " + std::to_string(A.nnz()) +
                           " nonzeros, P " + std::to_string(P.cols()) + " columns and " +
                           std::to_string(P.nnz()) + " nonzeros; built for " +
                           std::to_string(a_rows_) + ", " + std::to_string(a_nnz_) + ", " +
                           std::to_string(p_cols_) + " and " + std::to_string(p_nnz_) + ")");
  }
  exec.visit([&](const auto& e) {
    if constexpr (std::is_same_v<std::decay_t<decltype(e)>, HostExec>) {
      agg::galerkin_rows_values(e, Ac_->rows(), R.row_ptr().data(), R.col_idx().data(),
                                R.values().data(), A.row_ptr().data(), A.col_idx().data(),
                                A.values().data(), P.row_ptr().data(), P.col_idx().data(),
                                P.values().data(), Ac_->row_ptr().data(), Ac_->col_idx().data(),
                                Ac_->values().data());
    }
  });
}

// ------------------------------------------------------------ the coarsening

namespace {

template <class T>
class AggregationCoarsening final : public Coarsening<T> {
 public:
  AggregationCoarsening(const AggregationParams& params, std::vector<Vector<T>> near_null_space)
      : params_(params),
        alpha_(strength_threshold(params)),
        user_B_(std::move(near_null_space)),
        columns_(user_B_.empty() ? 1 : static_cast<int>(user_B_.size())) {}

  /// P is piecewise constant and refresh() keeps it (the default).
  bool refresh_keeps_patterns() const override { return true; }

  std::optional<Transfer<T>> coarsen(const LevelOperator<T>& level_A, int level,
                                     StageTimes& times) override {
    const auto* distributed = dynamic_cast<const DistributedOperator<T>*>(&level_A);
    if (distributed != nullptr) distributed_ = true;
    if (level == 0) on_host_ = level_A.executor().is_host();
    const CsrMatrix<T>& A =
        distributed ? distributed->matrix().diag() : csr_matrix(level_A, "aggregation coarsening");
    const Executor& exec = A.executor();
    if (level == 0) {
      near_null_.clear();
      std::exception_ptr failure;
      try {
        near_null_.push_back(finest_near_null_space(A));
      } catch (...) {
        if (distributed == nullptr) throw;
        failure = std::current_exception();
      }
      // A process whose rows of B are wrong must not leave the others
      // waiting in MIS(2)'s exchanges: all of them throw.
      if (distributed != nullptr) {
        strata::detail::agree_on_failure(distributed->matrix().communicator(), failure,
                                         "aggregation coarsening");
      }
    }
    require(level >= 0 && level < static_cast<int>(near_null_.size()),
            "aggregation coarsening: level " + std::to_string(level) +
                " requested before the levels above it");
    near_null_.resize(static_cast<std::size_t>(level) + 1);
    if (distributed) return coarsen_distributed(distributed->matrix(), level, times);
    StrengthGraph<T> S;
    {
      StageTimer clock(exec, times, "strength");
      S = strength_graph(A, alpha_);
    }
    Aggregates aggregates;
    {
      StageTimer clock(exec, times, "aggregation");
      aggregates = aggregate(S, params_.seed, level);
    }
    if (aggregates.count() == 0) return std::nullopt;
    PiecewiseConstantInterpolation<T> interpolation;
    {
      StageTimer clock(exec, times, "interpolation");
      interpolation = piecewise_constant_interpolation(aggregates, near_null_[level], columns_);
    }
    const size_type coarse = interpolation.P.cols();
    if (coarse == 0 || coarse >= A.rows()) return std::nullopt;
    near_null_.push_back(std::move(interpolation.coarse_near_null_space));
    return Transfer<T>{std::make_shared<const CsrOperator<T>>(std::move(interpolation.P)),
                       std::make_shared<const CsrOperator<T>>(std::move(interpolation.R))};
  }

  /// A distributed level gets the serial aggregates whatever the number of
  /// processes (distributed_aggregation.hpp): MIS(2) across processes, and
  /// aggregates that span processes, each owned by its root's process.
  /// Collective: every process takes the same branches (global sizes).
  std::optional<Transfer<T>> coarsen_distributed(const DistributedCsrMatrix<T>& A, int level,
                                                 StageTimes& times) {
    const Executor& exec = A.executor();
    const detail::DistributedAggregates aggregates =
        detail::distributed_aggregates(A, alpha_, params_.seed, level, &times);
    if (aggregates.global_count == 0) return std::nullopt;
    detail::DistributedInterpolation<T> interpolation;
    {
      StageTimer clock(exec, times, "interpolation");
      interpolation = detail::distributed_interpolation(A, aggregates, near_null_[level], columns_);
    }
    const size_type coarse = interpolation.P->global_cols();
    if (coarse == 0 || coarse >= A.global_rows()) return std::nullopt;
    near_null_.push_back(std::move(interpolation.coarse_near_null_space));
    return Transfer<T>{std::make_shared<const DistributedOperator<T>>(std::move(interpolation.P)),
                       std::make_shared<const DistributedOperator<T>>(std::move(interpolation.R))};
  }

  /// The next level's near-null space (column-major, one column per
  /// vector) follows its rows.
  void move_coarse_rows(int level,
                        const std::function<Vector<T>(const Vector<T>&)>& move) override {
    const auto next = static_cast<std::size_t>(level) + 1;
    require(next < near_null_.size(), "aggregation coarsening: level " + std::to_string(level) +
                                          " has no coarse near-null space to move");
    near_null_[next] = detail::move_near_null_rows(near_null_[next], columns_, move);
  }

  std::unique_ptr<CoarseProduct<T>> galerkin(const LevelOperator<T>& R, const LevelOperator<T>& A,
                                             const LevelOperator<T>& P) override {
    if (A.distributed()) return A.galerkin(R, P);  // R (A P), fetching rows of P and A P
    if (params_.galerkin_by_spgemm) return make_coarse_product(R, A, P);
    const char* who = "aggregation coarsening (its Galerkin product)";
    if (A.executor().is_host()) {
      return std::make_unique<RowwiseCoarseProduct<T>>(csr_matrix(R, who), csr_matrix(A, who),
                                                       csr_matrix(P, who));
    }
    return std::make_unique<SortReduceCoarseProduct<T>>(csr_matrix(R, who), csr_matrix(A, who),
                                                        csr_matrix(P, who));
  }

  std::string name() const override {
    char alpha[32];
    std::snprintf(alpha, sizeof alpha, "%.2f", alpha_);
    return std::string("aggregation MIS(2), alpha ") + alpha + ", " +
           (user_B_.empty() ? std::string("B = 1")
                            : "B with " + std::to_string(columns_) + " columns") +
           (distributed_ ? ", across processes (aggregates may span them), Galerkin by "
                           "distributed SpGEMM"
                         : ", Galerkin by " + std::string(params_.galerkin_by_spgemm ? "SpGEMM"
                                                          : on_host_                 ? "rows (host)"
                                                                     : "sort/reduce"));
  }

 private:
  /// B on level 0, column-major on A's executor.
  Array<T> finest_near_null_space(const CsrMatrix<T>& A) const {
    const Executor& exec = A.executor();
    const size_type n = A.rows();
    if (user_B_.empty()) return Array<T>(exec, n, T{1});
    Array<T> B(exec, n * columns_);
    for (int c = 0; c < columns_; ++c) {
      const Vector<T>& v = user_B_[static_cast<std::size_t>(c)];
      const std::string what = "near_null_space[" + std::to_string(c) + "]";
      check_location(exec, v.executor(), what.c_str(), "A");
      if (v.size() != n) {
        throw dimension_mismatch("aggregation coarsening: " + what + " has " +
                                 std::to_string(v.size()) + " entries, A has " + std::to_string(n) +
                                 " rows");
      }
      if (n > 0) copy_bytes(B.data() + c * n, exec, v.data(), exec, sizeof(T) * n);
    }
    return B;
  }

  AggregationParams params_;
  double alpha_;
  std::vector<Vector<T>> user_B_;
  int columns_;
  std::vector<Array<T>> near_null_;  // B of each level built so far
  bool distributed_ = false;         // a distributed level was coarsened
  bool on_host_ = false;             // level 0 lives on the host (its Galerkin product)
};

}  // namespace

template <class T>
std::unique_ptr<Coarsening<T>> make_aggregation_coarsening(const AggregationParams& params,
                                                           std::vector<Vector<T>> near_null_space) {
  validate(params);
  for (std::size_t c = 1; c < near_null_space.size(); ++c) {
    if (near_null_space[c].size() != near_null_space[0].size()) {
      throw invalid_argument("make_aggregation_coarsening: near_null_space[" + std::to_string(c) +
                             "] has " + std::to_string(near_null_space[c].size()) +
                             " entries, near_null_space[0] has " +
                             std::to_string(near_null_space[0].size()));
    }
  }
  return std::make_unique<AggregationCoarsening<T>>(params, std::move(near_null_space));
}

template StrengthGraph<double> strength_graph<double>(const CsrMatrix<double>&, double);
template Aggregates aggregate<double>(const StrengthGraph<double>&, std::uint64_t, int);
template PiecewiseConstantInterpolation<double> piecewise_constant_interpolation<double>(
    const Aggregates&, const Array<double>&, int);
template class SortReduceCoarseProduct<double>;
template class RowwiseCoarseProduct<double>;
template detail::OrthonormalizedAggregates<double> detail::orthonormalize<double>(
    const Aggregates&, const Array<double>&, int);
template std::unique_ptr<Coarsening<double>> make_aggregation_coarsening<double>(
    const AggregationParams&, std::vector<Vector<double>>);

}  // namespace strata::amg
