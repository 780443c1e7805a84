// The one declaration of every parameter of a solve (see
// strata/config/solver_config.hpp), and setting a parameter from a value or
// from command-line text with its checks.

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <optional>
#include <utility>

#include "strata/config/solver_config.hpp"
#include "strata/core/error.hpp"

namespace strata::config {

namespace {

constexpr double inf = std::numeric_limits<double>::infinity();

/// The older spellings of a parameter (see Parameter).
struct Aliases {
  std::vector<std::string> flags = {};
  std::vector<std::string> json = {};
  std::string negating_flag = {};
};

/// Declares the parameters of one struct inside SolverConfig. `section`
/// maps a SolverConfig (const or not) to that struct; `prefix` is its path.
/// Each declaration names the struct's member, so type, default and access
/// all come from the struct itself.
template <class Section>
class Block {
 public:
  Block(std::vector<Parameter>& out, std::string prefix, Section section)
      : out_(out), prefix_(std::move(prefix)), section_(section) {}

  template <class S>
  void boolean(const std::string& name, bool S::*m, std::string doc, Aliases a = {}) {
    auto& p = add(name, ParameterType::boolean, std::move(doc), {}, {}, std::move(a));
    p.get = [s = section_, m](const SolverConfig& c) { return Value(s(c).*m); };
    p.set = [s = section_, m](SolverConfig& c, const Value& v) { s(c).*m = std::get<bool>(v); };
  }

  /// An int or a 64-bit count; the range is also held to the member's type.
  template <class S, class I>
  void integer(const std::string& name, I S::*m, Range r, std::string doc, Aliases a = {}) {
    r.min = std::max(r.min, static_cast<double>(std::numeric_limits<I>::min()));
    r.max = std::min(r.max, static_cast<double>(std::numeric_limits<I>::max()));
    auto& p = add(name, ParameterType::integer, std::move(doc), r, {}, std::move(a));
    p.get = [s = section_, m](const SolverConfig& c) {
      return Value(static_cast<std::int64_t>(s(c).*m));
    };
    p.set = [s = section_, m](SolverConfig& c, const Value& v) {
      s(c).*m = static_cast<I>(std::get<std::int64_t>(v));
    };
  }

  template <class S>
  void unsigned_integer(const std::string& name, std::uint64_t S::*m, std::string doc) {
    auto& p = add(name, ParameterType::unsigned_integer, std::move(doc), {}, {}, {});
    p.get = [s = section_, m](const SolverConfig& c) { return Value(s(c).*m); };
    p.set = [s = section_, m](SolverConfig& c, const Value& v) {
      s(c).*m = std::get<std::uint64_t>(v);
    };
  }

  template <class S>
  void number(const std::string& name, double S::*m, Range r, std::string doc, Aliases a = {}) {
    auto& p = add(name, ParameterType::number, std::move(doc), r, {}, std::move(a));
    p.get = [s = section_, m](const SolverConfig& c) { return Value(s(c).*m); };
    p.set = [s = section_, m](SolverConfig& c, const Value& v) { s(c).*m = std::get<double>(v); };
  }

  /// An enum member; `names` lists the values it may take, by name.
  template <class S, class E>
  void choice(const std::string& name, E S::*m, std::vector<std::pair<std::string, E>> names,
              std::string doc, Aliases a = {}) {
    std::vector<std::string> choices;
    for (const auto& [text, value] : names) choices.push_back(text);
    auto& p =
        add(name, ParameterType::choice, std::move(doc), {}, std::move(choices), std::move(a));
    p.get = [s = section_, m, names](const SolverConfig& c) {
      for (const auto& [text, value] : names) {
        if (s(c).*m == value) return Value(text);
      }
      // A value set in code that no name stands for: written as such, and
      // rejected by name when read back.
      return Value("(invalid value " + std::to_string(static_cast<int>(s(c).*m)) + ")");
    };
    p.set = [s = section_, m, names](SolverConfig& c, const Value& v) {
      for (const auto& [text, value] : names) {
        if (text == std::get<std::string>(v)) s(c).*m = value;
      }
    };
  }

 private:
  Parameter& add(const std::string& name, ParameterType type, std::string doc, Range range,
                 std::vector<std::string> choices, Aliases a) {
    Parameter p;
    p.path = prefix_ + "." + name;
    p.type = type;
    p.doc = std::move(doc);
    p.range = range;
    p.choices = std::move(choices);
    p.flags = std::move(a.flags);
    p.json_aliases = std::move(a.json);
    p.negating_flag = std::move(a.negating_flag);
    return out_.emplace_back(std::move(p));
  }

  std::vector<Parameter>& out_;
  std::string prefix_;
  Section section_;
};

template <class Section>
Block(std::vector<Parameter>&, std::string, Section) -> Block<Section>;

Range at_least(double min) { return {.min = min}; }
Range above(double min) { return {.min = min, .min_open = true}; }
Range closed(double min, double max) { return {.min = min, .max = max}; }
Range half_open(double min, double max) { return {.min = min, .max = max, .max_open = true}; }

void declare_solver(std::vector<Parameter>& out) {
  Block solver(
      out, "solver", [](auto& c) -> auto& { return c.solver; });
  Block krylov(
      out, "solver", [](auto& c) -> auto& { return c.solver.params; });
  solver.choice("type", &KrylovSettings::type,
                {{"cg", MethodType::cg},
                 {"bicgstab", MethodType::bicgstab},
                 {"gmres", MethodType::gmres},
                 {"fgmres", MethodType::fgmres},
                 {"fcg", MethodType::fcg}},
                "Krylov method (fcg or fgmres for a K-cycle)", {.flags = {"--solver"}});
  krylov.number("tolerance", &KrylovParams::relative_tolerance, at_least(0),
                "Relative tolerance on ||b - A x|| / reference", {.flags = {"--tol"}});
  krylov.number("absolute_tolerance", &KrylovParams::absolute_tolerance, at_least(0),
                "Absolute tolerance on ||b - A x||", {.flags = {"--atol"}});
  krylov.integer("max_iterations", &KrylovParams::max_iterations, at_least(0), "Maximum iterations",
                 {.flags = {"--maxit"}});
  krylov.choice("relative_to", &KrylovParams::relative_to,
                {{"rhs", KrylovParams::RelativeTo::rhs},
                 {"initial_residual", KrylovParams::RelativeTo::initial_residual}},
                "Reference of the relative tolerance: ||b|| or ||b - A x0||");
  krylov.boolean("record_history", &KrylovParams::record_history,
                 "Keep the residual norm of every iteration");
  krylov.number("divergence_tolerance", &KrylovParams::divergence_tolerance, at_least(0),
                "Stop (diverged) when ||r|| > this * max(reference, ||r0||); 0: off, else >= 1",
                {.flags = {"--dtol"}});
  krylov.integer("stagnation_window", &KrylovParams::stagnation_window, at_least(0),
                 "Stop (stagnated) when the residual falls by less than stagnation_factor over "
                 "this many iterations; 0: off");
  krylov.number("stagnation_factor", &KrylovParams::stagnation_factor,
                {.min = 0, .max = 1, .min_open = true},
                "Least reduction over a stagnation window: the smallest residual of the window "
                "must be below this times the smallest before it");
  solver.integer("restart", &KrylovSettings::restart, at_least(1),
                 "Restart length of GMRES and FGMRES", {.flags = {"--restart"}});
  solver.integer("truncation", &KrylovSettings::truncation, at_least(1),
                 "FCG: earlier directions each new one is A-orthogonalised against");
}

void declare_gauss_seidel(std::vector<Parameter>& out) {
  const Range sor = {.min = 0, .max = 2, .min_open = true, .max_open = true};
  Block gs(
      out, "preconditioner.gauss_seidel",
      [](auto& c) -> auto& { return c.preconditioner.gauss_seidel; });
  gs.number("omega", &GaussSeidelParams::omega, sor, "Weight of hybrid l1 Gauss-Seidel (gs, sgs)");
  gs.integer("block_rows", &GaussSeidelParams::block_rows, at_least(1),
             "Hybrid Gauss-Seidel: rows per block (fixed by the matrix, not the threads)",
             {.flags = {"--gs-block-rows"}});
  Block mc(
      out, "preconditioner.multicolor_gs",
      [](auto& c) -> auto& { return c.preconditioner.multicolor_gs; });
  mc.number("omega", &MulticolorGaussSeidelParams::omega, sor, "Weight of multicolor Gauss-Seidel");
  mc.unsigned_integer("seed", &MulticolorGaussSeidelParams::seed,
                      "Seed of the coloring's random keys");
  Block ts(
      out, "preconditioner.two_stage_gs",
      [](auto& c) -> auto& { return c.preconditioner.two_stage_gs; });
  ts.number("omega", &TwoStageGaussSeidelParams::omega, sor, "Weight of two-stage Gauss-Seidel");
  ts.integer("inner_sweeps", &TwoStageGaussSeidelParams::inner_sweeps, at_least(0),
             "Two-stage Gauss-Seidel: Jacobi sweeps of the triangular solve (1: hypre relax 11, "
             "2: relax 12)",
             {.flags = {"--gs-inner-sweeps"}});
  ts.boolean("l1", &TwoStageGaussSeidelParams::l1,
             "Two-stage Gauss-Seidel: row l1 norms for the diagonal (never indefinite in the "
             "limit of many inner sweeps)");
}

void declare_smoothers(std::vector<Parameter>& out) {
  Block pre(
      out, "preconditioner", [](auto& c) -> auto& { return c.preconditioner; });
  pre.choice("type", &PreconditionerSettings::type,
             {{"none", PreconditionerType::none},
              {"jacobi", PreconditionerType::jacobi},
              {"l1jacobi", PreconditionerType::l1jacobi},
              {"chebyshev", PreconditionerType::chebyshev},
              {"amg", PreconditionerType::amg},
              {"ilu0", PreconditionerType::ilu0},
              {"iluk", PreconditionerType::iluk},
              {"ilut", PreconditionerType::ilut},
              {"gs", PreconditionerType::gs},
              {"sgs", PreconditionerType::sgs},
              {"multicolor_gs", PreconditionerType::multicolor_gs},
              {"multicolor_sgs", PreconditionerType::multicolor_sgs},
              {"two_stage_gs", PreconditionerType::two_stage_gs},
              {"two_stage_sgs", PreconditionerType::two_stage_sgs}},
             "Preconditioner (sgs, multicolor_sgs, two_stage_sgs: symmetric, for CG; ilut: "
             "nonsymmetric, for GMRES)",
             {.flags = {"--precond"}});
  // The (l1-)Jacobi weight keeps its old shared spellings: only one of the
  // two smoothers runs at a time.
  const Aliases omega{.flags = {"--omega"}, .json = {"preconditioner.omega"}};
  Block jacobi(
      out, "preconditioner.jacobi", [](auto& c) -> auto& { return c.preconditioner.jacobi; });
  jacobi.number("omega", &JacobiParams::omega, above(0), "Weight of Jacobi", omega);
  jacobi.boolean("estimate_omega", &JacobiParams::estimate_omega,
                 "Scale omega by 4 / (3 rho(D^-1 A)), rho by Arnoldi");
  jacobi.integer("estimation_steps", &JacobiParams::estimation_steps, closed(1, 10),
                 "Arnoldi steps of that estimate");
  // The blocked levels' diagonal (smoothed aggregation, block_size > 1).
  const char* point_block =
      "On levels of square blocks (BSR), D is each node's inverted diagonal block "
      "(point-block); false: the scalar diagonal";
  jacobi.boolean("point_block", &JacobiParams::point_block, point_block);
  Block l1(
      out, "preconditioner.l1jacobi", [](auto& c) -> auto& { return c.preconditioner.l1jacobi; });
  l1.number("omega", &L1JacobiParams::omega, above(0), "Weight of l1-Jacobi", omega);
  l1.boolean("point_block", &L1JacobiParams::point_block, point_block);
  Block cheb(
      out, "preconditioner.chebyshev", [](auto& c) -> auto& { return c.preconditioner.chebyshev; });
  cheb.choice("kind", &ChebyshevParams::kind,
              {{"first", ChebyshevParams::Kind::first}, {"fourth", ChebyshevParams::Kind::fourth}},
              "Chebyshev polynomial: fourth kind (Lottes) or first kind (hypre)");
  cheb.integer("degree", &ChebyshevParams::degree, at_least(1),
               "Degree of the Chebyshev polynomial",
               {.flags = {"--degree"}, .json = {"preconditioner.degree"}});
  cheb.number("lower_fraction", &ChebyshevParams::lower_fraction, above(0),
              "First kind: lower end of the interval, times rho (< upper_fraction)");
  cheb.number("upper_fraction", &ChebyshevParams::upper_fraction, above(0),
              "Upper end of the interval, times the estimated rho");
  cheb.integer(
      "estimation_steps", &ChebyshevParams::estimation_steps, at_least(1),
      "Krylov steps of the estimate of rho(D^-1 A) (Lanczos; Arnoldi: at most 10); below 6 "
      "in one synchronisation");
  cheb.boolean("symmetric", &ChebyshevParams::symmetric,
               "Estimate rho by Lanczos (symmetric A); false: Arnoldi");
  cheb.boolean("point_block", &ChebyshevParams::point_block, point_block);
  Block ilu(
      out, "preconditioner.ilu", [](auto& c) -> auto& { return c.preconditioner.ilu; });
  ilu.integer("level_of_fill", &IluParams::level_of_fill, at_least(0),
              "ILU(k): largest level of fill kept");
  ilu.number("drop_tolerance", &IluParams::drop_tolerance, at_least(0),
             "ILUT: drop entries below this times the row's 2-norm");
  ilu.integer("max_fill_per_row", &IluParams::max_fill_per_row, at_least(0),
              "ILUT: entries kept in each row of L and of U besides the diagonal");
  ilu.choice("triangular_solve", &IluParams::triangular_solve,
             {{"level_scheduled", TriangularAlgorithm::level_scheduled},
              {"jacobi", TriangularAlgorithm::jacobi}},
             "ILU triangular solves: exact by level scheduling, or Jacobi sweeps");
  ilu.integer("triangular_sweeps", &IluParams::triangular_sweeps, at_least(1),
              "Jacobi sweeps per ILU triangular solve");
  declare_gauss_seidel(out);
}

void declare_amg(std::vector<Parameter>& out) {
  using H = amg::HierarchyParams;
  Block amg(
      out, "preconditioner.amg", [](auto& c) -> auto& { return c.preconditioner.amg; });
  Block h(
      out, "preconditioner.amg", [](auto& c) -> auto& { return c.preconditioner.amg.hierarchy; });
  amg.choice("coarsening", &AmgSettings::coarsening,
             {{"classical", CoarseningType::classical},
              {"aggregation", CoarseningType::aggregation},
              {"smoothed_aggregation", CoarseningType::smoothed_aggregation},
              // The and PyAMG's short name; written back in full.
              {"sa", CoarseningType::smoothed_aggregation}},
             "AMG coarsening (smoothed_aggregation, or sa: blocked smoothed aggregation for "
             "elasticity)",
             {.flags = {"--amg", "--coarsening"}});
  h.choice("cycle", &H::cycle,
           {{"V", amg::CycleType::V},
            {"W", amg::CycleType::W},
            {"F", amg::CycleType::F},
            {"K", amg::CycleType::K}},
           "Cycle (K-cycle: use fcg or fgmres)", {.flags = {"--cycle"}});
  h.integer("pre_sweeps", &H::pre_sweeps, at_least(0),
            "Smoothing sweeps before the coarse correction", {.flags = {"--pre-sweeps"}});
  h.integer("post_sweeps", &H::post_sweeps, at_least(0), "Smoothing sweeps after it",
            {.flags = {"--post-sweeps"}});
  h.integer("max_levels", &H::max_levels, at_least(1), "Most levels", {.flags = {"--max-levels"}});
  h.integer("coarse_size", &H::coarse_size, at_least(0),
            "Target rows of the coarsest level (solved directly); 0: 64 on the host, 600 on the "
            "device",
            {.flags = {"--coarse-size"}});
  h.integer("agglomeration_rows", &H::agglomeration_rows, at_least(0),
            "Across processes: levels below this many rows gathered onto one process; 0: never",
            {.flags = {"--agglomeration-rows"}});
  amg.choice("smoother", &AmgSettings::smoother,
             {{"auto", AmgSmootherType::automatic},
              {"jacobi", AmgSmootherType::jacobi},
              {"l1jacobi", AmgSmootherType::l1jacobi},
              {"chebyshev", AmgSmootherType::chebyshev},
              {"ilu0", AmgSmootherType::ilu0},
              {"iluk", AmgSmootherType::iluk},
              {"ilut", AmgSmootherType::ilut},
              {"gs", AmgSmootherType::gs},
              {"sgs", AmgSmootherType::sgs},
              {"multicolor_gs", AmgSmootherType::multicolor_gs},
              {"multicolor_sgs", AmgSmootherType::multicolor_sgs},
              {"two_stage_gs", AmgSmootherType::two_stage_gs},
              {"two_stage_sgs", AmgSmootherType::two_stage_sgs}},
             "Smoother with the preconditioner.<kind> settings (auto: on the host gs, hybrid l1 "
             "Gauss-Seidel forward down, backward up; on the device and for aggregation jacobi "
             "with omega = 4/(3 rho); chebyshev for smoothed aggregation; "
             "gs/multicolor_gs/two_stage_gs "
             "sweep forward down, backward up, the *sgs forms symmetric both ways)",
             {.flags = {"--smoother"}});
  h.integer("kcycle_levels", &H::kcycle_levels, at_least(0), "Levels that take K-cycles",
            {.flags = {"--kcycle-levels"}});
  h.choice("kcycle_flavour", &H::kcycle_flavour,
           {{"cg", H::KcycleFlavour::cg}, {"gmres", H::KcycleFlavour::gmres}},
           "Inner Krylov method of the K-cycle", {.flags = {"--kcycle-flavour"}});
  h.number("kcycle_threshold", &H::kcycle_threshold, half_open(0, 1),
           "K-cycle: skip the second inner step below this residual reduction");
  h.boolean("profile_levels", &H::profile_levels, "Time each level of the cycles",
            {.flags = {"--profile-levels"}});
  h.boolean("keep_resetup_data", &H::keep_resetup_data,
            "Keep what a value-only resetup needs (false: less memory)",
            {.negating_flag = "--drop-resetup-data"});
  h.boolean("lean_resetup_data", &H::lean_resetup_data,
            "With keep_resetup_data: keep only what resetup cannot rebuild (less memory held, "
            "a slower resetup)",
            {.flags = {"--lean-resetup-data"}});
  h.choice("cycle_precision", &H::cycle_precision,
           {{"auto", amg::CyclePrecision::automatic},
            {"double", amg::CyclePrecision::full},
            {"single", amg::CyclePrecision::single}},
           "Precision of the AMG cycle (single: levels, smoothers and coarse inverse rounded to "
           "float after setup, the Krylov method staying in double; smoothers jacobi, l1jacobi, "
           "chebyshev; auto: single on a GPU for CSR or BSR matrices of at least 2^20 rows, "
           "where it was measured faster, double elsewhere)",
           {.flags = {"--cycle-precision"}});
}

void declare_classical(std::vector<Parameter>& out) {
  using C = amg::ClassicalParams;
  using amg::Interpolation;
  Block c(
      out, "preconditioner.amg.classical",
      [](auto& s) -> auto& { return s.preconditioner.amg.classical; });
  c.choice("splitting", &C::splitting,
           {{"auto", amg::Splitting::automatic},
            {"pmis", amg::Splitting::pmis},
            {"hmis", amg::Splitting::hmis}},
           "C/F splitting (auto: hmis on the host, as hypre's host default; pmis on the device "
           "and across processes)",
           {.flags = {"--splitting"}});
  c.number("strength_threshold", &C::strength_threshold, closed(0, 1),
           "Classical strength threshold theta", {.flags = {"--strength"}});
  c.number("max_row_sum", &C::max_row_sum, {.min = 0, .max = 1, .min_open = true},
           "Rows with |row sum| > this * |a_ii| get no strong connections (1: off)",
           {.flags = {"--max-row-sum"}});
  c.choice("interpolation", &C::interpolation,
           {{"direct", Interpolation::direct},
            {"ext", Interpolation::mm_ext},
            {"ext+i", Interpolation::mm_ext_i},
            {"ext+e", Interpolation::mm_ext_e}},
           "Interpolation", {.flags = {"--interpolation"}});
  c.integer("max_elements_per_row", &C::max_elements_per_row, at_least(-1),
            "Interpolation entries per row (0: no limit; -1: auto, 6 with hmis on the host, 4 "
            "elsewhere)",
            {.flags = {"--pmax"}});
  c.number("truncation_factor", &C::truncation_factor, half_open(0, 1),
           "Relative interpolation truncation (0: off)", {.flags = {"--truncation"}});
  c.integer("aggressive_levels", &C::aggressive_levels, at_least(-1),
            "Levels of aggressive coarsening (-1: auto, on the host each level of at least 50000 "
            "rows whose hmis splitting keeps at least 40% of them; none on the device)",
            {.flags = {"--aggressive-levels"}});
  c.choice("aggressive_interpolation", &C::aggressive_interpolation,
           {{"ext", Interpolation::mm_ext}, {"ext+e", Interpolation::mm_ext_e}},
           "Each stage of the two-stage interpolation", {.flags = {"--aggressive-interpolation"}});
  c.integer("aggressive_num_paths", &C::aggressive_num_paths, closed(1, 2),
            "Second-pass strength: 1 (A1) or 2 (A2)", {.flags = {"--aggressive-paths"}});
  c.integer("aggressive_stage_max_elements", &C::aggressive_stage_max_elements, at_least(-1),
            "Entries per row of each stage P1, P2 (0: no limit; -1: auto, 0 on the host, 4 on the "
            "device)",
            {.flags = {"--aggressive-stage-pmax"}});
  c.number("aggressive_stage_truncation_factor", &C::aggressive_stage_truncation_factor,
           half_open(0, 1), "Relative truncation of each stage P1, P2 (0: off)");
  c.unsigned_integer("seed", &C::seed, "Seed of the PMIS weights");
  c.boolean("profile_stages", &C::profile_stages, "Also time the parts of each setup stage");
}

void declare_aggregation(std::vector<Parameter>& out) {
  using G = amg::AggregationParams;
  Block g(
      out, "preconditioner.amg.aggregation",
      [](auto& s) -> auto& { return s.preconditioner.amg.aggregation; });
  g.number("strength_threshold", &G::strength_threshold, {.max = 1, .max_open = true},
           "Aggregation strength alpha (< 0: 0.5 in 3D, 0.25 in 1D and 2D)",
           {.flags = {"--aggregation-strength"}});
  g.integer("dimension", &G::dimension, closed(1, 3), "Dimension hint for the strength default",
            {.flags = {"--dimension"}});
  g.unsigned_integer("seed", &G::seed, "Seed of the MIS(2) random values");
  g.boolean("galerkin_by_spgemm", &G::galerkin_by_spgemm,
            "Galerkin product by SpGEMM instead of the aggregation's own (sort and "
            "segmented reduction on the device, row by row on the host)");
}

void declare_smoothed_aggregation(std::vector<Parameter>& out) {
  using S = amg::SmoothedAggregationParams;
  Block sa(
      out, "preconditioner.amg.smoothed_aggregation",
      [](auto& s) -> auto& { return s.preconditioner.amg.smoothed_aggregation; });
  // 64: beyond any system a node carries; a typo (--block-size 30000) is
  // refused here rather than as a BSR of one huge block.
  sa.integer("block_size", &S::block_size, closed(0, 64),
             "Unknowns per node (3 for 3D elasticity); > 1 solves with A as BSR of these "
             "blocks; 0: the block size of a BSR matrix, 1 for CSR",
             {.flags = {"--block-size"}});
  sa.number("strength_threshold", &S::strength_threshold, half_open(0, 1),
            "Symmetric block strength theta: ||A_IJ|| > theta sqrt(||A_II|| ||A_JJ||)",
            {.flags = {"--sa-strength"}});
  sa.boolean("filter_weak", &S::filter_weak,
             "Lump weak blocks into the diagonal of the matrix that smooths P");
  sa.number("prolongator_damping", &S::prolongator_damping,
            {.min = 0, .max = 2, .min_open = true, .max_open = true},
            "omega = this / rho(D^-1 A) in P = (I - omega D^-1 A) P_tent");
  sa.boolean("smooth_prolongator", &S::smooth_prolongator,
             "Smooth the tentative prolongator (false: unsmoothed, blocked aggregation)");
  sa.unsigned_integer("seed", &S::seed, "Seed of the MIS(2) random values");
  sa.boolean("resetup_keeps_prolongator", &S::resetup_keeps_prolongator,
             "A value-only resetup keeps P and recomputes R A P and the smoothers (false: "
             "re-smooths P with the new values)");
}

std::vector<Parameter> declare_all() {
  std::vector<Parameter> out;
  declare_solver(out);
  declare_smoothers(out);
  declare_amg(out);
  declare_classical(out);
  declare_aggregation(out);
  declare_smoothed_aggregation(out);
  return out;
}

/// A bound worth printing: bounds at an integer type's limits are not.
bool shown(double bound) { return std::isfinite(bound) && std::fabs(bound) < 2147483647.0; }

std::string bound_text(double v) { return format_value(Value(v)); }

/// The value converted to the parameter's type, or nothing when it has
/// another type or lies outside the range or the names.
std::optional<Value> normalized(const Parameter& p, const Value& v) {
  const auto in_range = [&p](double x) {
    const Range& r = p.range;
    return (r.min_open ? x > r.min : x >= r.min) && (r.max_open ? x < r.max : x <= r.max);
  };
  switch (p.type) {
    case ParameterType::boolean:
      if (std::holds_alternative<bool>(v)) return v;
      return std::nullopt;
    case ParameterType::integer: {
      std::int64_t x = 0;
      if (const auto* i = std::get_if<std::int64_t>(&v)) {
        x = *i;
      } else if (const auto* u = std::get_if<std::uint64_t>(&v);
                 u && *u <= std::uint64_t(std::numeric_limits<std::int64_t>::max())) {
        x = static_cast<std::int64_t>(*u);
      } else {
        return std::nullopt;
      }
      if (!in_range(static_cast<double>(x))) return std::nullopt;
      return Value(x);
    }
    case ParameterType::unsigned_integer:
      if (std::holds_alternative<std::uint64_t>(v)) return v;
      if (const auto* i = std::get_if<std::int64_t>(&v); i && *i >= 0) {
        return Value(static_cast<std::uint64_t>(*i));
      }
      return std::nullopt;
    case ParameterType::number: {
      double x = 0;
      if (const auto* d = std::get_if<double>(&v)) {
        x = *d;
      } else if (const auto* i = std::get_if<std::int64_t>(&v)) {
        x = static_cast<double>(*i);
      } else if (const auto* u = std::get_if<std::uint64_t>(&v)) {
        x = static_cast<double>(*u);
      } else {
        return std::nullopt;
      }
      if (!std::isfinite(x) || !in_range(x)) return std::nullopt;
      return Value(x);
    }
    case ParameterType::choice: {
      const auto* s = std::get_if<std::string>(&v);
      if (!s || std::find(p.choices.begin(), p.choices.end(), *s) == p.choices.end()) {
        return std::nullopt;
      }
      return v;
    }
  }
  return std::nullopt;
}

/// Command-line text as a value of the parameter's type (unchecked range),
/// or nothing when it does not read as one.
std::optional<Value> parse_text(ParameterType type, std::string_view text) {
  const char* first = text.data();
  const char* last = text.data() + text.size();
  switch (type) {
    case ParameterType::boolean:
      if (text == "true" || text == "1" || text == "yes" || text == "on") return Value(true);
      if (text == "false" || text == "0" || text == "no" || text == "off") return Value(false);
      return std::nullopt;
    case ParameterType::integer: {
      std::int64_t x = 0;
      const auto [end, ec] = std::from_chars(first, last, x);
      if (ec != std::errc() || end != last) return std::nullopt;
      return Value(x);
    }
    case ParameterType::unsigned_integer: {
      std::uint64_t x = 0;
      const auto [end, ec] = std::from_chars(first, last, x);
      if (ec != std::errc() || end != last) return std::nullopt;
      return Value(x);
    }
    case ParameterType::number: {
      double x = 0;
      const auto [end, ec] = std::from_chars(first, last, x);
      if (ec != std::errc() || end != last) return std::nullopt;
      return Value(x);
    }
    case ParameterType::choice:
      return Value(std::string(text));
  }
  return std::nullopt;
}

/// Records that `where` set `p`: one entry per spelling, so that a flag
/// setting several parameters, or given twice, stays one entry.
void note_given(SolverConfig& cfg, const Parameter& p, std::string_view where) {
  auto it = std::find_if(cfg.given.begin(), cfg.given.end(),
                         [&](const GivenSetting& g) { return g.where == where; });
  if (it == cfg.given.end()) {
    cfg.given.push_back({std::string(where), {p.path}});
  } else if (std::find(it->paths.begin(), it->paths.end(), p.path) == it->paths.end()) {
    it->paths.push_back(p.path);
  }
}

}  // namespace

const char* to_string(ParameterType type) noexcept {
  switch (type) {
    case ParameterType::boolean:
      return "true or false";
    case ParameterType::integer:
      return "an integer";
    case ParameterType::unsigned_integer:
      return "a non-negative integer";
    case ParameterType::number:
      return "a number";
    case ParameterType::choice:
      return "a name";
  }
  return "?";
}

std::string Parameter::expected() const {
  if (type == ParameterType::choice) {
    std::string s;
    for (std::size_t i = 0; i < choices.size(); ++i) {
      s += (i == 0 ? "" : i + 1 == choices.size() ? " or " : ", ") + choices[i];
    }
    return s;
  }
  std::string s = to_string(type);
  if (type != ParameterType::integer && type != ParameterType::number) return s;
  const bool lo = shown(range.min), hi = shown(range.max);
  if (lo && hi) {
    return s + " in " + (range.min_open ? "(" : "[") + bound_text(range.min) + ", " +
           bound_text(range.max) + (range.max_open ? ")" : "]");
  }
  if (lo) return s + (range.min_open ? " > " : " >= ") + bound_text(range.min);
  if (hi) return s + (range.max_open ? " < " : " <= ") + bound_text(range.max);
  return s;
}

const std::vector<Parameter>& parameters() {
  static const std::vector<Parameter> table = declare_all();
  return table;
}

const Parameter* find_parameter(std::string_view path) {
  for (const auto& p : parameters()) {
    if (p.path == path) return &p;
  }
  return nullptr;
}

void set_parameter(SolverConfig& cfg, const Parameter& p, const Value& value,
                   std::string_view where) {
  const auto v = normalized(p, value);
  if (!v) {
    throw invalid_argument("config: '" + std::string(where) + "' must be " + p.expected() +
                           ", got " + format_value(value));
  }
  p.set(cfg, *v);
  note_given(cfg, p, where);
}

void set_parameter_from_text(SolverConfig& cfg, const Parameter& p, std::string_view text,
                             std::string_view where) {
  const auto parsed = parse_text(p.type, text);
  const auto v = parsed ? normalized(p, *parsed) : std::nullopt;
  if (!v) {
    throw invalid_argument(std::string(where) + " '" + std::string(text) + "': expected " +
                           p.expected());
  }
  p.set(cfg, *v);
  note_given(cfg, p, where);
}

std::string format_value(const Value& value) {
  struct Format {
    std::string operator()(bool b) const { return b ? "true" : "false"; }
    std::string operator()(std::int64_t i) const { return std::to_string(i); }
    std::string operator()(std::uint64_t u) const { return std::to_string(u); }
    std::string operator()(double d) const {
      char buffer[32];
      const auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, d);
      return ec == std::errc() ? std::string(buffer, end) : std::to_string(d);
    }
    std::string operator()(const std::string& s) const { return s; }
  };
  return std::visit(Format{}, value);
}

bool was_given(const SolverConfig& cfg, std::string_view path) {
  return std::any_of(cfg.given.begin(), cfg.given.end(), [&](const GivenSetting& g) {
    return std::find(g.paths.begin(), g.paths.end(), path) != g.paths.end();
  });
}

bool same_settings(const SolverConfig& a, const SolverConfig& b) {
  return std::all_of(parameters().begin(), parameters().end(),
                     [&](const Parameter& p) { return p.get(a) == p.get(b); });
}

}  // namespace strata::config
