// A program that uses an installed Strata through find_package(Strata).
#include <strata/strata.hpp>

#include <cmath>
#include <cstdio>

int main() {
  auto exec = strata::Executor::host();
  auto A = strata::gallery::poisson3d(exec, 8, 8, 8);
  strata::Vector<double> x(exec, A.cols(), 1.0), y(exec, A.rows(), 0.0);
  strata::spmv(A, x, y);
  // Row sums of the 7-point Laplacian are 6 minus the number of neighbours;
  // an 8^3 grid has 3 * 7 * 8 * 8 neighbouring pairs, each counted twice.
  const double total = strata::reduce_sum(y.values());
  const double expected = 6.0 * 8 * 8 * 8 - 2.0 * 3 * 7 * 8 * 8;
  std::printf("consumer: Strata %s, A is %lld x %lld, sum(A*1) = %g (expected %g)\n",
              STRATA_VERSION_STRING, static_cast<long long>(A.rows()),
              static_cast<long long>(A.cols()), total, expected);
  return std::abs(total - expected) < 1e-9 ? 0 : 1;
}
