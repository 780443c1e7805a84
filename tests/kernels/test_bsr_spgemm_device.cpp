// Device blocked products (SparseProduct and GalerkinProduct of BSR
// matrices) against the host ones: every fast-path family and the generic
// kernel, block rows of B longer than a warp's chunk (32 blocks), empty rows,
// inputs of hundreds of block rows; a device run repeats bit for bit and the
// device recompute equals a fresh device product bit for bit; the elasticity
// Galerkin product with a 3x6 prolongator, also through the level operators.
// Each product runs planned (the threshold lowered to plan these small ones)
// and unplanned, and the planned one equals spgemm() (never planned) bit for
// bit.

#include <gtest/gtest.h>

#include <limits>
#include <string>

#include "../unit/sparse_product_util.hpp"
#include "core/elasticity_prolongator_internal.hpp"
#include "kernels/matrix/bsr_spgemm_kernels.hpp"
#include "strata/gallery/gallery.hpp"
#include "strata/matrix/bsr_spgemm.hpp"
#include "strata/matrix/galerkin.hpp"
#include "strata/solver/level_operator.hpp"
#include "test_util.hpp"

namespace strata {
namespace {

/// Same block pattern, values within `tolerance` of the largest |value|
/// (host copies of the expanded forms).
void expect_close_blocks(const BsrMatrix<double>& X, const BsrMatrix<double>& Y,
                         const std::string& what, double tolerance = 1e-12) {
  ASSERT_EQ(X.row_block_size(), Y.row_block_size()) << what;
  ASSERT_EQ(X.col_block_size(), Y.col_block_size()) << what;
  ASSERT_EQ(X.row_ptr().to_vector(), Y.row_ptr().to_vector()) << what;
  ASSERT_EQ(X.col_idx().to_vector(), Y.col_idx().to_vector()) << what;
  test::expect_close(to_csr(X.to(Executor::host())), to_csr(Y.to(Executor::host())), what,
                     tolerance);
}

void expect_identical_blocks(const BsrMatrix<double>& X, const BsrMatrix<double>& Y,
                             const std::string& what) {
  test::expect_identical(to_csr(X.to(Executor::host())), to_csr(Y.to(Executor::host())), what);
}

/// Host A, B: the device product against the host one; a second device run
/// and the device recompute bit for bit.
/// While it lives, plans every product of a compiled shape (`on`) or none:
/// the default threshold plans some of these tests' products and not others.
class PlanEverything {
 public:
  explicit PlanEverything(bool on) : saved_(kernels::bsr_spgemm::plan_min_threads.load()) {
    kernels::bsr_spgemm::plan_min_threads = on ? 0 : std::numeric_limits<size_type>::max();
  }
  ~PlanEverything() { kernels::bsr_spgemm::plan_min_threads = saved_; }
  PlanEverything(const PlanEverything&) = delete;
  PlanEverything& operator=(const PlanEverything&) = delete;

 private:
  size_type saved_;
};

bool compiled_shape(int r, int m, int c) {
  const auto three_or_six = [](int x) { return x == 3 || x == 6; };
  return (three_or_six(r) && three_or_six(m) && three_or_six(c)) || (r == 1 && m == 1 && c == 1);
}

void check_device_product(const BsrMatrix<double>& A, const BsrMatrix<double>& B,
                          const std::string& what) {
  for (bool planned : {true, false}) {
    SCOPED_TRACE(planned ? "planned" : "unplanned");
    const PlanEverything plan(planned);
    const auto d = Executor::cuda();
    const auto Ad = A.to(d), Bd = B.to(d);
    SparseProduct device(Ad, Bd);
    SparseProduct host(A, B);
    EXPECT_EQ(device.plan_bytes(), 0u) << what << ": the plan waits for the first recompute";
    EXPECT_EQ(device.result().location(), Location::cuda) << what;
    expect_close_blocks(device.result(), host.result(), what + ": device against host");
    EXPECT_EQ(device.block_products(), host.block_products()) << what;
    expect_identical_blocks(device.result(), spgemm(Ad, Bd), what + ": second device run");
    // The device blocked product against the device CSR product of the
    // expanded matrices (the same order of sums, fused multiply-adds in both).
    expect_close_blocks(
        device.result(),
        to_bsr(spgemm(to_csr(Ad), to_csr(Bd)), A.row_block_size(), B.col_block_size()),
        what + ": against the device CSR product");
    const auto A2 = test::with_new_values(A, 5), B2 = test::with_new_values(B, 6);
    const auto A2d = A2.to(d), B2d = B2.to(d);
    device.recompute(A2d, B2d);
    const bool expect_plan =
        planned && compiled_shape(A.row_block_size(), A.col_block_size(), B.col_block_size()) &&
        device.result().num_blocks() > 0;
    EXPECT_EQ(device.plan_bytes() > 0, expect_plan) << what;
    expect_identical_blocks(device.result(), spgemm(A2d, B2d), what + ": device recompute");
    host.recompute(A2, B2);
    expect_close_blocks(device.result(), host.result(), what + ": recompute against host");
    device.recompute(Ad, Bd);  // the plan again, on the first values
    expect_identical_blocks(device.result(), spgemm(Ad, Bd), what + ": second recompute");
  }
}

struct Shape {
  int r, m, c;
};

class BsrSpgemmDevice : public ::testing::TestWithParam<Shape> {};

TEST_P(BsrSpgemmDevice, MatchesTheHost) {
  STRATA_REQUIRE_DEVICE();
  const auto [r, m, c] = GetParam();
  const auto h = Executor::host();
  const std::string what = std::to_string(r) + "x" + std::to_string(m) + " times " +
                           std::to_string(m) + "x" + std::to_string(c);
  // A: every 11th block row empty, up to 30 blocks; B: every 13th block row
  // empty, a band of block rows of 33-80 blocks (more than one chunk of 32
  // lanes), the rest up to 8.
  const auto A = test::random_bsr(
      h, 700, 400, r, m,
      [](size_type i, auto& g) -> size_type { return i % 11 == 4 ? 0 : g() % 31; }, 41 + r);
  const auto B = test::random_bsr(
      h, 400, 900, m, c,
      [](size_type i, auto& g) -> size_type {
        if (i % 13 == 2) return 0;
        return i < 40 ? 33 + g() % 48 : 1 + g() % 8;
      },
      43 + c);
  check_device_product(A, B, what);
}

INSTANTIATE_TEST_SUITE_P(FastPathsAndGeneric, BsrSpgemmDevice,
                         ::testing::Values(Shape{1, 1, 1}, Shape{3, 3, 3}, Shape{3, 3, 6},
                                           Shape{6, 3, 6}, Shape{6, 6, 6}, Shape{6, 3, 3},
                                           Shape{3, 6, 3}, Shape{2, 3, 4}, Shape{5, 1, 7}),
                         [](const auto& info) {
                           return std::to_string(info.param.r) + "x" +
                                  std::to_string(info.param.m) + "x" + std::to_string(info.param.c);
                         });

TEST(BsrSpgemmDeviceEdges, EmptyAndTinyOperands) {
  STRATA_REQUIRE_DEVICE();
  const auto h = Executor::host();
  const auto none = test::random_bsr(
      h, 6, 4, 3, 3, [](size_type, auto&) -> size_type { return 0; }, 1);
  const auto B = test::random_bsr(
      h, 4, 5, 3, 6, [](size_type, auto& g) -> size_type { return 1 + g() % 3; }, 2);
  const auto C = spgemm(none.to(Executor::cuda()), B.to(Executor::cuda()));
  EXPECT_EQ(C.num_blocks(), 0);
  EXPECT_EQ(C.rows(), 18);
  C.validate();
  const auto one = test::random_bsr(
      h, 1, 4, 3, 3, [](size_type, auto&) -> size_type { return 4; }, 3);
  check_device_product(one, B, "one block row");
}

TEST(BsrGalerkinDevice, ElasticityWithA3x6ProlongatorMatchesTheHost) {
  STRATA_REQUIRE_DEVICE();
  const PlanEverything plan(true);  // galerkin_product() below is the unplanned reference
  const auto h = Executor::host(), d = Executor::cuda();
  const size_type ne = 8;
  auto problem = gallery::elasticity3d(h, ne);
  const auto A = to_bsr(problem.A, 3);
  const auto P = detail::smoothed_prolongator(
      A, detail::rigid_body_tentative_prolongator(ne, problem.coordinates, 2));
  const auto R = transpose(P);
  GalerkinProduct<BsrMatrix<double>> host(R, A, P);
  const auto Rd = R.to(d), Ad = A.to(d), Pd = P.to(d);
  GalerkinProduct<BsrMatrix<double>> device(Rd, Ad, Pd);
  expect_close_blocks(device.AP(), host.AP(), "A P");
  expect_close_blocks(device.result(), host.result(), "R A P");
  expect_identical_blocks(device.result(), galerkin_product(Rd, Ad, Pd), "second device run");
  // The coarse level's own product (6x6 blocks throughout), on the device.
  const auto Pc = transpose(transpose(host.result()));  // a 6x6 square operand
  SparseProduct coarse_host(host.result(), Pc);
  SparseProduct coarse_device(device.result(), Pc.to(d));
  expect_close_blocks(coarse_device.result(), coarse_host.result(), "6x6 times 6x6", 1e-11);
  // Through the level operators: value-only recompute on the device.
  auto Ash = share(Ad.clone());
  const BsrOperator<double> a(Ash), p(share(Pd.clone())), r(share(Rd.clone()));
  auto product = a.galerkin(r, p);
  EXPECT_EQ(product->result()->kind(), "BSR 6x6");
  copy(test::with_new_values(A, 77).values().to(d), Ash->values());
  product->recompute(r, a, p);
  const auto& Ac = dynamic_cast<const BsrOperator<double>&>(*product->result()).matrix();
  expect_identical_blocks(Ac, galerkin_product(Rd, *Ash, Pd), "device coarse product recompute");
  expect_close_blocks(Ac, galerkin_product(R, test::with_new_values(A, 77), P),
                      "device recompute against host");
}

}  // namespace
}  // namespace strata
