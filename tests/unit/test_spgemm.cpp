// Sparse products C = A B on both executors: hand-checked cases, random
// matrices against a plain reference, gallery matrices, value-only
// recompute, determinism, operand checks and the 64-bit counting helpers.

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "core/spgemm_internal.hpp"
#include "sparse_product_util.hpp"
#include "strata/gallery/gallery.hpp"
#include "strata/matrix/spgemm.hpp"
#include "test_util.hpp"

namespace strata {
namespace {

using test::random_sparse;

class Spgemm : public test::OnExecutor {};

TEST_P(Spgemm, SmallRectangularHandChecked) {
  const auto e = exec();
  // A = [ 1 0 2 ]    B = [ 0 3 ]    A B = [ 4 3 ]
  //     [ 0 0 0 ]        [ 5 0 ]          [ 0 0 ]
  //                      [ 2 0 ]
  // (A's row 0 stored with its columns descending)
  CsrMatrix<double> A(2, 3, Array<offset_type>(e, {0, 2, 2}), Array<index_type>(e, {2, 0}),
                      Array<double>(e, {2, 1}));
  CsrMatrix<double> B(3, 2, Array<offset_type>(e, {0, 1, 2, 3}), Array<index_type>(e, {1, 0, 0}),
                      Array<double>(e, {3, 5, 2}));
  SparseProduct product(A, B);
  const auto& C = product.result();
  EXPECT_EQ(C.executor(), e);
  EXPECT_EQ(C.rows(), 2);
  EXPECT_EQ(C.cols(), 2);
  EXPECT_EQ(C.row_ptr().to_vector(), (std::vector<offset_type>{0, 2, 2}));
  EXPECT_EQ(C.col_idx().to_vector(), (std::vector<index_type>{0, 1}));
  EXPECT_EQ(C.values().to_vector(), (std::vector<double>{4, 3}));
  EXPECT_EQ(product.products(), 2);
  EXPECT_EQ(spgemm(A, B).values().to_vector(), (std::vector<double>{4, 3}));
}

TEST_P(Spgemm, RandomShapesMatchReference) {
  const auto e = exec();
  struct Case {
    const char* what;
    size_type m, n, p;
    int kind;
  };
  const Case cases[] = {{"square, varied rows, empty rows", 400, 400, 400, 0},
                        {"tall times wide", 600, 37, 900, 1},
                        {"wide times tall", 50, 700, 60, 2},
                        {"one very long row in A", 300, 500, 400, 3},
                        {"one very long row in B", 300, 500, 400, 4},
                        {"single row and single column", 1, 800, 1, 5},
                        // Past the host's column marks (2^24 over all threads):
                        // the hash-set path.
                        {"B wider than the host's column marks", 200, 300,
                         (size_type{1} << 24) + 3, 6}};
  for (const auto& c : cases) {
    const int kind = c.kind;
    auto A = random_sparse(
        e, c.m, c.n,
        [kind](size_type i, auto& g) -> size_type {
          if (kind == 3 && i == 123) return 500;  // every column
          if (kind == 5) return 800;
          return i % 9 == 4 ? 0 : 1 + g() % 12;
        },
        11u + unsigned(kind));
    auto B = random_sparse(
        e, c.n, c.p,
        [kind](size_type i, auto& g) -> size_type {
          if (kind == 4 && i == 77) return 400;
          if (kind == 5) return 1;
          return i % 7 == 3 ? 0 : g() % 15;
        },
        31u + unsigned(kind));
    SparseProduct product(A, B);
    test::expect_matches_reference(product.result(), test::reference_product(A, B), c.what);
    const auto fresh = product.result().clone();
    product.recompute(A, B);
    test::expect_identical(product.result(), fresh, std::string(c.what) + ", recompute");
  }
}

TEST_P(Spgemm, GalleryProductsMatchReference) {
  const auto A7 = gallery::poisson3d(exec(), 7, 6, 5);
  test::expect_matches_reference(spgemm(A7, A7), test::reference_product(A7, A7), "7-point");
  const auto A27 = gallery::diffusion3d_27pt(exec(), 6, 6, 6);
  test::expect_matches_reference(spgemm(A27, A27), test::reference_product(A27, A27), "27-point");
  // A 5-point 2D A^2 has the 13-point stencil pattern.
  const auto A5 = gallery::poisson2d(exec(), 9, 9);
  const auto C5 = spgemm(A5, A5);
  const size_type n = 9;  // pairs of points at Manhattan distance <= 2, both in the grid
  EXPECT_EQ(C5.nnz(), n * n + 4 * n * (n - 1) + 4 * n * (n - 2) + 4 * (n - 1) * (n - 1));
  test::expect_matches_reference(C5, test::reference_product(A5, A5), "5-point");
}

TEST_P(Spgemm, RecomputeEqualsAFreshProductBitForBit) {
  const auto e = exec();
  auto A = random_sparse(
      e, 500, 300, [](size_type i, auto& g) { return i % 11 ? g() % 20 : 0; }, 5);
  auto B = random_sparse(
      e, 300, 450, [](size_type, auto& g) { return g() % 25; }, 6);
  SparseProduct product(A, B);
  const auto A2 = test::with_new_values(A, 7);
  const auto B2 = test::with_new_values(B, 8);
  product.recompute(A2, B2);
  test::expect_identical(product.result(), spgemm(A2, B2), "recompute with new A and B");
  test::expect_matches_reference(product.result(), test::reference_product(A2, B2), "recompute");
  // Values changed in place in the operands themselves.
  A.values() = test::with_new_values(A, 9).values().clone();
  product.recompute(A, B2);
  test::expect_identical(product.result(), SparseProduct(A, B2).result(), "in-place change");
}

TEST_P(Spgemm, RepeatsBitForBit) {
  const auto A = gallery::diffusion3d_27pt(exec(), 9, 8, 7);
  const auto B = test::with_new_values(A, 3);
  test::expect_identical(spgemm(A, B), spgemm(A, B), "two runs");
}

TEST_P(Spgemm, RecomputeRejectsAChangedPattern) {
  const auto e = exec();
  auto A = random_sparse(
      e, 40, 30, [](size_type, auto&) { return 3; }, 1);
  auto B = random_sparse(
      e, 30, 20, [](size_type, auto& g) { return 1 + g() % 5; }, 2);
  SparseProduct product(A, B);
  // Same shape and nonzero count; row 0's columns stored in another order.
  auto ci = A.col_idx().to_vector();
  std::swap(ci[0], ci[1]);
  CsrMatrix<double> A_swapped(A.rows(), A.cols(), A.row_ptr().clone(), Array<index_type>(e, ci),
                              A.values().clone());
  EXPECT_THROW(product.recompute(A_swapped, B), invalid_argument);
  EXPECT_THROW(product.recompute(B, B), invalid_argument);  // another shape
  try {
    product.recompute(A, A);
    FAIL() << "B with A's shape was accepted";
  } catch (const invalid_argument& err) {
    EXPECT_NE(std::string(err.what()).find("B "), std::string::npos) << err.what();
  }
  product.recompute(A, B);  // still usable
}

TEST_P(Spgemm, ChecksOperands) {
  const auto e = exec();
  auto A = random_sparse(
      e, 10, 7, [](size_type, auto&) { return 3; }, 1);
  try {
    (void)spgemm(A, A);
    FAIL();
  } catch (const dimension_mismatch& err) {
    EXPECT_NE(std::string(err.what()).find("10 x 7"), std::string::npos) << err.what();
  }
  if (e.is_cuda()) {
    auto host_B = random_sparse(
        Executor::host(), 7, 5, [](size_type, auto&) { return 2; }, 2);
    EXPECT_THROW((void)spgemm(A, host_B), location_mismatch);
  }
}

TEST_P(Spgemm, EmptyShapes) {
  const auto e = exec();
  auto none = [](size_type, auto&) -> size_type { return 0; };
  const auto C1 = spgemm(random_sparse(e, 0, 5, none, 1), random_sparse(e, 5, 4, none, 2));
  EXPECT_EQ(C1.rows(), 0);
  EXPECT_EQ(C1.cols(), 4);
  const auto C2 = spgemm(random_sparse(e, 6, 0, none, 1), random_sparse(e, 0, 3, none, 2));
  EXPECT_EQ(C2.rows(), 6);
  EXPECT_EQ(C2.nnz(), 0);
  EXPECT_EQ(C2.row_ptr().to_vector(), std::vector<offset_type>(7, 0));
  auto A = random_sparse(
      e, 20, 10, [](size_type, auto&) { return 4; }, 3);
  SparseProduct product(A, random_sparse(e, 10, 8, none, 4));
  EXPECT_EQ(product.result().nnz(), 0);
  EXPECT_EQ(product.products(), 0);
  product.recompute(A, random_sparse(e, 10, 8, none, 4));
}

// One row of 4100 x 1024 products, past the 2^22 products up to which the
// host notes each product's slot (beyond, it looks the slots up again); on
// the device, a row for the long-row path.
TEST_P(Spgemm, ARowOfMillionsOfProducts) {
  const auto e = exec();
  constexpr size_type k = 4100, width = 1024, cols = 1100;
  std::vector<offset_type> arp = {0, offset_type(k)}, brp(k + 1);
  std::vector<index_type> aci(k), bci;
  std::vector<double> ava(k), bva;
  for (size_type j = 0; j < k; ++j) {
    aci[j] = index_type(j);
    ava[j] = 1.0 + double(j % 13) / 8;
    for (size_type t = 0; t < width; ++t) {
      bci.push_back(index_type((7 * j + t) % cols));
      bva.push_back(double((j + 3 * t) % 17) - 8);
    }
    brp[j + 1] = offset_type(bci.size());
  }
  const CsrMatrix<double> A(1, k, Array<offset_type>(e, arp), Array<index_type>(e, aci),
                            Array<double>(e, ava));
  const CsrMatrix<double> B(k, cols, Array<offset_type>(e, brp), Array<index_type>(e, bci),
                            Array<double>(e, bva));
  SparseProduct product(A, B);
  EXPECT_EQ(product.products(), k * width);
  test::expect_matches_reference(product.result(), test::reference_product(A, B), "long row");
  const auto fresh = product.result().clone();
  product.recompute(A, B);
  test::expect_identical(product.result(), fresh, "recompute of the long row");
}

TEST_P(Spgemm, SinglePrecision) {
  const auto e = exec();
  const auto Ad = gallery::poisson3d(e, 5, 5, 5);
  const auto v = Ad.values().to_vector();
  CsrMatrix<float> A(Ad.rows(), Ad.cols(), Ad.row_ptr().clone(), Ad.col_idx().clone(),
                     Array<float>(e, std::vector<float>(v.begin(), v.end())));
  SparseProduct product(A, A);
  const auto& C = product.result();
  const auto Cd = spgemm(Ad, Ad);
  EXPECT_EQ(C.col_idx().to_vector(), Cd.col_idx().to_vector());
  const auto cf = C.values().to_vector();
  const auto cd = Cd.values().to_vector();
  for (std::size_t k = 0; k < cf.size(); ++k) EXPECT_EQ(double(cf[k]), cd[k]);  // small integers
  product.recompute(A, A);
}

// Size safety (hypre#1567): the counts are 64-bit, checked without
// allocating 2^31 entries.
TEST_P(Spgemm, RowProductsAre64Bit) {
  const auto e = exec();
  // B's row offsets only (its entries are never read): 4 rows of 2^30,
  // 2^31 - 1, 2^32 and 5 entries.
  const offset_type big = offset_type{1} << 30;
  const std::vector<offset_type> b_rp = {0, big, big + (offset_type{1} << 31) - 1,
                                         big + (offset_type{1} << 31) - 1 + (offset_type{1} << 32),
                                         big + (offset_type{1} << 31) + 4 + (offset_type{1} << 32)};
  // A: row 0 takes rows 0-3 of B, row 1 takes row 2 three times over
  // (distinct entries of A may not repeat a column, but the count does not
  // care), row 2 is empty.
  const std::vector<offset_type> a_rp = {0, 4, 7, 7};
  const std::vector<index_type> a_ci = {0, 1, 2, 3, 2, 1, 2};
  Array<offset_type> work(e, 3);
  const size_type total = detail::spgemm_row_products(
      Array<offset_type>(e, a_rp), Array<index_type>(e, a_ci), Array<offset_type>(e, b_rp), work);
  const offset_type row0 = b_rp[4];
  const offset_type row1 = 2 * (offset_type{1} << 32) + (offset_type{1} << 31) - 1;
  EXPECT_EQ(work.to_vector(), (std::vector<offset_type>{row0, row1, 0}));
  EXPECT_EQ(total, row0 + row1);
  EXPECT_GT(total, offset_type{1} << 33);
}

TEST_P(Spgemm, CountsToOffsetsIs64BitAndRejectsWrappedCounts) {
  const auto e = exec();
  const offset_type max32 = std::numeric_limits<std::int32_t>::max();
  Array<offset_type> counts(e, {max32, max32, 7, 0, max32, 0});
  const size_type nnz = detail::spgemm_counts_to_offsets(counts, max32);
  EXPECT_EQ(nnz, 3 * max32 + 7);
  EXPECT_EQ(counts.to_vector(), (std::vector<offset_type>{0, max32, 2 * max32, 2 * max32 + 7,
                                                          2 * max32 + 7, 3 * max32 + 7}));
  // A count that wrapped in 32-bit arithmetic (2^31 + 5 seen as negative).
  Array<offset_type> wrapped(e, {3, 4, -2147483643, 1, 0});
  try {
    (void)detail::spgemm_counts_to_offsets(wrapped, 1000);
    FAIL() << "a negative count was accepted";
  } catch (const invalid_argument& err) {
    EXPECT_NE(std::string(err.what()).find("row 2"), std::string::npos) << err.what();
  }
  Array<offset_type> too_many(e, {3, 1001, 0});
  EXPECT_THROW((void)detail::spgemm_counts_to_offsets(too_many, 1000), invalid_argument);
}

STRATA_INSTANTIATE_ON_EXECUTORS(Spgemm);

}  // namespace
}  // namespace strata
