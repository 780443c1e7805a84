// Blocked smoothed aggregation (strata/amg/smoothed_aggregation.hpp): the
// stages block strength -> MIS(2) aggregation of the nodes -> tentative
// prolongator by per-aggregate QR -> prolongator smoothing with the block
// diagonal -> R = P^T, each checked here and run where A lives by the
// kernels of kernels/amg/smoothed_aggregation_kernels.hpp and of unsmoothed
// aggregation (aggregation_kernels.hpp), which it reuses for the graph
// algorithms and the QR.

#include "strata/amg/smoothed_aggregation.hpp"

#include <cmath>
#include <cstdio>
#include <exception>
#include <functional>
#include <optional>
#include <string>
#include <type_traits>

#include "core/amg/aggregation_internal.hpp"
#include "core/amg/stage_timer.hpp"
#include "core/distributed/communication.hpp"
#include "kernels/amg/smoothed_aggregation_kernels.hpp"
#include "kernels/matrix/bsr_kernels.hpp"
#include "strata/amg/aggregation.hpp"
#include "strata/core/primitives.hpp"
#include "strata/distributed/operator.hpp"
#include "strata/distributed/reduction.hpp"
#include "strata/distributed/rows.hpp"
#include "strata/matrix/block_diagonal.hpp"
#include "strata/matrix/transpose.hpp"
#include "strata/solver/spectral.hpp"

namespace strata::amg {

namespace {

namespace sak = kernels::smoothed_aggregation;

using detail::StageTimer;

using detail::number;

void validate(const SmoothedAggregationParams& p) {
  if (p.block_size < 0) {
    throw invalid_argument(
        "SmoothedAggregationParams.block_size must be >= 0 (0: from the "
        "operator), got " +
        std::to_string(p.block_size));
  }
  if (!(p.strength_threshold >= 0 && p.strength_threshold < 1)) {
    throw invalid_argument("SmoothedAggregationParams.strength_threshold must lie in [0, 1), got " +
                           number(p.strength_threshold));
  }
  if (!(p.prolongator_damping > 0 && p.prolongator_damping < 2)) {
    throw invalid_argument(
        "SmoothedAggregationParams.prolongator_damping must lie in (0, 2) (4/3 is the classical "
        "choice), got " +
        number(p.prolongator_damping));
  }
}

/// Lanczos/Arnoldi steps of the estimate of rho(D^-1 A) (PyAMG takes 15 for
/// its prolongator smoothing; 10 Arnoldi steps give rho to a few percent,
/// from below, which keeps omega rho at most about damping * 1.05 < 2).
constexpr int spectral_steps = 10;

/// rho(D^-1 A_f) by the library's Arnoldi estimate with the block diagonal
/// (A_f is not owned here: the operator only borrows it for the estimate).
template <class T>
double block_jacobi_spectral_radius(const BsrMatrix<T>& A, const BlockDiagonal<T>& dinv) {
  const BsrOperator<T> op(std::shared_ptr<const BsrMatrix<T>>(std::shared_ptr<const void>(), &A));
  return arnoldi_spectral_radius(op, dinv, spectral_steps);
}

}  // namespace

// ------------------------------------------------------------ near-null space

template <class T>
std::vector<Vector<T>> rigid_body_modes(const Vector<T>& coordinates, int dimension) {
  if (dimension != 2 && dimension != 3) {
    throw invalid_argument("rigid_body_modes: dimension must be 2 or 3, got " +
                           std::to_string(dimension));
  }
  if (coordinates.size() % dimension != 0) {
    throw invalid_argument(
        "rigid_body_modes: coordinates has " + std::to_string(coordinates.size()) +
        " entries, expected a multiple of the dimension " + std::to_string(dimension));
  }
  const Executor& exec = coordinates.executor();
  const size_type n = coordinates.size();
  const int modes = dimension == 2 ? 3 : 6;
  Array<T> B(exec, n * modes);
  exec.visit([&](const auto& e) {
    sak::rigid_body_modes(e, n / dimension, dimension, coordinates.data(), B.data());
  });
  std::vector<Vector<T>> result;
  for (int m = 0; m < modes; ++m) {
    Vector<T> v(exec, n);
    if (n > 0) copy_bytes(v.data(), exec, B.data() + m * n, exec, sizeof(T) * n);
    result.push_back(std::move(v));
  }
  return result;
}

namespace {

/// The rank test of validate_near_null_space, its sums through `reduction`
/// (B holds this process's rows of each vector; collective when the
/// reduction is, and then every process throws alike).
template <class T>
void full_column_rank(const std::vector<Vector<T>>& B, const Reduction<T>& reduction) {
  const std::size_t k = B.size();
  // Gram matrix G = B^T B (k x k, on the host), then Cholesky: a pivot that
  // falls below 1e-10 of its column's diagonal means the vector is, up to
  // rounding, a combination of the ones before it. A non-finite entry makes
  // its vector's squared norm non-finite.
  std::vector<double> G(k * k);
  for (std::size_t i = 0; i < k; ++i) {
    for (std::size_t j = 0; j <= i; ++j) {
      G[i * k + j] = static_cast<double>(dot(B[i], B[j]));  // this process's part
    }
  }
  {
    std::vector<T> partial;
    for (std::size_t i = 0; i < k; ++i) {
      for (std::size_t j = 0; j <= i; ++j) partial.push_back(T(G[i * k + j]));
    }
    reduction.combine(Span<T>(partial.data(), partial.size()));
    std::size_t at = 0;
    for (std::size_t i = 0; i < k; ++i) {
      for (std::size_t j = 0; j <= i; ++j) G[i * k + j] = G[j * k + i] = double(partial[at++]);
    }
  }
  for (std::size_t i = 0; i < k; ++i) {
    const double d = G[i * k + i];
    if (!std::isfinite(d)) {
      throw invalid_argument("validate_near_null_space: near_null_space[" + std::to_string(i) +
                             "] holds a value that is not finite");
    }
    if (d == 0) {
      throw invalid_argument("validate_near_null_space: near_null_space[" + std::to_string(i) +
                             "] is zero; expected linearly independent vectors");
    }
  }
  for (std::size_t j = 0; j < k; ++j) {
    const double original = G[j * k + j];
    double pivot = original;
    for (std::size_t p = 0; p < j; ++p) pivot -= G[j * k + p] * G[j * k + p];
    if (!(pivot > 1e-10 * original)) {
      throw invalid_argument(
          "validate_near_null_space: near_null_space[" + std::to_string(j) +
          "] is (numerically) a linear combination of the vectors before it (relative pivot " +
          number(std::max(pivot, 0.0) / original) + " <= 1e-10); expected " + std::to_string(k) +
          " linearly independent vectors");
    }
    const double l = std::sqrt(pivot);
    G[j * k + j] = l;
    for (std::size_t i = j + 1; i < k; ++i) {
      double v = G[i * k + j];
      for (std::size_t p = 0; p < j; ++p) v -= G[i * k + p] * G[j * k + p];
      G[i * k + j] = v / l;
    }
  }
}

}  // namespace

template <class T>
void validate_near_null_space(const std::vector<Vector<T>>& B, size_type rows, int block_size) {
  if (block_size < 1) {
    throw invalid_argument("validate_near_null_space: block_size must be >= 1, got " +
                           std::to_string(block_size));
  }
  if (rows % block_size != 0) {
    throw invalid_argument("validate_near_null_space: block_size " + std::to_string(block_size) +
                           " does not divide the " + std::to_string(rows) +
                           " rows of the operator");
  }
  if (B.empty()) {
    throw invalid_argument("validate_near_null_space: the near-null space has no vectors");
  }
  const std::size_t k = B.size();
  for (std::size_t c = 0; c < k; ++c) {
    const std::string what = "near_null_space[" + std::to_string(c) + "]";
    if (B[c].size() != rows) {
      throw invalid_argument("validate_near_null_space: " + what + " has " +
                             std::to_string(B[c].size()) + " entries, expected " +
                             std::to_string(rows) + " (the operator's rows)");
    }
    check_location(B[0].executor(), B[c].executor(), what.c_str(), "near_null_space[0]");
  }
  full_column_rank(B, Reduction<T>{});
}

// ------------------------------------------------------------ the coarsening

namespace {

/// What one level keeps for refresh().
template <class T>
struct SaLevel {
  /// The level's matrix as BSR when it came as CSR (block size 1).
  std::shared_ptr<const BsrMatrix<T>> converted;
  Aggregates aggregates;  // of the nodes
  // The strength threshold this level used, and the strong connections
  // (edges of the node graph) it found.
  double theta = 0;
  size_type strong_edges = 0;
  BsrMatrix<T> tentative;
  // filter_weak: the kept blocks of A (diagonal and strong) and A_f.
  Array<std::uint8_t> keep;
  std::shared_ptr<BsrMatrix<T>> filtered;
  // The smoothing product's plan, by P's blocks: contrib[contrib_ptr[q] ..]
  // lists the blocks of A_f that add into block q, p_row[q] is q's block
  // row, tentative_block[I] the block of row I holding P_tent's; W's
  // scratch for block sizes without registers.
  Array<offset_type> tentative_block, contrib_ptr, contrib;
  Array<index_type> p_row;
  Array<T> scratch;
  // R's block r is the transpose of P's block r_source[r].
  Array<offset_type> r_source;
  std::optional<BlockDiagonal<T>> dinv;
  double omega = 0;
  std::shared_ptr<BsrMatrix<T>> P, R;
  // A distributed level: P_tent across processes (its diagonal block is
  // `tentative`), the products D^-1 A (made S = I - omega D^-1 A in place)
  // and S P_tent kept for a re-smoothing refresh, and P (the second
  // product's result) and R = P^T, shared with the transfer.
  std::shared_ptr<const DistributedCsrMatrix<T>> distributed_tentative;
  std::shared_ptr<DistributedProduct<T>> dinv_a, s_p;
  std::shared_ptr<DistributedCsrMatrix<T>> distributed_P, distributed_R;
};

template <class T>
class SmoothedAggregationCoarsening final : public Coarsening<T> {
 public:
  SmoothedAggregationCoarsening(const SmoothedAggregationParams& params,
                                std::vector<Vector<T>> near_null_space)
      : params_(params), user_B_(std::move(near_null_space)) {}

  std::optional<Transfer<T>> coarsen(const LevelOperator<T>& level_A, int level,
                                     StageTimes& times) override {
    require(level >= 0 && level <= static_cast<int>(levels_.size()),
            "smoothed aggregation: level " + std::to_string(level) +
                " requested before the levels above it");
    if (level == 0) {
      levels_.clear();
      near_null_.clear();
    }
    levels_.resize(static_cast<std::size_t>(level));
    if (level > 0) near_null_.resize(static_cast<std::size_t>(level) + 1);
    if (const auto* d = dynamic_cast<const DistributedOperator<T>*>(&level_A)) {
      return coarsen_distributed(d->matrix(), level, times);
    }
    SaLevel<T> state;
    const BsrMatrix<T>& A = block_matrix(level_A, level, state);
    const Executor& exec = level_A.executor();  // outlives a converted A
    const int b = A.row_block_size();
    const size_type nodes = A.block_rows();
    if (level == 0) {
      block_size_ = b;
      near_null_.push_back(finest_near_null_space(A));
    }
    const Array<T>& B = near_null_[static_cast<std::size_t>(level)];
    const int k = columns();
    if (B.size() != A.rows() * k) {
      throw dimension_mismatch("smoothed aggregation: the near-null space of level " +
                               std::to_string(level) + " has " + std::to_string(B.size()) +
                               " values, expected " + std::to_string(A.rows()) + " x " +
                               std::to_string(k));
    }

    StrengthGraph<T> S = strength(A, level, state, times, params_.strength_threshold);
    if (needs_theta_zero(state.strong_edges, A.num_blocks() - nodes)) {
      S = strength(A, level, state, times, 0.0);
    }
    aggregation(S, level, state, times);
    const double theta = state.theta;
    const size_type count = state.aggregates.count();
    if (count == 0 || count * k >= A.rows()) return std::nullopt;
    Array<T> coarse_B = tentative_prolongator(A, B, k, level, state, times);

    // 4. Prolongator smoothing.
    if (params_.smooth_prolongator) {
      std::optional<StageTimer> clock(std::in_place, exec, times, "prolongator smoothing");
      const BsrMatrix<T>& Af = smoothing_matrix(A, state, true);
      state.dinv.emplace(BlockDiagonal<T>::inverse(Af));
      clock.reset();
      estimate_damping(Af, state, times);
      clock.emplace(exec, times, "prolongator smoothing");
      Array<offset_type> p_row_ptr(exec, nodes + 1);
      const size_type p_blocks = exec.visit([&](const auto& e) {
        return sak::smoothed_pattern(e, nodes, Af.row_ptr().data(), Af.col_idx().data(),
                                     state.aggregates.aggregate.data(), p_row_ptr.data());
      });
      Array<index_type> p_col_idx(exec, p_blocks);
      // target[e]: the block of P that A_f's block e adds into (only needed
      // to build the plan by P's blocks).
      Array<offset_type> target(exec, Af.num_blocks());
      state.tentative_block = Array<offset_type>(exec, nodes);
      exec.visit([&](const auto& e) {
        sak::smoothed_plan(e, nodes, Af.row_ptr().data(), Af.col_idx().data(),
                           state.aggregates.aggregate.data(), p_row_ptr.data(), p_col_idx.data(),
                           target.data(), state.tentative_block.data());
      });
      const size_type bk = static_cast<size_type>(b) * k;
      state.contrib_ptr = Array<offset_type>(exec, p_blocks + 1);
      state.p_row = Array<index_type>(exec, p_blocks);
      exec.visit([&](const auto& e) {
        sak::contribution_counts(e, nodes, Af.row_ptr().data(), target.data(), p_row_ptr.data(),
                                 state.contrib_ptr.data(), state.p_row.data());
      });
      const size_type contributions = exclusive_scan(state.contrib_ptr, state.contrib_ptr);
      state.contrib = Array<offset_type>(exec, contributions);
      {
        Array<offset_type> cursor(exec, p_blocks);
        exec.visit([&](const auto& e) {
          sak::contribution_fill(e, nodes, Af.row_ptr().data(), target.data(), p_row_ptr.data(),
                                 state.contrib_ptr.data(), cursor.data(), state.contrib.data());
        });
      }
      state.scratch = Array<T>(exec, sak::smoothed_values_in_registers(b) ? 0 : p_blocks * bk);
      state.P = std::make_shared<BsrMatrix<T>>(nodes, count, b, k, std::move(p_row_ptr),
                                               std::move(p_col_idx), Array<T>(exec, p_blocks * bk));
      smooth(Af, state);
    } else {
      state.P = std::make_shared<BsrMatrix<T>>(state.tentative.clone());
    }
    // 5. R = P^T, explicitly.
    {
      StageTimer clock(exec, times, "restriction");
      const BsrMatrix<T>& P = *state.P;
      if (params_.smooth_prolongator) {
        // Where each block of R comes from in P, for refresh(): the host's
        // counting transpose gives it; the device finds it afterwards.
        state.r_source = Array<offset_type>(exec, P.num_blocks());
        exec.visit([&](const auto& e) {
          if constexpr (std::is_same_v<std::decay_t<decltype(e)>, HostExec>) {
            state.R = std::make_shared<BsrMatrix<T>>(kernels::bsr::transpose_with_source(
                e, P.block_rows(), P.block_cols(), P.row_block_size(), P.col_block_size(),
                P.row_ptr().data(), P.col_idx().data(), P.values().data(), P.num_blocks(),
                state.r_source.data()));
          } else {
            state.R = std::make_shared<BsrMatrix<T>>(transpose(P));
            sak::transpose_plan(e, nodes, P.row_ptr().data(), P.col_idx().data(),
                                state.R->row_ptr().data(), state.R->col_idx().data(),
                                state.r_source.data());
          }
        });
      } else {
        state.R = std::make_shared<BsrMatrix<T>>(transpose(P));
      }
    }
    state.converted.reset();  // refresh converts again (A is not used below)
    Transfer<T> transfer{std::make_shared<const BsrOperator<T>>(state.P),
                         std::make_shared<const BsrOperator<T>>(state.R)};
    if (keeps_prolongator()) {
      // refresh() changes nothing of this level: keep only what the
      // transfer shares.
      SaLevel<T> kept;
      kept.P = std::move(state.P);
      kept.R = std::move(state.R);
      state = std::move(kept);
    }
    coarsened_ = {level, theta};
    levels_.push_back(std::move(state));
    near_null_.push_back(std::move(coarse_B));
    return transfer;
  }

  /// refresh() writes new values into P and R (and makes R again by a
  /// transpose of the same pattern): their patterns stay.
  bool refresh_keeps_patterns() const override { return true; }
  void refresh(const LevelOperator<T>& level_A, int level, Transfer<T>& transfer,
               StageTimes& times) override {
    (void)transfer;  // P and R are refreshed in place (the operators share them)
    require(level >= 0 && level < static_cast<int>(levels_.size()),
            "smoothed aggregation: refresh of level " + std::to_string(level) +
                ", which setup did not coarsen (or whose data was released)");
    SaLevel<T>& state = levels_[static_cast<std::size_t>(level)];
    // P_tent does not depend on A's values; a kept smoothed P is kept.
    if (keeps_prolongator()) return;
    if (const auto* d = dynamic_cast<const DistributedOperator<T>*>(&level_A)) {
      refresh_distributed(d->matrix(), level, state, times);
      return;
    }
    const BsrMatrix<T>& A = block_matrix(level_A, level, state);
    const Executor& exec = level_A.executor();  // outlives a converted A
    std::optional<StageTimer> clock(std::in_place, exec, times, "prolongator smoothing");
    if (A.num_blocks() != state.keep.size() || A.block_rows() != state.tentative.block_rows()) {
      throw invalid_argument("smoothed aggregation: refresh of level " + std::to_string(level) +
                             " with " + std::to_string(A.num_blocks()) + " blocks in " +
                             std::to_string(A.block_rows()) + " block rows; setup had " +
                             std::to_string(state.keep.size()) + " in " +
                             std::to_string(state.tentative.block_rows()));
    }
    const BsrMatrix<T>& Af = smoothing_matrix(A, state, false);
    state.dinv->recompute(Af);
    clock.reset();
    estimate_damping(Af, state, times);
    clock.emplace(exec, times, "prolongator smoothing");
    smooth(Af, state);
    BsrMatrix<T>& R = *state.R;
    exec.visit([&](const auto& e) {
      sak::transpose_values(e, R.num_blocks(), R.col_block_size(), R.row_block_size(),
                            state.r_source.data(), state.P->values().data(), R.values().data());
    });
    state.converted.reset();
  }

  /// The next level's near-null space (column-major, k columns) follows
  /// its rows when they move (agglomeration).
  void move_coarse_rows(int level,
                        const std::function<Vector<T>(const Vector<T>&)>& move) override {
    const auto next = static_cast<std::size_t>(level) + 1;
    require(next < near_null_.size(), "smoothed aggregation: level " + std::to_string(level) +
                                          " has no coarse near-null space to move");
    near_null_[next] = detail::move_near_null_rows(near_null_[next], columns(), move);
  }

  void coarsen_as_distributed() override { as_distributed_ = true; }

  /// The one process's scalar block as BSR of block_size: level 0's
  /// smoother and Galerkin product then run on blocks, as for a serial BSR
  /// level (on 6M elasticity unknowns the CSR level 0 took 0.54 s of setup
  /// against 0.22 s). A block that is not whole nodes stays CSR, for
  /// coarsen() to refuse with its message.
  std::shared_ptr<const LevelOperator<T>> one_process_level_zero(
      std::shared_ptr<const LevelOperator<T>> block) const override {
    const int b = params_.block_size;
    const auto* csr = dynamic_cast<const CsrOperator<T>*>(block.get());
    if (b <= 1 || csr == nullptr || csr->matrix().rows() % b != 0) return block;
    return std::make_shared<const BsrOperator<T>>(
        std::make_shared<const BsrMatrix<T>>(to_bsr(csr->matrix(), b)));
  }

  /// On a distributed level, R A P multiplied in nodes (the level's block
  /// size, then the near-null space's k), as the serial levels are BSR.
  std::unique_ptr<CoarseProduct<T>> galerkin(const LevelOperator<T>& R, const LevelOperator<T>& A,
                                             const LevelOperator<T>& P) override {
    // The hierarchy asks for the product of the levels it keeps only: the
    // theta of the level coarsened last is a kept level's from here on.
    kept_theta_.resize(static_cast<std::size_t>(coarsened_.level));
    kept_theta_.push_back(coarsened_.theta);
    if (const auto* d = dynamic_cast<const DistributedOperator<T>*>(&A)) {
      return d->galerkin(R, P, distributed_fine_block_, columns());
    }
    return A.galerkin(R, P);
  }

  void release_refresh_data() override {
    for (SaLevel<T>& state : levels_) {
      state = SaLevel<T>{};
    }
  }

  std::string name() const override {
    char damping[32];
    std::snprintf(damping, sizeof damping, "%.3g", params_.prolongator_damping);
    std::string result = params_.smooth_prolongator ? "smoothed aggregation MIS(2)"
                                                    : "aggregation MIS(2) (unsmoothed, blocked)";
    result += ", block " + std::to_string(block_size_ > 0 ? block_size_ : params_.block_size);
    result += ", " + std::to_string(columns()) + " near-null vectors";
    result += ", theta " + number(params_.strength_threshold);
    for (std::size_t l = 0; l < kept_theta_.size(); ++l) {
      if (kept_theta_[l] != params_.strength_threshold) {
        result += " (0 where no coupling exceeded it, from level " + std::to_string(l) + ")";
        break;
      }
    }
    if (params_.smooth_prolongator) result += std::string(", omega ") + damping + "/rho(D^-1 A)";
    if (params_.filter_weak) result += ", weak connections filtered";
    if (distributed_) result += ", aggregates within each process";
    if (params_.smooth_prolongator && !params_.resetup_keeps_prolongator) {
      result += ", resetup re-smooths P";
    }
    return result;
  }

 private:
  // ---------------------------------------------------------- distributed

  /// Every process must own whole nodes of b rows (thrown alike on every
  /// process: the partition's table is the same everywhere).
  static void check_whole_nodes(const RowPartition& rows, int b, int level) {
    for (int r = 0; r < rows.processes() && b > 1; ++r) {
      const global_index begin = rows.offset(r), end = rows.offset(r + 1);
      if (begin % b == 0 && end % b == 0) continue;
      const global_index node = begin % b != 0 ? begin / b : end / b;
      throw invalid_argument(
          "smoothed aggregation: level " + std::to_string(level) + ": process " +
          std::to_string(r) + " owns global rows [" + std::to_string(begin) + ", " +
          std::to_string(end) + "), which splits node " + std::to_string(node) + " (rows [" +
          std::to_string(node * b) + ", " + std::to_string(node * b + b) + ")) of block size " +
          std::to_string(b) +
          " between two processes; expected every process to own whole nodes (a first row and "
          "a row count that are multiples of " +
          std::to_string(b) + ", e.g. RowPartition::uniform_nodes)");
    }
  }

  /// B on level 0 of a distributed level: this process's rows of each
  /// vector (or of the translations), column-major. Collective: sizes are
  /// checked per process and agreed on, the rank test sums through the
  /// distributed reduction.
  Array<T> distributed_near_null_space(const DistributedCsrMatrix<T>& M, int b,
                                       const Reduction<T>& reduction) const {
    const Executor& exec = M.executor();
    const size_type n = M.local_rows();
    if (user_B_.empty()) {
      Array<T> B(exec, n * b);
      exec.visit([&](const auto& e) { sak::translations(e, n, b, B.data()); });
      return B;
    }
    std::exception_ptr failure;
    try {
      for (std::size_t c = 0; c < user_B_.size(); ++c) {
        const std::string what = "near_null_space[" + std::to_string(c) + "]";
        if (user_B_[c].size() != n) {
          throw invalid_argument("smoothed aggregation: " + what + " has " +
                                 std::to_string(user_B_[c].size()) + " entries on process " +
                                 std::to_string(M.communicator().rank()) + ", expected " +
                                 std::to_string(n) + " (the process's rows of A, global rows [" +
                                 std::to_string(M.row_partition().begin()) + ", " +
                                 std::to_string(M.row_partition().end()) +
                                 ")): a distributed near-null space is split by rows like A");
        }
        check_location(exec, user_B_[c].executor(), what.c_str(), "A");
      }
    } catch (...) {
      failure = std::current_exception();
    }
    strata::detail::agree_on_failure(M.communicator(), failure, "smoothed aggregation");
    full_column_rank(user_B_, reduction);
    const int k = static_cast<int>(user_B_.size());
    Array<T> B(exec, n * k);
    for (int c = 0; c < k && n > 0; ++c) {
      copy_bytes(B.data() + c * n, exec, user_B_[static_cast<std::size_t>(c)].data(), exec,
                 sizeof(T) * n);
    }
    return B;
  }

  /// D^-1 (block diagonal, within each process because nodes are whole)
  /// as a distributed matrix with A's partition.
  static DistributedCsrMatrix<T> block_diagonal_matrix(const RowPartition& rows,
                                                       const BlockDiagonal<T>& dinv) {
    const Executor& exec = dinv.executor();
    const size_type nodes = dinv.block_rows();
    const int b = dinv.block_size();
    Array<offset_type> row_ptr(exec, nodes + 1);
    Array<index_type> col_idx(exec, nodes);
    exec.visit([&](const auto& e) {
      sak::block_diagonal_pattern(e, nodes, row_ptr.data(), col_idx.data());
    });
    const BsrMatrix<T> D(nodes, nodes, b, b, std::move(row_ptr), std::move(col_idx),
                         dinv.values().clone());
    return from_diagonal_block(rows, rows, to_csr(D));
  }

  /// Runs `f` (work local to this process that may throw), then agrees on
  /// failure with the others, so that no process goes on alone.
  template <class F>
  static void locally(const Communicator& comm, F&& f) {
    std::exception_ptr failure;
    try {
      f();
    } catch (...) {
      failure = std::current_exception();
    }
    strata::detail::agree_on_failure(comm, failure, "smoothed aggregation");
  }

  /// D^-1 from this process's diagonal block (nodes are whole, so its
  /// diagonal blocks are A's), omega from the distributed Arnoldi estimate,
  /// and S = I - omega D^-1 A in the product dinv_a (built when `build`,
  /// recomputed otherwise).
  void distributed_smoothing_operator(const DistributedCsrMatrix<T>& M, SaLevel<T>& state,
                                      bool build, StageTimes& times) const {
    const Communicator& comm = M.communicator();
    const Executor& exec = M.executor();
    std::optional<StageTimer> clock(std::in_place, exec, times, "prolongator smoothing");
    locally(comm, [&] {
      if (build) {
        state.dinv.emplace(BlockDiagonal<T>::inverse(*state.converted));
      } else {
        state.dinv->recompute(*state.converted);
      }
    });
    clock.reset();
    {
      StageTimer rho_clock(exec, times, "prolongator damping rho");
      const DistributedOperator<T> op(
          std::shared_ptr<const DistributedCsrMatrix<T>>(std::shared_ptr<const void>(), &M));
      const DistributedReduction<T> reduction(comm);
      state.omega = params_.prolongator_damping /
                    arnoldi_spectral_radius(op, *state.dinv, spectral_steps, reduction);
    }
    clock.emplace(exec, times, "prolongator smoothing");
    const DistributedCsrMatrix<T> D = block_diagonal_matrix(M.row_partition(), *state.dinv);
    if (build) {
      const int b = state.dinv->block_size();
      state.dinv_a = std::make_shared<DistributedProduct<T>>(D, M, ProductBlocks{b, b, b});
    } else {
      state.dinv_a->recompute(D, M);
    }
    DistributedCsrMatrix<T>& S = *state.dinv_a->result();
    const T omega = T(state.omega);
    const size_type missing = exec.visit([&](const auto& e) {
      const size_type m = sak::identity_minus_scaled(e, S.local_rows(), S.diag().row_ptr().data(),
                                                     S.diag().col_idx().data(), true, omega,
                                                     S.diag_values().data());
      sak::identity_minus_scaled(e, S.local_rows(), S.offd().row_ptr().data(),
                                 S.offd().col_idx().data(), false, omega, S.offd_values().data());
      return m;
    });
    const size_type missing_anywhere = strata::detail::sum_over_processes(comm, missing);
    if (missing_anywhere > 0) {
      throw invalid_argument("smoothed aggregation: D^-1 A lacks " +
                             std::to_string(missing_anywhere) +
                             " diagonal entries over all processes; expected A to store its "
                             "diagonal");
    }
  }

  /// One distributed level (a DistributedCsrMatrix in scalar CSR form with
  /// nodes of b consecutive rows, whole on each process). Aggregates lie
  /// within each process: stages 1-3 are the serial ones on this process's
  /// diagonal block as BSR (so one process gives the serial hierarchy);
  /// the smoothing and R = P^T are distributed products.
  std::optional<Transfer<T>> coarsen_distributed(const DistributedCsrMatrix<T>& M, int level,
                                                 StageTimes& times) {
    const Communicator& comm = M.communicator();
    const Executor& exec = M.executor();
    if (M.col_partition() != M.row_partition()) {
      throw invalid_argument("smoothed aggregation: level " + std::to_string(level) +
                             " is a distributed matrix whose columns are not split like its "
                             "rows; expected a square operator with one partition");
    }
    if (params_.filter_weak) {
      throw invalid_argument(
          "SmoothedAggregationParams.filter_weak is not supported on distributed levels yet "
          "(the weak connections to other processes' rows are not filtered); set it false");
    }
    distributed_ = true;
    if (level == 0) block_size_ = std::max(params_.block_size, 1);
    const int b = level == 0 ? block_size_ : columns();
    const int k = columns();
    check_whole_nodes(M.row_partition(), b, level);
    distributed_fine_block_ = b;  // for galerkin(), which follows on this level
    if (level == 0) {
      const DistributedReduction<T> reduction(comm);
      near_null_.push_back(distributed_near_null_space(M, b, reduction));
    }
    const Array<T>& B = near_null_[static_cast<std::size_t>(level)];
    SaLevel<T> state;
    StrengthGraph<T> S;
    locally(comm, [&] {
      if (B.size() != M.local_rows() * k) {
        throw dimension_mismatch("smoothed aggregation: the near-null space of level " +
                                 std::to_string(level) + " has " + std::to_string(B.size()) +
                                 " values on process " + std::to_string(comm.rank()) +
                                 ", expected " + std::to_string(M.local_rows()) + " x " +
                                 std::to_string(k));
      }
      state.converted = std::make_shared<const BsrMatrix<T>>(to_bsr(M.diag(), b));
      S = strength(*state.converted, level, state, times, params_.strength_threshold);
    });
    // Decided over all processes, so that every process uses one theta.
    const size_type off_diagonal =
        state.converted ? state.converted->num_blocks() - state.converted->block_rows() : 0;
    const bool theta_zero =
        needs_theta_zero(strata::detail::sum_over_processes(comm, state.strong_edges),
                         strata::detail::sum_over_processes(comm, off_diagonal));
    locally(comm, [&] {
      if (theta_zero) S = strength(*state.converted, level, state, times, 0.0);
      aggregation(S, level, state, times);
    });
    const double theta = state.theta;
    const size_type count = state.aggregates.count();
    const size_type global_count = strata::detail::sum_over_processes(comm, count);
    if (global_count == 0 || global_count * k >= M.global_rows()) return std::nullopt;
    Array<T> coarse_B;
    locally(comm,
            [&] { coarse_B = tentative_prolongator(*state.converted, B, k, level, state, times); });
    const RowPartition coarse_rows = RowPartition::from_local_rows(comm, count * k);
    std::shared_ptr<DistributedCsrMatrix<T>> P;
    {
      StageTimer clock(exec, times, "interpolation");
      P = std::make_shared<DistributedCsrMatrix<T>>(
          from_diagonal_block(M.row_partition(), coarse_rows, to_csr(state.tentative)));
      state.distributed_tentative = P;
    }
    if (params_.smooth_prolongator) {
      distributed_smoothing_operator(M, state, true, times);
      StageTimer clock(exec, times, "prolongator smoothing");
      state.s_p = std::make_shared<DistributedProduct<T>>(*state.dinv_a->result(), *P,
                                                          ProductBlocks{b, b, k});
      P = state.s_p->result();
    }
    {
      StageTimer clock(exec, times, "restriction");
      state.distributed_R = std::make_shared<DistributedCsrMatrix<T>>(transpose(*P));
    }
    state.distributed_P = P;
    state.converted.reset();
    Transfer<T> transfer{std::make_shared<const DistributedOperator<T>>(state.distributed_P),
                         std::make_shared<const DistributedOperator<T>>(state.distributed_R)};
    if (keeps_prolongator()) {
      SaLevel<T> kept;
      kept.distributed_P = std::move(state.distributed_P);
      kept.distributed_R = std::move(state.distributed_R);
      state = std::move(kept);
    }
    coarsened_ = {level, theta};
    levels_.push_back(std::move(state));
    near_null_.push_back(std::move(coarse_B));
    return transfer;
  }

  /// refresh() of a distributed level that re-smooths P: new D^-1, omega
  /// and S on the kept products, P = S P_tent recomputed in place, R = P^T
  /// again (the same pattern).
  void refresh_distributed(const DistributedCsrMatrix<T>& M, int level, SaLevel<T>& state,
                           StageTimes& times) {
    if (!state.dinv_a || !state.s_p || !state.distributed_tentative) {
      throw invalid_argument("smoothed aggregation: refresh of distributed level " +
                             std::to_string(level) + " without its setup data");
    }
    const int b = state.dinv->block_size();
    locally(M.communicator(),
            [&] { state.converted = std::make_shared<const BsrMatrix<T>>(to_bsr(M.diag(), b)); });
    distributed_smoothing_operator(M, state, false, times);
    StageTimer clock(M.executor(), times, "prolongator smoothing");
    state.s_p->recompute(*state.dinv_a->result(), *state.distributed_tentative);
    *state.distributed_R = transpose(*state.distributed_P);
    state.converted.reset();
  }

  /// Whether refresh() leaves P alone: unsmoothed (P_tent depends on B
  /// only) or told to keep the smoothed P.
  bool keeps_prolongator() const {
    return !params_.smooth_prolongator || params_.resetup_keeps_prolongator;
  }

  int columns() const {
    if (!user_B_.empty()) return static_cast<int>(user_B_.size());
    return block_size_ > 0 ? block_size_ : std::max(params_.block_size, 1);
  }

  /// Stage 1 on a BSR matrix (the level, or on a distributed level this
  /// process's diagonal block): the block strength graph of the nodes at
  /// threshold `theta` (state.keep, state.theta, state.strong_edges).
  /// A threshold above every coupling of a level (theta 0.05 on a scalar
  /// 27-point stencil, whose couplings are 1/26 of the diagonal) leaves no
  /// connection strong: no aggregate forms, coarsening would stop at that
  /// level and the "hierarchy" would be one level smoothed 20 times. Such a
  /// level is aggregated again with theta 0 (every stored coupling strong,
  /// PyAMG's and PETSc's default); name() says where.
  bool needs_theta_zero(size_type strong_edges, size_type off_diagonal_blocks) const {
    return params_.strength_threshold > 0 && strong_edges == 0 && off_diagonal_blocks > 0;
  }

  StrengthGraph<T> strength(const BsrMatrix<T>& A, int level, SaLevel<T>& state, StageTimes& times,
                            double theta) const {
    const Executor& exec = A.executor();
    const int b = A.row_block_size();
    const size_type nodes = A.block_rows();
    // 1. Strength on the block graph, through the node matrix whose classic
    // strength (alpha = 0) is the symmetric block rule.
    StrengthGraph<T> S;
    {
      StageTimer clock(exec, times, "strength");
      Array<T> norm(exec, nodes);
      Array<T> s(exec, A.num_blocks());
      state.keep = Array<std::uint8_t>(exec, A.num_blocks());
      const size_type bad = exec.visit([&](const auto& e) {
        return sak::diagonal_block_norms(e, nodes, b, A.row_ptr().data(), A.col_idx().data(),
                                         A.values().data(), norm.data());
      });
      if (bad > 0) {
        throw invalid_argument("smoothed aggregation: level " + std::to_string(level) + " has " +
                               std::to_string(bad) +
                               " block rows whose diagonal block is missing, zero or not "
                               "finite; expected a symmetric positive definite operator");
      }
      exec.visit([&](const auto& e) {
        sak::block_strength(e, nodes, b, A.row_ptr().data(), A.col_idx().data(), A.values().data(),
                            norm.data(), T(theta), s.data(), state.keep.data());
      });
      const CsrMatrix<T> node_matrix(nodes, nodes, A.row_ptr().clone(), A.col_idx().clone(),
                                     std::move(s));
      S = strength_graph(node_matrix, 0.0);
      state.theta = theta;
      state.strong_edges = S.col_idx.size();
    }
    return S;
  }

  /// Stage 2: MIS(2) aggregates of the nodes of S into state.aggregates.
  void aggregation(const StrengthGraph<T>& S, int level, SaLevel<T>& state,
                   StageTimes& times) const {
    StageTimer clock(S.col_idx.executor(), times, "aggregation");
    state.aggregates = aggregate(S, params_.seed, level);
  }

  /// Stage 3: P_tent (state.tentative) by per-aggregate QR of B (k
  /// columns, column-major) over the aggregates' unknowns; returns the
  /// coarse near-null space (the R factors).
  Array<T> tentative_prolongator(const BsrMatrix<T>& A, const Array<T>& B, int k, int level,
                                 SaLevel<T>& state, StageTimes& times) const {
    const Executor& exec = A.executor();
    const int b = A.row_block_size();
    const size_type nodes = A.block_rows();
    const size_type count = state.aggregates.count();
    Array<T> coarse_B;
    // 3. Tentative prolongator: per-aggregate QR over the aggregates' dofs.
    {
      StageTimer clock(exec, times, "interpolation");
      Aggregates dofs;
      dofs.aggregate = Array<index_type>(exec, A.rows());
      dofs.root = state.aggregates.root.clone();  // only its count matters
      exec.visit([&](const auto& e) {
        sak::expand_aggregates(e, nodes, b, state.aggregates.aggregate.data(),
                               dofs.aggregate.data());
      });
      detail::OrthonormalizedAggregates<T> q = detail::orthonormalize(dofs, B, k);
      if (q.dropped > 0) {
        const size_type small = exec.visit([&](const auto& e) {
          return sak::complete_dropped_columns(
              e, count, k, q.R.row_ptr().data(), q.R.values().data(), q.R.col_idx().data(),
              q.P.row_ptr().data(), q.P.values().data(), q.keep.data());
        });
        if (small > 0) {
          throw invalid_argument("smoothed aggregation: level " + std::to_string(level) + " has " +
                                 std::to_string(small) +
                                 " aggregates with fewer unknowns than the " + std::to_string(k) +
                                 " near-null vectors and a rank-deficient near-null space on "
                                 "them; use fewer near-null vectors or a larger block size");
        }
      }
      // A node-aligned aggregate map makes P's values, node by node, the
      // row-major b x k blocks of a BSR matrix with one block per block row.
      Array<offset_type> t_row_ptr(exec, nodes + 1);
      Array<index_type> t_col_idx(exec, nodes);
      const size_type blocks = exec.visit([&](const auto& e) {
        return sak::tentative_pattern(e, nodes, state.aggregates.aggregate.data(), t_row_ptr.data(),
                                      t_col_idx.data());
      });
      Array<index_type> t_cols(exec, blocks);  // t_col_idx has room for every node
      if (blocks > 0) {
        copy_bytes(t_cols.data(), exec, t_col_idx.data(), exec, sizeof(index_type) * blocks);
      }
      state.tentative = BsrMatrix<T>(nodes, count, b, k, std::move(t_row_ptr), std::move(t_cols),
                                     std::move(q.P.values()));
      coarse_B = std::move(q.coarse_B);
    }
    return coarse_B;
  }

  /// The level as BSR with square blocks (a CSR level only with block size
  /// 1, converted once per setup or refresh).
  const BsrMatrix<T>& block_matrix(const LevelOperator<T>& A, int level, SaLevel<T>& state) const {
    if (const auto* bsr = dynamic_cast<const BsrOperator<T>*>(&A)) {
      const BsrMatrix<T>& M = bsr->matrix();
      if (M.row_block_size() != M.col_block_size()) {
        throw invalid_argument("smoothed aggregation: level " + std::to_string(level) + " has " +
                               std::to_string(M.row_block_size()) + "x" +
                               std::to_string(M.col_block_size()) +
                               " blocks; expected square blocks");
      }
      if (level == 0 && params_.block_size > 0 && M.row_block_size() != params_.block_size) {
        throw invalid_argument("SmoothedAggregationParams.block_size is " +
                               std::to_string(params_.block_size) + " but the operator has " +
                               std::to_string(M.row_block_size()) + "x" +
                               std::to_string(M.col_block_size()) +
                               " blocks; convert it with to_bsr(A, block_size) or set 0");
      }
      return M;
    }
    if (const auto* csr = dynamic_cast<const CsrOperator<T>*>(&A)) {
      // The one process's block of a distributed operator is scalar CSR
      // with whole nodes, as the distributed path takes it (and converts);
      // any other CSR level 0 with a block size must come as BSR.
      int b = 1;
      if (level == 0 && params_.block_size > 1) {
        if (!as_distributed_) {
          throw invalid_argument("smoothed aggregation: SmoothedAggregationParams.block_size is " +
                                 std::to_string(params_.block_size) +
                                 " but the operator is CSR; convert it with " + "to_bsr(A, " +
                                 std::to_string(params_.block_size) + ") first");
        }
        b = params_.block_size;
        if (csr->matrix().rows() % b != 0) {
          throw invalid_argument("smoothed aggregation: block_size " + std::to_string(b) +
                                 " does not divide the " + std::to_string(csr->matrix().rows()) +
                                 " rows of the operator (one process); expected whole nodes");
        }
      }
      state.converted = std::make_shared<const BsrMatrix<T>>(to_bsr(csr->matrix(), b));
      return *state.converted;
    }
    throw invalid_argument("smoothed aggregation: level " + std::to_string(level) + " is a " +
                           A.kind() + " operator; expected CSR or BSR");
  }

  /// B on level 0, column-major on A's executor.
  Array<T> finest_near_null_space(const BsrMatrix<T>& A) const {
    const Executor& exec = A.executor();
    const size_type n = A.rows();
    const int b = A.row_block_size();
    if (user_B_.empty()) {
      Array<T> B(exec, n * b);
      exec.visit([&](const auto& e) { sak::translations(e, n, b, B.data()); });
      return B;
    }
    validate_near_null_space(user_B_, n, b);
    const int k = static_cast<int>(user_B_.size());
    Array<T> B(exec, n * k);
    for (int c = 0; c < k; ++c) {
      const Vector<T>& v = user_B_[static_cast<std::size_t>(c)];
      check_location(exec, v.executor(), ("near_null_space[" + std::to_string(c) + "]").c_str(),
                     "A");
      if (n > 0) copy_bytes(B.data() + c * n, exec, v.data(), exec, sizeof(T) * n);
    }
    return B;
  }

  /// A_f: A itself, or (filter_weak) A with its weak blocks lumped into the
  /// diagonal, on the pattern made at setup (`build`).
  const BsrMatrix<T>& smoothing_matrix(const BsrMatrix<T>& A, SaLevel<T>& state, bool build) {
    if (!params_.filter_weak) return A;
    const Executor& exec = A.executor();
    const size_type nodes = A.block_rows();
    const int b = A.row_block_size();
    if (build) {
      Array<offset_type> f_row_ptr(exec, nodes + 1);
      const size_type blocks = exec.visit([&](const auto& e) {
        return sak::filtered_pattern(e, nodes, A.row_ptr().data(), state.keep.data(),
                                     f_row_ptr.data());
      });
      Array<index_type> f_col_idx(exec, blocks);
      exec.visit([&](const auto& e) {
        sak::filtered_columns(e, nodes, A.row_ptr().data(), A.col_idx().data(), state.keep.data(),
                              f_row_ptr.data(), f_col_idx.data());
      });
      state.filtered = std::make_shared<BsrMatrix<T>>(
          nodes, nodes, b, b, std::move(f_row_ptr), std::move(f_col_idx),
          Array<T>(exec, blocks * static_cast<size_type>(b) * b));
    }
    BsrMatrix<T>& Af = *state.filtered;
    exec.visit([&](const auto& e) {
      sak::filtered_values(e, nodes, b, A.row_ptr().data(), A.col_idx().data(), A.values().data(),
                           state.keep.data(), Af.row_ptr().data(), Af.values().data());
    });
    return Af;
  }

  /// omega = damping / rho(D^-1 A_f), timed as a stage of its own: the
  /// estimate's reductions make it the latency-bound part of the smoothing.
  void estimate_damping(const BsrMatrix<T>& Af, SaLevel<T>& state, StageTimes& times) const {
    StageTimer clock(Af.executor(), times, "prolongator damping rho");
    state.omega = params_.prolongator_damping / block_jacobi_spectral_radius(Af, *state.dinv);
  }

  /// P's values: (I - omega D^-1 A_f) P_tent on the kept plan.
  void smooth(const BsrMatrix<T>& Af, SaLevel<T>& state) const {
    const Executor& exec = Af.executor();
    BsrMatrix<T>& P = *state.P;
    const BsrMatrix<T>& Pt = state.tentative;
    exec.visit([&](const auto& e) {
      sak::smoothed_values(e, P.num_blocks(), Af.row_block_size(), P.col_block_size(),
                           Af.col_idx().data(), Af.values().data(), state.contrib_ptr.data(),
                           state.contrib.data(), state.p_row.data(), Pt.row_ptr().data(),
                           Pt.values().data(), state.dinv->values().data(), T(state.omega),
                           state.tentative_block.data(), state.scratch.data(), P.values().data());
    });
  }

  SmoothedAggregationParams params_;
  std::vector<Vector<T>> user_B_;
  int block_size_ = 0;              // of level 0, once setup has seen it
  bool as_distributed_ = false;     // coarsen_as_distributed(): level 0 may be scalar CSR
  int distributed_fine_block_ = 1;  // the node size of the last distributed level coarsened
  bool distributed_ = false;        // a distributed level was coarsened
  std::vector<SaLevel<T>> levels_;
  // The theta of the level coarsened last, and of each level the hierarchy
  // kept (both outlive release_refresh_data(), which drops the states).
  struct Coarsened {
    int level = 0;
    double theta = 0;
  } coarsened_;
  std::vector<double> kept_theta_;
  std::vector<Array<T>> near_null_;  // B of each level built so far
};

}  // namespace

template <class T>
std::unique_ptr<Coarsening<T>> make_smoothed_aggregation_coarsening(
    const SmoothedAggregationParams& params, std::vector<Vector<T>> near_null_space) {
  validate(params);
  return std::make_unique<SmoothedAggregationCoarsening<T>>(params, std::move(near_null_space));
}

template std::unique_ptr<Coarsening<double>> make_smoothed_aggregation_coarsening<double>(
    const SmoothedAggregationParams&, std::vector<Vector<double>>);
template std::vector<Vector<double>> rigid_body_modes<double>(const Vector<double>&, int);
template void validate_near_null_space<double>(const std::vector<Vector<double>>&, size_type, int);

}  // namespace strata::amg
