// The README's library example as a complete program: 3D Poisson with
// classical AMG-preconditioned CG on the GPU when there is one, on the host
// otherwise, then a value-only resetup after the values change.
#include <strata/strata.hpp>

#include <cstdio>
#include <vector>

int main() {
  using namespace strata;
  const Executor exec = Executor::default_executor();  // a GPU if built and present
  const size_type n = exec.is_cuda() ? 128 : 32;
  auto A = share(gallery::poisson3d(exec, n, n, n));  // generated where it runs
  // auto A = share(io::read_matrix_market("A.mtx").to(exec));  // moving data is explicit

  // Operators, smoothers and hierarchies share ownership of A: no lifetime rules.
  amg::Hierarchy<double> M(A, amg::make_classical_coarsening<double>({}));
  Vector<double> b(exec, A->rows(), 1.0), x(exec, A->rows(), 0.0);
  const SolveInfo info = solve(KrylovMethod{Cg{}}, CsrOperator<double>(A), b, x, &M);
  std::printf("%s: %s in %d iterations\n", exec.name().c_str(), to_string(info.status),
              info.iterations);

  // New values, same pattern (a Newton step): change A's values in place,
  // then refresh the hierarchy without recoarsening.
  std::vector<double> values = A->values().to_vector();  // e.g. from a new assembly
  for (double& v : values) v *= 2.0;
  A->values() = Array<double>(exec, values);
  M.resetup();
  x.fill(0.0);
  const SolveInfo again = solve(KrylovMethod{Cg{}}, CsrOperator<double>(A), b, x, &M);
  std::printf("after resetup: %s in %d iterations\n", to_string(again.status), again.iterations);
  return info.converged() && again.converged() ? 0 : 1;
}
