// Tests of the model-problem gallery: small cases by hand, nonzero counts,
// symmetry, row sums, spectra, the elasticity null space, argument checks,
// and (GalleryDevice) device builds equal to host builds.

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <limits>
#include <numbers>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "strata/gallery/gallery.hpp"
#include "test_util.hpp"

namespace strata {
namespace {

/// A CSR matrix copied to host vectors, with the dense helpers the tests need.
struct HostCsr {
  size_type rows = 0, cols = 0;
  std::vector<offset_type> ptr;
  std::vector<index_type> col;
  std::vector<double> val;

  explicit HostCsr(const CsrMatrix<double>& A)
      : rows(A.rows()),
        cols(A.cols()),
        ptr(A.row_ptr().to_vector()),
        col(A.col_idx().to_vector()),
        val(A.values().to_vector()) {}
  HostCsr() = default;

  size_type nnz() const { return static_cast<size_type>(col.size()); }
  size_type row_nnz(size_type i) const { return ptr[i + 1] - ptr[i]; }

  /// a_ij, 0 when not stored.
  double at(size_type i, size_type j) const {
    for (offset_type k = ptr[i]; k < ptr[i + 1]; ++k) {
      if (col[k] == j) return val[k];
    }
    return 0.0;
  }
  bool stored(size_type i, size_type j) const {
    for (offset_type k = ptr[i]; k < ptr[i + 1]; ++k) {
      if (col[k] == j) return true;
    }
    return false;
  }
  double row_sum(size_type i) const {
    double s = 0.0;
    for (offset_type k = ptr[i]; k < ptr[i + 1]; ++k) s += val[k];
    return s;
  }
  std::vector<double> multiply(const std::vector<double>& x) const {
    std::vector<double> y(static_cast<std::size_t>(rows), 0.0);
    for (size_type i = 0; i < rows; ++i) {
      double s = 0.0;
      for (offset_type k = ptr[i]; k < ptr[i + 1]; ++k) s += val[k] * x[col[k]];
      y[i] = s;
    }
    return y;
  }
  std::vector<double> dense() const {
    std::vector<double> d(static_cast<std::size_t>(rows * cols), 0.0);
    for (size_type i = 0; i < rows; ++i) {
      for (offset_type k = ptr[i]; k < ptr[i + 1]; ++k) d[i * cols + col[k]] = val[k];
    }
    return d;
  }
  /// max_i sum_j |a_ij|
  double norm_inf() const {
    double m = 0.0;
    for (size_type i = 0; i < rows; ++i) {
      double s = 0.0;
      for (offset_type k = ptr[i]; k < ptr[i + 1]; ++k) s += std::abs(val[k]);
      m = std::max(m, s);
    }
    return m;
  }
  /// A^T by counting sort; rows of the result come out with ascending columns.
  HostCsr transpose() const {
    HostCsr t;
    t.rows = cols;
    t.cols = rows;
    t.ptr.assign(static_cast<std::size_t>(cols) + 1, 0);
    for (const index_type c : col) ++t.ptr[c + 1];
    for (size_type c = 0; c < cols; ++c) t.ptr[c + 1] += t.ptr[c];
    t.col.resize(col.size());
    t.val.resize(val.size());
    std::vector<offset_type> next(t.ptr.begin(), t.ptr.end() - 1);
    for (size_type i = 0; i < rows; ++i) {
      for (offset_type k = ptr[i]; k < ptr[i + 1]; ++k) {
        const offset_type slot = next[col[k]]++;
        t.col[slot] = static_cast<index_type>(i);
        t.val[slot] = val[k];
      }
    }
    return t;
  }
};

/// Row pointers consistent, columns in range and strictly ascending in each row.
void expect_well_formed(const HostCsr& A) {
  ASSERT_EQ(static_cast<size_type>(A.ptr.size()), A.rows + 1);
  EXPECT_EQ(A.ptr.front(), 0);
  EXPECT_EQ(A.ptr.back(), A.nnz());
  EXPECT_EQ(A.col.size(), A.val.size());
  for (size_type i = 0; i < A.rows; ++i) {
    ASSERT_LE(A.ptr[i], A.ptr[i + 1]) << "row " << i;
    for (offset_type k = A.ptr[i]; k < A.ptr[i + 1]; ++k) {
      ASSERT_GE(A.col[k], 0) << "row " << i;
      ASSERT_LT(A.col[k], A.cols) << "row " << i;
      if (k > A.ptr[i]) {
        ASSERT_LT(A.col[k - 1], A.col[k]) << "row " << i << " not ascending";
      }
      ASSERT_TRUE(std::isfinite(A.val[k])) << "row " << i;
    }
  }
}

/// A == A^T exactly: same pattern and bitwise equal values.
void expect_symmetric(const HostCsr& A) {
  const HostCsr T = A.transpose();
  EXPECT_EQ(A.ptr, T.ptr);
  EXPECT_EQ(A.col, T.col);
  EXPECT_EQ(A.val, T.val);
}

/// Gershgorin interval [min_i a_ii - r_i, max_i a_ii + r_i].
std::pair<double, double> gershgorin(const HostCsr& A) {
  double lo = INFINITY, hi = -INFINITY;
  for (size_type i = 0; i < A.rows; ++i) {
    double radius = 0.0;
    for (offset_type k = A.ptr[i]; k < A.ptr[i + 1]; ++k) {
      if (A.col[k] != i) radius += std::abs(A.val[k]);
    }
    lo = std::min(lo, A.at(i, i) - radius);
    hi = std::max(hi, A.at(i, i) + radius);
  }
  return {lo, hi};
}

/// Largest eigenvalue of the symmetric matrix A (or of shift I - A when
/// `negate`), by power iteration from a fixed random start: the Rayleigh
/// quotient of the last iterate.
double largest_eigenvalue(const HostCsr& A, double shift = 0.0, bool negate = false,
                          int iterations = 2000) {
  std::mt19937 rng(42);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  std::vector<double> x(static_cast<std::size_t>(A.rows));
  for (double& v : x) v = uniform(rng);
  const auto apply = [&](const std::vector<double>& v) {
    std::vector<double> y = A.multiply(v);
    if (negate) {
      for (std::size_t i = 0; i < y.size(); ++i) y[i] = shift * v[i] - y[i];
    }
    return y;
  };
  double lambda = 0.0;
  for (int it = 0; it < iterations; ++it) {
    double norm = 0.0;
    for (const double v : x) norm += v * v;
    norm = std::sqrt(norm);
    for (double& v : x) v /= norm;
    const std::vector<double> y = apply(x);
    lambda = 0.0;
    for (std::size_t i = 0; i < x.size(); ++i) lambda += x[i] * y[i];
    x = y;
  }
  return lambda;
}

/// Cholesky factorisation of a dense symmetric matrix; false when a pivot is <= 0.
bool cholesky_succeeds(std::vector<double> a, size_type n) {
  for (size_type j = 0; j < n; ++j) {
    double d = a[j * n + j];
    for (size_type k = 0; k < j; ++k) d -= a[j * n + k] * a[j * n + k];
    if (!(d > 0.0)) return false;
    const double l = std::sqrt(d);
    a[j * n + j] = l;
    for (size_type i = j + 1; i < n; ++i) {
      double s = a[i * n + j];
      for (size_type k = 0; k < j; ++k) s -= a[i * n + k] * a[j * n + k];
      a[i * n + j] = s / l;
    }
  }
  return true;
}

/// Runs `f`, expecting invalid_argument whose what() contains every one of `parts`.
void expect_invalid(const std::function<void()>& f, const std::vector<std::string>& parts) {
  try {
    f();
    ADD_FAILURE() << "no exception; expected invalid_argument mentioning '" << parts.front() << "'";
  } catch (const invalid_argument& e) {
    const std::string what = e.what();
    for (const std::string& part : parts) {
      EXPECT_NE(what.find(part), std::string::npos) << "'" << part << "' not in: " << what;
    }
  }
}

const Executor host = Executor::host();

// ---------------------------------------------------------------------------
// Small cases by hand

TEST(Gallery, Poisson2dThreeByThreeByHand) {
  const HostCsr A(gallery::poisson2d(host, 3, 3));
  // Unknown i + 3j; neighbours in x differ by 1 (not across the row end), in y by 3.
  // clang-format off
  const std::vector<double> expected = {
      4,  -1, 0,  -1, 0,  0,  0,  0,  0,   //
      -1, 4,  -1, 0,  -1, 0,  0,  0,  0,   //
      0,  -1, 4,  0,  0,  -1, 0,  0,  0,   //
      -1, 0,  0,  4,  -1, 0,  -1, 0,  0,   //
      0,  -1, 0,  -1, 4,  -1, 0,  -1, 0,   //
      0,  0,  -1, 0,  -1, 4,  0,  0,  -1,  //
      0,  0,  0,  -1, 0,  0,  4,  -1, 0,   //
      0,  0,  0,  0,  -1, 0,  -1, 4,  -1,  //
      0,  0,  0,  0,  0,  -1, 0,  -1, 4};
  // clang-format on
  EXPECT_EQ(A.rows, 9);
  EXPECT_EQ(A.cols, 9);
  EXPECT_EQ(A.dense(), expected);
  EXPECT_EQ(A.nnz(), 33);  // zeros are not stored
  expect_well_formed(A);
}

TEST(Gallery, Poisson2dRectangularUsesXFastest) {
  const HostCsr A(gallery::poisson2d(host, 4, 2));
  // (i, j) = (3, 0) is row 3: its x neighbour is row 2, its y neighbour row 7,
  // and row 4 = (0, 1) is not a neighbour (no wrap-around).
  EXPECT_EQ(A.at(3, 2), -1.0);
  EXPECT_EQ(A.at(3, 7), -1.0);
  EXPECT_FALSE(A.stored(3, 4));
  EXPECT_EQ(A.row_nnz(3), 3);
}

TEST(Gallery, Poisson2d9ptRowsByHand) {
  const HostCsr A(gallery::poisson2d_9pt(host, 3, 3));
  // Centre (1,1) = row 4 couples to all 9; corner row 0 to rows 0, 1, 3, 4.
  EXPECT_EQ(A.row_nnz(4), 9);
  for (size_type j = 0; j < 9; ++j) EXPECT_EQ(A.at(4, j), j == 4 ? 8.0 : -1.0);
  const std::vector<index_type> corner(A.col.begin() + A.ptr[0], A.col.begin() + A.ptr[1]);
  EXPECT_EQ(corner, (std::vector<index_type>{0, 1, 3, 4}));
}

TEST(Gallery, Poisson3dRowsByHand) {
  const HostCsr A(gallery::poisson3d(host, 3, 3, 3));
  // Centre (1,1,1) = row 13: columns 4, 10, 12, 13, 14, 16, 22.
  const std::vector<index_type> cols(A.col.begin() + A.ptr[13], A.col.begin() + A.ptr[14]);
  const std::vector<double> vals(A.val.begin() + A.ptr[13], A.val.begin() + A.ptr[14]);
  EXPECT_EQ(cols, (std::vector<index_type>{4, 10, 12, 13, 14, 16, 22}));
  EXPECT_EQ(vals, (std::vector<double>{-1, -1, -1, 6, -1, -1, -1}));
  EXPECT_EQ(A.row_nnz(0), 4);  // corner: itself and three neighbours
}

TEST(Gallery, Diffusion27RowsByHand) {
  const HostCsr A(gallery::diffusion3d_27pt(host, 3, 3, 3));
  EXPECT_EQ(A.row_nnz(13), 27);
  for (size_type j = 0; j < 27; ++j) EXPECT_EQ(A.at(13, j), j == 13 ? 26.0 : -1.0);
  EXPECT_EQ(A.row_nnz(0), 8);
}

// ---------------------------------------------------------------------------
// Sizes and nonzero counts

TEST(Gallery, NonzeroCountsMatchFormulas) {
  for (const size_type n : {1, 2, 5, 8}) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const CsrMatrix<double> p7 = gallery::poisson3d(host, n, n, n);
    EXPECT_EQ(p7.rows(), n * n * n);
    EXPECT_EQ(p7.nnz(), 7 * n * n * n - 6 * n * n);
    EXPECT_EQ(gallery::diffusion3d_27pt(host, n, n, n).nnz(),
              (3 * n - 2) * (3 * n - 2) * (3 * n - 2));
    EXPECT_EQ(gallery::jumps3d(host, n, n, n).nnz(), 7 * n * n * n - 6 * n * n);
    EXPECT_EQ(gallery::convdiff3d(host, n, n, n).nnz(), 7 * n * n * n - 6 * n * n);
  }
  for (const auto& [nx, ny] :
       std::vector<std::pair<size_type, size_type>>{{1, 1}, {1, 7}, {4, 3}, {10, 6}}) {
    SCOPED_TRACE("nx = " + std::to_string(nx) + ", ny = " + std::to_string(ny));
    const CsrMatrix<double> p5 = gallery::poisson2d(host, nx, ny);
    EXPECT_EQ(p5.rows(), nx * ny);
    EXPECT_EQ(p5.nnz(), 5 * nx * ny - 2 * nx - 2 * ny);
    EXPECT_EQ(gallery::poisson2d_9pt(host, nx, ny).nnz(), (3 * nx - 2) * (3 * ny - 2));
    EXPECT_EQ(gallery::anisotropic2d(host, nx, ny, 0.01, 0.0).nnz(), 5 * nx * ny - 2 * nx - 2 * ny);
    EXPECT_EQ(gallery::anisotropic2d(host, nx, ny, 0.01, 0.7).nnz(), (3 * nx - 2) * (3 * ny - 2));
  }
  EXPECT_EQ(gallery::poisson3d(host, 2, 3, 4).nnz(),
            7 * 24 - 2 * (3 * 4) - 2 * (2 * 4) - 2 * (2 * 3));
  for (const size_type ne : {1, 2, 3}) {
    SCOPED_TRACE("ne = " + std::to_string(ne));
    const CsrMatrix<double> A = gallery::elasticity3d(host, ne).A;
    EXPECT_EQ(A.rows(), 3 * ne * (ne + 1) * (ne + 1));
    EXPECT_EQ(A.nnz(), 9 * (3 * ne - 2) * (3 * ne + 1) * (3 * ne + 1));
  }
}

TEST(Gallery, AllProblemsAreWellFormed) {
  std::vector<std::pair<std::string, CsrMatrix<double>>> problems;
  problems.emplace_back("poisson2d", gallery::poisson2d(host, 7, 5));
  problems.emplace_back("poisson2d_9pt", gallery::poisson2d_9pt(host, 7, 5));
  problems.emplace_back("poisson3d", gallery::poisson3d(host, 4, 5, 3));
  problems.emplace_back("diffusion3d_27pt", gallery::diffusion3d_27pt(host, 4, 5, 3));
  problems.emplace_back("anisotropic2d", gallery::anisotropic2d(host, 7, 5, 1e-3, 0.5));
  problems.emplace_back("jumps3d", gallery::jumps3d(host, 6, 5, 7));
  problems.emplace_back("convdiff3d", gallery::convdiff3d(host, 4, 5, 3));
  problems.emplace_back("elasticity3d", gallery::elasticity3d(host, 2).A);
  for (const auto& [name, A] : problems) {
    SCOPED_TRACE(name);
    EXPECT_EQ(A.rows(), A.cols());
    EXPECT_EQ(A.location(), Location::host);
    expect_well_formed(HostCsr(A));
    EXPECT_NO_THROW(A.validate());
  }
}

// ---------------------------------------------------------------------------
// Symmetry, row sums and spectra

TEST(Gallery, SymmetricProblemsEqualTheirTranspose) {
  expect_symmetric(HostCsr(gallery::poisson2d(host, 6, 4)));
  expect_symmetric(HostCsr(gallery::poisson2d_9pt(host, 6, 4)));
  expect_symmetric(HostCsr(gallery::poisson3d(host, 3, 4, 5)));
  expect_symmetric(HostCsr(gallery::diffusion3d_27pt(host, 3, 4, 5)));
  for (const double theta : {0.0, 0.3, std::numbers::pi / 4, 2.0, -1.0}) {
    SCOPED_TRACE("theta = " + std::to_string(theta));
    expect_symmetric(HostCsr(gallery::anisotropic2d(host, 6, 5, 1e-3, theta)));
  }
  expect_symmetric(HostCsr(gallery::jumps3d(host, 7, 6, 5)));
  expect_symmetric(
      HostCsr(gallery::jumps3d(host, 9, 9, 9, {.contrast = 1e-4, .inclusions_per_dim = 3})));
  expect_symmetric(HostCsr(gallery::convdiff3d(host, 4, 4, 4, {.velocity = {0, 0, 0}})));
  expect_symmetric(HostCsr(gallery::elasticity3d(host, 2).A));
  expect_symmetric(HostCsr(gallery::elasticity3d(host, 3, {.poisson_ratio = 0.45}).A));
}

TEST(Gallery, LaplacianInteriorRowsSumToZero) {
  // Interior rows (all neighbours present) sum to 0 exactly; rows at the
  // boundary sum to the number of missing neighbours.
  const size_type n = 5;
  const HostCsr p5(gallery::poisson2d(host, n, n)), p9(gallery::poisson2d_9pt(host, n, n));
  for (size_type j = 0; j < n; ++j) {
    for (size_type i = 0; i < n; ++i) {
      const size_type r = i + n * j;
      const int missing_x = (i == 0) + (i == n - 1), missing_y = (j == 0) + (j == n - 1);
      EXPECT_EQ(p5.row_sum(r), missing_x + missing_y);
      const int present = (3 - missing_x) * (3 - missing_y);
      EXPECT_EQ(p9.row_sum(r), 9 - present);
    }
  }
  const HostCsr p7(gallery::poisson3d(host, n, n, n)),
      p27(gallery::diffusion3d_27pt(host, n, n, n));
  for (size_type r = 0; r < n * n * n; ++r) {
    const size_type i = r % n, j = (r / n) % n, k = r / (n * n);
    const auto missing = [&](size_type c) { return (c == 0) + (c == n - 1); };
    EXPECT_EQ(p7.row_sum(r), missing(i) + missing(j) + missing(k));
    const int present = (3 - missing(i)) * (3 - missing(j)) * (3 - missing(k));
    EXPECT_EQ(p27.row_sum(r), 27 - present);
  }
}

TEST(Gallery, Poisson3dExtremeEigenvaluesMatchTheFormula) {
  const size_type nx = 4, ny = 5, nz = 3;
  const HostCsr A(gallery::poisson3d(host, nx, ny, nz));
  double lambda_max = 0.0, lambda_min = 0.0;
  for (const size_type n : {nx, ny, nz}) {
    const double h = std::numbers::pi / static_cast<double>(n + 1);
    lambda_max += 2.0 - 2.0 * std::cos(h * static_cast<double>(n));
    lambda_min += 2.0 - 2.0 * std::cos(h);
  }
  EXPECT_NEAR(largest_eigenvalue(A), lambda_max, 1e-9 * lambda_max);
  // Smallest eigenvalue: the largest of shift I - A.
  const double shift = 12.0;
  EXPECT_NEAR(shift - largest_eigenvalue(A, shift, true), lambda_min, 1e-8 * lambda_max);
  const auto [lo, hi] = gershgorin(A);
  EXPECT_EQ(lo, 0.0);
  EXPECT_EQ(hi, 12.0);
  EXPECT_LE(lambda_max, hi);
  EXPECT_GE(lambda_min, lo);
}

TEST(Gallery, Poisson2dLargestEigenvalueMatchesTheFormula) {
  const size_type nx = 6, ny = 4;
  const HostCsr A(gallery::poisson2d(host, nx, ny));
  const double expected = 4.0 - 2.0 * std::cos(std::numbers::pi * nx / (nx + 1.0)) -
                          2.0 * std::cos(std::numbers::pi * ny / (ny + 1.0));
  EXPECT_NEAR(largest_eigenvalue(A), expected, 1e-9 * expected);
}

TEST(Gallery, SpectraLieInGershgorinDiscsAndArePositive) {
  // Largest eigenvalue below the Gershgorin bound, smallest above 0 (found as
  // shift - largest eigenvalue of shift I - A with shift = the upper bound).
  std::vector<std::pair<std::string, CsrMatrix<double>>> problems;
  problems.emplace_back("poisson2d_9pt", gallery::poisson2d_9pt(host, 5, 6));
  problems.emplace_back("diffusion3d_27pt", gallery::diffusion3d_27pt(host, 4, 3, 5));
  problems.emplace_back("anisotropic2d", gallery::anisotropic2d(host, 6, 6, 0.1, 0.6));
  problems.emplace_back("jumps3d", gallery::jumps3d(host, 5, 5, 5, {.contrast = 10.0}));
  for (const auto& [name, M] : problems) {
    SCOPED_TRACE(name);
    const HostCsr A(M);
    const auto [lo, hi] = gershgorin(A);
    const double lambda_max = largest_eigenvalue(A, 0.0, false, 3000);
    const double lambda_min = hi - largest_eigenvalue(A, hi, true, 3000);
    EXPECT_LE(lambda_max, hi * (1 + 1e-12));
    EXPECT_GE(lambda_min, lo - 1e-12 * hi);
    EXPECT_GT(lambda_min, 0.0);
    EXPECT_TRUE(cholesky_succeeds(A.dense(), A.rows));
  }
}

// ---------------------------------------------------------------------------
// Anisotropic diffusion

TEST(Gallery, AnisotropicThetaZeroIsTheFivePointStencil) {
  const size_type nx = 5, ny = 4;
  const double eps = 0.01;
  const HostCsr A(gallery::anisotropic2d(host, nx, ny, eps, 0.0));
  // Built here: 2 + 2 eps, -1 to x neighbours, -eps to y neighbours.
  std::vector<double> expected(static_cast<std::size_t>(nx * ny * nx * ny), 0.0);
  const size_type n = nx * ny;
  for (size_type j = 0; j < ny; ++j) {
    for (size_type i = 0; i < nx; ++i) {
      const size_type r = i + nx * j;
      expected[r * n + r] = 2.0 + 2.0 * eps;
      if (i > 0) expected[r * n + r - 1] = -1.0;
      if (i + 1 < nx) expected[r * n + r + 1] = -1.0;
      if (j > 0) expected[r * n + r - nx] = -eps;
      if (j + 1 < ny) expected[r * n + r + nx] = -eps;
    }
  }
  EXPECT_EQ(A.dense(), expected);
  EXPECT_EQ(A.nnz(), 5 * nx * ny - 2 * nx - 2 * ny);
}

TEST(Gallery, AnisotropicMatchesThePyamgStencil) {
  // pyamg.gallery.diffusion_stencil_2d(epsilon=0.0001, theta=pi/6, type='FD')
  // prints [[-0.2164847 -0.750025 0.2164847] [-0.250075 2.0002 -0.250075]
  // [0.2164847 -0.750025 -0.2164847]]; its entry [a][b] couples to (x+a-1, y+b-1).
  const double pyamg[3][3] = {{-0.2164847, -0.750025, 0.2164847},
                              {-0.250075, 2.0002, -0.250075},
                              {0.2164847, -0.750025, -0.2164847}};
  const size_type nx = 4, ny = 3;
  const HostCsr A(gallery::anisotropic2d(host, nx, ny, 1e-4, std::numbers::pi / 6));
  const size_type r = 1 + nx * 1;  // an interior point
  for (int dx = -1; dx <= 1; ++dx) {
    for (int dy = -1; dy <= 1; ++dy) {
      EXPECT_NEAR(A.at(r, r + dx + nx * dy), pyamg[dx + 1][dy + 1], 1e-7)
          << "dx = " << dx << ", dy = " << dy;
    }
  }
  // theta = pi/2 swaps the roles: epsilon in x, 1 in y (corners ~1e-17).
  const HostCsr B(gallery::anisotropic2d(host, nx, ny, 0.01, std::numbers::pi / 2));
  EXPECT_NEAR(B.at(r, r + 1), -0.01, 1e-15);
  EXPECT_NEAR(B.at(r, r + nx), -1.0, 1e-15);
  EXPECT_NEAR(B.at(r, r + 1 + nx), 0.0, 1e-15);
}

// ---------------------------------------------------------------------------
// Coefficient jumps

TEST(Gallery, JumpsWithContrastOneIsPoisson3d) {
  const HostCsr J(gallery::jumps3d(host, 5, 4, 6, {.contrast = 1.0}));
  const HostCsr P(gallery::poisson3d(host, 5, 4, 6));
  EXPECT_EQ(J.ptr, P.ptr);
  EXPECT_EQ(J.col, P.col);
  EXPECT_EQ(J.val, P.val);
}

TEST(Gallery, JumpsCoefficientsByHand) {
  // n = 5 cells per direction, 2 inclusions per direction: coefficient cell
  // = unknown cell, inclusions at the cells whose indices are all odd.
  const size_type n = 5;
  const double contrast = 1e6;
  const HostCsr A(gallery::jumps3d(host, n, n, n, {.contrast = contrast, .inclusions_per_dim = 2}));
  const auto id = [&](size_type i, size_type j, size_type k) { return i + n * (j + n * k); };
  const double w = 2.0 * contrast / (contrast + 1.0);  // harmonic mean of 1 and contrast
  // Inclusion cell (1,1,1): all six neighbours have kappa 1.
  EXPECT_DOUBLE_EQ(A.at(id(1, 1, 1), id(2, 1, 1)), -w);
  EXPECT_DOUBLE_EQ(A.at(id(1, 1, 1), id(1, 1, 0)), -w);
  EXPECT_DOUBLE_EQ(A.at(id(1, 1, 1), id(1, 1, 1)), 6.0 * w);
  // Plain cell (2,1,1) between inclusions (1,1,1) and (3,1,1).
  EXPECT_DOUBLE_EQ(A.at(id(2, 1, 1), id(3, 1, 1)), -w);
  EXPECT_DOUBLE_EQ(A.at(id(2, 1, 1), id(2, 2, 1)), -1.0);
  EXPECT_DOUBLE_EQ(A.at(id(2, 1, 1), id(2, 1, 1)), 2.0 * w + 4.0);
  // Corner cell (0,0,0): kappa 1, three boundary faces count on the diagonal.
  EXPECT_EQ(A.at(0, 0), 6.0);
  EXPECT_EQ(A.row_sum(0), 3.0);
  // An inclusion cell next to another inclusion? None touch: (1,1,1) and
  // (1,1,3) are separated by the plain cell (1,1,2).
  EXPECT_DOUBLE_EQ(A.at(id(1, 1, 2), id(1, 1, 2)), 2.0 * w + 4.0);

  // M-matrix signs; rows away from the boundary sum to zero (to rounding).
  for (size_type r = 0; r < A.rows; ++r) {
    const size_type i = r % n, j = (r / n) % n, k = r / (n * n);
    for (offset_type q = A.ptr[r]; q < A.ptr[r + 1]; ++q) {
      if (A.col[q] == r) {
        EXPECT_GT(A.val[q], 0.0);
      } else {
        EXPECT_LT(A.val[q], 0.0);
      }
    }
    const bool interior = i > 0 && j > 0 && k > 0 && i < n - 1 && j < n - 1 && k < n - 1;
    if (interior) {
      EXPECT_NEAR(A.row_sum(r), 0.0, 1e-15 * A.at(r, r)) << "row " << r;
    } else {
      EXPECT_GT(A.row_sum(r), 0.0) << "row " << r;
    }
  }
}

TEST(Gallery, JumpsInclusionsFollowCellCentres) {
  // 1 inclusion per direction: the middle third of the cube. With 6 cells per
  // direction, centres (i + 1/2)/6 lie in [1/3, 2/3) for i = 2, 3.
  const size_type n = 6;
  const double contrast = 100.0;
  const HostCsr A(gallery::jumps3d(host, n, n, n, {.contrast = contrast, .inclusions_per_dim = 1}));
  const auto id = [&](size_type i, size_type j, size_type k) { return i + n * (j + n * k); };
  for (size_type k = 0; k < n; ++k) {
    for (size_type j = 0; j < n; ++j) {
      for (size_type i = 0; i < n; ++i) {
        const bool inside = (i == 2 || i == 3) && (j == 2 || j == 3) && (k == 2 || k == 3);
        // A cell's diagonal is 6 kappa exactly when all its neighbours share its kappa;
        // test the -x face instead, which is 1 or contrast only between equal cells.
        if (i == 0) continue;
        const bool left_inside =
            (i - 1 == 2 || i - 1 == 3) && (j == 2 || j == 3) && (k == 2 || k == 3);
        const double expected =
            inside == left_inside ? (inside ? contrast : 1.0) : 2.0 * contrast / (contrast + 1.0);
        EXPECT_DOUBLE_EQ(-A.at(id(i, j, k), id(i - 1, j, k)), expected)
            << "cell " << i << "," << j << "," << k;
      }
    }
  }
}

// ---------------------------------------------------------------------------
// Convection-diffusion

TEST(Gallery, ConvDiffUpwindCoefficients) {
  const size_type n = 4;
  const double h = 1.0 / (n + 1);
  const gallery::ConvDiffOptions options{.velocity = {2.0, -1.0, 0.5}, .diffusion = 0.5};
  const HostCsr A(gallery::convdiff3d(host, n, n, n, options));
  const auto id = [&](size_type i, size_type j, size_type k) { return i + n * (j + n * k); };
  const size_type r = id(1, 2, 1);
  // b_x > 0: the upwind (-x) neighbour carries the convection.
  EXPECT_DOUBLE_EQ(A.at(r, id(0, 2, 1)), -(0.5 + 2.0 * h));
  EXPECT_DOUBLE_EQ(A.at(r, id(2, 2, 1)), -0.5);
  // b_y < 0: the +y neighbour is upwind.
  EXPECT_DOUBLE_EQ(A.at(r, id(1, 1, 1)), -0.5);
  EXPECT_DOUBLE_EQ(A.at(r, id(1, 3, 1)), -(0.5 + 1.0 * h));
  EXPECT_DOUBLE_EQ(A.at(r, id(1, 2, 0)), -(0.5 + 0.5 * h));
  EXPECT_DOUBLE_EQ(A.at(r, id(1, 2, 2)), -0.5);
  EXPECT_DOUBLE_EQ(A.at(r, r), 6 * 0.5 + h * (2.0 + 1.0 + 0.5));
}

TEST(Gallery, ConvDiffIsANonsymmetricMMatrix) {
  for (const auto& [nx, ny, nz] : std::vector<std::array<size_type, 3>>{{5, 5, 5}, {3, 6, 4}}) {
    SCOPED_TRACE("grid " + std::to_string(nx) + "x" + std::to_string(ny) + "x" +
                 std::to_string(nz));
    const HostCsr A(gallery::convdiff3d(host, nx, ny, nz));
    const HostCsr T = A.transpose();
    EXPECT_EQ(A.col, T.col);  // structurally symmetric,
    EXPECT_NE(A.val, T.val);  // numerically not
    for (size_type r = 0; r < A.rows; ++r) {
      const size_type i = r % nx, j = (r / nx) % ny, k = r / (nx * ny);
      double off = 0.0;
      for (offset_type q = A.ptr[r]; q < A.ptr[r + 1]; ++q) {
        if (A.col[q] != r) {
          EXPECT_LT(A.val[q], 0.0);
          off += -A.val[q];
        }
      }
      EXPECT_GE(A.at(r, r), off * (1 - 1e-15));
      const bool interior = i > 0 && j > 0 && k > 0 && i < nx - 1 && j < ny - 1 && k < nz - 1;
      if (interior) {
        EXPECT_NEAR(A.row_sum(r), 0.0, 1e-15 * A.at(r, r)) << "row " << r;
      } else {
        EXPECT_GT(A.row_sum(r), 0.0) << "row " << r;
      }
    }
  }
}

TEST(Gallery, ConvDiffWithoutVelocityIsPoisson3d) {
  const HostCsr A(gallery::convdiff3d(host, 3, 4, 3, {.velocity = {0.0, 0.0, 0.0}}));
  // Not a cube: h = 1/5 and the x and z directions have r = 4/5.
  const HostCsr P(gallery::poisson3d(host, 4, 4, 4));
  const HostCsr C(gallery::convdiff3d(host, 4, 4, 4, {.velocity = {0.0, 0.0, 0.0}}));
  EXPECT_EQ(C.ptr, P.ptr);
  EXPECT_EQ(C.col, P.col);
  EXPECT_EQ(C.val, P.val);
  EXPECT_DOUBLE_EQ(A.at(5, 4), -0.64);  // x neighbour: r_x^2 = (4/5)^2
  EXPECT_DOUBLE_EQ(A.at(5, 2), -1.0);   // y neighbour: r_y = 1
  EXPECT_DOUBLE_EQ(A.at(5, 5), 4 * 0.64 + 2.0);
}

// ---------------------------------------------------------------------------
// Elasticity

TEST(Gallery, ElasticitySingleElementByHand) {
  // One unit cube, x = 0 clamped: the 4 free nodes (1, j, k) of the element.
  // For the unit cube, int (dN_a/dx)^2 = 1/9 and the couplings of two nodes
  // that differ in y only are (lambda + mu)/18 (x-x) and -(lambda + mu)/9 (y-y).
  const double E = 2.0, nu = 0.25;
  const double lambda = E * nu / ((1 + nu) * (1 - 2 * nu)), mu = E / (2 * (1 + nu));
  const HostCsr A(gallery::elasticity3d(host, 1, {.youngs_modulus = E, .poisson_ratio = nu}).A);
  ASSERT_EQ(A.rows, 12);
  EXPECT_EQ(A.nnz(), 144);
  for (size_type r = 0; r < 12; ++r) EXPECT_NEAR(A.at(r, r), (lambda + 4 * mu) / 9, 1e-14);
  // Node 0 = (1,0,0) and node 1 = (1,1,0) differ in y.
  EXPECT_NEAR(A.at(0, 3), (lambda + mu) / 18, 1e-14);
  EXPECT_NEAR(A.at(1, 4), -(lambda + mu) / 9, 1e-14);
  EXPECT_NEAR(A.at(2, 5), (lambda + mu) / 18, 1e-14);
}

/// The clamped elasticity matrix assembled the textbook way, element by
/// element with Voigt strains: K_e = sum_g B^T D B det(J), B the 6 x 24
/// strain-displacement matrix (xx, yy, zz, xy, yz, zx), D the isotropic
/// material matrix; dense, rows of clamped nodes dropped at the end. On a
/// box of nex x ney x nez cubes of side 1 / min(nex, ney, nez).
std::vector<double> reference_elasticity(size_type nex, size_type ney, size_type nez, double E,
                                         double nu) {
  const double lambda = E * nu / ((1 + nu) * (1 - 2 * nu)), mu = E / (2 * (1 + nu));
  double D[6][6] = {};
  for (int a = 0; a < 3; ++a) {
    for (int b = 0; b < 3; ++b) D[a][b] = lambda + (a == b ? 2 * mu : 0.0);
    D[3 + a][3 + a] = mu;
  }
  const double h = 1.0 / static_cast<double>(std::min({nex, ney, nez})), g = 1.0 / std::sqrt(3.0);
  double Ke[24][24] = {};
  for (int gp = 0; gp < 8; ++gp) {
    const double xi[3] = {gp & 1 ? g : -g, gp & 2 ? g : -g, gp & 4 ? g : -g};
    double B[6][24] = {};
    for (int a = 0; a < 8; ++a) {
      double grad[3];
      for (int t = 0; t < 3; ++t) {
        grad[t] = 2.0 / h;
        for (int u = 0; u < 3; ++u) {
          const double s = (a >> u & 1) ? 1.0 : -1.0;
          grad[t] *= u == t ? s / 2 : (1 + s * xi[u]) / 2;
        }
      }
      B[0][3 * a] = grad[0];
      B[1][3 * a + 1] = grad[1];
      B[2][3 * a + 2] = grad[2];
      B[3][3 * a] = grad[1], B[3][3 * a + 1] = grad[0];
      B[4][3 * a + 1] = grad[2], B[4][3 * a + 2] = grad[1];
      B[5][3 * a] = grad[2], B[5][3 * a + 2] = grad[0];
    }
    for (int r = 0; r < 24; ++r) {
      for (int c = 0; c < 24; ++c) {
        double s = 0.0;
        for (int p = 0; p < 6; ++p) {
          for (int q = 0; q < 6; ++q) s += B[p][r] * D[p][q] * B[q][c];
        }
        Ke[r][c] += s * h * h * h / 8;
      }
    }
  }
  const size_type nx1 = nex + 1, ny1 = ney + 1, nz1 = nez + 1, all = 3 * nx1 * ny1 * nz1;
  std::vector<double> K(static_cast<std::size_t>(all * all), 0.0);
  for (size_type ez = 0; ez < nez; ++ez) {
    for (size_type ey = 0; ey < ney; ++ey) {
      for (size_type ex = 0; ex < nex; ++ex) {
        for (int a = 0; a < 8; ++a) {
          const size_type na = (ex + (a & 1)) + nx1 * ((ey + (a >> 1 & 1)) + ny1 * (ez + (a >> 2)));
          for (int b = 0; b < 8; ++b) {
            const size_type nb =
                (ex + (b & 1)) + nx1 * ((ey + (b >> 1 & 1)) + ny1 * (ez + (b >> 2)));
            for (int c = 0; c < 3; ++c) {
              for (int d = 0; d < 3; ++d) {
                K[(3 * na + c) * all + 3 * nb + d] += Ke[3 * a + c][3 * b + d];
              }
            }
          }
        }
      }
    }
  }
  std::vector<size_type> free;  // unknowns of nodes with x index >= 1, in node order
  for (size_type k = 0; k < nz1; ++k) {
    for (size_type j = 0; j < ny1; ++j) {
      for (size_type i = 1; i < nx1; ++i) {
        for (int c = 0; c < 3; ++c) free.push_back(3 * (i + nx1 * (j + ny1 * k)) + c);
      }
    }
  }
  const size_type n = static_cast<size_type>(free.size());
  std::vector<double> A(static_cast<std::size_t>(n * n));
  for (size_type r = 0; r < n; ++r) {
    for (size_type c = 0; c < n; ++c) A[r * n + c] = K[free[r] * all + free[c]];
  }
  return A;
}

/// A's dense form equals `reference` to 1e-14 of A's infinity norm.
void expect_equal_to_rounding(const HostCsr& A, const std::vector<double>& reference) {
  const std::vector<double> dense = A.dense();
  ASSERT_EQ(dense.size(), reference.size());
  const double scale = A.norm_inf();
  for (std::size_t k = 0; k < dense.size(); ++k) {
    ASSERT_NEAR(dense[k], reference[k], 1e-14 * scale)
        << "entry (" << k / A.rows << ", " << k % A.rows << ")";
  }
}

TEST(Gallery, ElasticityMatchesElementByElementAssembly) {
  for (const auto& [ne, nu] :
       std::vector<std::pair<size_type, double>>{{1, 0.3}, {2, 0.3}, {3, 0.1}, {3, 0.49}}) {
    SCOPED_TRACE("ne = " + std::to_string(ne) + ", nu = " + std::to_string(nu));
    const double E = 3.0;
    const HostCsr A(gallery::elasticity3d(host, ne, {.youngs_modulus = E, .poisson_ratio = nu}).A);
    const std::vector<double> reference = reference_elasticity(ne, ne, ne, E, nu);
    expect_equal_to_rounding(A, reference);
  }
}

/// A box (the weak-scaling shape) is the same element assembly on
/// nex x ney x nez cubes of side 1 / min(nex, ney, nez), with its
/// coordinates; a box with a zero side is refused by name.
TEST(Gallery, ElasticityBoxMatchesElementByElementAssembly) {
  struct Box {
    size_type nex, ney, nez;
  };
  for (const Box b : {Box{1, 2, 3}, Box{3, 2, 2}, Box{2, 3, 1}}) {
    SCOPED_TRACE("box " + std::to_string(b.nex) + " x " + std::to_string(b.ney) + " x " +
                 std::to_string(b.nez));
    const gallery::ElasticityProblem problem = gallery::elasticity3d(host, b.nex, b.ney, b.nez);
    const HostCsr A(problem.A);
    ASSERT_EQ(A.rows, 3 * b.nex * (b.ney + 1) * (b.nez + 1));
    const std::vector<double> reference = reference_elasticity(b.nex, b.ney, b.nez, 1.0, 0.3);
    expect_equal_to_rounding(A, reference);
    // The last node is (nex, ney, nez) h.
    const std::vector<double> xyz = problem.coordinates.to_vector();
    const double h = 1.0 / static_cast<double>(std::min({b.nex, b.ney, b.nez}));
    EXPECT_DOUBLE_EQ(xyz[xyz.size() - 3], static_cast<double>(b.nex) * h);
    EXPECT_DOUBLE_EQ(xyz[xyz.size() - 2], static_cast<double>(b.ney) * h);
    EXPECT_DOUBLE_EQ(xyz[xyz.size() - 1], static_cast<double>(b.nez) * h);
  }
  try {
    (void)gallery::elasticity3d(host, 2, 2, 0);
    ADD_FAILURE() << "a box with nez = 0 was accepted";
  } catch (const invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("nez must be >= 1, got 0"), std::string::npos) << e.what();
  }
}

TEST(Gallery, ElasticityScalesWithYoungsModulus) {
  const HostCsr A(gallery::elasticity3d(host, 2, {.youngs_modulus = 1.0}).A);
  const HostCsr B(gallery::elasticity3d(host, 2, {.youngs_modulus = 4.0}).A);
  ASSERT_EQ(A.col, B.col);
  for (size_type k = 0; k < A.nnz(); ++k) EXPECT_NEAR(B.val[k], 4.0 * A.val[k], 1e-14);
}

TEST(Gallery, ElasticityIsPositiveDefinite) {
  for (const double nu : {0.3, 0.0, -0.5, 0.45}) {
    for (const size_type ne : {1, 2, 3}) {
      SCOPED_TRACE("nu = " + std::to_string(nu) + ", ne = " + std::to_string(ne));
      const HostCsr A(gallery::elasticity3d(host, ne, {.poisson_ratio = nu}).A);
      expect_symmetric(A);
      EXPECT_TRUE(cholesky_succeeds(A.dense(), A.rows));
    }
  }
}

TEST(Gallery, ElasticityRigidBodyModesSpanTheInteriorNullSpace) {
  const size_type ne = 4;
  const gallery::ElasticityProblem problem = gallery::elasticity3d(host, ne);
  const HostCsr A(problem.A);
  ASSERT_EQ(problem.rigid_body_modes.size(), 6u);
  const double scale = A.norm_inf();
  for (std::size_t m = 0; m < 6; ++m) {
    SCOPED_TRACE("mode " + std::to_string(m));
    const Vector<double>& mode = problem.rigid_body_modes[m];
    ASSERT_EQ(mode.size(), A.rows);
    EXPECT_EQ(mode.location(), Location::host);
    const std::vector<double> Ax = A.multiply(mode.to_vector());
    double next_to_face = 0.0;
    for (size_type r = 0; r < A.rows; ++r) {
      const size_type i = (r / 3) % ne + 1;  // x index of the node
      if (i >= 2) {
        EXPECT_LT(std::abs(Ax[r]), 1e-10 * scale) << "row " << r;
      } else {
        next_to_face = std::max(next_to_face, std::abs(Ax[r]));
      }
    }
    EXPECT_GT(next_to_face, 1e-3 * scale);
  }
}

TEST(Gallery, ElasticityCoordinates) {
  const size_type ne = 3;
  const gallery::ElasticityProblem problem = gallery::elasticity3d(host, ne);
  const std::vector<double> xyz = problem.coordinates.to_vector();
  ASSERT_EQ(static_cast<size_type>(xyz.size()), 3 * ne * (ne + 1) * (ne + 1));
  EXPECT_EQ(static_cast<size_type>(xyz.size()), problem.A.rows());
  for (std::size_t p = 0; p < xyz.size() / 3; ++p) {
    EXPECT_GE(xyz[3 * p], 1.0 / ne - 1e-15);  // x = 0 is clamped
    EXPECT_LE(xyz[3 * p], 1.0);
    for (int c = 1; c < 3; ++c) {
      EXPECT_GE(xyz[3 * p + c], 0.0);
      EXPECT_LE(xyz[3 * p + c], 1.0);
    }
  }
  // Node p = (i-1) + ne (j + (ne+1) k): node 0 is (1,0,0), the last is (ne,ne,ne).
  EXPECT_EQ(xyz[0], 1.0 / ne);
  EXPECT_EQ(xyz[1], 0.0);
  EXPECT_EQ(xyz[2], 0.0);
  const std::size_t p = 2 + ne * (1 + (ne + 1) * 3);  // (3, 1, 3)
  EXPECT_EQ(xyz[3 * p], 1.0);
  EXPECT_DOUBLE_EQ(xyz[3 * p + 1], 1.0 / 3);
  EXPECT_EQ(xyz[3 * p + 2], 1.0);
  EXPECT_EQ(xyz[xyz.size() - 3], 1.0);
  EXPECT_EQ(xyz[xyz.size() - 2], 1.0);
  EXPECT_EQ(xyz[xyz.size() - 1], 1.0);
}

TEST(Gallery, RigidBodyModesOfGivenCoordinates) {
  const Vector<double> xyz(Array<double>(host, {1.0, 2.0, 3.0, -4.0, 5.0, 0.5}));
  const std::vector<Vector<double>> modes = gallery::rigid_body_modes(xyz);
  ASSERT_EQ(modes.size(), 6u);
  const std::vector<std::vector<double>> expected = {{1, 0, 0, 1, 0, 0},    {0, 1, 0, 0, 1, 0},
                                                     {0, 0, 1, 0, 0, 1},    {0, -3, 2, 0, -0.5, 5},
                                                     {3, 0, -1, 0.5, 0, 4}, {-2, 1, 0, -5, -4, 0}};
  for (std::size_t m = 0; m < 6; ++m) EXPECT_EQ(modes[m].to_vector(), expected[m]) << "mode " << m;
  EXPECT_EQ(gallery::rigid_body_modes(Vector<double>(host, 0)).size(), 6u);
}

// ---------------------------------------------------------------------------
// Names, generate, arguments

TEST(Gallery, ProblemNamesAndGenerate) {
  const std::vector<std::string> expected = {"poisson2d",   "poisson2d9",  "poisson3d",
                                             "diffusion27", "aniso2d",     "jumps3d",
                                             "convdiff3d",  "elasticity3d"};
  EXPECT_EQ(gallery::problem_names(), expected);
  const size_type n = 3;
  const std::vector<size_type> rows = {9, 9, 27, 27, 9, 27, 27, 3 * 3 * 16};
  for (std::size_t p = 0; p < expected.size(); ++p) {
    SCOPED_TRACE(expected[p]);
    const CsrMatrix<double> A = gallery::generate(expected[p], n, host);
    EXPECT_EQ(A.rows(), rows[p]);
    expect_well_formed(HostCsr(A));
  }
  // aniso2d is epsilon = 0.001, theta = 0.
  const HostCsr G(gallery::generate("aniso2d", 6, host));
  const HostCsr D(gallery::anisotropic2d(host, 6, 6, 0.001, 0.0));
  EXPECT_EQ(G.col, D.col);
  EXPECT_EQ(G.val, D.val);
}

TEST(Gallery, BadArgumentsThrowNamingTheArgument) {
  using gallery::generate;
  expect_invalid([] { gallery::poisson2d(host, 0, 3); }, {"nx", "0"});
  expect_invalid([] { gallery::poisson2d(host, 3, -2); }, {"ny", "-2"});
  expect_invalid([] { gallery::poisson2d_9pt(host, 3, 0); }, {"ny"});
  expect_invalid([] { gallery::poisson3d(host, 3, 3, 0); }, {"nz", "0"});
  expect_invalid([] { gallery::diffusion3d_27pt(host, 0, 3, 3); }, {"nx"});
  expect_invalid([] { gallery::anisotropic2d(host, 3, 3, 0.0, 0.0); }, {"epsilon", "0"});
  expect_invalid([] { gallery::anisotropic2d(host, 3, 3, -1.0, 0.0); }, {"epsilon", "-1"});
  expect_invalid([] { gallery::anisotropic2d(host, 3, 3, NAN, 0.0); }, {"epsilon", "nan"});
  expect_invalid([] { gallery::anisotropic2d(host, 3, 3, 0.1, INFINITY); }, {"theta", "inf"});
  expect_invalid([] { gallery::jumps3d(host, 3, 3, 3, {.contrast = 0.0}); }, {"contrast"});
  expect_invalid([] { gallery::jumps3d(host, 3, 3, 3, {.inclusions_per_dim = 0}); },
                 {"inclusions_per_dim", "0"});
  expect_invalid([] { gallery::convdiff3d(host, 3, 3, 3, {.diffusion = -1.0}); },
                 {"diffusion", "-1"});
  expect_invalid(
      [] {
        gallery::convdiff3d(host, 3, 3, 3, {.velocity = {0, NAN, 0}});
      },
      {"velocity[1]"});
  expect_invalid([] { gallery::elasticity3d(host, 0); }, {"ne", "0"});
  expect_invalid([] { gallery::elasticity3d(host, 2, {.youngs_modulus = 0.0}); },
                 {"youngs_modulus"});
  expect_invalid([] { gallery::elasticity3d(host, 2, {.poisson_ratio = 0.5}); },
                 {"poisson_ratio", "0.5"});
  expect_invalid([] { gallery::elasticity3d(host, 2, {.poisson_ratio = -1.0}); },
                 {"poisson_ratio", "-1"});
  // Too many rows for 32-bit column indices: refused before anything is allocated.
  expect_invalid([] { gallery::poisson3d(host, 2000, 2000, 2000); }, {"nx*ny*nz", "32-bit"});
  expect_invalid([] { gallery::poisson2d(host, 1 << 20, 1 << 20); }, {"nx*ny", "32-bit"});
  expect_invalid([] { gallery::poisson3d(host, size_type{1} << 40, size_type{1} << 40, 8); },
                 {"nx*ny*nz"});
  expect_invalid([] { gallery::elasticity3d(host, 1000); }, {"ne", "32-bit"});
  expect_invalid([] { gallery::elasticity3d(host, std::numeric_limits<size_type>::max()); },
                 {"ne", "32-bit"});
  expect_invalid([] { gallery::rigid_body_modes(Vector<double>(host, 4)); }, {"coordinates", "4"});
  expect_invalid([] { generate("poisson4d", 3, host); },
                 {"poisson4d", "poisson2d", "elasticity3d"});
  expect_invalid([] { generate("poisson3d", 0, host); }, {"n", "0"});
}

TEST(Gallery, ResultDoesNotDependOnThreadCount) {
  // Above the host primitives' parallel threshold, so threads really split it.
  const HostCsr one(gallery::jumps3d(Executor::host(1), 24, 24, 24));
  const HostCsr four(gallery::jumps3d(Executor::host(4), 24, 24, 24));
  EXPECT_EQ(one.ptr, four.ptr);
  EXPECT_EQ(one.col, four.col);
  EXPECT_EQ(one.val, four.val);
}

// ---------------------------------------------------------------------------
// Device builds equal host builds

void expect_same_on_device(const std::function<CsrMatrix<double>(const Executor&)>& make) {
  const Executor device = Executor::cuda();
  const CsrMatrix<double> D = make(device);
  EXPECT_EQ(D.location(), Location::cuda);
  const HostCsr h(make(host)), d(D);
  EXPECT_EQ(d.rows, h.rows);
  EXPECT_EQ(d.cols, h.cols);
  EXPECT_EQ(d.ptr, h.ptr);
  EXPECT_EQ(d.col, h.col);
  EXPECT_EQ(d.val, h.val);  // bit for bit: every coefficient is computed the same way
}

TEST(GalleryDevice, StencilProblemsEqualHost) {
  STRATA_REQUIRE_DEVICE();
  expect_same_on_device([](const Executor& e) { return gallery::poisson2d(e, 37, 29); });
  expect_same_on_device([](const Executor& e) { return gallery::poisson2d_9pt(e, 33, 40); });
  expect_same_on_device([](const Executor& e) { return gallery::poisson3d(e, 17, 9, 23); });
  expect_same_on_device([](const Executor& e) { return gallery::poisson3d(e, 1, 1, 1); });
  expect_same_on_device([](const Executor& e) { return gallery::diffusion3d_27pt(e, 13, 11, 7); });
  expect_same_on_device(
      [](const Executor& e) { return gallery::anisotropic2d(e, 45, 31, 1e-3, 0.0); });
  expect_same_on_device(
      [](const Executor& e) { return gallery::anisotropic2d(e, 45, 31, 1e-3, 0.7); });
}

TEST(GalleryDevice, JumpsAndConvDiffEqualHost) {
  STRATA_REQUIRE_DEVICE();
  expect_same_on_device([](const Executor& e) { return gallery::jumps3d(e, 21, 19, 17); });
  expect_same_on_device([](const Executor& e) {
    return gallery::jumps3d(e, 30, 30, 30, {.contrast = 1e-3, .inclusions_per_dim = 4});
  });
  expect_same_on_device([](const Executor& e) { return gallery::convdiff3d(e, 19, 14, 9); });
  expect_same_on_device([](const Executor& e) {
    return gallery::convdiff3d(e, 12, 12, 12, {.velocity = {-1.0, 3.0, 0.0}, .diffusion = 0.01});
  });
}

TEST(GalleryDevice, ElasticityEqualsHost) {
  STRATA_REQUIRE_DEVICE();
  const Executor device = Executor::cuda();
  for (const size_type ne : {1, 2, 7}) {
    SCOPED_TRACE("ne = " + std::to_string(ne));
    const gallery::ElasticityProblem d = gallery::elasticity3d(device, ne);
    const gallery::ElasticityProblem h = gallery::elasticity3d(host, ne);
    EXPECT_EQ(d.A.location(), Location::cuda);
    EXPECT_EQ(d.coordinates.location(), Location::cuda);
    const HostCsr hd(d.A), hh(h.A);
    EXPECT_EQ(hd.ptr, hh.ptr);
    EXPECT_EQ(hd.col, hh.col);
    EXPECT_EQ(hd.val, hh.val);
    EXPECT_EQ(d.coordinates.to_vector(), h.coordinates.to_vector());
    ASSERT_EQ(d.rigid_body_modes.size(), 6u);
    for (std::size_t m = 0; m < 6; ++m) {
      EXPECT_EQ(d.rigid_body_modes[m].location(), Location::cuda);
      EXPECT_EQ(d.rigid_body_modes[m].to_vector(), h.rigid_body_modes[m].to_vector());
    }
  }
}

TEST(GalleryDevice, GenerateEveryNameOnDevice) {
  STRATA_REQUIRE_DEVICE();
  for (const std::string& name : gallery::problem_names()) {
    SCOPED_TRACE(name);
    expect_same_on_device([&](const Executor& e) { return gallery::generate(name, 9, e); });
  }
}

}  // namespace
}  // namespace strata
