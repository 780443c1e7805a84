// Vector operations on each executor, hand-checked and against references.

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "strata/matrix/vector.hpp"
#include "test_util.hpp"

namespace strata {
namespace {

class VectorOps : public test::OnExecutor {};

Vector<double> make(const Executor& e, const std::vector<double>& v) {
  return Vector<double>(Array<double>(e, v));
}

TEST_P(VectorOps, SmallHandChecked) {
  auto x = make(exec(), {1, 2, 3, 4, 5});
  auto y = make(exec(), {5, 4, 3, 2, 1});
  EXPECT_EQ(dot(x, y), 35.0);
  EXPECT_EQ(norm1(x), 15.0);
  EXPECT_EQ(norm_inf(make(exec(), {1, -7, 3})), 7.0);
  EXPECT_DOUBLE_EQ(norm2(x), std::sqrt(55.0));
  axpy(2.0, x, y);  // y = 2x + y
  EXPECT_EQ(y.to_vector(), (std::vector<double>{7, 8, 9, 10, 11}));
  axpby(1.0, x, -1.0, y);  // y = x - y
  EXPECT_EQ(y.to_vector(), (std::vector<double>{-6, -6, -6, -6, -6}));
  scale(-0.5, y);
  EXPECT_EQ(y.to_vector(), (std::vector<double>{3, 3, 3, 3, 3}));
  Vector<double> z(exec(), 5);
  axpbyz(1.0, x, 2.0, y, z);
  EXPECT_EQ(z.to_vector(), (std::vector<double>{7, 8, 9, 10, 11}));
  pointwise_multiply(x, y, z);
  EXPECT_EQ(z.to_vector(), (std::vector<double>{3, 6, 9, 12, 15}));
}

TEST_P(VectorOps, BetaZeroOverwritesNaN) {
  auto x = make(exec(), {1, 2});
  auto y = make(exec(), {NAN, NAN});
  axpby(3.0, x, 0.0, y);
  EXPECT_EQ(y.to_vector(), (std::vector<double>{3, 6}));
}

TEST_P(VectorOps, FusedOperationsMatchUnfused) {
  const size_type n = 100003;
  auto xv = test::random_values(n, 1), yv = test::random_values(n, 2), dv = test::random_values(n, 3, 0.5, 2.0);
  auto x = make(exec(), xv), y = make(exec(), yv), d = make(exec(), dv);
  const auto y2 = y.clone();
  const double fused = axpy_norm2_squared(0.25, x, y);
  double ref = 0;
  for (size_type i = 0; i < n; ++i) ref += (yv[i] + 0.25 * xv[i]) * (yv[i] + 0.25 * xv[i]);
  EXPECT_NEAR(fused, ref, 1e-10 * ref);
  auto expected = y2.clone();
  axpy(0.25, x, expected);
  EXPECT_EQ(y.to_vector(), expected.to_vector());

  Vector<double> z(exec(), n);
  const double rz = pointwise_multiply_dot(d, x, z);
  double rz_ref = 0;
  for (size_type i = 0; i < n; ++i) rz_ref += xv[i] * dv[i] * xv[i];
  EXPECT_NEAR(rz, rz_ref, 1e-10 * rz_ref);

  const auto [xy, xz] = dot2(x, y, z);
  EXPECT_NEAR(xy, dot(x, y), 1e-10 * std::abs(xy) + 1e-12);
  EXPECT_NEAR(xz, dot(x, z), 1e-10 * std::abs(xz) + 1e-12);
  EXPECT_EQ(dot(x, y), dot(x, y)) << "dot must repeat bit for bit";
}

TEST_P(VectorOps, MismatchesAreErrors) {
  auto x = make(exec(), {1, 2, 3});
  auto y = make(exec(), {1, 2});
  EXPECT_THROW(dot(x, y), dimension_mismatch);
  EXPECT_THROW(axpy(1.0, x, y), dimension_mismatch);
  try {
    dot(x, y);
  } catch (const dimension_mismatch& e) {
    EXPECT_NE(std::string(e.what()).find("3"), std::string::npos);
  }
}

TEST(VectorOpsDevice, MixedLocationsAreRejected) {
  STRATA_REQUIRE_DEVICE();
  auto h = make(Executor::host(), {1, 2, 3});
  auto d = h.to(Executor::cuda());
  EXPECT_THROW(dot(h, d), location_mismatch);
  EXPECT_THROW(axpy(1.0, h, d), location_mismatch);
}

STRATA_INSTANTIATE_ON_EXECUTORS(VectorOps);

}  // namespace
}  // namespace strata
