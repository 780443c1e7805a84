// strata solve's defaults that follow the matrix (see defaults.hpp).

#include "defaults.hpp"

#include <cmath>
#include <cstdio>

#include "strata/amg/amg.hpp"

namespace strata::app {

namespace {

std::string count(size_type n, const char* what) {
  return std::to_string(n) + " " + what + (n == 1 ? "" : "s");
}

}  // namespace

MatrixFacts inspect(const Problem& p, const CsrMatrix<double>& A) {
  MatrixFacts f;
  if (p.source == "gallery") {
    f.symmetric = p.name != "convdiff3d";
    f.symmetry_reason =
        "the gallery problem " + p.name + " is " + (f.symmetric ? "symmetric" : "nonsymmetric");
    f.positive_diagonal = A.rows();
    return f;
  }
  // A file is read on the host; a device matrix is analysed on a host copy.
  const CsrMatrix<double> copy =
      A.executor().is_host() ? CsrMatrix<double>() : A.to(Executor::host());
  const CsrMatrix<double>& H = A.executor().is_host() ? A : copy;
  const MatrixProperties props = analyze(H);
  f.symmetric = props.numerically_symmetric;
  char asymmetry[32];
  std::snprintf(asymmetry, sizeof asymmetry, "%.3g", props.max_asymmetry);
  f.symmetry_reason = f.symmetric ? "A is numerically symmetric"
                                  : std::string(
                                        "A is not numerically symmetric (max |a_ij - "
                                        "a_ji| = ") +
                                        asymmetry + ")";
  f.positive_diagonal = props.positive_diagonal;
  f.negative_diagonal = props.negative_diagonal;
  const auto rp = H.row_ptr().host_view();
  const auto va = H.values().host_view();
  f.constant_null_space = H.rows() > 0;
  for (size_type i = 0; i < H.rows() && f.constant_null_space; ++i) {
    double sum = 0, size = 0;
    for (offset_type k = rp[i]; k < rp[i + 1]; ++k) sum += va[k], size += std::abs(va[k]);
    f.constant_null_space = std::abs(sum) <= 1e-12 * size;
  }
  for (size_type i = 0; i < H.rows(); ++i) {
    bool zero = true;
    for (offset_type k = rp[i]; k < rp[i + 1] && zero; ++k) zero = va[k] == 0.0;
    if (zero) {
      if (f.zero_rows++ == 0) f.first_zero_row = static_cast<long long>(i);
    }
  }
  return f;
}

void refuse_hopeless(const MatrixFacts& f, const std::string& name) {
  if (f.zero_rows > 0) {
    throw invalid_argument("solve: A (" + name + ") is singular: " + count(f.zero_rows, "row") +
                           " without a nonzero entry (the first is row " +
                           std::to_string(f.first_zero_row + 1) +
                           ", 1-based); give each row a nonzero diagonal entry or remove it");
  }
  if (f.negative_diagonal > 0 && f.positive_diagonal == 0) {
    throw invalid_argument("solve: A appears negative definite: solve with -A (" + name + " has " +
                           std::to_string(f.negative_diagonal) + " negative diagonal " +
                           (f.negative_diagonal == 1 ? "entry" : "entries") +
                           " and no positive one; -A x = -b has the same solution, and the "
                           "methods and preconditioners here expect a positive diagonal)");
  }
}

namespace {
/// The stand-alone Gauss-Seidel preconditioners that sweep one way only.
bool one_way_gauss_seidel(config::PreconditionerType type) {
  using P = config::PreconditionerType;
  return type == P::gs || type == P::multicolor_gs || type == P::two_stage_gs;
}
}  // namespace

std::vector<std::string> choose_defaults(config::SolverConfig& cfg, const MatrixFacts& f,
                                         const std::set<std::string>& given) {
  using config::MethodType;
  std::vector<std::string> why;
  const bool free_method = !given.count("solver.type");
  const bool free_cycle = !given.count("preconditioner.amg.cycle");
  auto& amg = cfg.preconditioner.amg;
  const bool aggregation = cfg.preconditioner.type == config::PreconditionerType::amg &&
                           amg.coarsening == config::CoarseningType::aggregation;
  const auto flexible = [&] {
    return cfg.solver.type == MethodType::fcg || cfg.solver.type == MethodType::fgmres;
  };
  if (aggregation && free_cycle && (free_method || flexible())) {
    amg.hierarchy.cycle = amg::CycleType::K;
    why.push_back("cycle K (the aggregation paper's method: K-cycles on " +
                  std::to_string(amg.hierarchy.kcycle_levels) +
                  " levels; give --cycle for another)");
  }
  const bool kcycle = cfg.preconditioner.type == config::PreconditionerType::amg &&
                      amg.hierarchy.cycle == amg::CycleType::K;
  // ILUT's factors are not symmetric even for symmetric A (ILU(0) and
  // ILU(k) are: U = D L^T), so CG cannot use it.
  const bool nonsymmetric_preconditioner =
      cfg.preconditioner.type == config::PreconditionerType::ilut;
  if (free_method && nonsymmetric_preconditioner && !kcycle) {
    cfg.solver.type = MethodType::gmres;
    why.push_back("solver gmres (the ILUT preconditioner is nonsymmetric; give --solver for "
                  "another)");
  } else if (free_method) {
    if (kcycle) {
      cfg.solver.type = f.symmetric ? MethodType::fcg : MethodType::fgmres;
      why.push_back(std::string(f.symmetric ? "solver fcg" : "solver fgmres") + " (" +
                    f.symmetry_reason + ", and a K-cycle changes between applications)");
    } else if (f.symmetric && one_way_gauss_seidel(cfg.preconditioner.type)) {
      // A forward Gauss-Seidel sweep is not a symmetric preconditioner.
      cfg.solver.type = MethodType::gmres;
      why.push_back("solver gmres (" + f.symmetry_reason + ", but a forward Gauss-Seidel "
                    "preconditioner is not symmetric: the sgs forms are, for CG; give --solver "
                    "for another)");
    } else {
      cfg.solver.type = f.symmetric ? MethodType::cg : MethodType::gmres;
      why.push_back(std::string(f.symmetric ? "solver cg" : "solver gmres") + " (" +
                    f.symmetry_reason + "; give --solver for another)");
    }
  }
  return why;
}

}  // namespace strata::app
