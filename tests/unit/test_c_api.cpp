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
};

double relative_residual(const CsrMatrix<double>& A, const std::vector<double>& x) {
  Vector<double> xv(Array<double>(A.executor(), x)), b(A.executor(), A.rows(), 1.0);
  return test::relative_residual(A, b, xv);
}

TEST_P(CApi, SolvesResetsUpAndReportsErrors) {
  const auto A = gallery::poisson2d(exec(), 30, 30);
  const int64_t n = A.rows();
  strata_matrix M = nullptr;
  // The arrays are on the executor's memory: device pointers for the device.
  ASSERT_EQ(strata_matrix_create_csr(location(), n, n, A.row_ptr().data(), A.col_idx().data(),
                                     A.values().data(), &M),
            STRATA_SUCCESS)
      << strata_last_error();
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
