// A program that uses an installed Strata through find_package(Strata): the
// README's example, on the host.
#include <strata/strata.hpp>

#include <cmath>
#include <cstdio>

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
  return info.converged() && again.iterations == info.iterations && info.iterations < 20 ? 0 : 1;
}
