// From settings to the objects of a solve: the variants the components
// take, and the one function that builds a preconditioner.

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "strata/config/solver_config.hpp"
#include "strata/core/error.hpp"

namespace strata::config {

namespace {

std::string gigabytes(double bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3g GB", bytes / 1e9);
  return text;
}

}  // namespace

std::vector<std::string> fit_to_problem(SolverConfig& cfg, size_type rows, const Executor& exec) {
  std::vector<std::string> changes;
  const int most =
      static_cast<int>(std::clamp<size_type>(rows, 1, std::numeric_limits<int>::max()));
  const auto lower = [&](int& value, const char* path, const char* what) {
    if (value <= most) return;
    changes.push_back(std::string(path) + " " + std::to_string(value) + " lowered to " +
                      std::to_string(most) + ", the number of unknowns: more " + what +
                      " than unknowns is never useful");
    value = most;
  };
  const MethodType method = cfg.solver.type;
  const bool gmres = method == MethodType::gmres || method == MethodType::fgmres;
  if (gmres) lower(cfg.solver.restart, "solver.restart", "Krylov vectors");
  if (method == MethodType::fcg) lower(cfg.solver.truncation, "solver.truncation", "directions");

  const std::size_t available = exec.available_memory();
  if (available == 0) return changes;  // the system does not say
  const auto refuse_above = [&](double bytes, const std::string& setting, const char* what) {
    if (bytes <= static_cast<double>(available)) return;
    throw out_of_memory("config: " + setting + " needs about " + gigabytes(bytes) + " for " + what +
                            " of " + std::to_string(rows) + " unknowns, but " +
                            gigabytes(static_cast<double>(available)) + " is available on " +
                            exec.name() + "; choose a smaller value",
                        static_cast<std::size_t>(bytes));
  };
  const double n = static_cast<double>(rows);
  if (gmres) {
    // restart + 1 basis vectors (FGMRES keeps restart preconditioned ones
    // too) and the (restart + 1) x restart Hessenberg matrix.
    const double m = cfg.solver.restart;
    const double vectors = (m + 1) + (method == MethodType::fgmres ? m : 0);
    refuse_above(8 * (n * vectors + (m + 1) * (m + 1)),
                 "solver.restart " + std::to_string(cfg.solver.restart), "its Krylov vectors");
  }
  if (method == MethodType::fcg) {
    refuse_above(16 * n * cfg.solver.truncation,
                 "solver.truncation " + std::to_string(cfg.solver.truncation),
                 "its directions and their products with A");
  }
  return changes;
}

KrylovMethod krylov_method(const SolverConfig& cfg) {
  const KrylovParams& p = cfg.solver.params;
  switch (cfg.solver.type) {
    case MethodType::cg:
      return Cg{p};
    case MethodType::bicgstab:
      return Bicgstab{p};
    case MethodType::gmres:
      return Gmres{p, cfg.solver.restart};
    case MethodType::fgmres:
      return Fgmres{p, cfg.solver.restart};
    case MethodType::fcg:
      return Fcg{p, cfg.solver.truncation};
  }
  throw invalid_argument("config: solver.type holds " +
                         std::to_string(static_cast<int>(cfg.solver.type)) +
                         "; expected a MethodType");
}

namespace {

/// The ILU settings with the factorization of the type chosen.
IluParams ilu_params(const SolverConfig& cfg, IluParams::Factorization factorization) {
  IluParams p = cfg.preconditioner.ilu;
  p.factorization = factorization;
  return p;
}

/// The Gauss-Seidel settings of `kind` with the sweep its name chose.
template <class Params>
Params with_sweep(Params p, GaussSeidelSweep sweep) {
  p.sweep = sweep;
  return p;
}

}  // namespace

SmootherParams preconditioner_smoother(const SolverConfig& cfg) {
  const auto& p = cfg.preconditioner;
  constexpr auto forward = GaussSeidelSweep::forward, symmetric = GaussSeidelSweep::symmetric;
  switch (p.type) {
    case PreconditionerType::ilu0:
      return ilu_params(cfg, IluParams::Factorization::ilu0);
    case PreconditionerType::iluk:
      return ilu_params(cfg, IluParams::Factorization::iluk);
    case PreconditionerType::ilut:
      return ilu_params(cfg, IluParams::Factorization::ilut);
    case PreconditionerType::jacobi:
      return p.jacobi;
    case PreconditionerType::l1jacobi:
      return p.l1jacobi;
    case PreconditionerType::chebyshev:
      return p.chebyshev;
    case PreconditionerType::gs:
      return with_sweep(p.gauss_seidel, forward);
    case PreconditionerType::sgs:
      return with_sweep(p.gauss_seidel, symmetric);
    case PreconditionerType::multicolor_gs:
      return with_sweep(p.multicolor_gs, forward);
    case PreconditionerType::multicolor_sgs:
      return with_sweep(p.multicolor_gs, symmetric);
    case PreconditionerType::two_stage_gs:
      return with_sweep(p.two_stage_gs, forward);
    case PreconditionerType::two_stage_sgs:
      return with_sweep(p.two_stage_gs, symmetric);
    case PreconditionerType::none:
    case PreconditionerType::amg:
      break;
  }
  throw invalid_argument("config: preconditioner.type " +
                         format_value(find_parameter("preconditioner.type")->get(cfg)) +
                         " is not a smoother; expected jacobi, l1jacobi, chebyshev, gs, sgs, "
                         "multicolor_gs, multicolor_sgs, two_stage_gs, two_stage_sgs, ilu0, iluk "
                         "or ilut");
}

SmootherParams amg_smoother(const SolverConfig& cfg) { return amg_smoother(cfg, Location::host); }

SmootherParams amg_smoother(const SolverConfig& cfg, const Executor& exec) {
  return amg_smoother(cfg, exec.location());
}

SmootherParams amg_smoother(const SolverConfig& cfg, Location where) {
  const auto& p = cfg.preconditioner;
  constexpr auto forward = GaussSeidelSweep::forward, symmetric = GaussSeidelSweep::symmetric;
  switch (p.amg.smoother) {
    case AmgSmootherType::automatic:
      if (p.amg.coarsening == CoarseningType::smoothed_aggregation) return p.chebyshev;
      if (p.amg.coarsening == CoarseningType::aggregation) {
        JacobiParams j = p.jacobi;
        j.estimate_omega = true;
        return j;
      }
      // The library's default for classical AMG on this executor, with
      // the settings of its kind.
      return std::visit(
          [&](const auto& d) -> SmootherParams {
            using D = std::decay_t<decltype(d)>;
            if constexpr (std::is_same_v<D, GaussSeidelParams>) {
              return with_sweep(p.gauss_seidel, d.sweep);
            } else if constexpr (std::is_same_v<D, L1JacobiParams>) {
              return p.l1jacobi;
            } else if constexpr (std::is_same_v<D, JacobiParams>) {
              JacobiParams j = p.jacobi;
              j.estimate_omega = d.estimate_omega;
              return j;
            } else {
              return d;
            }
          },
          amg::default_smoother(where));
    case AmgSmootherType::jacobi:
      return p.jacobi;
    case AmgSmootherType::l1jacobi:
      return p.l1jacobi;
    case AmgSmootherType::chebyshev:
      return p.chebyshev;
    case AmgSmootherType::ilu0:
      return ilu_params(cfg, IluParams::Factorization::ilu0);
    case AmgSmootherType::iluk:
      return ilu_params(cfg, IluParams::Factorization::iluk);
    case AmgSmootherType::ilut:
      return ilu_params(cfg, IluParams::Factorization::ilut);
    case AmgSmootherType::gs:
      return with_sweep(p.gauss_seidel, forward);
    case AmgSmootherType::sgs:
      return with_sweep(p.gauss_seidel, symmetric);
    case AmgSmootherType::multicolor_gs:
      return with_sweep(p.multicolor_gs, forward);
    case AmgSmootherType::multicolor_sgs:
      return with_sweep(p.multicolor_gs, symmetric);
    case AmgSmootherType::two_stage_gs:
      return with_sweep(p.two_stage_gs, forward);
    case AmgSmootherType::two_stage_sgs:
      return with_sweep(p.two_stage_gs, symmetric);
  }
  throw invalid_argument("config: preconditioner.amg.smoother holds " +
                         std::to_string(static_cast<int>(p.amg.smoother)) +
                         "; expected an AmgSmootherType");
}

amg::HierarchyParams hierarchy_params(const SolverConfig& cfg) {
  return hierarchy_params(cfg, Executor::host());
}

amg::HierarchyParams hierarchy_params(const SolverConfig& cfg, const Executor& exec) {
  amg::HierarchyParams h = cfg.preconditioner.amg.hierarchy;
  h.smoother = amg_smoother(cfg, exec);
  return h;
}

template <class T>
std::unique_ptr<amg::Coarsening<T>> make_coarsening(const SolverConfig& cfg,
                                                    std::vector<Vector<T>> near_null_space) {
  const auto& a = cfg.preconditioner.amg;
  switch (a.coarsening) {
    case CoarseningType::classical:
      if (!near_null_space.empty()) {
        throw invalid_argument("config: a near-null space of " +
                               std::to_string(near_null_space.size()) +
                               " vectors was given, but preconditioner.amg.coarsening is "
                               "classical, which uses none; expected coarsening aggregation "
                               "or smoothed_aggregation");
      }
      return amg::make_classical_coarsening<T>(a.classical);
    case CoarseningType::aggregation:
      return amg::make_aggregation_coarsening<T>(a.aggregation, std::move(near_null_space));
    case CoarseningType::smoothed_aggregation:
      return amg::make_smoothed_aggregation_coarsening<T>(a.smoothed_aggregation,
                                                          std::move(near_null_space));
  }
  throw invalid_argument("config: preconditioner.amg.coarsening holds " +
                         std::to_string(static_cast<int>(a.coarsening)) +
                         "; expected a CoarseningType");
}

// The one place that constructs a hierarchy or a smoother from settings.
template <class T>
std::unique_ptr<LinearOperator<T>> make_preconditioner(
    const SolverConfig& cfg, std::shared_ptr<const LevelOperator<T>> A,
    std::vector<Vector<T>> near_null_space, std::shared_ptr<const Reduction<T>> reduction) {
  if (!near_null_space.empty() && cfg.preconditioner.type != PreconditionerType::amg) {
    throw invalid_argument("config: a near-null space was given, but preconditioner.type is " +
                           format_value(find_parameter("preconditioner.type")->get(cfg)) +
                           "; only amg (with coarsening aggregation or smoothed_aggregation) "
                           "uses one");
  }
  switch (cfg.preconditioner.type) {
    case PreconditionerType::none:
      return nullptr;
    case PreconditionerType::amg:
      return std::make_unique<amg::Hierarchy<T>>(
          A, make_coarsening<T>(cfg, std::move(near_null_space)),
          hierarchy_params(cfg, A->executor()), std::move(reduction));
    case PreconditionerType::jacobi:
    case PreconditionerType::l1jacobi:
    case PreconditionerType::chebyshev:
    case PreconditionerType::ilu0:
    case PreconditionerType::iluk:
    case PreconditionerType::ilut:
    case PreconditionerType::gs:
    case PreconditionerType::sgs:
    case PreconditionerType::multicolor_gs:
    case PreconditionerType::multicolor_sgs:
    case PreconditionerType::two_stage_gs:
    case PreconditionerType::two_stage_sgs:
      return reduction ? make_smoother(A, preconditioner_smoother(cfg), *reduction)
                       : make_smoother(A, preconditioner_smoother(cfg));
  }
  throw invalid_argument("config: preconditioner.type holds " +
                         std::to_string(static_cast<int>(cfg.preconditioner.type)) +
                         "; expected a PreconditionerType");
}

namespace {

std::string choice_of(const SolverConfig& cfg, const char* path) {
  return format_value(find_parameter(path)->get(cfg));
}

/// The smoothers that run, in words, for a message.
std::string smoothers_in_use(const SolverConfig& cfg, Location where) {
  const auto& pre = cfg.preconditioner;
  if (pre.type != PreconditionerType::amg) {
    return "preconditioner.type is " + choice_of(cfg, "preconditioner.type");
  }
  std::string s = "the AMG smoother is " + smoother_name(amg_smoother(cfg, where));
  if (pre.amg.smoother == AmgSmootherType::automatic) {
    s += " (preconditioner.amg.smoother auto with " +
         choice_of(cfg, "preconditioner.amg.coarsening") + " coarsening)";
  }
  return s;
}

/// Why an ILU setting (preconditioner.ilu.*) changes nothing, or "".
std::string ilu_without_effect(const std::optional<SmootherParams>& running, std::string_view path,
                               const std::string& in_use) {
  const auto* p = running ? std::get_if<IluParams>(&*running) : nullptr;
  if (p == nullptr) {
    return "the ilu settings serve preconditioner.type or preconditioner.amg.smoother ilu0, iluk "
           "or ilut; " +
           in_use;
  }
  using F = IluParams::Factorization;
  if (path == "preconditioner.ilu.level_of_fill" && p->factorization != F::iluk) {
    return "only ILU(k) has a level of fill; the ILU in use is " + smoother_name(*p);
  }
  if ((path == "preconditioner.ilu.drop_tolerance" ||
       path == "preconditioner.ilu.max_fill_per_row") &&
      p->factorization != F::ilut) {
    return "only ILUT drops by size; the ILU in use is " + smoother_name(*p);
  }
  if (path == "preconditioner.ilu.triangular_sweeps" &&
      p->triangular_solve != TriangularAlgorithm::jacobi) {
    return "the triangular solves are level-scheduled (preconditioner.ilu.triangular_solve is "
           "level_scheduled), not Jacobi sweeps";
  }
  return {};
}

}  // namespace

std::string why_without_effect(const SolverConfig& cfg, std::string_view path, Location where) {
  const auto& pre = cfg.preconditioner;
  const bool amg = pre.type == PreconditionerType::amg;
  const auto in = [&](std::string_view section) {
    return path.size() > section.size() && path.starts_with(section) && path[section.size()] == '.';
  };
  const MethodType method = cfg.solver.type;
  if (path == "solver.restart" && method != MethodType::gmres && method != MethodType::fgmres) {
    return "only GMRES and FGMRES restart; solver.type is " + choice_of(cfg, "solver.type");
  }
  if (path == "solver.truncation" && method != MethodType::fcg) {
    return "only FCG truncates; solver.type is " + choice_of(cfg, "solver.type");
  }

  // A smoother's settings serve that smoother, stand-alone or in AMG.
  const std::optional<SmootherParams> running =
      amg ? std::optional<SmootherParams>(amg_smoother(cfg, where))
      : (pre.type == PreconditionerType::none) ? std::nullopt
                                               : std::optional(preconditioner_smoother(cfg));
  const auto smoother_unused = [&](const char* kind, bool runs) -> std::string {
    if (runs) return {};
    return std::string("the ") + kind + " settings serve preconditioner.type " + kind +
           " or preconditioner.amg.smoother " + kind + "; " + smoothers_in_use(cfg, where);
  };
  if (in("preconditioner.jacobi")) {
    const auto* j = running ? std::get_if<JacobiParams>(&*running) : nullptr;
    if (auto why = smoother_unused("jacobi", j != nullptr); !why.empty()) return why;
    const bool automatic = amg && pre.amg.smoother == AmgSmootherType::automatic;
    if (path == "preconditioner.jacobi.estimate_omega" && automatic) {
      return "the automatic AMG smoother (aggregation's, and classical AMG's on the device) always "
             "estimates omega";
    }
    if (path == "preconditioner.jacobi.estimation_steps" && !j->estimate_omega) {
      return "omega is not estimated (preconditioner.jacobi.estimate_omega is false)";
    }
    return {};
  }
  if (in("preconditioner.l1jacobi")) {
    const bool runs = running && std::holds_alternative<L1JacobiParams>(*running);
    return smoother_unused("l1jacobi", runs);
  }
  if (in("preconditioner.gauss_seidel")) {
    const bool runs = running && std::holds_alternative<GaussSeidelParams>(*running);
    if (runs) return {};
    return "the gauss_seidel settings serve preconditioner.type gs or sgs or "
           "preconditioner.amg.smoother gs or sgs; " +
           smoothers_in_use(cfg, where);
  }
  if (in("preconditioner.multicolor_gs")) {
    const bool runs = running && std::holds_alternative<MulticolorGaussSeidelParams>(*running);
    if (runs) return {};
    return "the multicolor_gs settings serve preconditioner.type multicolor_gs or multicolor_sgs "
           "or the AMG smoother of those names; " +
           smoothers_in_use(cfg, where);
  }
  if (in("preconditioner.two_stage_gs")) {
    const bool runs = running && std::holds_alternative<TwoStageGaussSeidelParams>(*running);
    if (runs) return {};
    return "the two_stage_gs settings serve preconditioner.type two_stage_gs or two_stage_sgs "
           "or the AMG smoother of those names; " +
           smoothers_in_use(cfg, where);
  }
  if (in("preconditioner.chebyshev")) {
    const auto* c = running ? std::get_if<ChebyshevParams>(&*running) : nullptr;
    if (auto why = smoother_unused("chebyshev", c != nullptr); !why.empty()) return why;
    if (path == "preconditioner.chebyshev.lower_fraction" &&
        c->kind != ChebyshevParams::Kind::first) {
      return "only the first-kind polynomial has a lower end (preconditioner.chebyshev.kind is " +
             choice_of(cfg, "preconditioner.chebyshev.kind") + ")";
    }
    return {};
  }

  if (in("preconditioner.ilu"))
    return ilu_without_effect(running, path, smoothers_in_use(cfg, where));

  if (!in("preconditioner.amg")) return {};
  if (!amg) {
    return "AMG settings need preconditioner.type amg; it is " +
           choice_of(cfg, "preconditioner.type");
  }
  // Each coarsening's settings serve that coarsening only.
  for (const char* section : {"classical", "aggregation", "smoothed_aggregation"}) {
    const std::string prefix = std::string("preconditioner.amg.") + section;
    if (in(prefix) && choice_of(cfg, "preconditioner.amg.coarsening") != section) {
      return std::string(section) + " coarsening settings; preconditioner.amg.coarsening is " +
             choice_of(cfg, "preconditioner.amg.coarsening");
    }
  }
  if (path.starts_with("preconditioner.amg.classical.aggressive_") &&
      path != "preconditioner.amg.classical.aggressive_levels" &&
      pre.amg.classical.aggressive_levels == 0) {
    return "no level is coarsened aggressively (preconditioner.amg.classical.aggressive_levels "
           "is 0)";
  }
  if (path.starts_with("preconditioner.amg.kcycle_") &&
      pre.amg.hierarchy.cycle != amg::CycleType::K) {
    return "K-cycle settings; preconditioner.amg.cycle is " +
           choice_of(cfg, "preconditioner.amg.cycle");
  }
  return {};
}

std::vector<std::string> ineffective_settings(const SolverConfig& cfg, Location where) {
  const SolverConfig defaults;
  std::vector<std::string> out;
  for (const GivenSetting& g : cfg.given) {
    std::string why;
    bool any_effect = false, any_changed = false;
    for (const auto& path : g.paths) {
      const Parameter* p = find_parameter(path);
      if (p == nullptr) continue;
      any_changed = any_changed || p->get(cfg) != p->get(defaults);
      std::string reason = why_without_effect(cfg, path, where);
      if (reason.empty()) any_effect = true;
      if (why.empty()) why = std::move(reason);
    }
    if (!any_effect && any_changed) out.push_back(g.where + " has no effect: " + why);
  }
  return out;
}

int block_size(const SolverConfig& cfg) {
  const auto& amg = cfg.preconditioner.amg;
  const bool sa = cfg.preconditioner.type == PreconditionerType::amg &&
                  amg.coarsening == CoarseningType::smoothed_aggregation;
  return sa ? std::max(1, amg.smoothed_aggregation.block_size) : 1;
}

template <class T>
std::shared_ptr<const LevelOperator<T>> level_operator(const SolverConfig& cfg,
                                                       std::shared_ptr<const CsrMatrix<T>> A) {
  require(A != nullptr, "config::level_operator: A is null; expected a matrix");
  const int b = block_size(cfg);
  if (b == 1) return std::make_shared<const CsrOperator<T>>(std::move(A));
  if (A->rows() % b != 0 || A->cols() % b != 0) {
    throw invalid_argument("config: preconditioner.amg.smoothed_aggregation.block_size " +
                           std::to_string(b) + " does not divide the " + std::to_string(A->rows()) +
                           " x " + std::to_string(A->cols()) +
                           " matrix; expected the number of unknowns per node (rows a multiple "
                           "of it)");
  }
  return std::make_shared<const BsrOperator<T>>(to_bsr(*A, b));
}

template <class T>
std::vector<Vector<T>> with_translations(std::vector<Vector<T>> B, size_type rows, int block_size,
                                         const Executor& exec) {
  if (block_size < 1 || rows % block_size != 0) {
    throw invalid_argument("config: block size " + std::to_string(block_size) +
                           " for translations of " + std::to_string(rows) +
                           " unknowns; expected a block size >= 1 dividing them");
  }
  std::vector<Vector<T>> out;
  std::vector<T> t(static_cast<std::size_t>(rows));
  for (int c = 0; c < block_size; ++c) {
    for (size_type i = 0; i < rows; ++i) t[i] = i % block_size == c ? T{1} : T{0};
    out.emplace_back(Array<T>(exec, t));
  }
  for (auto& v : B) out.push_back(std::move(v));
  return out;
}

template <class T>
std::vector<int> missing_translations(const std::vector<Vector<T>>& B, int block_size) {
  if (B.empty()) return {};
  const std::size_t k = B.size();
  std::vector<std::vector<T>> cols;
  for (const auto& v : B) cols.push_back(v.to(Executor::host()).values().to_vector());
  const std::size_t n = cols[0].size();
  // Cholesky of the Gram matrix G = B^T B, with a floor on the pivots so
  // that dependent columns (validate_near_null_space refuses them later,
  // by name) do not stop this check.
  std::vector<double> G(k * k, 0.0);
  for (std::size_t a = 0; a < k; ++a) {
    for (std::size_t b = 0; b <= a; ++b) {
      double sum = 0;
      for (std::size_t i = 0; i < n; ++i) sum += double(cols[a][i]) * double(cols[b][i]);
      G[a * k + b] = G[b * k + a] = sum;
    }
  }
  double largest = 0;
  for (std::size_t a = 0; a < k; ++a) largest = std::max(largest, G[a * k + a]);
  std::vector<double> L(k * k, 0.0);
  for (std::size_t j = 0; j < k; ++j) {
    double d = G[j * k + j];
    for (std::size_t m = 0; m < j; ++m) d -= L[j * k + m] * L[j * k + m];
    d = std::max(d, 1e-14 * largest + std::numeric_limits<double>::min());
    L[j * k + j] = std::sqrt(d);
    for (std::size_t i = j + 1; i < k; ++i) {
      double v = G[i * k + j];
      for (std::size_t m = 0; m < j; ++m) v -= L[i * k + m] * L[j * k + m];
      L[i * k + j] = v / L[j * k + j];
    }
  }
  std::vector<int> missing;
  for (int c = 0; c < block_size; ++c) {
    // y = B^T t, solve G z = y, residual^2 = t.t - y.z (least squares).
    std::vector<double> y(k, 0.0);
    double tt = 0;
    for (std::size_t a = 0; a < k; ++a) {
      for (std::size_t i = static_cast<std::size_t>(c); i < n; i += block_size) y[a] += cols[a][i];
    }
    for (std::size_t i = static_cast<std::size_t>(c); i < n; i += block_size) tt += 1.0;
    std::vector<double> z = y;
    for (std::size_t i = 0; i < k; ++i) {
      for (std::size_t m = 0; m < i; ++m) z[i] -= L[i * k + m] * z[m];
      z[i] /= L[i * k + i];
    }
    double yz = 0;  // y^T G^-1 y = |L^-1 y|^2
    for (std::size_t i = 0; i < k; ++i) yz += z[i] * z[i];
    const double residual2 = std::max(0.0, tt - yz);
    if (tt > 0 && residual2 > 1e-12 * tt) missing.push_back(c);
  }
  return missing;
}

template <class T>
bool resetup_preconditioner(LinearOperator<T>* preconditioner,
                            std::shared_ptr<const LevelOperator<T>> A) {
  auto* hierarchy = dynamic_cast<amg::Hierarchy<T>*>(preconditioner);
  if (hierarchy == nullptr || !hierarchy->params().keep_resetup_data) return false;
  hierarchy->resetup(std::move(A));
  return true;
}

template bool resetup_preconditioner<double>(LinearOperator<double>*,
                                             std::shared_ptr<const LevelOperator<double>>);
template std::shared_ptr<const LevelOperator<double>> level_operator<double>(
    const SolverConfig&, std::shared_ptr<const CsrMatrix<double>>);
template std::vector<Vector<double>> with_translations<double>(std::vector<Vector<double>>,
                                                               size_type, int, const Executor&);
template std::vector<int> missing_translations<double>(const std::vector<Vector<double>>&, int);
template std::unique_ptr<amg::Coarsening<double>> make_coarsening<double>(
    const SolverConfig&, std::vector<Vector<double>>);
template std::unique_ptr<LinearOperator<double>> make_preconditioner<double>(
    const SolverConfig&, std::shared_ptr<const LevelOperator<double>>, std::vector<Vector<double>>,
    std::shared_ptr<const Reduction<double>>);

}  // namespace strata::config
