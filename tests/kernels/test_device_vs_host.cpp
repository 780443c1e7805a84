// Device kernels against the host ones on inputs larger than a warp and on
// awkward shapes: empty rows, a single row, rows longer than a thread block,
// blocks whose rows overflow the CSR-stream staging area.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <limits>
#include <vector>

#include "strata/matrix/csr.hpp"
#include "test_util.hpp"

namespace strata {
namespace {

/// A random CSR matrix whose row lengths are drawn by `length(i)`.
template <class Length>
CsrMatrix<double> random_csr(size_type rows, size_type cols, Length length, unsigned seed) {
  std::mt19937_64 gen(seed);
  std::vector<offset_type> rp(rows + 1, 0);
  std::vector<index_type> ci;
  std::vector<double> va;
  std::uniform_real_distribution<double> value(-1, 1);
  std::vector<index_type> all(cols);
  for (size_type j = 0; j < cols; ++j) all[j] = index_type(j);
  for (size_type i = 0; i < rows; ++i) {
    const size_type len = std::min<size_type>(length(i, gen), cols);
    std::shuffle(all.begin(), all.end(), gen);  // distinct columns, unsorted
    for (size_type k = 0; k < len; ++k) {
      ci.push_back(all[k]);
      va.push_back(value(gen));
    }
    rp[i + 1] = offset_type(ci.size());
  }
  const auto h = Executor::host();
  return CsrMatrix<double>(rows, cols, Array<offset_type>(h, rp), Array<index_type>(h, ci),
                           Array<double>(h, va));
}

void expect_spmv_device_matches_host(const CsrMatrix<double>& A, const char* what) {
  const auto h = Executor::host();
  const auto d = Executor::cuda();
  A.validate();
  const auto xv = test::random_values(A.cols(), 11);
  const auto yv = test::random_values(A.rows(), 12);
  Vector<double> xh(Array<double>(h, xv)), yh(Array<double>(h, yv));
  auto Ad = A.to(d);
  auto xd = xh.to(d), yd = yh.to(d);
  spmv(1.5, A, xh, -0.5, yh);
  spmv(1.5, Ad, xd, -0.5, yd);
  const auto a = yh.to_vector(), b = yd.to_vector();
  const auto rp = A.row_ptr().to_vector();
  const auto va = A.values().to_vector();
  for (size_type i = 0; i < A.rows(); ++i) {
    double scale = std::abs(yv[i]);
    for (auto k = rp[i]; k < rp[i + 1]; ++k) scale += std::abs(va[k]);
    ASSERT_NEAR(a[i], b[i], 1e-13 * (1 + scale)) << what << ": row " << i;
  }
  // And a second run repeats bit for bit.
  auto yd2 = yh.to(d);
  yd2 = Vector<double>(Array<double>(d, yv));
  spmv(1.5, Ad, xd, -0.5, yd2);
  yd = Vector<double>(Array<double>(d, yv));
  spmv(1.5, Ad, xd, -0.5, yd);
  EXPECT_EQ(yd.to_vector(), yd2.to_vector()) << what;
}

TEST(SpmvDevice, ShortRowsWithEmptyRows) {
  STRATA_REQUIRE_DEVICE();
  auto A = random_csr(10007, 9000, [](size_type i, auto& g) { return i % 5 == 0 ? 0 : 3 + g() % 9; }, 1);
  expect_spmv_device_matches_host(A, "short rows");
}

TEST(SpmvDevice, MediumRows) {
  STRATA_REQUIRE_DEVICE();
  auto A = random_csr(5003, 5003, [](size_type, auto& g) { return 10 + g() % 50; }, 2);
  expect_spmv_device_matches_host(A, "medium rows");
}

TEST(SpmvDevice, UniformStencilLengthRows) {
  STRATA_REQUIRE_DEVICE();
  // Rows of nearly equal length (the 27-point stencil's): the many-rows-per-
  // block stream kernel.
  auto A = random_csr(6007, 6007, [](size_type i, auto&) { return i % 97 == 0 ? 20 : 27; }, 10);
  expect_spmv_device_matches_host(A, "uniform rows");
}

TEST(SpmvDevice, UnevenRowsOfFortyToAHundred) {
  STRATA_REQUIRE_DEVICE();
  // A coarse AMG operator's shape: the few-rows-per-block stream kernel.
  auto A = random_csr(4001, 4001, [](size_type, auto& g) { return 30 + g() % 100; }, 11);
  expect_spmv_device_matches_host(A, "uneven rows, mean about 80");
}

TEST(SpmvDevice, LongRows) {
  STRATA_REQUIRE_DEVICE();
  auto A = random_csr(301, 4000, [](size_type, auto& g) { return 100 + g() % 900; }, 3);
  expect_spmv_device_matches_host(A, "long rows");
}

TEST(SpmvDevice, OneRowLongerThanABlockAmongShortRows) {
  STRATA_REQUIRE_DEVICE();
  // Mean row length stays short (CSR-stream path), but one block overflows
  // its staging area and takes the warp-per-row fallback.
  auto A = random_csr(20000, 20000, [](size_type i, auto& g) { return i == 777 ? 5000 : 1 + g() % 6; }, 4);
  expect_spmv_device_matches_host(A, "one long row");
}

TEST(SpmvDevice, SingleRowAndSingleColumn) {
  STRATA_REQUIRE_DEVICE();
  expect_spmv_device_matches_host(random_csr(1, 3000, [](size_type, auto&) { return 3000; }, 5), "one row");
  expect_spmv_device_matches_host(random_csr(3000, 1, [](size_type, auto&) { return 1; }, 6), "one column");
  expect_spmv_device_matches_host(random_csr(0, 0, [](size_type, auto&) { return 0; }, 7), "empty");
}

TEST(SpmvDevice, AllRowsEmpty) {
  STRATA_REQUIRE_DEVICE();
  expect_spmv_device_matches_host(random_csr(1000, 1000, [](size_type, auto&) { return 0; }, 8), "empty rows");
}

// The message validate() throws for A, or "" when it passes.
std::string validation_error(const CsrMatrix<double>& A) {
  try {
    A.validate();
    return "";
  } catch (const invalid_argument& e) {
    return e.message();
  }
}

TEST(ValidateDevice, AgreesWithHost) {
  STRATA_REQUIRE_DEVICE();
  const auto A = random_csr(5000, 5000, [](size_type, auto& g) { return g() % 20; }, 9);
  EXPECT_EQ(validation_error(A), "");
  EXPECT_EQ(validation_error(A.to(Executor::cuda())), "");
  // Each defect planted in a row past the first warp's and block's rows: the
  // device check must find it and name the same first bad row as the host.
  const std::vector<offset_type> rp(A.row_ptr().data(), A.row_ptr().data() + A.rows() + 1);
  const std::vector<index_type> ci(A.col_idx().data(), A.col_idx().data() + A.nnz());
  const std::vector<double> va(A.values().data(), A.values().data() + A.nnz());
  size_type row = 3001;
  while (rp[row + 1] - rp[row] < 2) ++row;  // a row with two entries to spoil
  const auto k = static_cast<std::size_t>(rp[row]);
  const auto with = [&](std::vector<index_type> c, std::vector<double> v) {
    return CsrMatrix<double>(A.rows(), A.cols(), Array<offset_type>(Executor::host(), rp),
                             Array<index_type>(Executor::host(), std::move(c)),
                             Array<double>(Executor::host(), std::move(v)));
  };
  auto out_of_range = ci;
  out_of_range[k] = static_cast<index_type>(A.cols());
  auto duplicate = ci;
  duplicate[k + 1] = duplicate[k];
  auto not_finite = va;
  not_finite[k] = std::numeric_limits<double>::quiet_NaN();
  for (const auto& bad : {with(out_of_range, va), with(duplicate, va), with(ci, not_finite)}) {
    const std::string host = validation_error(bad);
    EXPECT_NE(host.find(std::to_string(row)), std::string::npos) << host;
    EXPECT_EQ(validation_error(bad.to(Executor::cuda())), host);
  }
}

}  // namespace
}  // namespace strata
