// The Galerkin product Ac = R A P with R = P^T on both executors: against
// the reference triple product, row sums, symmetry, value-only recompute.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "sparse_product_util.hpp"
#include "strata/gallery/gallery.hpp"
#include "strata/matrix/galerkin.hpp"
#include "strata/matrix/transpose.hpp"
#include "test_util.hpp"

namespace strata {
namespace {

/// Row sums of M (host copy).
std::vector<double> row_sums(const CsrMatrix<double>& M) {
  const auto rp = M.row_ptr().to_vector();
  const auto va = M.values().to_vector();
  std::vector<double> s(static_cast<std::size_t>(M.rows()), 0.0);
  for (size_type i = 0; i < M.rows(); ++i) {
    for (auto k = rp[i]; k < rp[i + 1]; ++k) s[i] += va[k];
  }
  return s;
}

/// max |M - M^T| / max |M| (M square, host copies).
double asymmetry(const CsrMatrix<double>& M) {
  const auto Mt = transpose(M);
  const auto rp = M.row_ptr().to_vector();
  if (rp != Mt.row_ptr().to_vector()) return 1e300;
  if (M.col_idx().to_vector() != Mt.col_idx().to_vector()) return 1e300;
  const auto a = M.values().to_vector(), b = Mt.values().to_vector();
  double worst = 0, scale = 0;
  for (std::size_t k = 0; k < a.size(); ++k) {
    worst = std::max(worst, std::abs(a[k] - b[k]));
    scale = std::max(scale, std::abs(a[k]));
  }
  return worst / scale;
}

/// The pattern of the symmetric M with new symmetric values: entry (i, j)
/// depends on {i, j} only.
CsrMatrix<double> symmetric_new_values(const CsrMatrix<double>& M) {
  const auto rp = M.row_ptr().to_vector();
  const auto ci = M.col_idx().to_vector();
  std::vector<double> va(ci.size());
  for (size_type i = 0; i < M.rows(); ++i) {
    for (auto k = rp[i]; k < rp[i + 1]; ++k) {
      const auto lo = std::min<size_type>(i, ci[k]), hi = std::max<size_type>(i, ci[k]);
      va[k] = lo == hi ? 8.0 + double(lo % 5) : -1.0 - double((lo * 7 + hi * 3) % 11) / 10;
    }
  }
  return CsrMatrix<double>(M.rows(), M.cols(), M.row_ptr().clone(), M.col_idx().clone(),
                           Array<double>(M.executor(), va));
}

class Galerkin : public test::OnExecutor {};

/// M with the last entry of row 0 moved one column right: the same shape
/// and number of nonzeros, another pattern (row 0 must end left of the last
/// column and of the next row's first columns; true for the Laplacians).
CsrMatrix<double> moved_entry(const CsrMatrix<double>& M) {
  const auto rp = M.row_ptr().to_vector();
  auto ci = M.col_idx().to_vector();
  ci[static_cast<std::size_t>(rp[1] - 1)] += 1;
  return CsrMatrix<double>(M.rows(), M.cols(), M.row_ptr().clone(),
                           Array<index_type>(M.executor(), ci), M.values().clone());
}

/// A Newton step's operands on the 8^3 Laplacian with linear interpolation:
/// R, A, P, then new values in A and in P (hence R), same patterns.
struct NewtonStep {
  static constexpr size_type n = 8;
  CsrMatrix<double> A, P, R, A2, P2, R2;
  NewtonStep(const Executor& e, int seed)
      : A(gallery::poisson3d(e, n, n, n)),
        P(test::linear_prolongator(e, n)),
        R(transpose(P)),
        A2(symmetric_new_values(A)),
        P2(test::with_new_values(P, seed)),
        R2(transpose(P2)) {}
};

TEST_P(Galerkin, AggregationOfALaplacian) {
  const auto e = exec();
  const size_type n = 10;  // 5 x 5 x 5 aggregates of 2 x 2 x 2 points
  const auto A = gallery::poisson3d(e, n, n, n);
  const auto P = test::aggregation_prolongator(e, n, n, n, 2);
  const auto R = transpose(P);
  GalerkinProduct G(R, A, P);
  const auto& Ac = G.result();
  EXPECT_EQ(Ac.rows(), 125);
  EXPECT_EQ(Ac.cols(), 125);
  // Against the reference triple product.
  const auto AP = spgemm(A, P);
  test::expect_matches_reference(G.AP(), test::reference_product(A, P), "A P");
  test::expect_matches_reference(Ac, test::reference_product(R, AP), "R (A P)");
  // Aggregation coarsens the 7-point stencil to a 7-point stencil.
  EXPECT_EQ(Ac.nnz(), 7 * 125 - 6 * 25);
  // Row sums: Ac 1 = P^T A P 1 = P^T (A 1), since P 1 = 1. A's row sums are
  // 0 inside and 1 per missing neighbour on the boundary.
  const auto fine_sums = row_sums(A);
  const auto coarse_sums = row_sums(Ac);
  const auto pci = P.col_idx().to_vector();
  std::vector<double> expected(125, 0.0);
  for (size_type i = 0; i < A.rows(); ++i) expected[pci[i]] += fine_sums[i];
  for (std::size_t I = 0; I < expected.size(); ++I) EXPECT_EQ(coarse_sums[I], expected[I]) << I;
  // Each aggregate couples to a face neighbour through 4 fine edges.
  const auto acp = Ac.row_ptr().to_vector();
  const auto aci = Ac.col_idx().to_vector();
  const auto acv = Ac.values().to_vector();
  for (auto k = acp[62]; k < acp[63]; ++k) {  // aggregate (2, 2, 2): interior
    EXPECT_EQ(acv[k], aci[k] == 62 ? 24.0 : -4.0) << "column " << aci[k];
  }
  EXPECT_EQ(asymmetry(Ac), 0.0);  // small integers: exactly symmetric
}

TEST_P(Galerkin, TrilinearInterpolationKeepsSymmetryAndConstants) {
  const auto e = exec();
  const size_type n = 12;
  const auto A = gallery::diffusion3d_27pt(e, n, n, n);
  const auto P = test::linear_prolongator(e, n);
  const auto R = transpose(P);
  GalerkinProduct G(R, A, P);
  const auto& Ac = G.result();
  EXPECT_EQ(Ac.rows(), 216);
  const test::ReferenceProduct AP = test::reference_product(A, P);
  test::expect_matches_reference(Ac, test::reference_product(R, AP), "R (A P)");
  EXPECT_LT(asymmetry(Ac), 1e-14);
  // P 1 = 1, so Ac 1 = R (A 1).
  const auto fine = row_sums(A);
  const auto rrp = R.row_ptr().to_vector();
  const auto rci = R.col_idx().to_vector();
  const auto rva = R.values().to_vector();
  const auto coarse = row_sums(Ac);
  for (size_type I = 0; I < R.rows(); ++I) {
    double expected = 0, scale = 0;
    for (auto k = rrp[I]; k < rrp[I + 1]; ++k) {
      expected += rva[k] * fine[rci[k]];
      scale += std::abs(rva[k]) * 26;
    }
    EXPECT_NEAR(coarse[I], expected, 1e-13 * scale) << I;
  }
  // Multiplications counted here from the patterns: a_ik p_kj, then r_Ii (AP)_ij.
  std::vector<size_type> p_lengths, ap_lengths;
  const auto prp = P.row_ptr().to_vector();
  for (size_type k = 0; k < P.rows(); ++k) p_lengths.push_back(prp[k + 1] - prp[k]);
  for (const auto& r : AP.row) ap_lengths.push_back(static_cast<size_type>(r.size()));
  EXPECT_EQ(G.products(), test::product_count(A, p_lengths) + test::product_count(R, ap_lengths));
}

// Kept or released (release_intermediate(): A P multiplied afresh at each
// recompute), the recompute gives a fresh product's values bit for bit.
TEST_P(Galerkin, RecomputeEqualsAFreshProduct) {
  const auto e = exec();
  const NewtonStep step(e, 42);
  const size_type n = step.n;
  const auto &A = step.A, &P = step.P, &R = step.R, &A2 = step.A2, &P2 = step.P2, &R2 = step.R2;
  for (bool released : {false, true}) {
    SCOPED_TRACE(released ? "A P released" : "A P kept");
    GalerkinProduct G(R, A, P);
    const size_type products = G.products();
    if (released) {
      G.release_intermediate();
      EXPECT_THROW((void)G.AP(), invalid_argument);
    }
    EXPECT_EQ(G.intermediate_released(), released);
    EXPECT_EQ(G.products(), products);
    for (int round = 0; round < 2; ++round) {  // a released A P is rebuilt and freed each time
      G.recompute(R2, A2, P2);
      test::expect_identical(G.result(), GalerkinProduct(R2, A2, P2).result(), "recompute");
    }
    test::expect_identical(G.result(), galerkin_product(R2, A2, P2), "galerkin_product");
    EXPECT_LT(asymmetry(G.result()), 1e-13);
    // A changed pattern is refused.
    const auto P_other = test::aggregation_prolongator(e, n, n, n, 2);
    EXPECT_THROW(G.recompute(transpose(P_other), A2, P_other), invalid_argument);
    if (!released) continue;
    // An A of another pattern gives an A P of another pattern: refused by
    // the check against the fingerprint taken at release.
    try {
      G.recompute(R2, gallery::diffusion3d_27pt(e, n, n, n), P2);
      ADD_FAILURE() << "no error for A P of another pattern";
    } catch (const invalid_argument& error) {
      EXPECT_NE(std::string(error.what()).find(": B "), std::string::npos) << error.what();
    }
  }
}

TEST_P(Galerkin, TrustedRecomputeEqualsRecomputeAndStillChecksA) {
  const auto e = exec();
  const NewtonStep step(e, 7);
  const size_type n = step.n;
  const auto &A2 = step.A2, &P2 = step.P2, &R2 = step.R2;
  for (bool released : {false, true}) {
    SCOPED_TRACE(released ? "A P released" : "A P kept");
    GalerkinProduct G(step.R, step.A, step.P);
    if (released) G.release_intermediate();
    for (bool check_a : {true, false}) {
      G.recompute_trusted(R2, A2, P2, check_a);
      test::expect_identical(G.result(), GalerkinProduct(R2, A2, P2).result(), "trusted");
    }
    // check_a still refuses an A of another pattern with the same shape and
    // count (the fingerprint), where A P is kept; released, A P is made
    // afresh from that A, so its values are right whatever A's pattern (its
    // own pattern is what is checked). Unchecked, an A of another count is
    // refused by its size alone, and R, A, P that do not line up by their
    // shapes.
    const auto A3 = moved_entry(A2);
    if (released) {
      G.recompute_trusted(R2, A3, P2, true);
      test::expect_identical(G.result(), GalerkinProduct(R2, A3, P2).result(), "A moved");
    } else {
      EXPECT_THROW(G.recompute_trusted(R2, A3, P2, true), invalid_argument);
    }
    EXPECT_THROW(G.recompute_trusted(R2, gallery::diffusion3d_27pt(e, n, n, n), P2, false),
                 invalid_argument);
    EXPECT_THROW(G.recompute_trusted(P2, A2, P2, false), dimension_mismatch);
  }
}

TEST_P(Galerkin, ChecksOperands) {
  const auto e = exec();
  const auto A = gallery::poisson3d(e, 4, 4, 4);
  const auto P = test::aggregation_prolongator(e, 4, 4, 4, 2);
  EXPECT_THROW((void)GalerkinProduct(P, A, P), dimension_mismatch);  // R = P has the wrong shape
  const auto P3 = test::aggregation_prolongator(e, 4, 4, 3, 2);
  EXPECT_THROW((void)galerkin_product(transpose(P3), A, P3), dimension_mismatch);
}

STRATA_INSTANTIATE_ON_EXECUTORS(Galerkin);

}  // namespace
}  // namespace strata
