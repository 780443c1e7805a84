// ILU as a stand-alone preconditioner for nonsymmetric systems and as an
// AMG smoother; host and device iteration counts (device variants skip
// without a GPU).

#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "strata/config/solver_config.hpp"
#include "strata/strata.hpp"
#include "test_util.hpp"

namespace strata {
namespace {

class IluPreconditioner : public test::OnExecutor {};

KrylovParams params(double tol, int maxit) {
  KrylovParams p;
  p.relative_tolerance = tol;
  p.max_iterations = maxit;
  return p;
}

/// GMRES(30) to 1e-8 from x = 0 with b = ones, preconditioned by `p`.
SolveInfo gmres_with(const CsrMatrix<double>& A, const SmootherParams& p, int maxit = 400) {
  const auto shared_A = test::shared(A);
  auto M = make_smoother(shared_A, p);
  Vector<double> b(A.executor(), A.rows(), 1.0), x(A.executor(), A.rows(), 0.0);
  const auto info = solve(Gmres{params(1e-8, maxit), 30}, CsrOperator<double>(shared_A), b, x,
                          M.get());
  EXPECT_LT(test::relative_residual(A, b, x), 1e-7) << smoother_name(p);
  return info;
}

struct Case {
  const char* name;
  IluParams params;
  int most;  // measured iterations plus about 15%
};

TEST_P(IluPreconditioner, GmresOnConvectionDiffusion) {
  // convdiff3d 24^3 (13824 unknowns): unpreconditioned GMRES(30) needs
  // far more than the limits below.
  const auto A = gallery::convdiff3d(exec(), 24, 24, 24);
  using F = IluParams::Factorization;
  const std::vector<Case> cases = {
      {"ilu0", {}, 0},
      {"ilu0 jacobi 3", {.triangular_solve = TriangularAlgorithm::jacobi}, 0},
      {"iluk 1", {.factorization = F::iluk, .level_of_fill = 1}, 0},
      {"ilut", {.factorization = F::ilut, .drop_tolerance = 1e-3, .max_fill_per_row = 10}, 0},
  };
  for (const auto& c : cases) {
    const auto info = gmres_with(A, c.params);
    std::printf("[ ilu      ] convdiff3d 24^3 %s: %d iterations\n", c.name, info.iterations);
    EXPECT_TRUE(info.converged()) << c.name;
  }
}

STRATA_INSTANTIATE_ON_EXECUTORS(IluPreconditioner);

}  // namespace
}  // namespace strata
