// ILU(0), ILU(k) and ILUT factors against dense references, their errors,
// and the device factors against the host's (device variants skip without
// a GPU).

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "ilu_test_util.hpp"
#include "strata/matrix/ilu.hpp"
#include "strata/strata.hpp"
#include "test_util.hpp"

namespace strata {
namespace {

class Ilu : public test::OnExecutor {};

using test::message_of;

/// Every row of F has ascending columns.
bool sorted_rows(const CsrMatrix<double>& F) {
  const auto rp = F.row_ptr().to_vector();
  const auto ci = F.col_idx().to_vector();
  for (size_type i = 0; i < F.rows(); ++i) {
    for (offset_type e = rp[i] + 1; e < rp[i + 1]; ++e) {
      if (ci[e] <= ci[e - 1]) return false;
    }
  }
  return true;
}

/// (L U)_ij = a_ij on the pattern of A, to a tolerance relative to |A|.
void expect_lu_matches_on_pattern(const CsrMatrix<double>& A, const CsrMatrix<double>& F) {
  const size_type n = A.rows();
  const auto LU = test::lu_product(test::dense(F), n);
  const auto D = test::dense(A);
  const auto rp = A.row_ptr().to_vector();
  const auto ci = A.col_idx().to_vector();
  const double size = test::max_abs(D);
  for (size_type i = 0; i < n; ++i) {
    for (offset_type e = rp[i]; e < rp[i + 1]; ++e) {
      EXPECT_NEAR(LU[i * n + ci[e]], D[i * n + ci[e]], 1e-12 * size) << i << ", " << ci[e];
    }
  }
}

TEST_P(Ilu, Ilu0ReproducesAOnItsPattern) {
  for (const bool random : {true, false}) {
    SCOPED_TRACE(random ? "random, unsorted rows" : "convdiff3d 5^3");
    const auto A = random ? test::random_matrix(150, 4, 7).to(exec())
                          : gallery::convdiff3d(exec(), 5, 5, 5);
    const auto F = ilu0(A);
    EXPECT_EQ(F.nnz(), A.nnz());
    EXPECT_TRUE(sorted_rows(F));
    expect_lu_matches_on_pattern(A, F);
  }
}

TEST_P(Ilu, Ilu0OfATridiagonalMatrixIsItsLu) {
  // No fill in the LU of a tridiagonal matrix: ILU(0) is exact, and one
  // application of the preconditioner solves the system.
  const auto A = gallery::poisson2d(exec(), 40, 1);
  const auto F = ilu0(A);
  const auto exact = test::dense_lu(test::dense(A), A.rows());
  const auto got = test::dense(F);
  for (std::size_t k = 0; k < got.size(); ++k) EXPECT_NEAR(got[k], exact[k], 1e-13) << k;
}

TEST_P(Ilu, LargeLevelOfFillAndNoDroppingGiveTheFullLu) {
  const size_type n = 60;
  const auto A = test::random_matrix(n, 3, 17).to(exec());
  const auto exact = test::dense_lu(test::dense(A), n);
  const double size = test::max_abs(exact);
  for (const bool threshold : {false, true}) {
    SCOPED_TRACE(threshold ? "ilut(0, n)" : "iluk(n)");
    const auto F = threshold ? ilut(A, 0.0, static_cast<int>(n)) : iluk(A, static_cast<int>(n));
    EXPECT_TRUE(sorted_rows(F));
    const auto got = test::dense(F);
    for (std::size_t k = 0; k < got.size(); ++k) {
      ASSERT_NEAR(got[k], exact[k], 1e-12 * size) << k / n << ", " << k % n;
    }
  }
}

TEST_P(Ilu, LevelsOfFillGrowThePattern) {
  const auto A = gallery::poisson2d(exec(), 10, 10);
  const auto F0 = iluk(A, 0);
  EXPECT_EQ(F0.values().to_vector(), ilu0(A).values().to_vector());
  // ILU(1) of the 5-point Laplacian on a 10 x 10 grid: each interior pivot
  // k couples its east neighbour k + 1 and north neighbour k + 10 for the
  // rows below it, filling (k+10, k+1): one entry per pair of a row and its
  // next-to-north-west, in both triangles: 2 * 9 * 9 fill entries.
  const auto F1 = iluk(A, 1);
  EXPECT_EQ(F1.nnz(), A.nnz() + 2 * 9 * 9);
  const auto F2 = iluk(A, 2);
  EXPECT_GT(F2.nnz(), F1.nnz());
  expect_lu_matches_on_pattern(A, F1);
  expect_lu_matches_on_pattern(A, F2);
}

TEST_P(Ilu, IlutKeepsAtMostMaxFillPerTriangle) {
  const auto A = test::random_matrix(200, 8, 23).to(exec());
  const int p = 3;
  const auto F = ilut(A, 1e-2, p);
  EXPECT_TRUE(sorted_rows(F));
  const auto rp = F.row_ptr().to_vector();
  const auto ci = F.col_idx().to_vector();
  for (size_type i = 0; i < F.rows(); ++i) {
    int lower = 0, upper = 0, diagonal = 0;
    for (offset_type e = rp[i]; e < rp[i + 1]; ++e) {
      lower += ci[e] < i;
      upper += ci[e] > i;
      diagonal += ci[e] == i;
    }
    EXPECT_LE(lower, p) << i;
    EXPECT_LE(upper, p) << i;
    EXPECT_EQ(diagonal, 1) << i;
  }
  // Dropping less keeps more.
  EXPECT_GT(ilut(A, 0.0, 10).nnz(), F.nnz());
}

TEST_P(Ilu, BreakdownsAndBadArgumentsAreNamed) {
  const auto host = Executor::host();
  const auto make = [&](std::vector<offset_type> rp, std::vector<index_type> ci,
                        std::vector<double> va) {
    const size_type n = static_cast<size_type>(rp.size()) - 1;
    return CsrMatrix<double>(n, n, Array<offset_type>(host, rp), Array<index_type>(host, ci),
                             Array<double>(host, va))
        .to(exec());
  };
  // [[1 1] [1 1]]: u_22 = 1 - 1 * 1 = 0.
  const auto singular = make({0, 2, 4}, {0, 1, 0, 1}, {1, 1, 1, 1});
  const std::string zero_pivot =
      ": the pivot u_ii of row 2 (1-based) of 2 is 0; expected a finite value with |u_ii| > "
      "1e-14 max_j |a_ij|. The incomplete factorization breaks down there (try more fill, a "
      "smaller drop tolerance, or another preconditioner)";
  EXPECT_EQ(message_of([&] { ilu0(singular); }), "ilu0" + zero_pivot);
  EXPECT_EQ(message_of([&] { iluk(singular, 2); }), "iluk" + zero_pivot);
  EXPECT_EQ(message_of([&] { ilut(singular, 0.0, 5); }),
            "ilut: the pivot u_ii of row 2 (1-based) of 2 is zero or not finite after dropping; "
            "expected a finite nonzero value (try a smaller drop_tolerance or a larger "
            "max_fill_per_row)");
  // Row 2 has no diagonal entry.
  const auto no_diagonal = make({0, 1, 2, 4}, {0, 0, 1, 2}, {1, 1, 1, 1});
  EXPECT_EQ(message_of([&] { ilu0(no_diagonal); }),
            "ilu0: row 2 (1-based) of 3 has no diagonal entry in its pattern; the factorization "
            "divides by the pivot u_ii there (store the diagonal, even as 0)");
  const auto A = gallery::poisson2d(exec(), 3, 3);
  EXPECT_EQ(message_of([&] { iluk(A, -1); }), "iluk: level_of_fill must be >= 0, got -1");
  EXPECT_EQ(message_of([&] { ilut(A, -0.5, 3); }),
            "ilut: drop_tolerance must be a finite number >= 0, got -0.5");
  EXPECT_EQ(message_of([&] { ilut(A, 0.1, -2); }), "ilut: max_fill_per_row must be >= 0, got -2");
  const auto rectangular = CsrMatrix<double>(1, 2, Array<offset_type>(host, {0, 1}),
                                             Array<index_type>(host, {0}),
                                             Array<double>(host, {1}))
                               .to(exec());
  EXPECT_THROW(ilu0(rectangular), dimension_mismatch);
}

STRATA_INSTANTIATE_ON_EXECUTORS(Ilu);

/// Tridiagonal (4 on the diagonal, -1 beside it) with a dense last row and
/// column (-0.01): the last row is far longer than the average, so the
/// device factors it apart from the short rows (one lane, the host's walk).
CsrMatrix<double> arrow_matrix(size_type n) {
  std::vector<offset_type> rp{0};
  std::vector<index_type> ci;
  std::vector<double> va;
  for (size_type i = 0; i < n; ++i) {
    for (size_type j = 0; j < n; ++j) {
      const bool band = (i > j ? i - j : j - i) <= 1;
      if (band || i == n - 1 || j == n - 1) {
        ci.push_back(static_cast<index_type>(j));
        va.push_back(i == j ? 4.0 : band ? -1.0 : -0.01);
      }
    }
    rp.push_back(static_cast<offset_type>(ci.size()));
  }
  const auto host = Executor::host();
  return CsrMatrix<double>(n, n, Array<offset_type>(host, rp), Array<index_type>(host, ci),
                           Array<double>(host, va));
}

TEST(IluDevice, DeviceFactorsMatchTheHost) {
  STRATA_REQUIRE_DEVICE();
  const auto device = Executor::cuda();
  for (const std::string name : {"random", "convdiff3d", "diffusion27", "arrow"}) {
    SCOPED_TRACE(name);
    const auto host = Executor::host();
    const auto A = name == "random"        ? test::random_matrix(4000, 6, 29)
                   : name == "convdiff3d"  ? gallery::convdiff3d(host, 16, 16, 16)
                   : name == "diffusion27" ? gallery::diffusion3d_27pt(host, 14, 14, 14)
                                           : arrow_matrix(600);
    const auto Ad = A.to(device);
    const std::vector<std::pair<CsrMatrix<double>, CsrMatrix<double>>> pairs = [&] {
      std::vector<std::pair<CsrMatrix<double>, CsrMatrix<double>>> v;
      v.emplace_back(ilu0(A), ilu0(Ad));
      v.emplace_back(iluk(A, 2), iluk(Ad, 2));
      v.emplace_back(ilut(A, 1e-3, 8), ilut(Ad, 1e-3, 8));
      return v;
    }();
    for (const auto& [h, d] : pairs) {
      EXPECT_EQ(h.row_ptr().to_vector(), d.row_ptr().to_vector());
      EXPECT_EQ(h.col_idx().to_vector(), d.col_idx().to_vector());
      const auto hv = h.values().to_vector(), dv = d.values().to_vector();
      const double size = test::max_abs(hv);
      for (std::size_t k = 0; k < hv.size(); ++k) ASSERT_NEAR(hv[k], dv[k], 1e-13 * size) << k;
    }
  }
}

}  // namespace
}  // namespace strata
