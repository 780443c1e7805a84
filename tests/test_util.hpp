#pragma once
// Helpers shared by the tests.

#include <gtest/gtest.h>

#include <string>

#include "strata/core/executor.hpp"

namespace strata::test {

/// Skips the current test, visibly, when no CUDA device can be used.
#define STRATA_REQUIRE_DEVICE()                                                  \
  do {                                                                           \
    if (!::strata::cuda_available()) GTEST_SKIP() << "no CUDA device: skipped";  \
  } while (0)

/// Folder of ../shared/data, or "" when it is not there.
inline std::string data_dir() { return STRATA_TEST_DATA_DIR; }

/// Skips the current test when the shared data folder is missing.
#define STRATA_REQUIRE_DATA()                                                    \
  do {                                                                           \
    if (::strata::test::data_dir().empty())                                      \
      GTEST_SKIP() << "shared test data not found: skipped";                     \
  } while (0)

}  // namespace strata::test

#include <memory>
#include <random>
#include <vector>

#include "strata/solver/level_operator.hpp"

namespace strata::test {

/// A shared copy of A, for the objects that share ownership of their matrix
/// (operators, smoothers, hierarchies). Test matrices are small; a copy
/// leaves each test's own A as it was.
template <class T>
std::shared_ptr<const CsrMatrix<T>> shared(const CsrMatrix<T>& A) {
  return share(A.clone());
}

/// Test fixture parameter: which executor to run on. Device instances skip
/// visibly when no GPU is present.
class OnExecutor : public ::testing::TestWithParam<Location> {
 protected:
  void SetUp() override {
    if (GetParam() == Location::cuda && !cuda_available()) {
      GTEST_SKIP() << "no CUDA device: device variant skipped";
    }
  }
  Executor exec() const {
    return GetParam() == Location::cuda ? Executor::cuda() : Executor::host();
  }
};

inline std::string location_name(const ::testing::TestParamInfo<Location>& info) {
  return info.param == Location::cuda ? "Device" : "Host";
}

#define STRATA_INSTANTIATE_ON_EXECUTORS(Suite)                                    \
  INSTANTIATE_TEST_SUITE_P(Exec, Suite,                                          \
                           ::testing::Values(::strata::Location::host,           \
                                             ::strata::Location::cuda),          \
                           ::strata::test::location_name)

/// Deterministic pseudo-random doubles in [lo, hi).
inline std::vector<double> random_values(std::size_t n, unsigned seed, double lo = -1.0,
                                         double hi = 1.0) {
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<double> dist(lo, hi);
  std::vector<double> v(n);
  for (auto& x : v) x = dist(gen);
  return v;
}

}  // namespace strata::test

#include "strata/matrix/csr.hpp"

namespace strata::test {

/// ||b - A x|| / ||b||, recomputed (not the solver's own estimate).
inline double relative_residual(const CsrMatrix<double>& A, const Vector<double>& b,
                                const Vector<double>& x) {
  Vector<double> r(A.executor(), A.rows());
  spmv(A, x, r);
  axpby(1.0, b, -1.0, r);
  return norm2(r) / norm2(b);
}

}  // namespace strata::test

#include <functional>

#include "strata/core/error.hpp"

namespace strata::test {

/// The message of the strata::error that f throws ("no exception" when it
/// throws none), for tests that check what an error says.
inline std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const error& e) {
    return e.message();
  }
  return "no exception";
}

}  // namespace strata::test
