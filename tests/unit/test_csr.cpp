// CsrMatrix construction, validation, analysis and SpMV.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "strata/matrix/csr.hpp"
#include "test_util.hpp"

namespace strata {
namespace {

// [ 4 -1  0  0  0 ]
// [-1  4 -1  0  0 ]
// [ 0 -1  4  0  2 ]
// [ 0  0  0  0  0 ]   (an empty row)
// [ 0  0  2  0  5 ]
CsrMatrix<double> small(const Executor& e) {
  return CsrMatrix<double>(5, 5, Array<offset_type>(e, {0, 2, 5, 8, 8, 10}),
                           Array<index_type>(e, {0, 1, 0, 1, 2, 1, 2, 4, 2, 4}),
                           Array<double>(e, {4, -1, -1, 4, -1, -1, 4, 2, 2, 5}));
}

class Csr : public test::OnExecutor {};

TEST_P(Csr, SpmvSmallHandChecked) {
  auto A = small(exec());
  A.validate();
  Vector<double> x(Array<double>(exec(), {1, 2, 3, 4, 5}));
  Vector<double> y(Array<double>(exec(), {1, 1, 1, 1, 1}));
  spmv(2.0, A, x, 1.0, y);  // y = 2 A x + y
  // A x = {2, 4, 20, 0, 31}
  EXPECT_EQ(y.to_vector(), (std::vector<double>{5, 9, 41, 1, 63}));
  spmv(A, x, y);
  EXPECT_EQ(y.to_vector(), (std::vector<double>{2, 4, 20, 0, 31}));
}

TEST_P(Csr, MaxRowNnzIsTheLongestRowAndTravelsWithCopies) {
  const auto A = small(exec());
  EXPECT_EQ(A.max_row_nnz(), 3);
  EXPECT_EQ(A.max_row_nnz(), 3);  // the cached value
  EXPECT_EQ(A.clone().max_row_nnz(), 3);
  EXPECT_EQ(A.to(Executor::host()).max_row_nnz(), 3);
  CsrMatrix<double> moved = small(exec());
  (void)moved.max_row_nnz();
  const CsrMatrix<double> target = std::move(moved);
  EXPECT_EQ(target.max_row_nnz(), 3);
  EXPECT_EQ(CsrMatrix<double>().max_row_nnz(), 0);
}

TEST_P(Csr, ResidualAndSpmvIntoAnotherVector) {
  auto A = small(exec());
  const Vector<double> x(Array<double>(exec(), {1, 2, 3, 4, 5}));  // A x = {2, 4, 20, 0, 31}
  const Vector<double> b(Array<double>(exec(), {10, 10, 10, 10, 10}));
  Vector<double> r(exec(), 5, 99.0);
  residual(A, b, x, r);
  EXPECT_EQ(r.to_vector(), (std::vector<double>{8, 6, -10, 10, -21}));
  Vector<double> rb = b.clone();  // r may be b: r = r - A x
  residual(A, rb, x, rb);
  EXPECT_EQ(rb.to_vector(), r.to_vector());
  Vector<double> y(exec(), 5, 0.0);
  spmv(2.0, A, x, -1.0, b, y);  // y = 2 A x - b, b untouched
  EXPECT_EQ(y.to_vector(), (std::vector<double>{-6, -2, 30, -10, 52}));
  EXPECT_EQ(b.to_vector(), (std::vector<double>(5, 10.0)));
  Vector<double> xr = x.clone();
  EXPECT_THROW(residual(A, b, xr, xr), invalid_argument);  // r must not be x
  EXPECT_THROW(spmv(1.0, A, x, 1.0, x, y), invalid_argument);  // nor the added vector
  Vector<double> short_b(exec(), 4, 0.0);
  EXPECT_THROW(residual(A, short_b, x, r), dimension_mismatch);
}

TEST_P(Csr, SpmvChecksOperands) {
  auto A = small(exec());
  Vector<double> x(exec(), 4, 1.0), y(exec(), 5, 0.0);
  EXPECT_THROW(spmv(A, x, y), dimension_mismatch);
  Vector<double> same(exec(), 5, 1.0);
  EXPECT_THROW(spmv(A, same, same), invalid_argument);
}

TEST_P(Csr, ValidateNamesTheBadRow) {
  const auto e = exec();
  auto bad_col = CsrMatrix<double>(2, 2, Array<offset_type>(e, {0, 1, 2}),
                                   Array<index_type>(e, {0, 5}), Array<double>(e, {1, 1}));
  try {
    bad_col.validate();
    FAIL();
  } catch (const invalid_argument& err) {
    EXPECT_NE(std::string(err.what()).find("row 1"), std::string::npos) << err.what();
  }
  auto dup = CsrMatrix<double>(1, 3, Array<offset_type>(e, {0, 3}),
                               Array<index_type>(e, {2, 0, 2}), Array<double>(e, {1, 1, 1}));
  EXPECT_THROW(dup.validate(), invalid_argument);
  auto nan = CsrMatrix<double>(1, 1, Array<offset_type>(e, {0, 1}), Array<index_type>(e, {0}),
                               Array<double>(e, {NAN}));
  EXPECT_THROW(nan.validate(), invalid_argument);
  auto bad_ptr = CsrMatrix<double>(2, 2, Array<offset_type>(e, {0, 2, 1}),
                                   Array<index_type>(e, {0}), Array<double>(e, {1}));
  EXPECT_THROW(bad_ptr.validate(), invalid_argument);
}

TEST(CsrHost, ConstructorChecksSizes) {
  const auto e = Executor::host();
  EXPECT_THROW(CsrMatrix<double>(2, 2, Array<offset_type>(e, {0, 1}), Array<index_type>(e, {0}),
                                 Array<double>(e, {1})),
               dimension_mismatch);
  EXPECT_THROW(CsrMatrix<double>(1, 1, Array<offset_type>(e, {0, 1}), Array<index_type>(e, {0}),
                                 Array<double>(e, {1, 2})),
               dimension_mismatch);
  EXPECT_THROW(CsrMatrix<double>(1, size_type{1} << 32, Array<offset_type>(e, {0, 0}),
                                 Array<index_type>(e, 0), Array<double>(e, 0)),
               invalid_argument);
}

TEST(CsrHost, AnalyzeReportsProperties) {
  const auto p = analyze(small(Executor::host()));
  EXPECT_EQ(p.rows, 5);
  EXPECT_EQ(p.nnz, 10);
  EXPECT_EQ(p.min_row_nnz, 0);
  EXPECT_EQ(p.max_row_nnz, 3);
  EXPECT_EQ(p.empty_rows, 1);
  EXPECT_TRUE(p.structurally_symmetric);
  EXPECT_TRUE(p.numerically_symmetric);
  EXPECT_EQ(p.positive_diagonal, 4);
  EXPECT_EQ(p.zero_diagonal, 1);
  EXPECT_EQ(p.diagonally_dominant_rows, 5);  // the empty row: 0 >= 0
  EXPECT_EQ(p.strictly_diagonally_dominant_rows, 4);

  const auto e = Executor::host();
  auto nonsym = CsrMatrix<double>(2, 2, Array<offset_type>(e, {0, 2, 4}),
                                  Array<index_type>(e, {1, 0, 0, 1}),
                                  Array<double>(e, {-1, 2, -3, 2}));
  const auto q = analyze(nonsym);
  EXPECT_TRUE(q.structurally_symmetric);
  EXPECT_FALSE(q.numerically_symmetric);
  EXPECT_DOUBLE_EQ(q.max_asymmetry, 2.0);
}

TEST(CsrDevice, AnalyzeRefusesDeviceMatrix) {
  STRATA_REQUIRE_DEVICE();
  EXPECT_THROW(analyze(small(Executor::cuda())), location_mismatch);
}

STRATA_INSTANTIATE_ON_EXECUTORS(Csr);

}  // namespace
}  // namespace strata

namespace strata {
namespace {

class CsrSpmvDot : public test::OnExecutor {};

TEST_P(CsrSpmvDot, EqualsSpmvThenDot) {
  // Stencil rows (stream path), long rows (vector path) and a block that
  // overflows the staging area (warp fallback) all contribute to the dot.
  for (size_type len : {size_type{5}, size_type{150}}) {
    const size_type n = 3001;
    std::vector<offset_type> rp(n + 1, 0);
    std::vector<index_type> ci;
    std::vector<double> va;
    for (size_type i = 0; i < n; ++i) {
      const size_type row_len = i == 1234 ? 2000 : len;
      for (size_type k = 0; k < row_len; ++k) {
        ci.push_back(index_type((i * 7 + k * 13) % n));
        va.push_back(1.0 / double(1 + (i + k) % 17));
      }
      std::sort(ci.end() - row_len, ci.end());
      ci.erase(std::unique(ci.end() - row_len, ci.end()), ci.end());
      va.resize(ci.size());
      rp[i + 1] = offset_type(ci.size());
    }
    const CsrMatrix<double> A(n, n, Array<offset_type>(exec(), rp), Array<index_type>(exec(), ci),
                              Array<double>(exec(), va));
    A.validate();
    Vector<double> x(Array<double>(exec(), test::random_values(n, 3)));
    Vector<double> y1(exec(), n), y2(exec(), n);
    const double fused = spmv_dot(A, x, y1);
    spmv(A, x, y2);
    EXPECT_EQ(y1.to_vector(), y2.to_vector());
    const double separate = dot(x, y2);
    EXPECT_NEAR(fused, separate, 1e-12 * std::abs(separate) + 1e-12);
    EXPECT_EQ(fused, spmv_dot(A, x, y1)) << "must repeat bit for bit";
  }
  const auto rect = CsrMatrix<double>(2, 3, Array<offset_type>(exec(), {0, 0, 0}),
                                      Array<index_type>(exec(), 0), Array<double>(exec(), 0));
  Vector<double> x3(exec(), 3, 1.0), y2(exec(), 2);
  EXPECT_THROW(spmv_dot(rect, x3, y2), dimension_mismatch);
}

STRATA_INSTANTIATE_ON_EXECUTORS(CsrSpmvDot);

}  // namespace
}  // namespace strata
