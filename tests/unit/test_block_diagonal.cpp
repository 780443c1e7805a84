// BlockDiagonal: the inverted diagonal blocks of a BSR matrix. Every block
// size with a fast path and two without (5, 7), blocks that need pivoting,
// the l1 kind against a direct computation, the errors (which block row,
// what is wrong), recompute and the application y = alpha D^-1 x + beta y.

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "strata/gallery/gallery.hpp"
#include "strata/matrix/block_diagonal.hpp"
#include "test_util.hpp"

namespace strata {
namespace {

/// A host BSR matrix of block_rows x block_rows blocks of b x b: block
/// tridiagonal, with random entries in [-1, 1]. The diagonal blocks get
/// +b on their anti-diagonal (so the largest entry of a column is often off
/// the diagonal: the elimination must pivot) and are invertible.
BsrMatrix<double> block_tridiagonal(size_type block_rows, int b, unsigned seed) {
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<double> value(-1, 1);
  const size_type bb = static_cast<size_type>(b) * b;
  std::vector<offset_type> rp{0};
  std::vector<index_type> ci;
  std::vector<double> va;
  for (size_type I = 0; I < block_rows; ++I) {
    for (size_type J = I == 0 ? 0 : I - 1; J <= I + 1 && J < block_rows; ++J) {
      ci.push_back(static_cast<index_type>(J));
      for (size_type e = 0; e < bb; ++e) {
        const size_type a = e / b, j = e % b;
        va.push_back(value(gen) + (I == J && a + j == size_type(b - 1) ? b : 0.0));
      }
    }
    rp.push_back(static_cast<offset_type>(ci.size()));
  }
  const auto h = Executor::host();
  return BsrMatrix<double>(block_rows, block_rows, b, b, Array<offset_type>(h, rp),
                           Array<index_type>(h, ci), Array<double>(h, va));
}

/// The (diagonal) block of block row I as a dense row-major b x b vector,
/// with the off-block l1 row sums added to its diagonal when `l1`.
std::vector<double> diagonal_block(const BsrMatrix<double>& A, size_type I, bool l1) {
  const int b = A.row_block_size();
  const size_type bb = static_cast<size_type>(b) * b;
  const auto rp = A.row_ptr().to_vector();
  const auto ci = A.col_idx().to_vector();
  const auto va = A.values().to_vector();
  std::vector<double> D(bb, 0.0), off(b, 0.0);
  for (offset_type k = rp[I]; k < rp[I + 1]; ++k) {
    for (size_type e = 0; e < bb; ++e) {
      if (ci[k] == index_type(I)) {
        D[e] = va[k * bb + e];
      } else {
        off[e / b] += std::abs(va[k * bb + e]);
      }
    }
  }
  if (l1) {
    for (int a = 0; a < b; ++a) D[a * b + a] += off[a];
  }
  return D;
}

/// max over the block rows of max |D_I * inverse_I - identity|.
double identity_error(const BsrMatrix<double>& A, const BlockDiagonal<double>& inv, bool l1) {
  const int b = A.row_block_size();
  const size_type bb = static_cast<size_type>(b) * b;
  const auto iv = inv.values().to_vector();
  double worst = 0;
  for (size_type I = 0; I < A.block_rows(); ++I) {
    const auto D = diagonal_block(A, I, l1);
    for (int a = 0; a < b; ++a) {
      for (int j = 0; j < b; ++j) {
        double s = 0;
        for (int m = 0; m < b; ++m) s += D[a * b + m] * iv[I * bb + m * b + j];
        worst = std::max(worst, std::abs(s - (a == j ? 1.0 : 0.0)));
      }
    }
  }
  return worst;
}

TEST(BlockDiagonal, InverseTimesBlockIsTheIdentityForEveryBlockSize) {
  for (int b : {1, 2, 3, 4, 5, 6, 7}) {
    const auto A = block_tridiagonal(9, b, 10 + b);
    const auto inv = BlockDiagonal<double>::inverse(A);
    EXPECT_EQ(inv.block_size(), b);
    EXPECT_EQ(inv.block_rows(), 9);
    EXPECT_EQ(inv.rows(), 9 * b);
    EXPECT_EQ(inv.values().size(), 9 * b * b);
    EXPECT_EQ(inv.kind(), BlockDiagonalKind::plain);
    EXPECT_LE(identity_error(A, inv, false), 1e-12) << "b = " << b;
  }
}

TEST(BlockDiagonal, PivotsWhereTheDiagonalEntryIsZero) {
  // [[0, 2], [1, 0]]: no inverse without a row exchange; its inverse is
  // [[0, 1], [0.5, 0]].
  const auto h = Executor::host();
  BsrMatrix<double> A(1, 1, 2, 2, Array<offset_type>(h, {0, 1}), Array<index_type>(h, {0}),
                      Array<double>(h, {0.0, 2.0, 1.0, 0.0}));
  const auto inv = BlockDiagonal<double>::inverse(A).values().to_vector();
  EXPECT_EQ(inv, (std::vector<double>{0.0, 1.0, 0.5, 0.0}));
}

TEST(BlockDiagonal, ElasticityBlocksInvert) {
  const auto A = to_bsr(gallery::elasticity3d(Executor::host(), 3).A, 3);
  for (auto kind : {BlockDiagonalKind::plain, BlockDiagonalKind::l1}) {
    const auto inv = BlockDiagonal<double>::inverse(A, kind);
    EXPECT_LE(identity_error(A, inv, kind == BlockDiagonalKind::l1), 1e-12);
  }
}

TEST(BlockDiagonal, L1KindAddsTheOffBlockRowSums) {
  for (int b : {2, 3, 5}) {
    const auto A = block_tridiagonal(7, b, 30 + b);
    const auto plain = BlockDiagonal<double>::inverse(A);
    const auto l1 = BlockDiagonal<double>::inverse(A, BlockDiagonalKind::l1);
    EXPECT_EQ(l1.kind(), BlockDiagonalKind::l1);
    EXPECT_LE(identity_error(A, l1, true), 1e-12) << "b = " << b;
    // It is a different matrix: the plain inverse does not invert D_l1.
    EXPECT_GT(identity_error(A, plain, true), 1e-3) << "b = " << b;
  }
  // By hand: block rows 0 and 1 of 1x1... a 2x2 scalar example in 1x1
  // blocks: D_l1 = a_ii + |a_ij|.
  const auto h = Executor::host();
  BsrMatrix<double> A(2, 2, 1, 1, Array<offset_type>(h, {0, 2, 4}),
                      Array<index_type>(h, {0, 1, 1, 0}), Array<double>(h, {4.0, -1.0, 2.0, 2.0}));
  const auto d = BlockDiagonal<double>::inverse(A, BlockDiagonalKind::l1).values().to_vector();
  EXPECT_DOUBLE_EQ(d[0], 1.0 / 5.0);
  EXPECT_DOUBLE_EQ(d[1], 1.0 / 4.0);
}

TEST(BlockDiagonal, SingularBlockNamesTheBlockRow) {
  for (int b : {3, 5}) {
    auto A = block_tridiagonal(6, b, 50 + b);
    // Block row 4's diagonal block (block index 3*4 - 1 = 11): its second row
    // becomes twice its first.
    const size_type bb = static_cast<size_type>(b) * b;
    auto va = A.values().to_vector();
    const offset_type k = A.row_ptr().to_vector()[4] + 1;
    for (int j = 0; j < b; ++j) va[k * bb + b + j] = 2.0 * va[k * bb + j];
    A.values() = Array<double>(Executor::host(), va);
    const std::string m = test::message_of([&] { BlockDiagonal<double>::inverse(A); });
    EXPECT_NE(m.find("block row 4 "), std::string::npos) << m;
    EXPECT_NE(m.find("singular"), std::string::npos) << m;
  }
}

TEST(BlockDiagonal, MissingAndNonFiniteBlocksAreNamed) {
  const auto h = Executor::host();
  // Block row 1 stores only block column 0.
  BsrMatrix<double> missing(2, 2, 1, 1, Array<offset_type>(h, {0, 1, 2}),
                            Array<index_type>(h, {0, 0}), Array<double>(h, {1.0, 1.0}));
  std::string m = test::message_of([&] { BlockDiagonal<double>::inverse(missing); });
  EXPECT_NE(m.find("block row 1 "), std::string::npos) << m;
  EXPECT_NE(m.find("no diagonal block"), std::string::npos) << m;

  BsrMatrix<double> nan(2, 2, 1, 1, Array<offset_type>(h, {0, 1, 2}), Array<index_type>(h, {0, 1}),
                        Array<double>(h, {1.0, std::nan("")}));
  m = test::message_of([&] { BlockDiagonal<double>::inverse(nan); });
  EXPECT_NE(m.find("block row 1 "), std::string::npos) << m;
  EXPECT_NE(m.find("not finite"), std::string::npos) << m;

  // A zero block is singular, not a division by zero.
  BsrMatrix<double> zero(1, 1, 2, 2, Array<offset_type>(h, {0, 1}), Array<index_type>(h, {0}),
                         Array<double>(h, {0.0, 0.0, 0.0, 0.0}));
  m = test::message_of([&] { BlockDiagonal<double>::inverse(zero); });
  EXPECT_NE(m.find("block row 0 "), std::string::npos) << m;
  EXPECT_NE(m.find("singular"), std::string::npos) << m;
}

TEST(BlockDiagonal, RejectsRectangularBlocks) {
  const auto h = Executor::host();
  BsrMatrix<double> A(1, 1, 2, 3, Array<offset_type>(h, {0, 1}), Array<index_type>(h, {0}),
                      Array<double>(h, std::vector<double>(6, 1.0)));
  const std::string m = test::message_of([&] { BlockDiagonal<double>::inverse(A); });
  EXPECT_NE(m.find("2x3"), std::string::npos) << m;
  EXPECT_NE(m.find("square"), std::string::npos) << m;
  EXPECT_THROW(BlockDiagonal<double>::inverse(A), invalid_argument);
}

TEST(BlockDiagonal, RecomputeTakesNewValues) {
  for (int b : {3, 7}) {
    auto A = block_tridiagonal(5, b, 70 + b);
    auto inv = BlockDiagonal<double>::inverse(A, BlockDiagonalKind::l1);
    const auto before = inv.values().to_vector();
    const double* storage = inv.values().data();
    auto va = A.values().to_vector();
    for (auto& v : va) v *= 4.0;
    A.values() = Array<double>(Executor::host(), va);
    inv.recompute(A);
    EXPECT_EQ(inv.values().data(), storage);  // reused
    EXPECT_LE(identity_error(A, inv, true), 1e-12);
    const auto after = inv.values().to_vector();
    for (std::size_t e = 0; e < after.size(); ++e) {
      EXPECT_NEAR(after[e], before[e] / 4.0, 1e-12 * (1 + std::abs(before[e])));
    }
    // Another shape is refused, naming both.
    const auto other = block_tridiagonal(6, b, 1);
    const std::string m = test::message_of([&] { inv.recompute(other); });
    EXPECT_NE(m.find("6 block rows"), std::string::npos) << m;
    EXPECT_NE(m.find("expected 5"), std::string::npos) << m;
  }
}

TEST(BlockDiagonal, ApplyMultipliesByTheInverse) {
  for (int b : {1, 3, 5, 6}) {
    const auto A = block_tridiagonal(8, b, 90 + b);
    const auto inv = BlockDiagonal<double>::inverse(A);
    const auto h = Executor::host();
    const size_type n = inv.rows();
    const auto xv = test::random_values(n, 3), yv = test::random_values(n, 4);
    Vector<double> x(Array<double>(h, xv)), y(Array<double>(h, yv));
    inv.apply(2.0, x, -0.5, y);
    const auto iv = inv.values().to_vector();
    const auto out = y.to_vector();
    for (size_type i = 0; i < n; ++i) {
      const size_type I = i / b, a = i % b;
      double s = 0;
      for (int j = 0; j < b; ++j) s += iv[I * b * b + a * b + j] * xv[I * b + j];
      EXPECT_NEAR(out[i], 2.0 * s - 0.5 * yv[i], 1e-14) << "b = " << b << ", row " << i;
    }
    // D (D^-1 x) = x, block by block.
    Vector<double> z(h, n);
    inv.apply(x, z);
    const auto zv = z.to_vector();
    for (size_type I = 0; I < A.block_rows(); ++I) {
      const auto D = diagonal_block(A, I, false);
      for (int a = 0; a < b; ++a) {
        double s = 0;
        for (int j = 0; j < b; ++j) s += D[a * b + j] * zv[I * b + j];
        EXPECT_NEAR(s, xv[I * b + a], 1e-12);
      }
    }
    EXPECT_THROW(inv.apply(x, x), invalid_argument);
    Vector<double> short_vector(h, n - 1);
    EXPECT_THROW(inv.apply(x, short_vector), dimension_mismatch);
  }
}

TEST(BlockDiagonal, FloatBlocksInvert) {
  const auto Ad = block_tridiagonal(6, 3, 5);
  const auto h = Executor::host();
  std::vector<float> vf;
  for (double v : Ad.values().to_vector()) vf.push_back(static_cast<float>(v));
  BsrMatrix<float> A(6, 6, 3, 3, Ad.row_ptr().clone(), Ad.col_idx().clone(), Array<float>(h, vf));
  const auto inv = BlockDiagonal<float>::inverse(A);
  Vector<float> x(h, 18, 1.0f), y(h, 18);
  inv.apply(x, y);
  // D_I (D_I^-1 1) = 1 to float rounding.
  const auto yv = y.to_vector();
  for (size_type I = 0; I < 6; ++I) {
    const auto D = diagonal_block(Ad, I, false);
    for (int a = 0; a < 3; ++a) {
      double s = 0;
      for (int j = 0; j < 3; ++j) s += D[a * 3 + j] * yv[I * 3 + j];
      EXPECT_NEAR(s, 1.0, 1e-4);
    }
  }
}

}  // namespace
}  // namespace strata
