// Classical coarsening: strength, PMIS, MM / direct interpolation, truncation,
// aggressive coarsening with two-stage interpolation, and value-only refresh.
// Written once; every kernel runs where A lives.

#include "strata/amg/classical.hpp"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "core/amg/classical_internal.hpp"
#include "core/amg/distributed_classical.hpp"
#include "core/amg/stage_timer.hpp"
#include "kernels/amg/classical_kernels.hpp"
#include "kernels/base/random.hpp"
#include "strata/distributed/operator.hpp"
#include "strata/matrix/spgemm.hpp"
#include "strata/matrix/transpose.hpp"

namespace strata::amg {

namespace ck = kernels::classical;

const char* to_string(Interpolation interpolation) noexcept {
  switch (interpolation) {
    case Interpolation::direct:
      return "direct";
    case Interpolation::mm_ext:
      return "ext";
    case Interpolation::mm_ext_i:
      return "ext+i";
    case Interpolation::mm_ext_e:
      return "ext+e";
  }
  return "?";
}

const char* to_string(Splitting splitting) noexcept {
  switch (splitting) {
    case Splitting::automatic:
      return "auto";
    case Splitting::pmis:
      return "pmis";
    case Splitting::hmis:
      return "hmis";
  }
  return "?";
}

namespace {

std::string number(double value) {
  char text[64];
  std::snprintf(text, sizeof text, "%g", value);
  return text;
}

void require_field(bool ok, const char* field, const std::string& value, const char* expected) {
  if (!ok) {
    throw invalid_argument(std::string("ClassicalParams.") + field + " = " + value +
                           " is out of range: expected " + expected);
  }
}

}  // namespace

void validate(const ClassicalParams& p) {
  require_field(p.strength_threshold >= 0.0 && p.strength_threshold <= 1.0, "strength_threshold",
                number(p.strength_threshold), "a value in [0, 1]");
  require_field(p.max_row_sum > 0.0 && p.max_row_sum <= 1.0, "max_row_sum", number(p.max_row_sum),
                "a value in (0, 1] (1 turns the row-sum test off)");
  const int splitting = static_cast<int>(p.splitting);
  require_field(splitting >= 0 && splitting <= 2, "splitting", std::to_string(splitting),
                "automatic, pmis or hmis");
  const int kind = static_cast<int>(p.interpolation);
  require_field(kind >= 0 && kind <= 3, "interpolation", std::to_string(kind),
                "direct, mm_ext, mm_ext_i or mm_ext_e");
  require_field(p.max_elements_per_row >= -1, "max_elements_per_row",
                std::to_string(p.max_elements_per_row), ">= 0 (0 = no limit) or -1 (automatic)");
  require_field(p.truncation_factor >= 0.0 && p.truncation_factor < 1.0, "truncation_factor",
                number(p.truncation_factor), "a value in [0, 1) (0 = off)");
  require_field(p.aggressive_levels >= -1, "aggressive_levels", std::to_string(p.aggressive_levels),
                ">= 0 or -1 (automatic)");
  require_field(p.aggressive_interpolation == Interpolation::mm_ext ||
                    p.aggressive_interpolation == Interpolation::mm_ext_e,
                "aggressive_interpolation", to_string(p.aggressive_interpolation),
                "mm_ext or mm_ext_e (the two-stage interpolations)");
  require_field(p.aggressive_num_paths == 1 || p.aggressive_num_paths == 2, "aggressive_num_paths",
                std::to_string(p.aggressive_num_paths), "1 (A1) or 2 (A2)");
  require_field(p.aggressive_stage_max_elements >= -1, "aggressive_stage_max_elements",
                std::to_string(p.aggressive_stage_max_elements),
                ">= 0 (0 = no limit) or -1 (automatic)");
  require_field(
      p.aggressive_stage_truncation_factor >= 0.0 && p.aggressive_stage_truncation_factor < 1.0,
      "aggressive_stage_truncation_factor", number(p.aggressive_stage_truncation_factor),
      "a value in [0, 1) (0 = off)");
}

namespace {

using detail::build;
using detail::InterpolationStage;
using detail::mm_variant;
using detail::PartTimer;
using detail::refresh_stage;
using detail::StageTimer;
using detail::truncate;
using detail::truncated_values;

/// The PMIS seed of one pass on one level (pass 0: the splitting, pass 1:
/// the second pass of aggressive coarsening).
std::uint64_t pass_seed(std::uint64_t seed, int level, int pass) {
  return seed * kernels::base::golden_gamma + (static_cast<std::uint64_t>(level) << 8) +
         static_cast<std::uint64_t>(pass);
}

/// The classical strength flags of A's entries.
template <class T>
Array<std::uint8_t> strength_flags(const CsrMatrix<T>& A, const ClassicalParams& p) {
  Array<std::uint8_t> strong(A.executor(), A.nnz());
  A.executor().visit([&](const auto& e) {
    ck::strength(e, A.rows(), A.nnz(), A.row_ptr().data(), A.col_idx().data(), A.values().data(),
                 p.strength_threshold, p.max_row_sum, strong.data());
  });
  return strong;
}

/// PMIS on the graph of G (edges: entries flagged in strong, or all
/// off-diagonal entries when strong is null).
template <class T>
void pmis_on(const CsrMatrix<T>& G, const std::uint8_t* strong, std::uint64_t seed,
             const index_type* global_id, bool isolated_coarse, Array<std::int32_t>& cf) {
  cf = Array<std::int32_t>(G.executor(), G.rows());
  G.executor().visit([&](const auto& e) {
    ck::pmis(e, G.rows(), G.nnz(), G.row_ptr().data(), G.col_idx().data(), strong, seed, global_id,
             isolated_coarse, cf.data());
  });
}

/// HMIS on the graph of G (edges as in pmis_on): the Ruge-Stueben first
/// pass, then PMIS on the points it left without a strong C neighbour.
/// Host only (the first pass is sequential).
template <class T>
void hmis_on(const CsrMatrix<T>& G, const std::uint8_t* strong, std::uint64_t seed,
             Array<std::int32_t>& cf) {
  require(G.executor().is_host(),
          std::string("classical coarsening: splitting hmis runs on the host only (its "
                      "Ruge-Stueben first pass is sequential), the matrix is on ") +
              G.executor().name() + "; use splitting pmis");
  cf = Array<std::int32_t>(G.executor(), G.rows());
  G.executor().visit([&](const auto& e) {
    if constexpr (std::is_same_v<std::decay_t<decltype(e)>, HostExec>) {
      ck::ruge_stueben_first_pass(e, G.rows(), G.row_ptr().data(), G.col_idx().data(), strong,
                                  cf.data());
      ck::pmis_from_coarse(e, G.rows(), G.nnz(), G.row_ptr().data(), G.col_idx().data(), strong,
                           seed, nullptr, cf.data());
    }
  });
}

/// Does this level follow the host recipe where a choice is automatic?
bool host_recipe(const Executor& exec, bool distributed) { return exec.is_host() && !distributed; }

/// The parameters of one level with every automatic choice made, except
/// the aggressive one of the host recipe, which waits for the splitting
/// (see automatic_aggressive): `p` as given where nothing is automatic.
ClassicalParams level_params(const ClassicalParams& p, bool host) {
  ClassicalParams q = p;
  if (q.splitting == Splitting::automatic) q.splitting = host ? Splitting::hmis : Splitting::pmis;
  const bool hmis = q.splitting == Splitting::hmis;
  if (q.max_elements_per_row < 0) q.max_elements_per_row = host && hmis ? 6 : 4;
  if (q.aggressive_stage_max_elements < 0) q.aggressive_stage_max_elements = host ? 0 : 4;
  // Decided by automatic_aggressive once the splitting is known.
  if (q.aggressive_levels < 0) q.aggressive_levels = 0;
  return q;
}

/// The host recipe's rule: coarsen a level aggressively when it is large
/// and its (HMIS) splitting keeps many of its points (slow coarsening).
bool automatic_aggressive(size_type rows, size_type coarse) {
  return rows >= kAutomaticAggressiveRows &&
         static_cast<double>(coarse) >= kAutomaticAggressiveFraction * static_cast<double>(rows);
}

size_type enumerate(const Array<std::int32_t>& marker, std::int32_t value, Array<index_type>& map) {
  map = Array<index_type>(marker.executor(), marker.size());
  return marker.executor().visit([&](const auto& e) {
    return ck::enumerate(e, marker.size(), marker.data(), value, map.data());
  });
}

template <class T>
struct LevelState {
  Array<std::uint8_t> strong;     // strength flags of A's entries
  Array<std::int32_t> cf;         // first PMIS pass
  Array<std::int32_t> splitting;  // final splitting (aggressive levels)
  bool aggressive = false;
  Splitting splitting_kind = Splitting::pmis;  // the first pass's, resolved
  ClassicalParams params;                      // this level's, automatic choices made
  InterpolationStage<T> first;   // P, or P1 of two-stage interpolation
  InterpolationStage<T> second;  // P2
  CsrMatrix<T> P1, P2;
  std::optional<SparseProduct<CsrMatrix<T>>> P12;
  bool final_truncated = false;
  Array<offset_type> r_from_p;  // R's entries as entries of P (made by the first refresh)
  // release_rebuildable_data() ran (the lean resetup): the stages' operands,
  // P12 (when second.released; p12_pattern is its pattern), r_from_p and,
  // on one-stage levels, first's roles are rebuilt at each refresh and
  // freed again.
  bool lean = false;
  strata::detail::OperandPattern p12_pattern;
  // P and R, shared with the hierarchy's Transfer: refresh writes their values.
  std::shared_ptr<CsrMatrix<T>> P, R;
  bool released = false;     // release_refresh_data() ran: refresh is impossible
  bool distributed = false;  // a DistributedOperator level: cf holds the owned rows' part
  detail::DistributedClassicalLevel<T> dist;  // its P, R and refresh data
};

template <class T>
class ClassicalCoarsening final : public Coarsening<T> {
 public:
  explicit ClassicalCoarsening(const ClassicalParams& params) : p_(params) { validate(params); }

  std::optional<Transfer<T>> coarsen(const LevelOperator<T>& level_A, int level,
                                     StageTimes& times) override {
    require(level >= 0, "classical coarsening: level must be >= 0, got " + std::to_string(level));
    if (levels_.size() <= static_cast<std::size_t>(level)) levels_.resize(level + 1);
    LevelState<T>& L = levels_[level];
    L = LevelState<T>{};
    if (const auto* distributed = dynamic_cast<const DistributedOperator<T>*>(&level_A)) {
      return coarsen_distributed(distributed->matrix(), level, L, times);
    }
    if (as_distributed_) require_parallel_splitting();
    const CsrMatrix<T>& A = csr_matrix(level_A, "classical coarsening");
    const Executor& exec = A.executor();
    const size_type n = A.rows();
    if (n == 0) return std::nullopt;

    {  // 1. strength
      StageTimer t(exec, times, "strength");
      L.strong = strength_flags(A, p_);
    }
    Array<index_type> cmap;
    size_type nc = 0;
    {  // 2. splitting
      StageTimer t(exec, times, "splitting");
      L.params = level_params(p_, host_recipe(exec, as_distributed_));
      L.splitting_kind = L.params.splitting;
      if (L.splitting_kind == Splitting::hmis) {
        hmis_on(A, L.strong.data(), pass_seed(p_.seed, level, 0), L.cf);
      } else {
        pmis_on(A, L.strong.data(), pass_seed(p_.seed, level, 0), nullptr, false, L.cf);
      }
      nc = enumerate(L.cf, ck::kCoarse, cmap);
    }
    if (nc == 0 || nc == n) return std::nullopt;

    const ClassicalParams& q = L.params;
    L.aggressive = p_.aggressive_levels < 0
                       ? L.splitting_kind == Splitting::hmis && automatic_aggressive(n, nc)
                       : level < p_.aggressive_levels;
    if (L.aggressive) {
      L.P = std::make_shared<CsrMatrix<T>>(aggressive(A, level, L, cmap, nc, times));
    } else {
      // 3. interpolation
      StageTimer t(exec, times, "interpolation");
      one_stage_roles(L.first, L.cf, std::move(cmap), nc, p_.interpolation);
      L.P = std::make_shared<CsrMatrix<T>>(
          build(L.first, A, L.strong, q.max_elements_per_row, q.truncation_factor, parts(times)));
    }
    {
      StageTimer t(exec, times, "interpolation");
      PartTimer part(p_.profile_stages, exec, times, "interpolation: transpose");
      L.R = std::make_shared<CsrMatrix<T>>(transpose(*L.P));
    }
    return Transfer<T>{std::make_shared<const CsrOperator<T>>(L.P),
                       std::make_shared<const CsrOperator<T>>(L.R)};
  }

  /// refresh() writes new values into P and R (and makes R again by a
  /// transpose of the same pattern): their patterns stay.
  bool refresh_keeps_patterns() const override { return true; }
  void refresh(const LevelOperator<T>& level_A, int level, Transfer<T>& transfer,
               StageTimes& times) override {
    (void)transfer;  // its operators share L.P and L.R, written here
    require(level >= 0 && static_cast<std::size_t>(level) < levels_.size(),
            "classical coarsening: refresh of level " + std::to_string(level) +
                ", which was not coarsened");
    LevelState<T>& L = levels_[level];
    if (L.distributed) {
      const auto* distributed = dynamic_cast<const DistributedOperator<T>*>(&level_A);
      require(distributed != nullptr, "classical coarsening: refresh of distributed level " +
                                          std::to_string(level) + " with a " + level_A.kind() +
                                          " operator; expected a distributed one");
      detail::refresh_distributed_level(L.dist, distributed->matrix(), times);
      return;
    }
    const CsrMatrix<T>& A = csr_matrix(level_A, "classical coarsening");
    require(!L.released, "classical coarsening: refresh of level " + std::to_string(level) +
                             " after its refresh data was released (keep_resetup_data = false)");
    require(L.strong.size() == A.nnz(), "classical coarsening: refresh of level " +
                                            std::to_string(level) +
                                            " with a matrix of another pattern");
    StageTimer t(A.executor(), times, "interpolation");
    std::optional<PartTimer> part;
    part.emplace(p_.profile_stages, A.executor(), times, "interpolation: refresh P");
    if (!L.aggressive) {
      if (L.lean) {
        Array<index_type> cmap;
        const size_type nc = enumerate(L.cf, ck::kCoarse, cmap);
        one_stage_roles(L.first, L.cf, std::move(cmap), nc, L.first.kind);
      }
      refresh_stage(L.first, A, L.strong, *L.P);
      if (L.lean) release_roles(L.first);
    } else if (!L.P12 && !L.second.released) {  // the second pass kept every C point
      refresh_stage(L.first, A, L.strong, *L.P);
    } else {
      refresh_stage(L.first, A, L.strong, L.P1);
      refresh_stage(L.second, A, L.strong, L.P2);
      if (L.P12) {
        L.P12->recompute(L.P1, L.P2);
        truncated_values(L.P12->result(), L.final_truncated, *L.P);
      } else {  // lean: P1 P2 afresh
        const SparseProduct<CsrMatrix<T>> P12(L.P1, L.P2);
        strata::detail::check_pattern_unchanged("classical coarsening: refresh", "P1 P2",
                                                A.executor(), detail::pattern_of(P12.result()),
                                                L.p12_pattern, "nonzeros");
        truncated_values(P12.result(), L.final_truncated, *L.P);
      }
    }
    part.reset();
    PartTimer r_part(p_.profile_stages, A.executor(), times, "interpolation: refresh R");
    refresh_restriction(L);
  }

  /// The lean resetup: frees the interpolation operands, their untruncated
  /// products, the product P1 P2, the map from P to R and (one-stage levels)
  /// the roles, which refresh() rebuilds from A, the strength flags, the
  /// splitting and P1, P2; keeps those and the truncation choices (P's
  /// pattern).
  void release_rebuildable_data() override {
    for (LevelState<T>& L : levels_) {
      if (L.released || L.distributed || L.lean) continue;
      detail::release(L.first);
      if (!L.aggressive) release_roles(L.first);  // one stage: its roles follow from cf
      if (L.P12) {  // two-stage interpolation
        detail::release(L.second);
        L.p12_pattern = strata::detail::describe_pattern(L.P12->result().executor(),
                                                         detail::pattern_of(L.P12->result()));
        L.P12.reset();
      }
      L.r_from_p = Array<offset_type>{};
      L.lean = true;
    }
  }

  /// Keeps only the splittings (for classical_splitting): the strength
  /// flags, the interpolation operands and untruncated products, P1, P2 and
  /// the truncation choices go.
  void release_refresh_data() override {
    for (LevelState<T>& L : levels_) {
      LevelState<T> kept;
      kept.cf = std::move(L.cf);
      kept.splitting = std::move(L.splitting);
      kept.aggressive = L.aggressive;
      kept.splitting_kind = L.splitting_kind;
      kept.params = L.params;
      kept.distributed = L.distributed;
      kept.released = true;
      L = std::move(kept);
    }
  }

  std::string name() const override {
    // The splitting of level 0 once it is coarsened, else what was asked.
    Splitting kind = p_.splitting;
    if (!levels_.empty() && (levels_[0].distributed || !levels_[0].cf.empty())) {
      kind = levels_[0].splitting_kind;
    }
    const char* splitting = kind == Splitting::hmis   ? "HMIS"
                            : kind == Splitting::pmis ? "PMIS"
                                                      : "HMIS (host) / PMIS (device)";
    std::string s = std::string("classical ") + splitting + " + " + to_string(p_.interpolation);
    int aggressive_levels = p_.aggressive_levels;
    if (aggressive_levels < 0) {  // automatic: the levels that were, once set up
      aggressive_levels = 0;
      for (const LevelState<T>& L : levels_) aggressive_levels += L.aggressive ? 1 : 0;
    }
    if (aggressive_levels > 0) {
      s += ", aggressive A" + std::to_string(p_.aggressive_num_paths) + " on " +
           std::to_string(aggressive_levels) + " level" + (aggressive_levels > 1 ? "s" : "") +
           " (two-stage " + to_string(p_.aggressive_interpolation) + ")";
    }
    return s;
  }

  const Array<std::int32_t>& splitting(int level) const {
    // A distributed level's part may be empty (a process without rows).
    require(level >= 0 && static_cast<std::size_t>(level) < levels_.size() &&
                (levels_[level].distributed || !levels_[level].cf.empty()),
            "classical_splitting: level " + std::to_string(level) + " was not coarsened");
    const LevelState<T>& L = levels_[level];
    return L.aggressive && !L.splitting.empty() ? L.splitting : L.cf;
  }

 private:
  StageTimes* parts(StageTimes& times) const { return p_.profile_stages ? &times : nullptr; }

  void coarsen_as_distributed() override { as_distributed_ = true; }

  /// Refused alike on one process and on many, so that a setting that
  /// works with `mpirun -np 1` does not fail at -np 2.
  void require_parallel_splitting() const {
    require(p_.splitting != Splitting::hmis,
            "classical coarsening: splitting hmis is for serial levels (its Ruge-Stueben first "
            "pass is sequential over the whole level); a distributed level takes pmis (or auto)");
  }

  /// A distributed level (collective): the same stages across processes
  /// (distributed_classical.cpp), P and R as distributed operators.
  std::optional<Transfer<T>> coarsen_distributed(const DistributedCsrMatrix<T>& A, int level,
                                                 LevelState<T>& L, StageTimes& times) {
    require_parallel_splitting();
    L.distributed = true;
    L.params = level_params(p_, host_recipe(A.executor(), true));
    L.splitting_kind = L.params.splitting;
    L.dist = detail::distributed_classical_level(A, L.params, pass_seed(p_.seed, level, 0),
                                                 pass_seed(p_.seed, level, 1),
                                                 level < L.params.aggressive_levels, times);
    L.cf = std::move(L.dist.splitting);
    if (!L.dist.P) return std::nullopt;
    return Transfer<T>{std::make_shared<const DistributedOperator<T>>(L.dist.P),
                       std::make_shared<const DistributedOperator<T>>(L.dist.R)};
  }

  static void release_roles(InterpolationStage<T>& s) {
    s.role = Array<std::int32_t>{};
    s.cmap = Array<index_type>{};
    s.dmap = Array<index_type>{};
  }

  static void one_stage_roles(InterpolationStage<T>& s, const Array<std::int32_t>& cf,
                              Array<index_type> cmap, size_type nc, Interpolation kind) {
    const size_type n = cf.size();
    s.kind = kind;
    s.role = Array<std::int32_t>(cf.executor(), n);
    s.dmap = Array<index_type>(cf.executor(), n);
    s.cmap = std::move(cmap);
    s.nc = nc;
    s.nd = n;
    cf.executor().visit(
        [&](const auto& e) { ck::one_stage_roles(e, n, cf.data(), s.role.data(), s.dmap.data()); });
  }

  /// Aggressive coarsening: a second PMIS pass on the C points with the A1/A2
  /// strength, then P = P1 P2.
  CsrMatrix<T> aggressive(const CsrMatrix<T>& A, int level, LevelState<T>& L,
                          Array<index_type>& c1map, size_type nc1, StageTimes& times) {
    const Executor& exec = A.executor();
    const size_type n = A.rows();
    const ClassicalParams& q = L.params;
    CsrMatrix<float> graph;
    {  // strength of the second pass: S_CC = (S_CF S_CC + I)(S_FC; S_CC)
      StageTimer t(exec, times, "strength");
      PartTimer part(p_.profile_stages, exec, times, "strength: second pass");
      auto operands = exec.visit([&](const auto& e) {
        return ck::second_pass_operands(e, n, A.row_ptr().data(), A.col_idx().data(),
                                        L.strong.data(), L.cf.data(), c1map.data(), nc1);
      });
      const CsrMatrix<float> paths = spgemm(operands.first, operands.second);
      graph = exec.visit(
          [&](const auto& e) { return ck::second_pass_graph(e, paths, q.aggressive_num_paths); });
    }
    Array<std::int32_t> cf2;
    Array<index_type> c2map;
    size_type nc2 = 0;
    {  // second PMIS pass, on the C points (hashed by their fine index)
      StageTimer t(exec, times, "splitting");
      PartTimer part(p_.profile_stages, exec, times, "splitting: second pass");
      Array<index_type> points(exec, nc1);
      exec.visit([&](const auto& e) {
        ck::list_points(e, n, L.cf.data(), ck::kCoarse, c1map.data(), points.data());
      });
      pmis_on(graph, nullptr, pass_seed(p_.seed, level, 1), points.data(), true, cf2);
      nc2 = enumerate(cf2, ck::kCoarse, c2map);
    }
    StageTimer t(exec, times, "interpolation");
    const int stage_max = q.aggressive_stage_max_elements;
    const double stage_factor = q.aggressive_stage_truncation_factor;
    if (nc2 == nc1) {  // nothing more to remove: one-stage interpolation
      one_stage_roles(L.first, L.cf, std::move(c1map), nc1, q.aggressive_interpolation);
      return build(L.first, A, L.strong, q.max_elements_per_row, q.truncation_factor, parts(times));
    }
    // P1: the fine points from the first C points.
    Array<index_type> c1map_copy = c1map.clone();
    one_stage_roles(L.first, L.cf, std::move(c1map_copy), nc1, q.aggressive_interpolation);
    L.P1 = build(L.first, A, L.strong, stage_max, stage_factor, parts(times));
    // P2: the first C points from the final ones, through fine-grid paths.
    InterpolationStage<T>& s = L.second;
    s.kind = q.aggressive_interpolation;
    s.role = Array<std::int32_t>(exec, n);
    s.cmap = Array<index_type>(exec, n);
    s.dmap = Array<index_type>(exec, n);
    s.nc = nc2;
    s.nd = nc1;
    L.splitting = Array<std::int32_t>(exec, n);
    exec.visit([&](const auto& e) {
      ck::two_stage_roles(e, n, L.cf.data(), c1map.data(), cf2.data(), c2map.data(), s.role.data(),
                          s.cmap.data(), s.dmap.data(), L.splitting.data());
    });
    L.P2 = build(s, A, L.strong, stage_max, stage_factor, parts(times));
    PartTimer part(p_.profile_stages, exec, times, "interpolation: P1 P2");
    L.P12.emplace(L.P1, L.P2);
    return truncate(L.P12->result(), q.max_elements_per_row, q.truncation_factor,
                    L.final_truncated);
  }

  /// R = P^T for new values of P: R's entries are gathered from P's through
  /// a map made (by one transpose of entry numbers) at the first refresh.
  static void refresh_restriction(LevelState<T>& L) {
    const CsrMatrix<T>& P = *L.P;
    const Executor& exec = P.executor();
    if (L.lean) {  // no map kept: transpose afresh (rows sorted, so R's pattern)
      const CsrMatrix<T> R = transpose(P);
      require(R.nnz() == L.R->nnz(), "classical coarsening: refresh: P^T has " +
                                         std::to_string(R.nnz()) + " entries, R " +
                                         std::to_string(L.R->nnz()));
      copy(R.values(), L.R->values());
      return;
    }
    if (L.r_from_p.size() != P.nnz()) {
      CsrMatrix<T> numbers(P.rows(), P.cols(), P.row_ptr().clone(), P.col_idx().clone(),
                           Array<T>(exec, P.nnz()));
      exec.visit([&](const auto& e) { ck::entry_numbers(e, P.nnz(), numbers.values().data()); });
      const CsrMatrix<T> numbers_t = transpose(numbers);
      L.r_from_p = Array<offset_type>(exec, P.nnz());
      exec.visit([&](const auto& e) {
        ck::entry_numbers_to_map(e, P.nnz(), numbers_t.values().data(), L.r_from_p.data());
      });
    }
    exec.visit([&](const auto& e) {
      ck::gather_values(e, P.nnz(), P.values().data(), L.r_from_p.data(), L.R->values().data());
    });
  }

  ClassicalParams p_;
  bool as_distributed_ = false;  // coarsen_as_distributed(): the parallel recipe
  std::vector<LevelState<T>> levels_;
};

}  // namespace

template <class T>
std::unique_ptr<Coarsening<T>> make_classical_coarsening(const ClassicalParams& params) {
  return std::make_unique<ClassicalCoarsening<T>>(params);
}

template <class T>
const Array<std::int32_t>& classical_splitting(const Coarsening<T>& coarsening, int level) {
  const auto* classical = dynamic_cast<const ClassicalCoarsening<T>*>(&coarsening);
  require(classical != nullptr,
          "classical_splitting: the coarsening is not classical (" + coarsening.name() + ")");
  return classical->splitting(level);
}

template <class T>
CsrMatrix<T> strength_matrix(const CsrMatrix<T>& A, const ClassicalParams& params) {
  validate(params);
  require(A.rows() == A.cols(), "strength_matrix: A must be square, it is " +
                                    std::to_string(A.rows()) + " x " + std::to_string(A.cols()));
  const Array<std::uint8_t> strong = strength_flags(A, params);
  return A.executor().visit([&](const auto& e) {
    return ck::strength_pattern<std::decay_t<decltype(e)>, T>(e, A.rows(), A.row_ptr().data(),
                                                              A.col_idx().data(), strong.data());
  });
}

template <class T>
Array<std::int32_t> pmis_splitting(const CsrMatrix<T>& S, std::uint64_t seed) {
  require(S.rows() == S.cols(), "pmis_splitting: S must be square, it is " +
                                    std::to_string(S.rows()) + " x " + std::to_string(S.cols()));
  Array<std::int32_t> cf;
  pmis_on(S, nullptr, pass_seed(seed, 0, 0), nullptr, false, cf);
  return cf;
}

template <class T>
Array<std::int32_t> hmis_splitting(const CsrMatrix<T>& S, std::uint64_t seed) {
  require(S.rows() == S.cols(), "hmis_splitting: S must be square, it is " +
                                    std::to_string(S.rows()) + " x " + std::to_string(S.cols()));
  Array<std::int32_t> cf;
  hmis_on(S, nullptr, pass_seed(seed, 0, 0), cf);
  return cf;
}

template <class T>
CsrMatrix<T> classical_interpolation(const CsrMatrix<T>& A, const Array<std::int32_t>& splitting,
                                     const ClassicalParams& params) {
  validate(params);
  require(A.rows() == A.cols() && splitting.size() == A.rows(),
          "classical_interpolation: A must be square with one splitting entry per row (A is " +
              std::to_string(A.rows()) + " x " + std::to_string(A.cols()) + ", splitting has " +
              std::to_string(splitting.size()) + ")");
  check_location(A.executor(), splitting.executor(), "splitting", "A");
  const Array<std::uint8_t> strong = strength_flags(A, params);
  Array<index_type> cmap;
  const size_type nc = enumerate(splitting, ck::kCoarse, cmap);
  InterpolationStage<T> s;
  s.kind = params.interpolation;
  s.role = Array<std::int32_t>(A.executor(), A.rows());
  s.dmap = Array<index_type>(A.executor(), A.rows());
  s.cmap = std::move(cmap);
  s.nc = nc;
  s.nd = A.rows();
  A.executor().visit([&](const auto& e) {
    ck::one_stage_roles(e, A.rows(), splitting.data(), s.role.data(), s.dmap.data());
  });
  return build(s, A, strong, params.max_elements_per_row, params.truncation_factor, nullptr);
}

template std::unique_ptr<Coarsening<double>> make_classical_coarsening<double>(
    const ClassicalParams&);
template const Array<std::int32_t>& classical_splitting<double>(const Coarsening<double>&, int);
template CsrMatrix<double> strength_matrix<double>(const CsrMatrix<double>&,
                                                   const ClassicalParams&);
template Array<std::int32_t> pmis_splitting<double>(const CsrMatrix<double>&, std::uint64_t);
template Array<std::int32_t> hmis_splitting<double>(const CsrMatrix<double>&, std::uint64_t);
template CsrMatrix<double> classical_interpolation<double>(const CsrMatrix<double>&,
                                                           const Array<std::int32_t>&,
                                                           const ClassicalParams&);

}  // namespace strata::amg
