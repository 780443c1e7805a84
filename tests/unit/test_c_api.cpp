// The C API (strata_c.h) on host and device memory: a solve checked against
// its own residual, new values through resetup, settings and buffers, and
// errors as status codes with messages.

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "strata/gallery/gallery.hpp"
#include "strata/strata_c.h"
#include "test_util.hpp"

namespace strata {
namespace {

class CApi : public test::OnExecutor {
 protected:
  strata_location location() const {
    return GetParam() == Location::cuda ? STRATA_DEVICE : STRATA_HOST;
  }
  /// A's handle, from its arrays in the executor's memory (device pointers
  /// for the device); nullptr after a failure the test has reported.
  strata_matrix handle_of(const CsrMatrix<double>& A) const {
    strata_matrix M = nullptr;
    EXPECT_EQ(strata_matrix_create_csr(location(), A.rows(), A.cols(), A.row_ptr().data(),
                                       A.col_idx().data(), A.values().data(), &M),
              STRATA_SUCCESS)
        << strata_last_error();
    return M;
  }
};

double relative_residual(const CsrMatrix<double>& A, const std::vector<double>& x) {
  Vector<double> xv(Array<double>(A.executor(), x)), b(A.executor(), A.rows(), 1.0);
  return test::relative_residual(A, b, xv);
}

TEST_P(CApi, SolvesResetsUpAndReportsErrors) {
  const auto A = gallery::poisson2d(exec(), 30, 30);
  const int64_t n = A.rows();
  strata_matrix M = handle_of(A);
  ASSERT_NE(M, nullptr);
  int64_t rows = 0, cols = 0, nnz = 0;
  ASSERT_EQ(strata_matrix_size(M, &rows, &cols, &nnz), STRATA_SUCCESS);
  EXPECT_EQ(rows, n);
  EXPECT_EQ(nnz, A.nnz());
  strata_solver S = nullptr;
  ASSERT_EQ(strata_solver_create(M,
                                 R"({"solver": {"type": "cg", "tolerance": 1e-9},
                                     "preconditioner": {"type": "amg"}})",
                                 &S),
            STRATA_SUCCESS)
      << strata_last_error();
  Array<double> b(exec(), n, 1.0), x(exec(), n, 0.0);
  strata_solve_info info{};
  ASSERT_EQ(strata_solver_solve(S, b.data(), x.data(), &info), STRATA_SUCCESS)
      << strata_last_error();
  EXPECT_EQ(info.converged, 1);
  EXPECT_LE(info.true_relative_residual, 1e-9);
  EXPECT_EQ(std::string(info.status), "converged");
  EXPECT_GT(info.iterations, 0);
  EXPECT_LT(relative_residual(A, x.to_vector()), 1e-9);

  // New values (A doubled): resetup, solve again; x halves.
  std::vector<double> doubled = A.values().to_vector();
  for (double& v : doubled) v *= 2;
  const Array<double> values(exec(), doubled);
  ASSERT_EQ(strata_matrix_set_values(M, values.data()), STRATA_SUCCESS);
  ASSERT_EQ(strata_matrix_destroy(M), STRATA_SUCCESS);  // the solver keeps the matrix
  ASSERT_EQ(strata_solver_resetup(S), STRATA_SUCCESS) << strata_last_error();
  const std::vector<double> first = x.to_vector();
  Array<double> y(exec(), n, 0.0);
  ASSERT_EQ(strata_solver_solve(S, b.data(), y.data(), &info), STRATA_SUCCESS);
  const std::vector<double> second = y.to_vector();
  for (int64_t i = 0; i < n; ++i) ASSERT_NEAR(second[i], first[i] / 2, 1e-7 * std::abs(first[i]));

  // Settings in effect, and the buffer rules.
  size_t needed = 0;
  ASSERT_EQ(strata_solver_config(S, nullptr, 0, &needed), STRATA_SUCCESS);
  std::vector<char> text(needed);
  ASSERT_EQ(strata_solver_config(S, text.data(), text.size(), nullptr), STRATA_SUCCESS);
  EXPECT_NE(std::string(text.data()).find("\"tolerance\": 1e-09"), std::string::npos)
      << text.data();
  char tiny[4];
  EXPECT_EQ(strata_solver_describe(S, tiny, sizeof tiny, &needed),
            STRATA_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(strata_last_error()).find("bytes"), std::string::npos);
  EXPECT_GT(needed, sizeof tiny);

  // Errors: codes and messages that name what was wrong.
  EXPECT_EQ(strata_solver_solve(S, nullptr, x.data(), &info), STRATA_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(strata_last_error()).find("b is NULL"), std::string::npos);
  EXPECT_EQ(strata_solver_destroy(S), STRATA_SUCCESS);
  strata_matrix bad = nullptr;
  const std::vector<int64_t> rp{0, 1, 2};
  const std::vector<int32_t> ci{0, 5};  // column 5 of a 2 x 2 matrix
  const std::vector<double> va{1.0, 1.0};
  EXPECT_EQ(strata_matrix_create_csr(STRATA_HOST, 2, 2, rp.data(), ci.data(), va.data(), &bad),
            STRATA_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(bad, nullptr);
  EXPECT_NE(std::string(strata_last_error()).find("row"), std::string::npos)
      << strata_last_error();
  EXPECT_EQ(strata_matrix_create_csr(static_cast<strata_location>(7), 2, 2, rp.data(), ci.data(),
                                     va.data(), &bad),
            STRATA_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(strata_last_error()).find("STRATA_HOST"), std::string::npos);
  EXPECT_EQ(strata_matrix_destroy(nullptr), STRATA_SUCCESS);
}

/// Iterations of an SA solve of elasticity3d through the C API, with the
/// rigid-body modes set on the matrix (k = 6) or not (k = 0: the
/// coarsening's default, the three translations).
int sa_iterations(strata_matrix M, const CsrMatrix<double>& A, const Array<double>& modes,
                  int64_t k) {
  const int64_t n = A.rows();
  EXPECT_EQ(strata_matrix_set_near_null_space(M, 3, k, k > 0 ? modes.data() : nullptr),
            STRATA_SUCCESS)
      << strata_last_error();
  strata_solver S = nullptr;
  EXPECT_EQ(strata_solver_create(M,
                                 R"({"solver": {"tolerance": 1e-8},
                                     "preconditioner": {"amg": {"coarsening": "sa"}}})",
                                 &S),
            STRATA_SUCCESS)
      << strata_last_error();
  if (S == nullptr) return -1;
  // The matrix's block size became the setting; the solver works on BSR.
  size_t needed = 0;
  strata_solver_config(S, nullptr, 0, &needed);
  std::vector<char> text(needed);
  strata_solver_config(S, text.data(), text.size(), nullptr);
  EXPECT_NE(std::string(text.data()).find("\"block_size\": 3"), std::string::npos);
  Array<double> b(modes.executor(), n, 1.0), x(modes.executor(), n, 0.0);
  strata_solve_info info{};
  EXPECT_EQ(strata_solver_solve(S, b.data(), x.data(), &info), STRATA_SUCCESS)
      << strata_last_error();
  EXPECT_EQ(info.converged, 1);
  EXPECT_LE(info.true_relative_residual, 1e-8);
  // A value-only resetup after new values (A doubled) goes through the BSR
  // copy, which is remade from them: x halves.
  const std::vector<double> first = x.to_vector();
  std::vector<double> doubled = A.values().to_vector();
  for (double& v : doubled) v *= 2;
  EXPECT_EQ(strata_matrix_set_values(M, Array<double>(modes.executor(), doubled).data()),
            STRATA_SUCCESS);
  EXPECT_EQ(strata_solver_resetup(S), STRATA_SUCCESS) << strata_last_error();
  Array<double> y(modes.executor(), n, 0.0);
  strata_solve_info again{};
  EXPECT_EQ(strata_solver_solve(S, b.data(), y.data(), &again), STRATA_SUCCESS);
  EXPECT_EQ(again.converged, 1);
  const std::vector<double> second = y.to_vector();
  for (int64_t i = 0; i < n; ++i) EXPECT_NEAR(second[i], first[i] / 2, 1e-6 * std::abs(first[i]) + 1e-12);
  EXPECT_EQ(strata_matrix_set_values(M, A.values().data()), STRATA_SUCCESS);  // back
  strata_solver_destroy(S);
  return info.iterations;
}

TEST_P(CApi, SmoothedAggregationTakesTheNearNullSpaceAndBlockSize) {
  const auto problem = gallery::elasticity3d(exec(), 6);
  const auto& A = problem.A;
  const int64_t n = A.rows();
  strata_matrix M = handle_of(A);
  ASSERT_NE(M, nullptr);
  // The six modes column-major, in the matrix's memory.
  std::vector<double> columns;
  for (const auto& v : problem.rigid_body_modes) {
    const auto h = v.to_vector();
    columns.insert(columns.end(), h.begin(), h.end());
  }
  const Array<double> modes(exec(), columns);
  const int with_modes = sa_iterations(M, A, modes, 6);
  const int translations_only = sa_iterations(M, A, modes, 0);
  // The rotations are what elasticity's coarse spaces lack without them.
  EXPECT_GT(with_modes, 0);
  EXPECT_LT(with_modes, translations_only);

  // Errors name the argument, the value and what was expected.
  EXPECT_EQ(strata_matrix_set_near_null_space(M, 4, 6, modes.data()),
            STRATA_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(strata_last_error()).find("block_size is 4; expected the unknowns per "
                                                  "node, >= 1 and dividing the " +
                                                  std::to_string(n) + " rows"),
            std::string::npos)
      << strata_last_error();
  ASSERT_EQ(strata_matrix_set_near_null_space(M, 3, 6, modes.data()), STRATA_SUCCESS);
  strata_solver S = nullptr;
  EXPECT_EQ(strata_solver_create(M,
                                 R"({"preconditioner": {"amg": {"coarsening": "sa",
                                     "smoothed_aggregation": {"block_size": 2}}}})",
                                 &S),
            STRATA_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(strata_last_error())
                .find("block_size is 2 but strata_matrix_set_near_null_space gave block_size 3"),
            std::string::npos)
      << strata_last_error();
  // Classical AMG takes no near-null space, and says so.
  EXPECT_EQ(strata_solver_create(M, "", &S), STRATA_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(strata_last_error()).find("coarsening is classical"), std::string::npos)
      << strata_last_error();
  EXPECT_EQ(S, nullptr);
  // Two copies of one vector: refused at setup as rank-deficient.
  std::vector<double> twice(columns.begin(), columns.begin() + n);
  twice.insert(twice.end(), columns.begin(), columns.begin() + n);
  const Array<double> dependent(exec(), twice);
  ASSERT_EQ(strata_matrix_set_near_null_space(M, 3, 2, dependent.data()), STRATA_SUCCESS);
  EXPECT_EQ(strata_solver_create(M, R"({"preconditioner": {"amg": {"coarsening": "sa"}}})", &S),
            STRATA_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(strata_last_error()).find("near_null_space[1]"), std::string::npos)
      << strata_last_error();
  strata_matrix_destroy(M);
}

TEST(CApiHost, DeviceRequestsWithoutCudaSayNotCompiledOrRun) {
  const std::vector<int64_t> rp{0, 1};
  const std::vector<int32_t> ci{0};
  const std::vector<double> va{1.0};
  strata_matrix M = nullptr;
  const strata_status s = strata_matrix_create_csr(STRATA_DEVICE, 1, 1, rp.data(), ci.data(),
                                                   va.data(), &M);
  if (strata_cuda_available()) {
    // Host pointers declared device: a clear error, or (unified addressing)
    // a copy that gives the 1 x 1 matrix.
    int64_t rows = 0;
    if (s == STRATA_SUCCESS) {
      EXPECT_EQ(strata_matrix_size(M, &rows, nullptr, nullptr), STRATA_SUCCESS);
      EXPECT_EQ(rows, 1);
    } else {
      EXPECT_NE(std::string(strata_last_error()), "");
    }
    strata_matrix_destroy(M);
  } else {
    EXPECT_NE(s, STRATA_SUCCESS);
    EXPECT_NE(std::string(strata_last_error()), "");
  }
}

STRATA_INSTANTIATE_ON_EXECUTORS(CApi);

}  // namespace
}  // namespace strata
