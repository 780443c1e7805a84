// Device SpGEMM and Galerkin products against the host ones and the plain
// reference, on inputs built to reach every kernel class of the CUDA
// implementation: rows for 1..32 lanes, a block per row with a shared or a
// global hash table, rows longer than shared memory, empty rows, one very
// long row, rectangular shapes. And: a device run repeats bit for bit, and
// the device recompute equals a fresh device product bit for bit.

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "../unit/sparse_product_util.hpp"
#include "core/spgemm_internal.hpp"
#include "strata/gallery/gallery.hpp"
#include "strata/matrix/galerkin.hpp"
#include "strata/matrix/spgemm.hpp"
#include "strata/matrix/transpose.hpp"
#include "test_util.hpp"

namespace strata {
namespace {

using test::random_sparse;

/// Host A, B: device product against host product and reference; device
/// determinism and recompute.
void check_device_product(const CsrMatrix<double>& A, const CsrMatrix<double>& B,
                          const std::string& what) {
  const auto d = Executor::cuda();
  const auto ref = test::reference_product(A, B);
  const auto Ad = A.to(d), Bd = B.to(d);
  SparseProduct device(Ad, Bd);
  const auto host = spgemm(A, B);
  test::expect_matches_reference(host, ref, what + " (host)");
  test::expect_matches_reference(device.result(), ref, what + " (device)");
  test::expect_close(device.result(), host, what + ": device against host");
  EXPECT_EQ(device.products(), SparseProduct(A, B).products()) << what;
  test::expect_identical(device.result(), spgemm(Ad, Bd), what + ": second device run");
  const auto A2 = test::with_new_values(Ad, 5), B2 = test::with_new_values(Bd, 6);
  device.recompute(A2, B2);
  test::expect_identical(device.result(), spgemm(A2, B2), what + ": device recompute");
}

TEST(SpgemmDevice, RowsOfEveryClass) {
  STRATA_REQUIRE_DEVICE();
  const auto h = Executor::host();
  // Bands of A's row lengths: short (1-3 lanes' worth), medium (a warp),
  // long (a block with a shared table), very long (global tables and rows
  // beyond shared memory); every 13th row empty.
  auto A = random_sparse(
      h, 2600, 2000,
      [](size_type i, auto& g) -> size_type {
        if (i % 13 == 5) return 0;
        if (i < 1000) return 1 + g() % 3;
        if (i < 1800) return 8 + g() % 25;
        if (i < 2500) return 40 + g() % 80;
        return 200 + g() % 300;
      },
      101);
  auto B = random_sparse(
      h, 2000, 9000,
      [](size_type i, auto& g) -> size_type { return i % 17 == 0 ? 0 : 1 + g() % 40; }, 102);
  check_device_product(A, B, "bands of row lengths");
}

TEST(SpgemmDevice, ShortRowsAroundTheRegisterLimit) {
  STRATA_REQUIRE_DEVICE();
  // Rows of at most 32 products and 32 entries of A are computed in
  // registers, one product per lane; rows just past either limit take the
  // hash tables. Lengths here straddle both limits: A rows of 0..40 entries
  // times B rows of 0..2 entries (a third of B's rows empty, so some A rows
  // of 32+ entries still have few products).
  const auto h = Executor::host();
  auto A = random_sparse(
      h, 6000, 3000, [](size_type i, auto& g) -> size_type { return i % 11 == 3 ? 0 : g() % 41; },
      121);
  auto B = random_sparse(
      h, 3000, 2500, [](size_type i, auto& g) -> size_type { return i % 3 == 0 ? 0 : 1 + g() % 2; },
      122);
  check_device_product(A, B, "rows around 32 products");
  // Few columns: up to 32 products summed into one or two entries, so runs of
  // equal columns span the whole group.
  auto narrow = random_sparse(
      h, 3000, 2, [](size_type, auto& g) -> size_type { return 1 + g() % 2; }, 123);
  check_device_product(A, narrow, "32 products into 2 columns");
  // One row, one entry.
  check_device_product(random_sparse(
                           h, 1, 1, [](size_type, auto&) -> size_type { return 1; }, 124),
                       random_sparse(
                           h, 1, 1, [](size_type, auto&) -> size_type { return 1; }, 125),
                       "1 x 1");
}

/// rows x cols with 0..max_len - 1 random columns a row, for a cols too
/// large for random_sparse's table of all columns.
CsrMatrix<double> wide_sparse(size_type rows, size_type cols, unsigned max_len, unsigned seed) {
  std::mt19937_64 gen(seed);
  std::uniform_int_distribution<size_type> column(0, cols - 1);
  std::uniform_real_distribution<double> value(-1, 1);
  std::vector<offset_type> rp{0};
  std::vector<index_type> ci;
  std::vector<double> va;
  for (size_type i = 0; i < rows; ++i) {
    std::vector<index_type> row;
    for (unsigned k = gen() % max_len; k > 0; --k) row.push_back(index_type(column(gen)));
    std::sort(row.begin(), row.end());
    row.erase(std::unique(row.begin(), row.end()), row.end());
    for (const index_type j : row) {
      ci.push_back(j);
      va.push_back(value(gen));
    }
    rp.push_back(offset_type(ci.size()));
  }
  const auto h = Executor::host();
  return CsrMatrix<double>(rows, cols, Array<offset_type>(h, rp), Array<index_type>(h, ci),
                           Array<double>(h, va));
}

TEST(SpgemmDevice, MediumRowsSortedByAWarp) {
  STRATA_REQUIRE_DEVICE();
  // Rows of 33..256 products and at most 128 entries of A are sorted by a
  // warp, 1, 2, 4 or 8 keys a lane; rows past 256 products or 128 entries
  // take the hash tables. A rows of 0..140 entries times B rows of 0..7
  // entries (or 0..2, so that long rows of A stay within 256 products)
  // straddle every one of those limits.
  const auto h = Executor::host();
  auto A = random_sparse(
      h, 8000, 4000, [](size_type i, auto& g) -> size_type { return i % 19 == 7 ? 0 : g() % 141; },
      131);
  auto B = random_sparse(
      h, 4000, 30000, [](size_type i, auto& g) -> size_type { return i % 5 == 0 ? 0 : g() % 8; },
      132);
  check_device_product(A, B, "medium rows");
  auto B_short = random_sparse(
      h, 4000, 30000, [](size_type, auto& g) -> size_type { return g() % 3; }, 135);
  check_device_product(A, B_short, "medium rows of long rows of A");
  // Few columns: runs of up to 128 products (one per entry of A) that cross
  // lanes and registers.
  auto narrow = random_sparse(
      h, 4000, 3, [](size_type, auto& g) -> size_type { return 1 + g() % 3; }, 133);
  check_device_product(A, narrow, "medium rows into 3 columns");
  // Wide Bs: the 32-bit sort keys (column, product number) hold 2^25
  // columns only for rows of up to 64 products (longer medium rows take the
  // hash tables), and 2^27 columns for no medium row; short rows then sort
  // 64-bit keys.
  for (const size_type cols : {size_type{1} << 25, (size_type{1} << 27) + 5}) {
    check_device_product(A, wide_sparse(4000, cols, 8, 134),
                         "medium rows, " + std::to_string(cols) + " columns");
  }
}

TEST(SpgemmDevice, MediumRowsPastTheStagingBudget) {
  STRATA_REQUIRE_DEVICE();
  // The count pass keeps medium rows for the fill up to a budget of
  // entries; the fill computes the rows past it again. With no budget, a
  // small one (some rows kept, the rest not) and the default, the product
  // and its recompute are the same.
  const auto h = Executor::host();
  auto A = random_sparse(
      h, 3000, 2000, [](size_type, auto& g) -> size_type { return 5 + g() % 40; }, 141);
  auto B = random_sparse(
      h, 2000, 5000, [](size_type, auto& g) -> size_type { return 1 + g() % 6; }, 142);
  struct Restore {
    std::uint64_t budget;
    ~Restore() { detail::spgemm_staging_budget(budget); }
  } restore{detail::spgemm_staging_budget(0)};
  check_device_product(A, B, "no staging");
  detail::spgemm_staging_budget(20000);
  check_device_product(A, B, "20000 staged entries");
  detail::spgemm_staging_budget(restore.budget);
  check_device_product(A, B, "default staging");
}

TEST(GalerkinDevice, UnitRowsForCoarsePoints) {
  STRATA_REQUIRE_DEVICE();
  // The shape of classical interpolation: every fourth point is coarse (a
  // unit row of P), the others interpolate from up to 4 coarse points; A P
  // then has short rows, R (A P) long ones.
  const auto h = Executor::host();
  const auto d = Executor::cuda();
  const size_type n = 18;
  const auto A = gallery::poisson3d(h, n, n, n);
  const size_type rows = A.rows(), coarse = (rows + 3) / 4;
  std::vector<offset_type> rp{0};
  std::vector<index_type> ci;
  std::vector<double> va;
  for (size_type r = 0; r < rows; ++r) {
    if (r % 4 == 0) {
      ci.push_back(index_type(r / 4));
      va.push_back(1.0);
    } else {
      const size_type m = 1 + (r * 7) % 4;
      for (size_type t = 0; t < m; ++t) {
        ci.push_back(index_type((r / 4 + t * 37) % coarse));
        va.push_back(0.25 + 0.125 * double(t));
      }
      std::sort(ci.end() - m, ci.end());
      ci.erase(std::unique(ci.end() - m, ci.end()), ci.end());
      va.resize(ci.size());
    }
    rp.push_back(offset_type(ci.size()));
  }
  const CsrMatrix<double> P(rows, coarse, Array<offset_type>(h, rp), Array<index_type>(h, ci),
                            Array<double>(h, va));
  const auto R = transpose(P);
  GalerkinProduct host(R, A, P);
  const auto Ad = A.to(d), Pd = P.to(d), Rd = R.to(d);
  GalerkinProduct device(Rd, Ad, Pd);
  test::expect_close(device.AP(), host.AP(), "A P");
  test::expect_close(device.result(), host.result(), "R A P");
  test::expect_identical(device.result(), galerkin_product(Rd, Ad, Pd), "second device run");
  const auto A2 = test::with_new_values(Ad, 9);
  const auto P2 = test::with_new_values(Pd, 10);
  const auto R2 = transpose(P2);
  device.recompute(R2, A2, P2);
  test::expect_identical(device.result(), galerkin_product(R2, A2, P2), "recompute");
  GalerkinProduct host2(R2.to(h), A2.to(h), P2.to(h));
  test::expect_close(device.result(), host2.result(), "recompute against the host");
}

TEST(SpgemmDevice, OneVeryLongRowAmongShortRows) {
  STRATA_REQUIRE_DEVICE();
  const auto h = Executor::host();
  auto A = random_sparse(
      h, 20000, 20000,
      [](size_type i, auto& g) -> size_type { return i == 777 ? 6000 : 1 + g() % 6; }, 103);
  auto B = random_sparse(
      h, 20000, 20000, [](size_type, auto& g) -> size_type { return 1 + g() % 6; }, 104);
  check_device_product(A, B, "one very long row");
}

TEST(SpgemmDevice, ShortRowsOfB) {
  STRATA_REQUIRE_DEVICE();
  // The A P shape of aggregation: B with one entry per row.
  const auto h = Executor::host();
  auto A = random_sparse(
      h, 30000, 30000, [](size_type, auto& g) -> size_type { return 5 + g() % 5; }, 105);
  auto P = random_sparse(
      h, 30000, 4000, [](size_type, auto&) -> size_type { return 1; }, 106);
  check_device_product(A, P, "B with one entry per row");
}

TEST(SpgemmDevice, ManyProductsFewColumns) {
  STRATA_REQUIRE_DEVICE();
  // Dense 300 x 300 times dense 300 x 256: 90000 products per row but at
  // most 256 columns; and times 300 columns (rows beyond shared memory).
  const auto h = Executor::host();
  auto A = random_sparse(
      h, 300, 300, [](size_type, auto&) -> size_type { return 300; }, 107);
  auto B = random_sparse(
      h, 300, 256, [](size_type, auto&) -> size_type { return 256; }, 108);
  check_device_product(A, B, "dense, 256 columns");
  auto B2 = random_sparse(
      h, 300, 300, [](size_type, auto&) -> size_type { return 300; }, 109);
  check_device_product(A, B2, "dense, 300 columns");
}

TEST(SpgemmDevice, RectangularAndEmpty) {
  STRATA_REQUIRE_DEVICE();
  const auto h = Executor::host();
  auto A = random_sparse(
      h, 5000, 40, [](size_type i, auto& g) -> size_type { return i % 3 ? g() % 5 : 0; }, 110);
  auto B = random_sparse(
      h, 40, 7000, [](size_type, auto& g) -> size_type { return g() % 60; }, 111);
  check_device_product(A, B, "tall times wide");
  check_device_product(random_sparse(
                           h, 1, 3000, [](size_type, auto&) -> size_type { return 3000; }, 112),
                       random_sparse(
                           h, 3000, 1, [](size_type, auto&) -> size_type { return 1; }, 113),
                       "row times column");
  check_device_product(random_sparse(
                           h, 100, 100, [](size_type, auto&) -> size_type { return 0; }, 114),
                       random_sparse(
                           h, 100, 100, [](size_type, auto&) -> size_type { return 3; }, 115),
                       "empty A");
}

TEST(SpgemmDevice, GalleryMatrices) {
  STRATA_REQUIRE_DEVICE();
  const auto h = Executor::host();
  const auto A7 = gallery::poisson3d(h, 24, 23, 22);
  check_device_product(A7, A7, "7-point");
  const auto A27 = gallery::diffusion3d_27pt(h, 16, 15, 14);
  check_device_product(A27, A27, "27-point");
  const auto E = gallery::elasticity3d(h, 5).A;
  check_device_product(E, E, "elasticity");
}

TEST(SpgemmDevice, SizeSafetyHelpersMatchHost) {
  STRATA_REQUIRE_DEVICE();
  const auto d = Executor::cuda();
  const offset_type big = offset_type{1} << 33;
  Array<offset_type> work(d, 2);
  const size_type total = detail::spgemm_row_products(
      Array<offset_type>(d, {0, 2, 3}), Array<index_type>(d, {0, 1, 1}),
      Array<offset_type>(d, {0, big, big + (offset_type{1} << 31) + 1}), work);
  EXPECT_EQ(work.to_vector(), (std::vector<offset_type>{big + (offset_type{1} << 31) + 1,
                                                        (offset_type{1} << 31) + 1}));
  EXPECT_EQ(total, big + (offset_type{1} << 32) + 2);
  Array<offset_type> counts(d, {2147483647, 2147483647, 2147483647, 0});
  EXPECT_EQ(detail::spgemm_counts_to_offsets(counts, 2147483647), 3 * offset_type{2147483647});
  Array<offset_type> wrapped(d, {1, -5, 0});
  EXPECT_THROW((void)detail::spgemm_counts_to_offsets(wrapped, 100), invalid_argument);
}

TEST(GalerkinDevice, MatchesHost) {
  STRATA_REQUIRE_DEVICE();
  const auto h = Executor::host();
  const auto d = Executor::cuda();
  const size_type n = 20;
  const auto A = gallery::poisson3d(h, n, n, n);
  for (int kind = 0; kind < 2; ++kind) {
    const auto P =
        kind == 0 ? test::aggregation_prolongator(h, n, n, n, 2) : test::linear_prolongator(h, n);
    const std::string what = kind == 0 ? "aggregation" : "trilinear";
    const auto R = transpose(P);
    GalerkinProduct host(R, A, P);
    const auto Ad = A.to(d), Pd = P.to(d);
    const auto Rd = transpose(Pd);
    test::expect_identical(Rd, R, what + ": R = P^T on the device");
    GalerkinProduct device(Rd, Ad, Pd);
    test::expect_close(device.result(), host.result(), what);
    const auto A2 = test::with_new_values(Ad, 7);
    device.recompute(Rd, A2, Pd);
    test::expect_identical(device.result(), galerkin_product(Rd, A2, Pd), what + ": recompute");
  }
}

}  // namespace
}  // namespace strata
