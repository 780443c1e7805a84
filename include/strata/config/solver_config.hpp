#pragma once
/// \file
/// The settings of a whole solve, declared once, in the library.
///
/// SolverConfig is a plain aggregate of the components' own parameter
/// structs (KrylovParams, JacobiParams, L1JacobiParams, ChebyshevParams,
/// amg::HierarchyParams, amg::ClassicalParams, amg::AggregationParams,
/// amg::SmoothedAggregationParams) plus
/// the choices between them. Its defaults are those structs' defaults.
///
/// parameters() lists one declaration per parameter: its path
/// ("preconditioner.amg.classical.strength_threshold"), type, one-line
/// documentation, valid range or names, the older spellings it still
/// answers to (CLI flags such as --tol, JSON keys such as
/// "preconditioner.omega") and how to read and write it in a SolverConfig.
/// The JSON reader and writer below, the strata program's flags, and the
/// bindings to come are all made from that one table.
///
/// A choice between components is held as an enum beside the parameters of
/// every alternative (not as the std::variant the components take), so that
/// a setting may be given before or after its choice and the written JSON
/// holds every parameter. krylov_method(), preconditioner_smoother(),
/// amg_smoother() and hierarchy_params() make the variants from it.
///
/// JSON is exchanged as text: no JSON library type appears here.
///
///     auto cfg = config::config_from_json(R"({"solver": {"tolerance": 1e-6}})");
///     auto A = share(gallery::poisson3d(exec, 64, 64, 64));
///     auto M = config::make_preconditioner(cfg, A);
///     solve(config::krylov_method(cfg), CsrOperator<double>(A), b, x, M.get());

#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "strata/amg/aggregation.hpp"
#include "strata/amg/amg.hpp"
#include "strata/amg/classical.hpp"
#include "strata/amg/smoothed_aggregation.hpp"
#include "strata/smoother/smoother.hpp"
#include "strata/solver/krylov.hpp"

namespace strata::config {

/// The Krylov method ("solver.type").
enum class MethodType { cg, bicgstab, gmres, fgmres, fcg };
/// The preconditioner ("preconditioner.type").
/// gs, sgs: hybrid l1 Gauss-Seidel, forward or symmetric sweep;
/// multicolor_* and two_stage_* the same for those kinds
/// (strata/smoother/gauss_seidel.hpp); ilu0, iluk, ilut: incomplete LU
/// (strata/smoother/ilu.hpp).
enum class PreconditionerType {
  none, jacobi, l1jacobi, chebyshev, amg,
  gs, sgs, multicolor_gs, multicolor_sgs, two_stage_gs, two_stage_sgs, ilu0, iluk, ilut
};
/// The AMG coarsening ("preconditioner.amg.coarsening"). smoothed_aggregation
/// (also read as "sa") is the blocked smoothed aggregation of
/// strata/amg/smoothed_aggregation.hpp, the method for elasticity.
enum class CoarseningType { classical, aggregation, smoothed_aggregation };
/// The smoother of every AMG level but the coarsest ("preconditioner.amg.smoother").
/// automatic ("auto"): for classical coarsening hybrid l1 Gauss-Seidel on
/// the host and damped Jacobi with omega = 4 / (3 rho(D^-1 A)) on the
/// device (amg::default_smoother), that damped Jacobi for aggregation (the
/// aggregation paper's), Chebyshev for smoothed aggregation (PETSc GAMG's
/// default: a polynomial in D^-1 A keeps the smoother as parallel as the
/// blocked levels); gs: hybrid l1
/// Gauss-Seidel forward down and backward up (hypre's relax 13/14); sgs:
/// symmetric sweeps both ways; multicolor_* and two_stage_* the same for
/// those kinds; ilu0, iluk, ilut: incomplete LU.
enum class AmgSmootherType {
  automatic, jacobi, l1jacobi, chebyshev,
  gs, sgs, multicolor_gs, multicolor_sgs, two_stage_gs, two_stage_sgs, ilu0, iluk, ilut
};

/// "solver": the Krylov method and its stopping test.
struct KrylovSettings {
  MethodType type = MethodType::cg;
  /// Tolerances, iterations, reference, history. `monitor` is no declared
  /// setting (JSON neither reads nor writes it); krylov_method() passes it on.
  KrylovParams params;
  /// GMRES and FGMRES: Krylov vectors kept before a restart.
  int restart = Gmres{}.restart;
  /// FCG: previous directions each new one is A-orthogonalised against.
  int truncation = Fcg{}.truncation;
};

/// "preconditioner.amg".
struct AmgSettings {
  CoarseningType coarsening = CoarseningType::classical;
  AmgSmootherType smoother = AmgSmootherType::automatic;
  /// Every field but `smoother`, which hierarchy_params() makes from the
  /// choice above and the smoother settings of PreconditionerSettings.
  amg::HierarchyParams hierarchy;
  /// Every choice automatic (amg::automatic_classical_params): the host
  /// recipe on the host, the device recipe on the device.
  amg::ClassicalParams classical = amg::automatic_classical_params();
  amg::AggregationParams aggregation;
  /// block_size (unknowns per node) also decides the operator a front end
  /// solves with: see level_operator().
  amg::SmoothedAggregationParams smoothed_aggregation;
};

/// "preconditioner". The smoother structs serve both a stand-alone smoother
/// preconditioner (type jacobi, l1jacobi, chebyshev, ilu0, iluk, ilut) and
/// the AMG smoother of the same kind. `ilu` serves the three ILU types; its
/// factorization member is set from the type chosen.
struct PreconditionerSettings {
  PreconditionerType type = PreconditionerType::amg;
  JacobiParams jacobi;
  L1JacobiParams l1jacobi;
  ChebyshevParams chebyshev;
  IluParams ilu;
  /// The Gauss-Seidel kinds; their sweep comes from the name chosen (gs,
  /// sgs, ...), not from these structs.
  GaussSeidelParams gauss_seidel;
  MulticolorGaussSeidelParams multicolor_gs;
  TwoStageGaussSeidelParams two_stage_gs;
  AmgSettings amg;
};

/// One setting a front end gave explicitly: the spelling it used (a flag
/// such as "--omega", or a JSON key by its full path) and the parameters
/// that spelling set (one, or several for an older shared flag).
struct GivenSetting {
  std::string where;
  std::vector<std::string> paths;
};

/// Everything a front end sets for a solve.
struct SolverConfig {
  KrylovSettings solver;
  PreconditionerSettings preconditioner;
  /// What was set through set_parameter (and so by config_from_json and the
  /// strata program's flags), in order, one entry per spelling; members
  /// assigned in code are not recorded. Not a setting: config_to_json and
  /// same_settings ignore it. ineffective_settings() reads it.
  std::vector<GivenSetting> given;
};

// ------------------------------------------------------------ declarations

/// The JSON type of a parameter: true/false, an integer (signed, or
/// unsigned for seeds), a number, or one name out of a list.
enum class ParameterType { boolean, integer, unsigned_integer, number, choice };

/// "true or false", "an integer", "a non-negative integer", "a number", "a name".
const char* to_string(ParameterType type) noexcept;

/// A parameter's value, by type: boolean -> bool, integer -> int64_t,
/// unsigned_integer -> uint64_t, number -> double, choice -> std::string.
using Value = std::variant<bool, std::int64_t, std::uint64_t, double, std::string>;

/// Bounds of an integer or number; each end may be open.
struct Range {
  double min = -std::numeric_limits<double>::infinity();
  double max = std::numeric_limits<double>::infinity();
  bool min_open = false;
  bool max_open = false;
};

/// One parameter, declared once.
struct Parameter {
  /// Dotted path of its JSON key ("solver.tolerance"); its CLI flag is
  /// "--" + path.
  std::string path;
  ParameterType type = ParameterType::number;
  /// One line for --help and the docs.
  std::string doc;
  /// integer and number: the valid values.
  Range range;
  /// choice: the valid names.
  std::vector<std::string> choices;
  /// Older CLI flags that set it ("--tol"). A flag listed by several
  /// parameters sets each of them ("--omega": Jacobi's and l1-Jacobi's).
  /// For a boolean, a flag here is a switch that sets true.
  std::vector<std::string> flags;
  /// boolean only: a switch that sets false ("--drop-resetup-data").
  std::string negating_flag;
  /// Older JSON keys, by full path, that set it too ("preconditioner.omega");
  /// the key of `path` wins when both are given. Never written.
  std::vector<std::string> json_aliases;
  /// Reads the parameter of `cfg`.
  std::function<Value(const SolverConfig&)> get;
  /// Writes it; `value` has the type above and is in range (set_parameter
  /// checks that first).
  std::function<void(SolverConfig&, const Value&)> set;

  /// The value of a default-constructed SolverConfig.
  Value default_value() const { return get(SolverConfig{}); }
  /// "a number in [0, 1]", "an integer >= 1", "cg, bicgstab, gmres, fgmres or fcg".
  std::string expected() const;
};

/// Every parameter, in the order config_to_json writes them.
const std::vector<Parameter>& parameters();

/// The parameter of `path`, or nullptr.
const Parameter* find_parameter(std::string_view path);

/// Sets `p` in `cfg` after checking the value's type and range; errors
/// (invalid_argument) name `where` (a path or a flag), the value and what
/// was expected. An integer given for a number is accepted.
void set_parameter(SolverConfig& cfg, const Parameter& p, const Value& value,
                   std::string_view where);

/// Sets `p` from command-line text ("1e-6", "true", "ext+i"); errors read
/// "<where> '<text>': expected <what>".
void set_parameter_from_text(SolverConfig& cfg, const Parameter& p, std::string_view text,
                             std::string_view where);

/// The value as text that set_parameter_from_text accepts back ("0.25",
/// "true", "V"); numbers with enough digits to read back the same double.
std::string format_value(const Value& value);

/// True when every declared parameter has the same value in a and b.
bool same_settings(const SolverConfig& a, const SolverConfig& b);

/// True when the parameter at `path` was set explicitly (cfg.given).
bool was_given(const SolverConfig& cfg, std::string_view path);

/// Why the parameter at `path` changes nothing in the solve that `cfg`
/// describes ("only GMRES and FGMRES restart; solver.type is cg"), or an
/// empty string when it takes effect. `where`: where the levels live (the
/// automatic AMG smoother, and so which smoother's settings count, follows
/// it).
std::string why_without_effect(const SolverConfig& cfg, std::string_view path,
                               Location where = Location::host);

/// The settings given explicitly (cfg.given) that change nothing in the
/// solve `cfg` describes, each as "<where> has no effect: <why>". A
/// setting at its default value is not listed (a configuration written by
/// config_to_json holds every parameter), nor one of several parameters
/// set by one spelling when another of them takes effect ("--omega" sets
/// both Jacobi weights, and one smoother runs). `where` as for
/// why_without_effect.
std::vector<std::string> ineffective_settings(const SolverConfig& cfg,
                                              Location where = Location::host);

// -------------------------------------------------------------------- JSON

/// Reads settings from JSON text into a copy of `base`: every key is
/// checked. Throws invalid_argument for text that is not JSON, an unknown
/// key (by its full path, with the keys known there), a value of the wrong
/// type (path, expected type, value) or out of range (path, value, range).
SolverConfig config_from_json(std::string_view text, const SolverConfig& base = {});

/// Every parameter of `cfg` as a JSON object (indented by `indent` spaces),
/// which config_from_json reads back to the same settings.
std::string config_to_json(const SolverConfig& cfg, int indent = 2);

// ------------------------------------------------------ from the settings

/// Fits the settings that size memory to a problem of `rows` unknowns on
/// `exec`, before anything is allocated. solver.restart (GMRES, FGMRES)
/// and solver.truncation (FCG) above `rows` are lowered to it: more Krylov
/// vectors than unknowns is never useful. Returns one line for each change
/// ("solver.restart 100000 lowered to 10: ..."). Then throws out_of_memory,
/// naming the setting, when its Krylov vectors would exceed the memory
/// available on `exec` (Executor::available_memory). Chebyshev's degree
/// and AMG's coarse_size size no memory of their own: Chebyshev keeps three
/// vectors whatever its degree, and the hierarchy inverts at most 4096
/// coarse rows densely, smoothing a larger coarsest level instead.
std::vector<std::string> fit_to_problem(SolverConfig& cfg, size_type rows, const Executor& exec);

/// The Krylov method with the settings' parameters.
KrylovMethod krylov_method(const SolverConfig& cfg);

/// The stand-alone smoother preconditioner (type jacobi, l1jacobi,
/// chebyshev, ilu0, iluk or ilut; invalid_argument otherwise).
SmootherParams preconditioner_smoother(const SolverConfig& cfg);

/// The AMG smoother for levels on `exec`: the chosen kind's settings (the
/// Gauss-Seidel names set the sweep); for "auto" with classical coarsening
/// the library's default for `exec` (amg::default_smoother: hybrid l1
/// Gauss-Seidel on the host, damped Jacobi with estimated omega on the
/// device) with the settings of its kind, and with aggregation the jacobi
/// settings with estimate_omega = true.
SmootherParams amg_smoother(const SolverConfig& cfg, const Executor& exec);
/// The same by where the levels live.
SmootherParams amg_smoother(const SolverConfig& cfg, Location where);
/// The same for the host.
SmootherParams amg_smoother(const SolverConfig& cfg);

/// AmgSettings::hierarchy with its smoother from amg_smoother(cfg, exec).
amg::HierarchyParams hierarchy_params(const SolverConfig& cfg, const Executor& exec);
/// The same for the host.
amg::HierarchyParams hierarchy_params(const SolverConfig& cfg);

/// The coarsening chosen, with its parameters (validated by its factory).
/// `near_null_space` holds the columns of B on the finest level (each with
/// A.rows() entries on A's executor; empty: the coarsening's default).
/// Aggregation and smoothed aggregation take one; classical coarsening
/// throws invalid_argument when given one rather than ignoring it, so that
/// a caller's B is never silently unused.
template <class T>
std::unique_ptr<amg::Coarsening<T>> make_coarsening(const SolverConfig& cfg,
                                                    std::vector<Vector<T>> near_null_space = {});

// ------------------------------------------------ blocked problems (SA)

/// The block size the settings ask for: preconditioner.amg.coarsening
/// smoothed_aggregation with smoothed_aggregation.block_size > 1 gives that
/// size; anything else 1 (a scalar problem, or a size taken from a BSR
/// operator: block_size 0).
int block_size(const SolverConfig& cfg);

/// The operator to solve with and to build the preconditioner on: A as
/// a BSR operator of block_size(cfg) square blocks when that is > 1 (the
/// matrix is converted once, here, and the Krylov method and every level
/// then use the blocked form, as the blocked GAMG paper keeps it), and
/// A's CSR operator otherwise. Throws invalid_argument naming
/// preconditioner.amg.smoothed_aggregation.block_size when it does not
/// divide A's rows.
template <class T>
std::shared_ptr<const LevelOperator<T>> level_operator(const SolverConfig& cfg,
                                                       std::shared_ptr<const CsrMatrix<T>> A);

/// B with the `block_size` translations put first (column c is 1 on
/// unknown c of every node): for near-null files that hold only the
/// rotations, as hypre's rigid-body-mode files do. Each column of B has
/// `rows` entries; the new ones are made on `exec`.
template <class T>
std::vector<Vector<T>> with_translations(std::vector<Vector<T>> B, size_type rows, int block_size,
                                         const Executor& exec);

/// The translations among the block_size ones (by unknown c = 0 ..
/// block_size-1) that are not in the span of B up to a relative residual
/// of 1e-6 (least squares on B^T B): a near-null space for elasticity
/// without them makes a poor hierarchy. Empty when all are in it (or B is
/// empty). B must have columns of rows entries, rows a multiple of
/// block_size.
template <class T>
std::vector<int> missing_translations(const std::vector<Vector<T>>& B, int block_size);

/// The preconditioner for A (nullptr for type none): the one place that
/// builds a smoother or an AMG hierarchy from settings, for every front end
/// (the strata program, the C API, Python). It shares ownership of A. A
/// non-empty `near_null_space` goes to the coarsening (see make_coarsening);
/// with a preconditioner other than AMG it is an invalid_argument.
/// `reduction` combines the global sums of the hierarchy (K-cycles,
/// spectral estimates) and of the smoothers' estimates: a
/// DistributedReduction for a distributed A; null for one process.
template <class T>
std::unique_ptr<LinearOperator<T>> make_preconditioner(
    const SolverConfig& cfg, std::shared_ptr<const LevelOperator<T>> A,
    std::vector<Vector<T>> near_null_space = {},
    std::shared_ptr<const Reduction<T>> reduction = nullptr);

/// The front ends' resetup rule, in one place: when `preconditioner` is an
/// AMG hierarchy that kept its resetup data
/// (preconditioner.amg.keep_resetup_data), a value-only resetup for A (the
/// same kind and pattern as its operator, new values; it replaces the one
/// held), and true. Otherwise nothing is done and false says to build a
/// new preconditioner (make_preconditioner). A null preconditioner gives
/// false.
template <class T>
bool resetup_preconditioner(LinearOperator<T>* preconditioner,
                            std::shared_ptr<const LevelOperator<T>> A);

/// The same for a CSR matrix (shared, not copied unless level_operator()
/// makes the blocked copy that smoothed aggregation with block_size > 1
/// needs; a front end that also solves with A should call level_operator()
/// itself and use the result for both, so the matrix is converted once).
template <class T>
std::unique_ptr<LinearOperator<T>> make_preconditioner(const SolverConfig& cfg,
                                                       std::shared_ptr<const CsrMatrix<T>> A,
                                                       std::vector<Vector<T>> near_null_space = {}) {
  return make_preconditioner<T>(cfg, level_operator<T>(cfg, std::move(A)),
                                std::move(near_null_space));
}

}  // namespace strata::config
