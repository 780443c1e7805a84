// Block CSR with independent row and column block sizes: construction and
// validation, SpMV against the scalar path (every fast path and the generic
// kernel), CSR <-> BSR conversions, the explicit transpose, and the device
// against the host on shapes larger than a warp with empty, single and long
// block rows.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "strata/gallery/gallery.hpp"
#include "strata/matrix/bsr.hpp"
#include "test_util.hpp"

namespace strata {
namespace {

/// A random host BSR matrix: block row I gets length(I, gen) distinct block
/// columns in random order.
template <class Length>
BsrMatrix<double> random_bsr(size_type block_rows, size_type block_cols, int r, int c,
                             Length length, unsigned seed) {
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<double> value(-1, 1);
  std::vector<offset_type> rp(block_rows + 1, 0);
  std::vector<index_type> ci;
  std::vector<double> va;
  std::vector<index_type> all(block_cols);
  for (size_type j = 0; j < block_cols; ++j) all[j] = index_type(j);
  for (size_type I = 0; I < block_rows; ++I) {
    const size_type len = std::min<size_type>(length(I, gen), block_cols);
    std::shuffle(all.begin(), all.end(), gen);
    for (size_type k = 0; k < len; ++k) {
      ci.push_back(all[k]);
      for (int t = 0; t < r * c; ++t) va.push_back(value(gen));
    }
    rp[I + 1] = offset_type(ci.size());
  }
  const auto h = Executor::host();
  return BsrMatrix<double>(block_rows, block_cols, r, c, Array<offset_type>(h, rp),
                           Array<index_type>(h, ci), Array<double>(h, va));
}

CsrMatrix<double> to_csr_if_needed(const CsrMatrix<double>& A) { return A.clone(); }
CsrMatrix<double> to_csr_if_needed(const BsrMatrix<double>& A) { return to_csr(A); }

/// The matrix as (row, col) -> value, zeros inside blocks dropped.
template <class M>
std::map<std::pair<size_type, size_type>, double> nonzeros(const M& any) {
  const auto A = to_csr_if_needed(any);
  const auto rp = A.row_ptr().to_vector();
  const auto ci = A.col_idx().to_vector();
  const auto va = A.values().to_vector();
  std::map<std::pair<size_type, size_type>, double> result;
  for (size_type i = 0; i < A.rows(); ++i) {
    for (auto k = rp[i]; k < rp[i + 1]; ++k) {
      if (va[k] != 0.0) result[{i, ci[k]}] = va[k];
    }
  }
  return result;
}

class Bsr : public test::OnExecutor {};

// Two block rows of 2x3 blocks over three block columns (a 4 x 9 matrix):
//   block row 0: block col 2 = [1 2 3; 4 5 6], block col 0 = [0 0 1; 0 0 0]
//   block row 1: no blocks
BsrMatrix<double> small(const Executor& e) {
  return BsrMatrix<double>(2, 3, 2, 3, Array<offset_type>(e, {0, 2, 2}),
                           Array<index_type>(e, {2, 0}),
                           Array<double>(e, {1, 2, 3, 4, 5, 6, 0, 0, 1, 0, 0, 0}));
}

TEST_P(Bsr, SpmvSmallHandChecked) {
  const auto A = small(exec());
  A.validate();
  EXPECT_EQ(A.rows(), 4);
  EXPECT_EQ(A.cols(), 9);
  EXPECT_EQ(A.num_blocks(), 2);
  EXPECT_EQ(A.nnz(), 12);
  Vector<double> x(Array<double>(exec(), {1, 2, 3, 4, 5, 6, 7, 8, 9}));
  Vector<double> y(Array<double>(exec(), {1, 1, 1, 1}));
  spmv(2.0, A, x, 1.0, y);  // A x = {1*7+2*8+3*9 + 3, 4*7+5*8+6*9, 0, 0} = {53, 122, 0, 0}
  EXPECT_EQ(y.to_vector(), (std::vector<double>{107, 245, 1, 1}));
  spmv(A, x, y);
  EXPECT_EQ(y.to_vector(), (std::vector<double>{53, 122, 0, 0}));
}

TEST_P(Bsr, SpmvChecksOperands) {
  const auto A = small(exec());
  Vector<double> x(exec(), 8, 1.0), y(exec(), 4, 0.0);
  EXPECT_THROW(spmv(A, x, y), dimension_mismatch);
  const auto e = exec();
  const BsrMatrix<double> square(1, 1, 2, 2, Array<offset_type>(e, {0, 1}),
                                 Array<index_type>(e, {0}), Array<double>(e, {1, 2, 3, 4}));
  Vector<double> same(e, 2, 1.0);
  EXPECT_THROW(spmv(square, same, same), invalid_argument);
}

TEST_P(Bsr, ConstructorAndValidateNameTheProblem) {
  const auto e = exec();
  EXPECT_THROW(BsrMatrix<double>(1, 1, 2, 2, Array<offset_type>(e, {0, 1}),
                                 Array<index_type>(e, {0}), Array<double>(e, {1, 2, 3})),
               dimension_mismatch);
  EXPECT_THROW(BsrMatrix<double>(1, 1, 0, 2, Array<offset_type>(e, {0, 0}), Array<index_type>(e, 0),
                                 Array<double>(e, 0)),
               invalid_argument);
  auto dup =
      BsrMatrix<double>(2, 3, 1, 2, Array<offset_type>(e, {0, 1, 3}),
                        Array<index_type>(e, {0, 2, 2}), Array<double>(e, {1, 1, 1, 1, 1, 1}));
  try {
    dup.validate();
    FAIL();
  } catch (const invalid_argument& err) {
    EXPECT_NE(std::string(err.what()).find("block row 1"), std::string::npos) << err.what();
    EXPECT_NE(std::string(err.what()).find("repeats"), std::string::npos) << err.what();
  }
  auto nan = BsrMatrix<double>(1, 1, 1, 2, Array<offset_type>(e, {0, 1}), Array<index_type>(e, {0}),
                               Array<double>(e, {1, NAN}));
  EXPECT_THROW(nan.validate(), invalid_argument);
  auto far = BsrMatrix<double>(1, 1, 1, 1, Array<offset_type>(e, {0, 1}), Array<index_type>(e, {1}),
                               Array<double>(e, {1}));
  EXPECT_THROW(far.validate(), invalid_argument);
}

/// SpMV of A against the CSR SpMV of to_csr(A) on A's executor: on the host
/// the contract's order of summation makes them identical; on the device
/// they agree to rounding.
void expect_spmv_matches_csr(const BsrMatrix<double>& A, const std::string& what) {
  A.validate();
  const auto& e = A.executor();
  const auto C = to_csr(A);
  C.validate();
  const auto xv = test::random_values(A.cols(), 21);
  const auto yv = test::random_values(A.rows(), 22);
  Vector<double> x(Array<double>(e, xv)), y1(Array<double>(e, yv)), y2(Array<double>(e, yv));
  spmv(1.5, A, x, -0.5, y1);
  spmv(1.5, C, x, -0.5, y2);
  const auto a = y1.to_vector(), b = y2.to_vector();
  const auto rp = C.row_ptr().to_vector();
  const auto va = C.values().to_vector();
  for (size_type i = 0; i < A.rows(); ++i) {
    if (e.is_host()) {
      ASSERT_EQ(a[i], b[i]) << what << ": row " << i;
    } else {
      double scale = std::abs(yv[i]);
      for (auto k = rp[i]; k < rp[i + 1]; ++k) scale += std::abs(va[k]);
      ASSERT_NEAR(a[i], b[i], 1e-13 * (1 + scale)) << what << ": row " << i;
    }
  }
}

const std::vector<std::pair<int, int>> block_shapes = {
    {1, 1}, {2, 2}, {3, 3}, {4, 4}, {6, 6}, {2, 3}, {3, 2}, {3, 6}, {6, 3},  // fast paths
    {5, 2}, {1, 4}, {7, 7}};                                                 // generic

TEST_P(Bsr, SpmvEveryBlockShapeMatchesScalarPath) {
  for (const auto& [r, c] : block_shapes) {
    const auto A = random_bsr(
        60, 45, r, c,
        [](size_type I, auto& g) { return I % 9 == 4 ? 0 : 1 + static_cast<size_type>(g() % 12); },
        static_cast<unsigned>(r * 10 + c));
    expect_spmv_matches_csr(A.to(exec()), std::to_string(r) + "x" + std::to_string(c));
  }
}

TEST_P(Bsr, CsrToBsrFillsTouchedBlocksWithZeros) {
  // [1 0 | 0 2 | 0 0]
  // [0 0 | 0 0 | 3 0]   in 2x2 blocks: three blocks, each one entry and three zeros
  const auto e = exec();
  const CsrMatrix<double> A(2, 6, Array<offset_type>(e, {0, 2, 3}), Array<index_type>(e, {3, 0, 4}),
                            Array<double>(e, {2, 1, 3}));
  const auto B = to_bsr(A, 2, 2);
  B.validate();
  EXPECT_EQ(B.block_rows(), 1);
  EXPECT_EQ(B.block_cols(), 3);
  EXPECT_EQ(B.row_ptr().to_vector(), (std::vector<offset_type>{0, 3}));
  EXPECT_EQ(B.col_idx().to_vector(), (std::vector<index_type>{0, 1, 2}));
  EXPECT_EQ(B.values().to_vector(), (std::vector<double>{1, 0, 0, 0, 0, 2, 0, 0, 0, 0, 3, 0}));
  const auto C = to_csr(B);
  EXPECT_EQ(C.nnz(), 12);
  EXPECT_EQ(nonzeros(C), nonzeros(A));
  EXPECT_THROW(to_bsr(A, 3, 2), invalid_argument);
  EXPECT_THROW(to_bsr(A, 2, 4), invalid_argument);
  EXPECT_THROW(to_bsr(A, 0), invalid_argument);
}

TEST_P(Bsr, CsrToBsrTakesUnsortedRowsAndBlockRowsPastTheShortList) {
  // to_bsr converts block rows of up to 64 block columns by short sorted
  // lists and falls back to a sort of every entry past that: a block row of
  // 90 block columns (columns listed backwards) and unsorted short rows
  // must give the same blocks either way.
  const auto e = Executor::host();
  std::vector<offset_type> p{0};
  std::vector<index_type> c;
  std::vector<double> v;
  const auto row = [&](std::vector<index_type> cols) {
    for (const index_type j : cols) {
      c.push_back(j);
      v.push_back(1.0 + double(c.size()) / 8.0);
    }
    p.push_back(static_cast<offset_type>(c.size()));
  };
  row({5, 1, 3});
  row({0, 4});
  std::vector<index_type> wide;
  for (index_type j = 179; j >= 0; j -= 2) wide.push_back(j);  // 90 block columns of 2
  row(wide);
  row({});
  const CsrMatrix<double> A(4, 180, Array<offset_type>(e, p), Array<index_type>(e, c),
                            Array<double>(e, v));
  const CsrMatrix<double> short_rows(2, 180, Array<offset_type>(e, {0, 3, 5}),
                                     Array<index_type>(e, {5, 1, 3, 0, 4}),
                                     Array<double>(e, {v[0], v[1], v[2], v[3], v[4]}));
  for (const CsrMatrix<double>* M : {&A, &short_rows}) {
    const auto B = to_bsr(M->to(exec()), 2, 2);
    B.validate();
    EXPECT_EQ(nonzeros(B), nonzeros(*M));
    const std::vector<index_type> cols = B.col_idx().to_vector();
    const std::vector<offset_type> ptr = B.row_ptr().to_vector();
    for (std::size_t I = 0; I + 1 < ptr.size(); ++I) {
      for (offset_type k = ptr[I] + 1; k < ptr[I + 1]; ++k) {
        EXPECT_LT(cols[k - 1], cols[k]) << "block row " << I;
      }
    }
  }
  EXPECT_EQ(to_bsr(short_rows.to(exec()), 2, 2).col_idx().to_vector(),
            (std::vector<index_type>{0, 1, 2}));
}

TEST_P(Bsr, RoundTripsThroughCsrForEveryShape) {
  for (const auto& [r, c] : block_shapes) {
    const auto A =
        random_bsr(
            40, 33, r, c,
            [](size_type I, auto& g) { return I == 7 ? 33 : static_cast<size_type>(g() % 5); },
            static_cast<unsigned>(100 + r * 10 + c))
            .to(exec());
    const auto C = to_csr(A);
    EXPECT_EQ(C.rows(), A.rows());
    EXPECT_EQ(C.cols(), A.cols());
    EXPECT_EQ(C.nnz(), A.nnz());
    const auto B = to_bsr(C, r, c);
    B.validate();
    EXPECT_EQ(B.num_blocks(), A.num_blocks());
    EXPECT_EQ(nonzeros(B), nonzeros(A)) << r << "x" << c;
  }
}

/// The transpose by plain loops over (row, col, value) triplets.
std::map<std::pair<size_type, size_type>, double> transposed(
    const std::map<std::pair<size_type, size_type>, double>& m) {
  std::map<std::pair<size_type, size_type>, double> t;
  for (const auto& [key, v] : m) t[{key.second, key.first}] = v;
  return t;
}

TEST_P(Bsr, TransposeOfRectangularBlocks) {
  for (const auto& [r, c] : block_shapes) {
    const auto A =
        random_bsr(
            50, 30, r, c,
            [](size_type I, auto& g) { return I % 5 == 0 ? 0 : static_cast<size_type>(g() % 8); },
            static_cast<unsigned>(200 + r * 10 + c))
            .to(exec());
    const auto T = transpose(A);
    T.validate();
    EXPECT_EQ(T.block_rows(), A.block_cols());
    EXPECT_EQ(T.block_cols(), A.block_rows());
    EXPECT_EQ(T.row_block_size(), c);
    EXPECT_EQ(T.col_block_size(), r);
    EXPECT_EQ(T.num_blocks(), A.num_blocks());
    EXPECT_EQ(nonzeros(T), transposed(nonzeros(A))) << r << "x" << c;
    // Block columns ascend in every block row of the result.
    const auto rp = T.row_ptr().to_vector();
    const auto ci = T.col_idx().to_vector();
    for (size_type I = 0; I < T.block_rows(); ++I) {
      for (auto k = rp[I] + 1; k < rp[I + 1]; ++k) ASSERT_LT(ci[k - 1], ci[k]);
    }
    // (A^T)^T = A up to the order of blocks within a block row.
    EXPECT_EQ(nonzeros(transpose(T)), nonzeros(A));
  }
}

// The host transposes by counting, with atomics and a per-column sort on
// several threads: past the parallel threshold (18,000 blocks here) one and
// four threads must give the same matrix, that of the plain loops.
TEST(BsrHost, TransposeOnOneAndFourThreadsIsTheSame) {
  const auto A = random_bsr(
      6000, 500, 3, 2,
      [](size_type I, auto& g) { return I % 9 == 0 ? 0 : 1 + static_cast<size_type>(g() % 5); },
      17);
  ASSERT_GT(A.num_blocks(), 8192);
  std::vector<BsrMatrix<double>> results;
  for (const int threads : {1, 4}) {
    results.push_back(transpose(A.to(Executor::host(threads))));
    results.back().validate();
  }
  EXPECT_EQ(results[0].row_ptr().to_vector(), results[1].row_ptr().to_vector());
  EXPECT_EQ(results[0].col_idx().to_vector(), results[1].col_idx().to_vector());
  EXPECT_EQ(results[0].values().to_vector(), results[1].values().to_vector());
  EXPECT_EQ(nonzeros(results[1]), transposed(nonzeros(A)));
}

TEST_P(Bsr, TransposeGivesTheRestrictionOfAProlongator) {
  // A 3x6-block prolongator and its 6x3-block restriction: R x = P^T x.
  const auto P =
      random_bsr(
          80, 12, 3, 6, [](size_type, auto& g) { return 1 + static_cast<size_type>(g() % 2); }, 5)
          .to(exec());
  const auto R = transpose(P);
  EXPECT_EQ(R.rows(), 72);
  EXPECT_EQ(R.cols(), 240);
  expect_spmv_matches_csr(R, "restriction 6x3");
  expect_spmv_matches_csr(P, "prolongator 3x6");
}

TEST_P(Bsr, ElasticityAsBlocksOfThree) {
  const auto A = gallery::elasticity3d(exec(), 3).A;
  const auto B = to_bsr(A, 3);
  B.validate();
  EXPECT_EQ(B.num_blocks() * 9, A.nnz());  // the gallery stores full 3x3 blocks
  EXPECT_EQ(nonzeros(B), nonzeros(A));
  expect_spmv_matches_csr(B, "elasticity");
  // The block SpMV equals the scalar one on the original matrix too (the
  // gallery's columns ascend, and so do the blocks').
  const auto xv = test::random_values(A.cols(), 3);
  Vector<double> x(Array<double>(exec(), xv)), y1(exec(), A.rows()), y2(exec(), A.rows());
  spmv(A, x, y1);
  spmv(B, x, y2);
  const auto a = y1.to_vector(), b = y2.to_vector();
  for (size_type i = 0; i < A.rows(); ++i) ASSERT_NEAR(a[i], b[i], 1e-12) << "row " << i;
}

TEST_P(Bsr, EmptyAndSingleBlockRow) {
  const auto e = exec();
  const BsrMatrix<double> empty(0, 0, 3, 3, Array<offset_type>(e, {0}), Array<index_type>(e, 0),
                                Array<double>(e, 0));
  empty.validate();
  Vector<double> x0(e, 0), y0(e, 0);
  spmv(empty, x0, y0);
  EXPECT_EQ(transpose(empty).num_blocks(), 0);
  EXPECT_EQ(to_csr(empty).rows(), 0);
  const auto one = random_bsr(
                       1, 200, 3, 6, [](size_type, auto&) { return 200; }, 9)
                       .to(e);
  expect_spmv_matches_csr(one, "one long block row");
  expect_spmv_matches_csr(transpose(one), "its transpose: one block per row");
}

TEST(BsrHost, FloatSpmv) {
  const auto h = Executor::host();
  const BsrMatrix<float> A(1, 1, 2, 2, Array<offset_type>(h, {0, 1}), Array<index_type>(h, {0}),
                           Array<float>(h, {1, 2, 3, 4}));
  Vector<float> x(Array<float>(h, {1, 1})), y(h, 2);
  spmv(A, x, y);
  EXPECT_EQ(y.to_vector(), (std::vector<float>{3, 7}));
}

// ------------------------------------------------------------------ device vs host

void expect_device_matches_host(const BsrMatrix<double>& A, const std::string& what) {
  const auto d = Executor::cuda();
  const auto Ad = A.to(d);
  // SpMV to rounding, and a second device run repeats bit for bit.
  const auto xv = test::random_values(A.cols(), 31);
  const auto yv = test::random_values(A.rows(), 32);
  Vector<double> xh(Array<double>(Executor::host(), xv)), yh(Array<double>(Executor::host(), yv));
  Vector<double> xd(Array<double>(d, xv)), yd(Array<double>(d, yv)), yd2(Array<double>(d, yv));
  spmv(1.5, A, xh, -0.5, yh);
  spmv(1.5, Ad, xd, -0.5, yd);
  spmv(1.5, Ad, xd, -0.5, yd2);
  const auto a = yh.to_vector(), b = yd.to_vector();
  const auto rp = A.row_ptr().to_vector();
  const auto va = A.values().to_vector();
  const int block = A.row_block_size() * A.col_block_size();
  for (size_type i = 0; i < A.rows(); ++i) {
    const size_type I = i / A.row_block_size();
    double scale = std::abs(yv[i]);
    for (auto k = rp[I] * block; k < rp[I + 1] * block; ++k) scale += std::abs(va[k]);
    ASSERT_NEAR(a[i], b[i], 1e-13 * (1 + scale)) << what << ": row " << i;
  }
  EXPECT_EQ(yd.to_vector(), yd2.to_vector()) << what;
  // Conversions and the transpose are exact.
  const auto T = transpose(A), Td = transpose(Ad);
  EXPECT_EQ(T.row_ptr().to_vector(), Td.row_ptr().to_vector()) << what;
  EXPECT_EQ(T.col_idx().to_vector(), Td.col_idx().to_vector()) << what;
  EXPECT_EQ(T.values().to_vector(), Td.values().to_vector()) << what;
  const auto C = to_csr(A), Cd = to_csr(Ad);
  EXPECT_EQ(C.row_ptr().to_vector(), Cd.row_ptr().to_vector()) << what;
  EXPECT_EQ(C.col_idx().to_vector(), Cd.col_idx().to_vector()) << what;
  EXPECT_EQ(C.values().to_vector(), Cd.values().to_vector()) << what;
  const auto B = to_bsr(C, A.row_block_size(), A.col_block_size());
  const auto Bd = to_bsr(Cd, A.row_block_size(), A.col_block_size());
  EXPECT_EQ(B.row_ptr().to_vector(), Bd.row_ptr().to_vector()) << what;
  EXPECT_EQ(B.col_idx().to_vector(), Bd.col_idx().to_vector()) << what;
  EXPECT_EQ(B.values().to_vector(), Bd.values().to_vector()) << what;
  Ad.validate();
}

TEST(BsrDevice, EveryBlockShapeWithEmptyShortAndLongBlockRows) {
  STRATA_REQUIRE_DEVICE();
  for (const auto& [r, c] : block_shapes) {
    const std::string shape = std::to_string(r) + "x" + std::to_string(c);
    // Short block rows (small groups of lanes) with empty ones.
    expect_device_matches_host(random_bsr(
                                   3001, 2000, r, c,
                                   [](size_type I, auto& g) {
                                     return I % 5 == 0 ? 0 : 1 + static_cast<size_type>(g() % 4);
                                   },
                                   1),
                               shape + " short");
    // Long block rows (a warp each, several unrolled rounds) and one very long.
    expect_device_matches_host(random_bsr(
                                   700, 900, r, c,
                                   [](size_type I, auto& g) {
                                     return I == 350 ? 900 : 20 + static_cast<size_type>(g() % 60);
                                   },
                                   2),
                               shape + " long");
    // One block per block row: groups of 4 lanes, fewer than 6 rows of a block.
    expect_device_matches_host(random_bsr(
                                   999, 500, r, c, [](size_type, auto&) { return 1; }, 3),
                               shape + " one block per row");
  }
  expect_device_matches_host(random_bsr(
                                 1, 5000, 3, 3, [](size_type, auto&) { return 5000; }, 3),
                             "single block row");
  expect_device_matches_host(random_bsr(
                                 1000, 1000, 3, 3, [](size_type, auto&) { return 0; }, 4),
                             "all block rows empty");
}

TEST(BsrDevice, ElasticityBlockSpmvMatchesScalar) {
  STRATA_REQUIRE_DEVICE();
  const auto d = Executor::cuda();
  const auto A = gallery::elasticity3d(d, 12).A;
  const auto B = to_bsr(A, 3);
  const auto Bh = to_bsr(A.to(Executor::host()), 3);
  EXPECT_EQ(B.col_idx().to_vector(), Bh.col_idx().to_vector());
  EXPECT_EQ(B.values().to_vector(), Bh.values().to_vector());
  expect_spmv_matches_csr(B, "elasticity on the device");
}

STRATA_INSTANTIATE_ON_EXECUTORS(Bsr);

}  // namespace
}  // namespace strata
