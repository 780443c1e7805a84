// A program that uses an installed Strata through find_package(Strata): the
// README's example, on the host.
#include <cmath>
#include <cstdio>
#include <strata/strata.hpp>

int main() {
  using namespace strata;
  auto exec = Executor::host();
  auto A = share(gallery::poisson3d(exec, 16, 16, 16));  // shared by op and M

  amg::Hierarchy<double> M(A, amg::make_classical_coarsening<double>({}));
  Vector<double> b(exec, A->rows(), 1.0), x(exec, A->rows(), 0.0);
  CsrOperator<double> op(A);
  SolveInfo info = solve(KrylovMethod{Cg{}}, op, b, x, &M);
  std::printf("consumer: Strata %s, %s in %d iterations, relative residual %.2e\n",
              STRATA_VERSION_STRING, to_string(info.status), info.iterations,
              info.relative_residual);

  M.resetup();  // new values (here: the same), same pattern
  x.fill(0.0);
  const SolveInfo again = solve(KrylovMethod{Cg{}}, op, b, x, &M);
  // The settings layer: JSON text in, without the consumer seeing a JSON
  // library (it is private to libstrata).
  const auto cfg = config::config_from_json(R"({"solver": {"tolerance": 1e-6}})");
  const auto P = config::make_preconditioner<double>(cfg, A);
  x.fill(0.0);
  const SolveInfo configured = solve(config::krylov_method(cfg), op, b, x, P.get());
  std::printf("consumer: from settings, %s in %d iterations\n", to_string(configured.status),
              configured.iterations);
  return info.converged() && again.iterations == info.iterations && info.iterations < 20 &&
                 configured.converged() && configured.iterations <= info.iterations
             ? 0
             : 1;
}
