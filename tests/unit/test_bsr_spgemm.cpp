// The blocked sparse products (SparseProduct and GalerkinProduct of BSR
// matrices) and the coarse products of block levels, on the host: against
// the CSR products of the expanded matrices (bit for bit on the host, where
// both sum in the same order, and within 1e-12 of the plain reference), for
// fast-path and generic block shapes, smoothed-aggregation shapes on
// elasticity, empty rows and columns; value-only recompute; the errors.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "core/elasticity_prolongator_internal.hpp"
#include "sparse_product_util.hpp"
#include "strata/gallery/gallery.hpp"
#include "strata/matrix/bsr_spgemm.hpp"
#include "strata/matrix/galerkin.hpp"
#include "strata/matrix/transpose.hpp"
#include "strata/solver/level_operator.hpp"
#include "test_util.hpp"

namespace strata {
namespace {

/// Block products a_IK b_KJ of A B, counted from the patterns.
size_type block_product_count(const BsrMatrix<double>& A, const BsrMatrix<double>& B) {
  const auto arp = A.row_ptr().to_vector();
  const auto aci = A.col_idx().to_vector();
  const auto brp = B.row_ptr().to_vector();
  size_type count = 0;
  for (size_type I = 0; I < A.block_rows(); ++I) {
    for (auto e = arp[I]; e < arp[I + 1]; ++e) count += brp[aci[e] + 1] - brp[aci[e]];
  }
  return count;
}

/// C (blocked) against the products of the expanded matrices: to_csr(C)
/// equal to the CSR product of to_csr(A) and to_csr(B) bit for bit, and
/// within 1e-12 of each entry's scale of the plain reference.
void expect_blocked_product(const BsrMatrix<double>& C, const BsrMatrix<double>& A,
                            const BsrMatrix<double>& B, const std::string& what) {
  ASSERT_EQ(C.row_block_size(), A.row_block_size()) << what;
  ASSERT_EQ(C.col_block_size(), B.col_block_size()) << what;
  ASSERT_EQ(C.block_rows(), A.block_rows()) << what;
  ASSERT_EQ(C.block_cols(), B.block_cols()) << what;
  C.validate();
  const auto ci = C.col_idx().to_vector();
  const auto rp = C.row_ptr().to_vector();
  for (size_type I = 0; I < C.block_rows(); ++I) {
    ASSERT_TRUE(std::is_sorted(ci.begin() + rp[I], ci.begin() + rp[I + 1])) << what << ", " << I;
  }
  const auto Ae = to_csr(A), Be = to_csr(B), Ce = to_csr(C);
  test::expect_matches_reference(Ce, test::reference_product(Ae, Be), what, 1e-12);
  test::expect_identical(Ce, spgemm(Ae, Be), what + ": against the expanded CSR product");
}

struct Shape {
  int r, m, c;
};

class BsrSpgemmShapes : public ::testing::TestWithParam<Shape> {};

TEST_P(BsrSpgemmShapes, EqualsTheProductOfTheExpandedMatrices) {
  const auto [r, m, c] = GetParam();
  const auto h = Executor::host();
  const std::string what = std::to_string(r) + "x" + std::to_string(m) + " times " +
                           std::to_string(m) + "x" + std::to_string(c);
  // Every 7th block row of A empty, every 5th of B empty; block rows of up to
  // 9 blocks, unsorted; B has block columns that no block row reaches.
  const auto A = test::random_bsr(
      h, 41, 23, r, m, [](size_type i, auto& g) -> size_type { return i % 7 == 3 ? 0 : g() % 10; },
      11 + r);
  const auto B = test::random_bsr(
      h, 23, 57, m, c,
      [](size_type i, auto& g) -> size_type { return i % 5 == 1 ? 0 : 1 + g() % 6; }, 29 + c);
  SparseProduct product(A, B);
  expect_blocked_product(product.result(), A, B, what);
  EXPECT_EQ(product.block_products(), block_product_count(A, B)) << what;
  EXPECT_EQ(product.products(), block_product_count(A, B) * r * m * c) << what;
  test::expect_identical(to_csr(spgemm(A, B)), to_csr(product.result()), what + ": spgemm()");
  // Value-only recompute equals a fresh product bit for bit.
  const auto A2 = test::with_new_values(A, 3), B2 = test::with_new_values(B, 4);
  product.recompute(A2, B2);
  test::expect_identical(to_csr(product.result()), to_csr(spgemm(A2, B2)), what + ": recompute");
  expect_blocked_product(product.result(), A2, B2, what + " (recomputed)");
}

INSTANTIATE_TEST_SUITE_P(FastPathsAndGeneric, BsrSpgemmShapes,
                         ::testing::Values(Shape{1, 1, 1}, Shape{3, 3, 3}, Shape{3, 3, 6},
                                           Shape{6, 3, 6}, Shape{6, 6, 6}, Shape{6, 3, 3},
                                           Shape{3, 6, 3}, Shape{2, 3, 4}, Shape{3, 2, 6},
                                           Shape{4, 1, 5}),
                         [](const auto& info) {
                           return std::to_string(info.param.r) + "x" +
                                  std::to_string(info.param.m) + "x" + std::to_string(info.param.c);
                         });

TEST(BsrSpgemm, OneByOneBlocksEqualTheScalarProduct) {
  // Operands with sorted rows, which to_bsr keeps in their order: the
  // blocked products sum exactly as the scalar ones.
  const auto h = Executor::host();
  const auto A = gallery::poisson3d(h, 8, 8, 8);
  const auto P = test::linear_prolongator(h, 8);
  const auto R = transpose(P);
  const auto C = spgemm(to_bsr(A, 1), to_bsr(P, 1));
  EXPECT_EQ(C.row_block_size(), 1);
  EXPECT_EQ(C.col_block_size(), 1);
  test::expect_identical(to_csr(C), spgemm(A, P), "A P, 1x1 blocks");
  GalerkinProduct<BsrMatrix<double>> G(to_bsr(R, 1), to_bsr(A, 1), to_bsr(P, 1));
  test::expect_identical(to_csr(G.result()), galerkin_product(R, A, P), "R A P, 1x1 blocks");
}

TEST(BsrSpgemm, SinglePrecisionMatchesDouble) {
  const auto h = Executor::host();
  const auto A = test::random_bsr(
      h, 30, 20, 6, 3, [](size_type, auto& g) -> size_type { return g() % 6; }, 51);
  const auto B = test::random_bsr(
      h, 20, 25, 3, 6, [](size_type, auto& g) -> size_type { return 1 + g() % 5; }, 52);
  const auto to_float = [&](const BsrMatrix<double>& M) {
    const auto v = M.values().to_vector();
    return BsrMatrix<float>(M.block_rows(), M.block_cols(), M.row_block_size(), M.col_block_size(),
                            M.row_ptr().clone(), M.col_idx().clone(),
                            Array<float>(h, std::vector<float>(v.begin(), v.end())));
  };
  const auto Af = to_float(A), Bf = to_float(B);
  SparseProduct product(Af, Bf);
  const auto C = spgemm(A, B);
  ASSERT_EQ(product.result().row_ptr().to_vector(), C.row_ptr().to_vector());
  ASSERT_EQ(product.result().col_idx().to_vector(), C.col_idx().to_vector());
  const auto cf = product.result().values().to_vector();
  const auto cd = C.values().to_vector();
  ASSERT_EQ(cf.size(), cd.size());
  ASSERT_GT(cd.size(), 0u);
  for (std::size_t k = 0; k < cd.size(); ++k) ASSERT_NEAR(cf[k], cd[k], 1e-5) << k;
  // Values at most ~ 5 terms of |a b| <= 1 each: 1e-5 is a few float roundings.
  product.recompute(Af, Bf);
  EXPECT_EQ(product.result().values().to_vector(), cf);
}

TEST(BsrSpgemm, EmptyOperands) {
  const auto h = Executor::host();
  // A without any block; A of zero block rows; B of zero block columns.
  const auto none = test::random_bsr(
      h, 6, 4, 3, 3, [](size_type, auto&) -> size_type { return 0; }, 1);
  const auto B = test::random_bsr(
      h, 4, 5, 3, 6, [](size_type, auto& g) -> size_type { return 1 + g() % 3; }, 2);
  const auto C = spgemm(none, B);
  EXPECT_EQ(C.block_rows(), 6);
  EXPECT_EQ(C.block_cols(), 5);
  EXPECT_EQ(C.num_blocks(), 0);
  C.validate();
  const BsrMatrix<double> no_rows(0, 4, 3, 3, Array<offset_type>(h, 1, offset_type{0}),
                                  Array<index_type>(h, 0), Array<double>(h, 0));
  SparseProduct zero_rows(no_rows, B);
  EXPECT_EQ(zero_rows.result().block_rows(), 0);
  EXPECT_EQ(zero_rows.result().rows(), 0);
  EXPECT_EQ(zero_rows.result().cols(), 30);
  zero_rows.recompute(no_rows, test::with_new_values(B, 9));
  const auto A = test::random_bsr(
      h, 6, 4, 3, 3, [](size_type, auto& g) -> size_type { return g() % 3; }, 3);
  const BsrMatrix<double> no_cols(4, 0, 3, 6, Array<offset_type>(h, 5, offset_type{0}),
                                  Array<index_type>(h, 0), Array<double>(h, 0));
  const auto D = spgemm(A, no_cols);
  EXPECT_EQ(D.rows(), 18);
  EXPECT_EQ(D.cols(), 0);
  EXPECT_EQ(D.num_blocks(), 0);
}

TEST(BsrSpgemm, SquareOfAMatrixWithItself) {
  const auto h = Executor::host();
  const auto A = to_bsr(gallery::elasticity3d(h, 3).A, 3);
  SparseProduct product(A, A);
  expect_blocked_product(product.result(), A, A, "A A, elasticity");
  const auto A2 = test::with_new_values(A, 12);
  product.recompute(A2, A2);
  test::expect_identical(to_csr(product.result()), to_csr(spgemm(A2, A2)), "A A recompute");
}

TEST(BsrSpgemm, ErrorsNameTheBlockSizesAndTheOperand) {
  const auto h = Executor::host();
  const auto A33 = test::random_bsr(
      h, 4, 4, 3, 3, [](size_type, auto& g) -> size_type { return 1 + g() % 3; }, 1);
  const auto B22 = test::random_bsr(
      h, 6, 3, 2, 2, [](size_type, auto& g) -> size_type { return 1 + g() % 2; }, 2);
  // 12 x 12 times 12 x 6: the scalar sizes fit, the blocks do not.
  try {
    spgemm(A33, B22);
    FAIL() << "no error for 3x3 times 2x2 blocks";
  } catch (const invalid_argument& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("3x3"), std::string::npos) << m;
    EXPECT_NE(m.find("2x2"), std::string::npos) << m;
    EXPECT_NE(m.find("column block size (3)"), std::string::npos) << m;
  }
  const auto B36 = test::random_bsr(
      h, 5, 2, 3, 6, [](size_type, auto&) -> size_type { return 1; }, 3);
  EXPECT_THROW((void)SparseProduct(A33, B36), dimension_mismatch);  // 12 columns, 15 rows
  // Recompute with more blocks, another pattern, other blocks, a moved-from
  // product.
  const auto B = test::random_bsr(
      h, 4, 3, 3, 6, [](size_type, auto&) -> size_type { return 1; }, 4);
  SparseProduct product(A33, B);
  const auto more = test::random_bsr(
      h, 4, 3, 3, 6, [](size_type, auto&) -> size_type { return 2; }, 5);
  try {
    product.recompute(A33, more);
    FAIL() << "no error for B with more blocks";
  } catch (const invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find(": B is 4 x 3 with 8 blocks"), std::string::npos)
        << e.what();
  }
  auto shifted = B.col_idx().to_vector();
  for (auto& j : shifted) j = (j + 1) % 3;
  const BsrMatrix<double> moved_columns(4, 3, 3, 6, B.row_ptr().clone(),
                                        Array<index_type>(h, shifted), B.values().clone());
  try {
    product.recompute(A33, moved_columns);
    FAIL() << "no error for B with other block columns";
  } catch (const invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("different pattern"), std::string::npos) << e.what();
  }
  const auto A33_as_11 = to_bsr(to_csr(A33), 1);
  try {
    product.recompute(A33_as_11, B);
    FAIL() << "no error for A with other blocks";
  } catch (const invalid_argument& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("A has 1x1 blocks"), std::string::npos) << m;
    EXPECT_NE(m.find("built for 3x3"), std::string::npos) << m;
  }
  SparseProduct moved = std::move(product);
  EXPECT_THROW(product.recompute(A33, B), invalid_argument);
  moved.recompute(A33, B);  // the new owner works
  test::expect_identical(to_csr(moved.result()), to_csr(spgemm(A33, B)), "moved product");
}

// ------------------------------------------------- the Galerkin product

/// Elasticity (ne^3 Q1 elements) as 3x3 blocks and a smoothed-aggregation
/// style prolongator: 2x2x2-node aggregates with the 6 rigid-body modes
/// (3x6 blocks), smoothed once by (I - omega D^-1 A).
struct ElasticityLevel {
  BsrMatrix<double> A, P, R;
};

ElasticityLevel elasticity_level(size_type ne) {
  const auto h = Executor::host();
  auto problem = gallery::elasticity3d(h, ne);
  ElasticityLevel level;
  level.A = to_bsr(problem.A, 3);
  const auto tentative = detail::rigid_body_tentative_prolongator(ne, problem.coordinates, 2);
  level.P = detail::smoothed_prolongator(level.A, tentative);
  level.R = transpose(level.P);
  return level;
}

TEST(BsrGalerkin, ElasticityWithRigidBodyModesEqualsTheExpandedProduct) {
  const auto L = elasticity_level(4);
  ASSERT_EQ(L.P.row_block_size(), 3);
  ASSERT_EQ(L.P.col_block_size(), 6);
  // Smoothing widened P beyond one block a row.
  ASSERT_GT(L.P.num_blocks(), 2 * L.P.block_rows());
  GalerkinProduct<BsrMatrix<double>> G(L.R, L.A, L.P);
  const BsrMatrix<double>& Ac = G.result();
  EXPECT_EQ(Ac.row_block_size(), 6);
  EXPECT_EQ(Ac.col_block_size(), 6);
  EXPECT_EQ(Ac.block_rows(), L.P.block_cols());
  expect_blocked_product(G.AP(), L.A, L.P, "A P (3x3 times 3x6)");
  expect_blocked_product(Ac, L.R, G.AP(), "R (A P) (6x3 times 3x6)");
  const auto Re = to_csr(L.R), Ae = to_csr(L.A), Pe = to_csr(L.P);
  test::expect_matches_reference(
      to_csr(Ac), test::reference_product(Re, test::reference_product(Ae, Pe)), "R A P", 1e-12);
  test::expect_identical(to_csr(Ac), galerkin_product(Re, Ae, Pe), "R A P against the CSR product");
  test::expect_identical(to_csr(Ac), to_csr(galerkin_product(L.R, L.A, L.P)), "galerkin_product");
  EXPECT_EQ(G.products(),
            SparseProduct(L.A, L.P).products() + SparseProduct(L.R, G.AP()).products());
  // Ac = P^T A P is symmetric, and its 6x6 diagonal blocks positive definite
  // enough to have positive diagonal entries.
  const auto Act = transpose(Ac);
  const auto a = to_csr(Ac), at = to_csr(Act);
  ASSERT_EQ(a.col_idx().to_vector(), at.col_idx().to_vector());
  const auto va = a.values().to_vector(), vt = at.values().to_vector();
  double scale = 0;
  for (double v : va) scale = std::max(scale, std::abs(v));
  for (std::size_t k = 0; k < va.size(); ++k) ASSERT_NEAR(va[k], vt[k], 1e-12 * scale) << k;
}

TEST(BsrGalerkin, RecomputeEqualsAFreshProduct) {
  const auto L = elasticity_level(3);
  GalerkinProduct<BsrMatrix<double>> G(L.R, L.A, L.P);
  const auto R2 = test::with_new_values(L.R, 21), A2 = test::with_new_values(L.A, 22),
             P2 = test::with_new_values(L.P, 23);
  const double* before = G.result().values().data();
  G.recompute(R2, A2, P2);
  EXPECT_EQ(G.result().values().data(), before) << "recompute writes in place";
  GalerkinProduct<BsrMatrix<double>> fresh(R2, A2, P2);
  test::expect_identical(to_csr(G.result()), to_csr(fresh.result()), "Galerkin recompute");
  test::expect_identical(to_csr(G.AP()), to_csr(fresh.AP()), "A P recompute");
  // A P with another pattern is refused, naming P.
  const auto tentative = detail::rigid_body_tentative_prolongator(
      3, gallery::elasticity3d(Executor::host(), 3).coordinates, 2);
  try {
    G.recompute(transpose(tentative), L.A, tentative);
    FAIL() << "no error for a new pattern of P";
  } catch (const invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find(": B "), std::string::npos) << e.what();
  }
}

TEST(BsrGalerkin, ReleasedIntermediateRecomputesTheSameValues) {
  const auto L = elasticity_level(3);
  GalerkinProduct<BsrMatrix<double>> G(L.R, L.A, L.P);
  const size_type products = G.products();
  G.release_intermediate();
  EXPECT_TRUE(G.intermediate_released());
  EXPECT_THROW((void)G.AP(), invalid_argument);
  EXPECT_EQ(G.products(), products);
  const auto R2 = test::with_new_values(L.R, 21), A2 = test::with_new_values(L.A, 22),
             P2 = test::with_new_values(L.P, 23);
  for (int round = 0; round < 2; ++round) {  // A P is rebuilt and freed each time
    G.recompute(R2, A2, P2);
    test::expect_identical(to_csr(G.result()), to_csr(GalerkinProduct(R2, A2, P2).result()),
                           "recompute after release");
  }
  const auto tentative = detail::rigid_body_tentative_prolongator(
      3, gallery::elasticity3d(Executor::host(), 3).coordinates, 2);
  EXPECT_THROW(G.recompute(transpose(tentative), L.A, tentative), invalid_argument);
}

TEST(BsrGalerkin, TrustedRecomputeEqualsRecomputeAndStillChecksShapes) {
  const auto L = elasticity_level(3);
  const auto R2 = test::with_new_values(L.R, 24), A2 = test::with_new_values(L.A, 25),
             P2 = test::with_new_values(L.P, 26);
  const GalerkinProduct<BsrMatrix<double>> fresh(R2, A2, P2);
  for (bool released : {false, true}) {
    SCOPED_TRACE(released ? "A P released" : "A P kept");
    GalerkinProduct<BsrMatrix<double>> G(L.R, L.A, L.P);
    if (released) G.release_intermediate();
    for (bool check_a : {true, false}) {
      G.recompute_trusted(R2, A2, P2, check_a);
      test::expect_identical(to_csr(G.result()), to_csr(fresh.result()), "trusted recompute");
    }
    // Unfingerprinted operands still have their block counts checked: the
    // unsmoothed P has fewer blocks than the smoothed one.
    const auto tentative = detail::rigid_body_tentative_prolongator(
        3, gallery::elasticity3d(Executor::host(), 3).coordinates, 2);
    EXPECT_THROW(G.recompute_trusted(transpose(tentative), A2, tentative, false), invalid_argument);
  }
  // Through the level operators, as a hierarchy's resetup calls it.
  auto A = share(L.A.clone());
  auto P = share(L.P.clone());
  auto R = share(L.R.clone());
  const BsrOperator<double> a(A), p(P), r(R);
  auto product = a.galerkin(r, p);
  copy(A2.values(), A->values());
  copy(P2.values(), P->values());
  copy(R2.values(), R->values());
  product->recompute_trusted(r, a, p, true);
  const auto* bsr = dynamic_cast<const BsrOperator<double>*>(product->result().get());
  ASSERT_NE(bsr, nullptr);
  test::expect_identical(to_csr(bsr->matrix()), to_csr(fresh.result()),
                         "CoarseProduct::recompute_trusted");
}

TEST(BsrGalerkin, BlockSizesThatDoNotLineUpAreNamed) {
  const auto h = Executor::host();
  const auto A22 = test::random_bsr(
      h, 9, 9, 2, 2, [](size_type, auto& g) -> size_type { return 1 + g() % 3; }, 1);
  const auto P36 = test::random_bsr(
      h, 6, 2, 3, 6, [](size_type, auto&) -> size_type { return 1; }, 2);
  const auto R63 = transpose(P36);
  try {
    GalerkinProduct<BsrMatrix<double>> G(R63, A22, P36);
    FAIL() << "no error for 6x3, 2x2, 3x6 blocks";
  } catch (const invalid_argument& e) {
    const std::string m = e.what();
    for (const char* s : {"R has 6x3", "A 2x2", "P 3x6", "(3 and 2)", "(2 and 3)"}) {
      EXPECT_NE(m.find(s), std::string::npos) << s << " in: " << m;
    }
  }
  // The same through the level operators.
  const BsrOperator<double> r(share(R63.clone())), a(share(A22.clone())), p(share(P36.clone()));
  EXPECT_THROW(a.galerkin(r, p), invalid_argument);
}

// ----------------------------------------------- coarse products of levels

TEST(BsrCoarseProduct, BlockLevelsMultiplyBlockedAndRecompute) {
  const auto L = elasticity_level(3);
  auto A = share(L.A.clone());
  auto P = share(L.P.clone());
  auto R = share(L.R.clone());
  const BsrOperator<double> a(A), p(P), r(R);
  auto product = a.galerkin(r, p);
  const auto Ac = product->result();
  EXPECT_EQ(Ac->kind(), "BSR 6x6");
  const auto* bsr = dynamic_cast<const BsrOperator<double>*>(Ac.get());
  ASSERT_NE(bsr, nullptr);
  test::expect_identical(to_csr(bsr->matrix()), to_csr(galerkin_product(L.R, L.A, L.P)),
                         "make_coarse_product of BSR levels");
  // New values in place; the result object keeps its identity.
  copy(test::with_new_values(L.A, 31).values(), A->values());
  copy(test::with_new_values(L.P, 32).values(), P->values());
  copy(test::with_new_values(L.R, 33).values(), R->values());
  product->recompute(r, a, p);
  EXPECT_EQ(product->result().get(), Ac.get());
  test::expect_identical(to_csr(bsr->matrix()), to_csr(galerkin_product(*R, *A, *P)),
                         "coarse product recompute");
}

TEST(BsrCoarseProduct, ACsrLevelBetweenBlockTransfersIsConvertedToBlocks) {
  const auto L = elasticity_level(3);
  const CsrOperator<double> a(share(to_csr(L.A)));
  const BsrOperator<double> p(share(L.P.clone())), r(share(L.R.clone()));
  auto product = a.galerkin(r, p);
  EXPECT_EQ(product->result()->kind(), "BSR 6x6");
  const auto& Ac = dynamic_cast<const BsrOperator<double>&>(*product->result()).matrix();
  // to_bsr(to_csr(A), 3) is A: the same product as the all-block one.
  test::expect_identical(to_csr(Ac), to_csr(galerkin_product(L.R, L.A, L.P)), "CSR A, BSR R, P");
  product->recompute(r, a, p);
  test::expect_identical(to_csr(Ac), to_csr(galerkin_product(L.R, L.A, L.P)), "recompute");
  // All three CSR: the scalar product, a CSR level.
  const CsrOperator<double> pc(share(to_csr(L.P))), rc(share(to_csr(L.R)));
  EXPECT_EQ(a.galerkin(rc, pc)->result()->kind(), "CSR");
  // A CSR R before BSR A and P: R becomes 1x3 blocks (A's rows), A_c 1x6.
  const BsrOperator<double> ab(share(L.A.clone()));
  auto csr_r = ab.galerkin(rc, p);
  ASSERT_EQ(csr_r->result()->kind(), "BSR 1x6");
  test::expect_close(to_csr(dynamic_cast<const BsrOperator<double>&>(*csr_r->result()).matrix()),
                     to_csr(galerkin_product(L.R, L.A, L.P)), "CSR R, BSR A, P", 1e-12);
  // CSR R and P around a BSR A: 1x1 outer blocks, the same values.
  auto mixed = ab.galerkin(rc, pc);
  EXPECT_EQ(mixed->result()->kind(), "BSR 1x1");
  const auto& M = dynamic_cast<const BsrOperator<double>&>(*mixed->result()).matrix();
  test::expect_close(to_csr(M), to_csr(galerkin_product(L.R, L.A, L.P)), "CSR R, P; BSR A", 1e-12);
}

}  // namespace
}  // namespace strata
