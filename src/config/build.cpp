// From settings to the objects of a solve: the variants the components
// take, and the one function that builds a preconditioner.

#include "strata/config/solver_config.hpp"
#include "strata/core/error.hpp"

namespace strata::config {

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

SmootherParams preconditioner_smoother(const SolverConfig& cfg) {
  const auto& p = cfg.preconditioner;
  switch (p.type) {
    case PreconditionerType::jacobi:
      return p.jacobi;
    case PreconditionerType::l1jacobi:
      return p.l1jacobi;
    case PreconditionerType::chebyshev:
      return p.chebyshev;
    case PreconditionerType::none:
    case PreconditionerType::amg:
      break;
  }
  throw invalid_argument("config: preconditioner.type " +
                         format_value(find_parameter("preconditioner.type")->get(cfg)) +
                         " is not a smoother; expected jacobi, l1jacobi or chebyshev");
}

SmootherParams amg_smoother(const SolverConfig& cfg) {
  const auto& p = cfg.preconditioner;
  switch (p.amg.smoother) {
    case AmgSmootherType::automatic:
      if (p.amg.coarsening == CoarseningType::aggregation) {
        JacobiParams j = p.jacobi;
        j.estimate_omega = true;
        return j;
      }
      return p.l1jacobi;
    case AmgSmootherType::jacobi:
      return p.jacobi;
    case AmgSmootherType::l1jacobi:
      return p.l1jacobi;
    case AmgSmootherType::chebyshev:
      return p.chebyshev;
  }
  throw invalid_argument("config: preconditioner.amg.smoother holds " +
                         std::to_string(static_cast<int>(p.amg.smoother)) +
                         "; expected an AmgSmootherType");
}

amg::HierarchyParams hierarchy_params(const SolverConfig& cfg) {
  amg::HierarchyParams h = cfg.preconditioner.amg.hierarchy;
  h.smoother = amg_smoother(cfg);
  return h;
}

template <class T>
std::unique_ptr<amg::Coarsening<T>> make_coarsening(const SolverConfig& cfg) {
  const auto& a = cfg.preconditioner.amg;
  switch (a.coarsening) {
    case CoarseningType::classical:
      return amg::make_classical_coarsening<T>(a.classical);
    case CoarseningType::aggregation:
      return amg::make_aggregation_coarsening<T>(a.aggregation);
  }
  throw invalid_argument("config: preconditioner.amg.coarsening holds " +
                         std::to_string(static_cast<int>(a.coarsening)) +
                         "; expected a CoarseningType");
}

// The one place that constructs a hierarchy or a smoother from settings.
template <class T>
std::unique_ptr<LinearOperator<T>> make_preconditioner(const SolverConfig& cfg,
                                                       std::shared_ptr<const LevelOperator<T>> A) {
  switch (cfg.preconditioner.type) {
    case PreconditionerType::none:
      return nullptr;
    case PreconditionerType::amg:
      return std::make_unique<amg::Hierarchy<T>>(A, make_coarsening<T>(cfg), hierarchy_params(cfg));
    case PreconditionerType::jacobi:
    case PreconditionerType::l1jacobi:
    case PreconditionerType::chebyshev:
      return make_smoother(A, preconditioner_smoother(cfg));
  }
  throw invalid_argument("config: preconditioner.type holds " +
                         std::to_string(static_cast<int>(cfg.preconditioner.type)) +
                         "; expected a PreconditionerType");
}

template std::unique_ptr<amg::Coarsening<double>> make_coarsening<double>(const SolverConfig&);
template std::unique_ptr<LinearOperator<double>> make_preconditioner<double>(
    const SolverConfig&, std::shared_ptr<const LevelOperator<double>>);

}  // namespace strata::config
