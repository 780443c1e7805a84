// The explicit CSR transpose: hand-checked cases on both executors, and the
// device against the host (bit for bit) on larger, awkward shapes.

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <tuple>
#include <vector>

#include "strata/gallery/gallery.hpp"
#include "strata/matrix/transpose.hpp"
#include "test_util.hpp"

namespace strata {
namespace {

struct Entry {
  index_type col;
  double value;
};

/// Plain reference: rows of A^T with ascending columns, from the host copy.
std::vector<std::vector<Entry>> reference_transpose(const CsrMatrix<double>& A) {
  const auto rp = A.row_ptr().to_vector();
  const auto ci = A.col_idx().to_vector();
  const auto va = A.values().to_vector();
  std::vector<std::vector<Entry>> rows(static_cast<std::size_t>(A.cols()));
  for (size_type i = 0; i < A.rows(); ++i) {
    for (auto k = rp[i]; k < rp[i + 1]; ++k) rows[ci[k]].push_back({index_type(i), va[k]});
  }
  return rows;  // rows i are visited in order, so columns come out ascending
}

void expect_equals_reference(const CsrMatrix<double>& At, const CsrMatrix<double>& A) {
  At.validate();
  ASSERT_EQ(At.rows(), A.cols());
  ASSERT_EQ(At.cols(), A.rows());
  ASSERT_EQ(At.nnz(), A.nnz());
  const auto ref = reference_transpose(A);
  const auto rp = At.row_ptr().to_vector();
  const auto ci = At.col_idx().to_vector();
  const auto va = At.values().to_vector();
  for (size_type r = 0; r < At.rows(); ++r) {
    ASSERT_EQ(rp[r + 1] - rp[r], static_cast<offset_type>(ref[r].size())) << "row " << r;
    for (std::size_t m = 0; m < ref[r].size(); ++m) {
      EXPECT_EQ(ci[rp[r] + m], ref[r][m].col) << "row " << r;
      EXPECT_EQ(va[rp[r] + m], ref[r][m].value) << "row " << r;
    }
  }
}

/// Random rows x cols matrix, columns within a row unsorted, row lengths by `length`.
template <class Length>
CsrMatrix<double> random_matrix(const Executor& e, size_type rows, size_type cols, Length length,
                                unsigned seed) {
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<double> value(-1, 1);
  std::vector<offset_type> rp(rows + 1, 0);
  std::vector<index_type> ci;
  std::vector<double> va;
  std::vector<index_type> all(cols);
  for (size_type j = 0; j < cols; ++j) all[j] = index_type(j);
  for (size_type i = 0; i < rows; ++i) {
    const size_type len = std::min<size_type>(length(i, gen), cols);
    std::shuffle(all.begin(), all.end(), gen);
    for (size_type k = 0; k < len; ++k) {
      ci.push_back(all[k]);
      va.push_back(value(gen));
    }
    rp[i + 1] = offset_type(ci.size());
  }
  return CsrMatrix<double>(rows, cols, Array<offset_type>(e, rp), Array<index_type>(e, ci),
                           Array<double>(e, va));
}

class Transpose : public test::OnExecutor {};

TEST_P(Transpose, SmallRectangularHandChecked) {
  // [ 1 0 2 0 ]          [ 1 0 5 ]
  // [ 0 0 0 0 ]   ^T =   [ 0 0 0 ]
  // [ 5 0 0 3 ]          [ 2 0 0 ]
  //                      [ 0 0 3 ]
  // (row 0 stored with its columns out of order)
  const auto e = exec();
  CsrMatrix<double> A(3, 4, Array<offset_type>(e, {0, 2, 2, 4}), Array<index_type>(e, {2, 0, 0, 3}),
                      Array<double>(e, {2, 1, 5, 3}));
  const auto At = transpose(A);
  EXPECT_EQ(At.executor(), e);
  EXPECT_EQ(At.rows(), 4);
  EXPECT_EQ(At.cols(), 3);
  EXPECT_EQ(At.row_ptr().to_vector(), (std::vector<offset_type>{0, 2, 2, 3, 4}));
  EXPECT_EQ(At.col_idx().to_vector(), (std::vector<index_type>{0, 2, 0, 2}));
  EXPECT_EQ(At.values().to_vector(), (std::vector<double>{1, 5, 2, 3}));
}

TEST_P(Transpose, EmptyAndDegenerateShapes) {
  const auto e = exec();
  CsrMatrix<double> empty(0, 0, Array<offset_type>(e, {0}), Array<index_type>(e, 0),
                          Array<double>(e, 0));
  const auto Et = transpose(empty);
  EXPECT_EQ(Et.rows(), 0);
  EXPECT_EQ(Et.nnz(), 0);
  CsrMatrix<double> no_entries(3, 5, Array<offset_type>(e, {0, 0, 0, 0}), Array<index_type>(e, 0),
                               Array<double>(e, 0));
  const auto Nt = transpose(no_entries);
  EXPECT_EQ(Nt.rows(), 5);
  EXPECT_EQ(Nt.cols(), 3);
  EXPECT_EQ(Nt.row_ptr().to_vector(), (std::vector<offset_type>(6, 0)));
}

TEST_P(Transpose, RandomMatchesReferenceAndTwiceIsIdentity) {
  auto A = random_matrix(
      exec(), 777, 301, [](size_type i, auto& g) { return i % 7 == 0 ? 0 : g() % 12; }, 21);
  const auto At = transpose(A);
  expect_equals_reference(At, A);
  // (A^T)^T is A with its rows sorted.
  const auto Att = transpose(At);
  expect_equals_reference(Att, At);
  EXPECT_EQ(Att.row_ptr().to_vector(), A.row_ptr().to_vector());
}

TEST_P(Transpose, GallerySymmetricMatrixIsItsOwnTranspose) {
  const auto A = gallery::poisson3d(exec(), 9, 7, 5);  // rows sorted, symmetric
  const auto At = transpose(A);
  EXPECT_EQ(At.row_ptr().to_vector(), A.row_ptr().to_vector());
  EXPECT_EQ(At.col_idx().to_vector(), A.col_idx().to_vector());
  EXPECT_EQ(At.values().to_vector(), A.values().to_vector());
}

STRATA_INSTANTIATE_ON_EXECUTORS(Transpose);

// The host places entries row by row on one thread, and with atomics and a
// sort of each column by position in A on several: both must give the
// reference, on a matrix past the size below which one thread does it all,
// with columns of a few entries (insertion sort) and long ones (std::sort).
TEST(TransposeHost, OneAndFourThreadsGiveTheSameMatrix) {
  for (const int threads : {1, 4}) {
    const auto e = Executor::host(threads);
    auto A = random_matrix(
        e, 30000, 2000, [](size_type i, auto& g) { return i % 11 == 0 ? 0 : 1 + g() % 9; }, 5);
    expect_equals_reference(transpose(A), A);
    // A column of every row: 30000 entries to order.
    std::vector<offset_type> rp(30001);
    std::vector<index_type> ci;
    std::vector<double> va;
    for (size_type i = 0; i < 30000; ++i) {
      ci.push_back(index_type(i % 3));
      va.push_back(double(i));
      if (i % 2 == 0) {
        ci.push_back(index_type(5 + i % 40));
        va.push_back(-double(i));
      }
      rp[i + 1] = offset_type(ci.size());
    }
    CsrMatrix<double> B(30000, 50, Array<offset_type>(e, rp), Array<index_type>(e, ci),
                        Array<double>(e, va));
    expect_equals_reference(transpose(B), B);
  }
}

TEST(TransposeDevice, MatchesHostExactlyOnAwkwardShapes) {
  STRATA_REQUIRE_DEVICE();
  const auto h = Executor::host();
  const auto d = Executor::cuda();
  const std::vector<std::tuple<size_type, size_type, int>> shapes = {
      {20000, 3000, 0}, {1, 5000, 1}, {5000, 1, 2}, {4000, 4000, 3}};
  for (const auto& [rows, cols, kind] : shapes) {
    auto A = random_matrix(
        h, rows, cols,
        [kind = kind](size_type i, auto& g) -> size_type {
          if (kind == 1) return 5000;
          if (kind == 2) return g() % 2;
          if (kind == 3 && i == 17) return 4000;  // one very long row
          return i % 11 == 0 ? 0 : 1 + g() % 9;
        },
        unsigned(100 + kind));
    const auto Ht = transpose(A);
    const auto Dt = transpose(A.to(d));
    EXPECT_EQ(Dt.row_ptr().to_vector(), Ht.row_ptr().to_vector()) << rows << "x" << cols;
    EXPECT_EQ(Dt.col_idx().to_vector(), Ht.col_idx().to_vector()) << rows << "x" << cols;
    EXPECT_EQ(Dt.values().to_vector(), Ht.values().to_vector()) << rows << "x" << cols;
    expect_equals_reference(Ht, A);
  }
}

}  // namespace
}  // namespace strata
