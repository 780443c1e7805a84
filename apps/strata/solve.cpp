// strata solve: the product's main job. Loads or generates A, builds the
// preconditioner, runs the Krylov method and reports, with the true
// residual recomputed at the end.

#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "commands.hpp"
#include "problem.hpp"

namespace strata::app {

namespace {

using json = nlohmann::ordered_json;

struct SolveOptions {
  std::string problem = "poisson3d";
  size_type n = 0;
  std::string rhs;
  std::string solver = "cg";
  std::string precond = "jacobi";
  double tol = 1e-8;
  double atol = 0.0;
  int maxit = 5000;
  int restart = 30;
  double omega = 1.0;
  int degree = 3;
  bool host = false;
  bool device = false;
  int print_every = 0;
};

KrylovMethod make_method(const SolveOptions& o, const KrylovParams& p) {
  if (o.solver == "cg") return Cg{p};
  if (o.solver == "bicgstab") return Bicgstab{p};
  if (o.solver == "gmres") return Gmres{p, o.restart};
  if (o.solver == "fgmres") return Fgmres{p, o.restart};
  throw invalid_argument("--solver '" + o.solver + "': expected cg, bicgstab, gmres or fgmres");
}

std::unique_ptr<Smoother<double>> make_preconditioner(const SolveOptions& o,
                                                      const CsrMatrix<double>& A,
                                                      bool symmetric) {
  if (o.precond == "none") return nullptr;
  if (o.precond == "jacobi") return make_smoother(A, JacobiParams{.omega = o.omega});
  if (o.precond == "l1jacobi") return make_smoother(A, L1JacobiParams{.omega = o.omega});
  if (o.precond == "chebyshev") {
    return make_smoother(A, ChebyshevParams{.degree = o.degree, .symmetric = symmetric});
  }
  throw invalid_argument("--precond '" + o.precond +
                         "': expected none, jacobi, l1jacobi or chebyshev");
}

double seconds(std::chrono::steady_clock::duration d) {
  return std::chrono::duration<double>(d).count();
}

/// 0 converged, 3 not converged (1 is kept for errors).
int run_solve(const SolveOptions& o, const Common& c) {
  require(o.tol >= 0, "--tol must be >= 0, got " + std::to_string(o.tol));
  require(o.maxit >= 0, "--maxit must be >= 0, got " + std::to_string(o.maxit));
  const Executor exec = pick_executor(o.host, o.device);
  // Sized for the target: 64^3 on the host, 128^3 on a GPU.
  const size_type n = o.n > 0 ? o.n
                     : (o.problem == "poisson3d" ? (exec.is_cuda() ? 128 : 64)
                                                 : default_size(o.problem));
  auto p = load_problem(o.problem, n, exec);
  const auto& A = p.A;
  if (A.rows() != A.cols()) {
    throw invalid_argument("solve: A must be square, it is " + std::to_string(A.rows()) + " x " +
                           std::to_string(A.cols()));
  }
  Vector<double> b(exec, A.rows(), 1.0);
  if (!o.rhs.empty()) {
    b = io::read_matrix_market_vector(o.rhs).to(exec);
    if (b.size() != A.rows()) {
      throw dimension_mismatch("--rhs " + o.rhs + " has " + std::to_string(b.size()) +
                               " entries but A has " + std::to_string(A.rows()) + " rows");
    }
  }
  Vector<double> x(exec, A.rows(), 0.0);

  // Symmetry decides Lanczos versus Arnoldi for Chebyshev's estimate; the
  // gallery knows, a file is checked (on the host copy it was read into).
  bool symmetric = p.source == "gallery" ? o.problem != "convdiff3d" : false;
  if (p.source == "file" && o.precond == "chebyshev") {
    symmetric = exec.is_host() ? analyze(A).numerically_symmetric
                               : analyze(A.to(Executor::host())).numerically_symmetric;
  }

  const auto setup_start = std::chrono::steady_clock::now();
  auto M = make_preconditioner(o, A, symmetric);
  exec.synchronize();
  const double setup_seconds = seconds(std::chrono::steady_clock::now() - setup_start);

  KrylovParams params;
  params.relative_tolerance = o.tol;
  params.absolute_tolerance = o.atol;
  params.max_iterations = o.maxit;
  const bool verbose = !c.json && o.print_every >= 0;
  if (verbose) {
    params.monitor = [&](int it, double r) {
      const bool show = o.print_every > 0 ? it % o.print_every == 0 : (it <= 10 || it % 10 == 0);
      if (show) std::printf("  iteration %5d   residual %.3e\n", it, r);
    };
  }
  const auto method = make_method(o, params);
  const std::string precond_desc = M ? M->describe() : "none";
  if (verbose) {
    std::printf("strata solve: %s%s, %lld rows, %lld nonzeros, on %s\n", p.name.c_str(),
                p.source == "gallery" ? (" n=" + std::to_string(p.n)).c_str() : "",
                (long long)A.rows(), (long long)A.nnz(), exec.name().c_str());
    std::printf("  method %s, preconditioner %s, tolerance %.1e relative to ||b||, b = %s\n",
                method_name(method).c_str(), precond_desc.c_str(), o.tol,
                o.rhs.empty() ? "ones" : o.rhs.c_str());
  }

  MatrixOperator<double> op(A);
  const auto solve_start = std::chrono::steady_clock::now();
  const auto info = solve(method, op, b, x, M.get());
  exec.synchronize();
  const double solve_seconds = seconds(std::chrono::steady_clock::now() - solve_start);

  Vector<double> r(exec, A.rows());
  spmv(A, x, r);
  axpby(1.0, b, -1.0, r);
  const double b_norm = norm2(b);
  const double true_relative = b_norm > 0 ? norm2(r) / b_norm : norm2(r);
  const double per_iteration = info.iterations > 0 ? solve_seconds / info.iterations : 0.0;

  if (c.json) {
    json j = {{"command", "solve"},
              {"problem", p.name},
              {"source", p.source},
              {"n", p.n},
              {"rows", A.rows()},
              {"nnz", A.nnz()},
              {"backend", exec.name()},
              {"solver", method_name(method)},
              {"preconditioner", o.precond},
              {"preconditioner_detail", precond_desc},
              {"tolerance", o.tol},
              {"iterations", info.iterations},
              {"converged", info.converged()},
              {"status", to_string(info.status)},
              {"message", info.message},
              {"relative_residual", true_relative},
              {"tracked_relative_residual", info.relative_residual},
              {"load_seconds", p.load_seconds},
              {"setup_seconds", setup_seconds},
              {"solve_seconds", solve_seconds},
              {"seconds_per_iteration", per_iteration},
              {"residual_history", info.residual_history}};
    std::printf("%s\n", j.dump(2).c_str());
  } else {
    std::printf("%s after %d iterations: relative residual %.3e (recomputed b - A x: %.3e)%s%s\n",
                info.converged() ? "converged" : to_string(info.status), info.iterations,
                info.relative_residual, true_relative, info.message.empty() ? "" : "; ",
                info.message.c_str());
    std::printf("  setup %.4f s, solve %.4f s (%.3f ms per iteration); problem built in %.3f s\n",
                setup_seconds, solve_seconds, per_iteration * 1e3, p.load_seconds);
  }
  return info.converged() ? 0 : 3;
}

}  // namespace

void add_solve(CLI::App& app, Common& common, int& exit_code) {
  auto o = std::make_shared<SolveOptions>();
  auto* cmd = app.add_subcommand(
      "solve", "Solve A x = b (default: 3D Poisson, CG with Jacobi, b = ones, x0 = 0)");
  cmd->add_option("problem", o->problem, "MatrixMarket file or gallery problem")
      ->capture_default_str();
  cmd->add_option("--n", o->n, "Size for a gallery problem (default: 64^3 host, 128^3 device)");
  cmd->add_option("--rhs", o->rhs, "Right-hand side as MatrixMarket (default: all ones)");
  cmd->add_option("--solver", o->solver, "cg, bicgstab, gmres or fgmres")->capture_default_str();
  cmd->add_option("--precond", o->precond, "none, jacobi, l1jacobi or chebyshev")
      ->capture_default_str();
  cmd->add_option("--tol", o->tol, "Relative tolerance on ||b - A x|| / ||b||")
      ->capture_default_str();
  cmd->add_option("--atol", o->atol, "Absolute tolerance on ||b - A x||")->capture_default_str();
  cmd->add_option("--maxit", o->maxit, "Maximum iterations")->capture_default_str();
  cmd->add_option("--restart", o->restart, "Restart length of GMRES and FGMRES")
      ->capture_default_str();
  cmd->add_option("--omega", o->omega, "Weight of (l1-)Jacobi")->capture_default_str();
  cmd->add_option("--degree", o->degree, "Degree of the Chebyshev polynomial")
      ->capture_default_str();
  cmd->add_flag("--host", o->host, "Run on the host (OpenMP)");
  cmd->add_flag("--device", o->device, "Run on the CUDA device");
  cmd->add_option("--print-every", o->print_every,
                  "Progress every K iterations (0: the first 10, then every 10th; -1: none)")
      ->capture_default_str();
  cmd->add_flag("--json", common.json, "Print one JSON object");
  cmd->callback([o, &common, &exit_code] { exit_code = run_solve(*o, common); });
}

}  // namespace strata::app
