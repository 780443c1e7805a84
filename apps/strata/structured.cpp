// strata solve --interface struct: a gallery problem generated through the
// structured interface, solved by PFMG-preconditioned CG (--precond pfmg,
// the default here), plain CG (--precond none) or PFMG alone (--solver
// pfmg). The true residual is recomputed through the CSR bridge, which is
// independent of the stencil kernels.

#include "structured.hpp"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <vector>

#include "problem.hpp"
#include "strata/structured/pfmg.hpp"

namespace strata::app {

namespace {

using json = nlohmann::ordered_json;

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

/// Parses "a,b[,c]" into `count` positive numbers.
std::vector<double> parse_coefficients(const std::string& text, std::size_t count) {
  std::vector<double> c;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    char* end = nullptr;
    const double v = std::strtod(item.c_str(), &end);
    if (item.empty() || end != item.c_str() + item.size() || !(v > 0) || !std::isfinite(v)) {
      throw usage_error("--coefficients: '" + item + "' in '" + text +
                             "' is not a positive number");
    }
    c.push_back(v);
  }
  if (c.size() != count) {
    throw usage_error("--coefficients '" + text + "' has " + std::to_string(c.size()) +
                           " values, expected " + std::to_string(count) +
                           " (one per direction of the problem)");
  }
  return c;
}

/// Parses "x,z" (any of x, y, z; y and x only in 2D) into periodic flags.
std::array<bool, 3> parse_periodic(const std::string& text, int ndim) {
  std::array<bool, 3> periodic{false, false, false};
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    const int d = item == "x" ? 0 : item == "y" ? 1 : item == "z" ? 2 : -1;
    if (d < 0 || d >= ndim) {
      throw usage_error("--periodic: '" + item + "' in '" + text + "' is not a direction of a " +
                        std::to_string(ndim) + "D problem (expected " +
                        (ndim == 3 ? "x, y or z" : "x or y") + ")");
    }
    if (periodic[d]) throw usage_error("--periodic '" + text + "' names " + item + " twice");
    periodic[d] = true;
  }
  if (text.empty() || text.back() == ',') {
    throw usage_error("--periodic '" + text + "': expected directions such as x,y");
  }
  return periodic;
}

int problem_dimension(const std::string& problem) {
  return problem == "poisson2d" || problem == "aniso2d" ? 2 : 3;
}

structured::StructMatrix<double> make_problem(const StructuredSolveOptions& o, long long n,
                                              const Executor& exec) {
  if (o.problem != "aniso3d" && o.problem != "aniso2d" && !o.coefficients.empty()) {
    throw usage_error("--coefficients applies to aniso3d and aniso2d, not " + o.problem);
  }
  if (o.problem == "jumps3d" && !o.periodic.empty()) {
    throw usage_error("--periodic applies to poisson3d, aniso3d, poisson2d and aniso2d, not jumps3d");
  }
  const auto p = o.periodic.empty() ? std::array<bool, 3>{false, false, false}
                                    : parse_periodic(o.periodic, problem_dimension(o.problem));
  if (o.problem == "poisson3d") {
    return structured::gallery::anisotropic3d(exec, n, n, n, {1.0, 1.0, 1.0}, p);
  }
  if (o.problem == "jumps3d") return structured::gallery::jumps3d(exec, n, n, n);
  if (o.problem == "aniso3d") {
    const auto c = parse_coefficients(o.coefficients.empty() ? "1,1,0.001" : o.coefficients, 3);
    return structured::gallery::anisotropic3d(exec, n, n, n, {c[0], c[1], c[2]}, p);
  }
  if (o.problem == "poisson2d") {
    return structured::gallery::anisotropic2d(exec, n, n, {1.0, 1.0}, {p[0], p[1]});
  }
  if (o.problem == "aniso2d") {
    const auto c = parse_coefficients(o.coefficients.empty() ? "1,0.001" : o.coefficients, 2);
    return structured::gallery::anisotropic2d(exec, n, n, {c[0], c[1]}, {p[0], p[1]});
  }
  std::string names;
  for (const auto& p : structured_problem_names()) names += (names.empty() ? "" : ", ") + p;
  throw usage_error("solve --interface struct: problem '" + o.problem +
                         "' is not a structured problem (" + names + ")");
}

}  // namespace

std::vector<std::string> structured_problem_names() {
  return {"poisson3d", "aniso3d", "jumps3d", "poisson2d", "aniso2d"};
}

void add_structured_options(CLI::App& cmd, StructuredSolveOptions& o) {
  const char* group = "Structured interface (with --interface struct)";
  cmd.add_option("--coefficients", o.coefficients,
                 "aniso3d: CX,CY,CZ (default 1,1,0.001); aniso2d: CX,CY (default 1,0.001)")
      ->group(group);
  cmd.add_option("--periodic", o.periodic,
                 "periodic directions of poisson3d, aniso3d, poisson2d, aniso2d, e.g. x,y "
                 "(periodic in all: b = x - mean, as the constants are in the null space)")
      ->group(group);
  cmd.add_option("--struct-storage", o.storage,
                 "how the matrix is stored: full, or symmetric (the centre and one offset of "
                 "each pair: about half the bytes of A and of PFMG's levels; every gallery "
                 "problem is symmetric)")
      ->check(CLI::IsMember({"full", "symmetric"}))
      ->capture_default_str()
      ->group(group);
  cmd.add_option("--pfmg-relax", o.relax, "PFMG smoother: jacobi (weighted) or rbgs (red-black)")
      ->check(CLI::IsMember({"jacobi", "rbgs"}))
      ->capture_default_str()
      ->group(group);
  cmd.add_option("--pfmg-coarse-operator", o.coarse_operator,
                 "PFMG coarse operators: galerkin (P^T A P), non-galerkin (ParFlow's, "
                 "7-point on every level; star stencils only) or auto (non-galerkin for a star "
                 "stencil with smooth coefficients)")
      ->check(CLI::IsMember({"auto", "galerkin", "non-galerkin"}))
      ->capture_default_str()
      ->group(group);
  cmd.add_option("--pfmg-skip", o.skip, "PFMG: skip relaxation where it does little (hypre's skip)")
      ->capture_default_str()
      ->group(group);
}

int run_structured_solve(const StructuredSolveOptions& o, const GivenSettings& settings,
                         const Common& c) {
  std::string precond = "pfmg", solver = "cg", precision = "auto";
  KrylovParams params;
  params.relative_tolerance = 1e-8;
  params.max_iterations = 1000;
  for (const auto& [flag, text] : settings) {
    if (flag == "--precond" || flag == "--preconditioner.type") {
      precond = text;
    } else if (flag == "--solver" || flag == "--solver.type") {
      solver = text;
    } else if (flag == "--tol" || flag == "--solver.relative_tolerance") {
      params.relative_tolerance = std::strtod(text.c_str(), nullptr);
      require_usage(params.relative_tolerance > 0 && params.relative_tolerance < 1,
              flag + " " + text + ": expected a number in (0, 1)");
    } else if (flag == "--maxit" || flag == "--solver.max_iterations") {
      params.max_iterations = std::atoi(text.c_str());
      require_usage(params.max_iterations >= 1, flag + " " + text + ": expected an integer >= 1");
    } else if (flag == "--cycle-precision" || flag == "--preconditioner.amg.cycle_precision") {
      precision = text;
      require_usage(precision == "auto" || precision == "double" || precision == "single",
                    flag + " " + text + ": expected auto, double or single");
    } else {
      throw usage_error(flag +
                        " is a setting of the CSR solve; --interface struct takes "
                        "--precond pfmg|none, --solver cg|pfmg, --tol, --maxit and "
                        "--cycle-precision");
    }
  }
  require_usage(precond == "pfmg" || precond == "none",
          "--precond " + precond + ": --interface struct takes pfmg or none");
  require_usage(solver == "cg" || solver == "pfmg",
          "--solver " + solver + ": --interface struct takes cg or pfmg (PFMG alone)");
  require_usage(!(solver == "pfmg" && precond == "none"), "--solver pfmg needs no --precond none");
  require_usage(precision == "auto" || precond == "pfmg" || solver == "pfmg",
                "--cycle-precision " + precision +
                    " is PFMG's: it needs --precond pfmg or --solver pfmg, not --precond none");
  require_usage(!o.n || *o.n >= 1, "--n must be >= 1, got " + std::to_string(o.n.value_or(0)));

  const Executor exec = pick_executor(o.host, o.device);
  const long long n = o.n ? *o.n : (exec.is_cuda() ? 128 : 64);
  auto t0 = std::chrono::steady_clock::now();
  auto generated = make_problem(o, n, exec);
  // The gallery's matrices are symmetric exactly (tolerance 0 checks it).
  auto A = std::make_shared<const structured::StructMatrix<double>>(
      o.storage == "full" ? std::move(generated) : generated.to_symmetric());
  // The operator's stencil: a symmetric one stores the centre and half the rest.
  const int points = o.storage == "full" ? A->stencil().size() : 2 * A->stencil().size() - 1;
  exec.synchronize();
  const double load_seconds = seconds_since(t0);
  const structured::StructOperator<double> op(A);

  structured::PfmgParams pp;
  pp.relaxation = o.relax == "rbgs" ? structured::PfmgRelaxation::red_black_gauss_seidel
                                    : structured::PfmgRelaxation::weighted_jacobi;
  pp.skip_relax = o.skip;
  pp.coarse_operator =
      o.coarse_operator == "non-galerkin" ? structured::PfmgCoarseOperator::non_galerkin
      : o.coarse_operator == "galerkin"   ? structured::PfmgCoarseOperator::galerkin
                                          : structured::PfmgCoarseOperator::automatic;
  pp.cycle_precision = precision == "single"   ? amg::CyclePrecision::single
                       : precision == "double" ? amg::CyclePrecision::full
                                               : amg::CyclePrecision::automatic;
  t0 = std::chrono::steady_clock::now();
  std::unique_ptr<structured::Pfmg<double>> M;
  if (precond == "pfmg" || solver == "pfmg") M = std::make_unique<structured::Pfmg<double>>(A, pp);
  exec.synchronize();
  const double setup_seconds = seconds_since(t0);

  // Periodic in every direction the matrix is singular (constants in its
  // null space) and b = ones is not in its range: b = x - mean(x) instead
  // (half-integers, so its sum is exactly zero).
  const auto& grid = A->grid();
  const bool singular = grid.periodic(0) && grid.periodic(1) && (grid.ndim() == 2 || grid.periodic(2));
  const char* rhs = singular ? "x - mean(x) (periodic in every direction: zero mean)" : "ones";
  const bool verbose = !c.json && o.print_every >= 0;
  if (verbose) {
    params.monitor = [&](int it, double r) {
      const bool show = o.print_every > 0 ? it % o.print_every == 0 : (it <= 10 || it % 10 == 0);
      if (show) std::printf("  iteration %5d   residual %.3e\n", it, r);
    };
    std::printf(
        "strata solve --interface struct: %s n=%lld, %lld cells, %d-point stencil (%s "
        "storage), on %s\n",
        o.problem.c_str(), n, (long long)op.rows(), points, o.storage.c_str(), exec.name().c_str());
    std::printf("  method %s, preconditioner %s, tolerance %.1e relative to ||b||, b = %s\n",
                solver == "pfmg" ? "PFMG iteration" : "cg", M ? M->describe().c_str() : "none",
                params.relative_tolerance, rhs);
  }
  Vector<double> b(exec, op.rows(), 1.0), x(exec, op.rows(), 0.0);
  if (singular) {
    const std::int64_t nx = grid.box().extent(0);
    std::vector<double> centred(static_cast<std::size_t>(op.rows()));
    for (std::size_t p = 0; p < centred.size(); ++p) {
      centred[p] = static_cast<double>(static_cast<std::int64_t>(p) % nx) - 0.5 * double(nx - 1);
    }
    b = Vector<double>(Array<double>(exec, centred));
  }
  t0 = std::chrono::steady_clock::now();
  SolveInfo info;
  if (solver == "pfmg") {
    info = M->solve(b, x, params);
  } else {
    Cg cg;
    cg.params = params;
    info = solve(KrylovMethod{cg}, op, b, x, M.get());
  }
  exec.synchronize();
  const double solve_seconds = seconds_since(t0);
  // The residual through the CSR bridge: independent of the stencil kernels.
  const auto csr = A->to_csr();
  Vector<double> r(exec, op.rows());
  residual(csr, b, x, r);
  const double relative = norm2(r) / norm2(b);

  if (c.json) {
    json j = {{"command", "solve"},
              {"interface", "struct"},
              {"problem", o.problem},
              {"n", n},
              {"rows", op.rows()},
              {"stencil_size", points},
              {"storage", o.storage},
              {"periodic", grid.periodic()},
              {"rhs", singular ? "x - mean(x)" : "ones"},
              {"backend", exec.name()},
              {"solver", solver},
              {"preconditioner", precond},
              {"preconditioner_detail", M ? M->describe() : "none"},
              {"tolerance", params.relative_tolerance},
              {"iterations", info.iterations},
              {"converged", info.converged()},
              {"status", to_string(info.status)},
              {"message", info.message},
              {"relative_residual", relative},
              {"load_seconds", load_seconds},
              {"setup_seconds", setup_seconds},
              {"solve_seconds", solve_seconds}};
    if (M) {
      json levels = json::array();
      for (int l = 0; l < M->num_levels(); ++l) {
        const auto& L = M->level(l);
        levels.push_back({{"extent", L.extent},
                          {"stencil_size", L.stencil_size},
                          {"coarsening_direction", L.coarsening_direction},
                          {"relaxed", L.relaxed},
                          {"weight", L.weight}});
      }
      j["levels"] = levels;
      j["operator_complexity"] = M->operator_complexity();
      j["coarse_operator"] = to_string(M->coarse_operator());
      j["cycle_precision"] = amg::to_string(M->cycle_precision());
    }
    std::printf("%s\n", j.dump(2).c_str());
  } else {
    if (M) {
      std::printf("  PFMG: %d levels, operator complexity %.3f\n", M->num_levels(),
                  M->operator_complexity());
    }
    std::printf("%s after %d iterations: relative residual %.3e (||b - A x|| / ||b|| through CSR)\n",
                info.converged() ? "converged" : to_string(info.status), info.iterations, relative);
    std::printf("  setup %.4f s, solve %.4f s (%.2f ms per iteration), problem %.4f s\n",
                setup_seconds, solve_seconds,
                info.iterations > 0 ? 1e3 * solve_seconds / info.iterations : 0.0, load_seconds);
  }
  return info.converged() ? 0 : 3;
}

}  // namespace strata::app
