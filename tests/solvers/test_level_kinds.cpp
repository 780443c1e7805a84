// The level-operator contract: block (BSR) levels and a level kind defined
// here, in the test, run through the library's unchanged hierarchy, cycles,
// smoothers and coarse solve; and every global sum of a hierarchy goes
// through its Reduction.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "strata/amg/aggregation.hpp"
#include "strata/amg/amg.hpp"
#include "strata/gallery/gallery.hpp"
#include "strata/matrix/transpose.hpp"
#include "test_util.hpp"

namespace strata {
namespace {

constexpr int kBlock = 2;

/// A 1D chain of `nodes` nodes with kBlock unknowns each: block row I holds
/// -M, 2M, -M with M = [[2, -1], [-1, 2]] (kron(tridiag(-1, 2, -1), M),
/// symmetric positive definite), as a BSR matrix of 2x2 blocks.
BsrMatrix<double> coupled_chain(const Executor& e, size_type nodes, double scale = 1.0) {
  const double M[4] = {2, -1, -1, 2};
  std::vector<offset_type> rp(nodes + 1, 0);
  std::vector<index_type> ci;
  std::vector<double> va;
  for (size_type I = 0; I < nodes; ++I) {
    for (long long J = (long long)I - 1; J <= (long long)I + 1; ++J) {
      if (J < 0 || J >= (long long)nodes) continue;
      ci.push_back(index_type(J));
      const double w = J == (long long)I ? 2.0 : -1.0;
      for (double m : M) va.push_back(scale * w * m);
    }
    rp[I + 1] = offset_type(ci.size());
  }
  return BsrMatrix<double>(nodes, nodes, kBlock, kBlock, Array<offset_type>(e, rp),
                           Array<index_type>(e, ci), Array<double>(e, va));
}

/// Linear interpolation between the odd nodes of a chain, unknown by unknown:
/// P has kBlock x kBlock blocks w * I. It makes P and R = P^T as BSR whatever
/// kind the level is, so a CSR fine level gets BSR coarse levels, which the
/// next coarsening sees as BSR.
class NodeLinearInterpolation final : public amg::Coarsening<double> {
 public:
  explicit NodeLinearInterpolation(bool as_csr = false) : as_csr_(as_csr) {}
  std::optional<amg::Transfer<double>> coarsen(const LevelOperator<double>& A, int,
                                               amg::StageTimes&) override {
    const size_type nodes = A.rows() / kBlock, coarse = (nodes - 1) / 2;
    if (coarse < 1) return std::nullopt;
    kinds_seen.push_back(A.kind());
    std::vector<offset_type> rp(nodes + 1, 0);
    std::vector<index_type> ci;
    std::vector<double> va;
    const auto add = [&](size_type J, double w) {
      ci.push_back(index_type(J));
      for (int a = 0; a < kBlock; ++a)
        for (int b = 0; b < kBlock; ++b) va.push_back(a == b ? w : 0.0);
    };
    for (size_type I = 0; I < nodes; ++I) {
      if (I % 2 == 1) {
        add(I / 2, 1.0);
      } else {
        if (I / 2 >= 1) add(I / 2 - 1, 0.5);
        if (I / 2 < coarse) add(I / 2, 0.5);
      }
      rp[I + 1] = offset_type(ci.size());
    }
    const auto h = Executor::host();
    BsrMatrix<double> P(nodes, coarse, kBlock, kBlock, Array<offset_type>(h, rp),
                        Array<index_type>(h, ci), Array<double>(h, va));
    P = P.to(A.executor());
    BsrMatrix<double> R = transpose(P);
    if (as_csr_) {
      return amg::Transfer<double>{std::make_shared<const CsrOperator<double>>(to_csr(P)),
                                   std::make_shared<const CsrOperator<double>>(to_csr(R))};
    }
    return amg::Transfer<double>{std::make_shared<const BsrOperator<double>>(std::move(P)),
                                 std::make_shared<const BsrOperator<double>>(std::move(R))};
  }
  std::string name() const override { return "node-wise linear interpolation (test)"; }
  std::vector<std::string> kinds_seen;

 private:
  bool as_csr_;
};

class LevelKinds : public test::OnExecutor {};

TEST_P(LevelKinds, BlockLevelsRunThroughTheCycleLikeScalarOnes) {
  const size_type nodes = 1023;
  auto fine = test::shared(to_csr(coupled_chain(exec(), nodes)));
  // The scalar diagonal on the block levels too: the comparison is of the
  // storage alone (by default a block level smooths by its inverted
  // diagonal blocks, another preconditioner; checked at the end).
  const amg::HierarchyParams hp{.coarse_size = 40,
                                .smoother = L1JacobiParams{.point_block = false}};
  auto blocks = std::make_unique<NodeLinearInterpolation>();
  auto* seen = blocks.get();
  amg::Hierarchy<double> H(fine, std::move(blocks), hp);
  amg::Hierarchy<double> S(fine, std::make_unique<NodeLinearInterpolation>(true), hp);
  ASSERT_GE(H.num_levels(), 4);
  ASSERT_EQ(H.num_levels(), S.num_levels());
  // A scalar fine level, block coarse levels; the coarsening saw both kinds.
  EXPECT_EQ(H.level_operator(0).kind(), "CSR");
  for (int l = 1; l < H.num_levels(); ++l) {
    EXPECT_EQ(H.level_operator(l).kind(), "BSR 2x2") << "level " << l;
    EXPECT_EQ(H.level_operator(l).rows(), S.level_operator(l).rows());
    EXPECT_EQ(S.level_operator(l).kind(), "CSR");
  }
  ASSERT_GE(seen->kinds_seen.size(), 2u);
  EXPECT_EQ(seen->kinds_seen[0], "CSR");
  EXPECT_EQ(seen->kinds_seen[1], "BSR 2x2");
  EXPECT_THROW(H.level_matrix(1), invalid_argument);  // not CSR: says so
  // Same operators, other storage: the same PCG iterations and solution.
  const CsrOperator<double> op(fine);
  const size_type n = fine->rows();
  Vector<double> b(Array<double>(exec(), test::random_values(n, 4)));
  Vector<double> xb(exec(), n, 0.0), xs(exec(), n, 0.0);
  const auto ib = solve(KrylovMethod{Cg{}}, op, b, xb, &H);
  const auto is = solve(KrylovMethod{Cg{}}, op, b, xs, &S);
  ASSERT_TRUE(ib.converged()) << ib.message;
  EXPECT_EQ(ib.iterations, is.iterations);
  EXPECT_LT(ib.iterations, 20);
  EXPECT_LT(test::relative_residual(*fine, b, xb), 1e-8);
  const auto vb = xb.to_vector(), vs = xs.to_vector();
  // On the host a BSR product sums each row in the order of its CSR form:
  // the same numbers bit for bit. The device sums block rows in another
  // order; both solves meet 1e-8, so they agree to well within that.
  double largest = 0;
  for (double v : vs) largest = std::max(largest, std::abs(v));
  for (std::size_t i = 0; i < vb.size(); ++i) {
    if (GetParam() == Location::host) ASSERT_EQ(vb[i], vs[i]) << i;
    else ASSERT_NEAR(vb[i], vs[i], 1e-7 * largest) << i;
  }
  EXPECT_NE(amg::format_summary(H.summary()).find("operator complexity"), std::string::npos);
  // The summary says where the blocks are: each level's kind and block size.
  const auto summary = H.summary();
  EXPECT_EQ(summary.levels[0].kind, "CSR");
  EXPECT_EQ(summary.levels[0].row_block_size, 1);
  EXPECT_EQ(summary.levels[0].col_block_size, 1);
  for (int l = 1; l < H.num_levels(); ++l) {
    EXPECT_EQ(summary.levels[l].kind, "BSR 2x2") << "level " << l;
    EXPECT_EQ(summary.levels[l].row_block_size, 2);
    EXPECT_EQ(summary.levels[l].col_block_size, 2);
  }
  const std::string table = amg::format_summary(summary);
  EXPECT_NE(table.find("ratio  kind       setup s"), std::string::npos) << table;
  EXPECT_NE(table.find("  CSR     "), std::string::npos) << table;
  EXPECT_NE(table.find("  BSR 2x2 "), std::string::npos) << table;
  // The default smoother: block l1-Jacobi on the BSR levels (2x2 nodes).
  amg::Hierarchy<double> D(fine, std::make_unique<NodeLinearInterpolation>(),
                           amg::HierarchyParams{.coarse_size = 40});
  Vector<double> xd(exec(), n, 0.0);
  const auto id = solve(KrylovMethod{Cg{}}, op, b, xd, &D);
  ASSERT_TRUE(id.converged()) << id.message;
  EXPECT_LT(id.iterations, 20);
  EXPECT_LT(test::relative_residual(*fine, b, xd), 1e-8);
}

TEST_P(LevelKinds, BlockLevelsOnABlockFineLevelWithChebyshevAndResetup) {
  const size_type nodes = 511;
  auto fine = share(coupled_chain(exec(), nodes));
  const amg::HierarchyParams hp{.coarse_size = 40, .smoother = ChebyshevParams{}};
  amg::Hierarchy<double> H(std::make_shared<const BsrOperator<double>>(fine),
                           std::make_unique<NodeLinearInterpolation>(), hp);
  EXPECT_EQ(H.level_operator(0).kind(), "BSR 2x2");
  const size_type n = fine->rows();
  Vector<double> b(exec(), n, 1.0), x(exec(), n, 0.0);
  KrylovParams kp;
  kp.max_iterations = 60;
  const auto info = H.solve(b, x, kp);  // stand-alone V-cycles on block levels
  EXPECT_TRUE(info.converged()) << info.message;
  EXPECT_LT(test::relative_residual(to_csr(*fine), b, x), 1e-8);
  // New values in place, then resetup: equals a fresh hierarchy of them.
  copy(coupled_chain(exec(), nodes, 3.0).values(), fine->values());
  H.resetup();
  amg::Hierarchy<double> fresh(std::make_shared<const BsrOperator<double>>(share(fine->clone())),
                               std::make_unique<NodeLinearInterpolation>(), hp);
  Vector<double> y1(exec(), n), y2(exec(), n);
  H.apply(b, y1);
  fresh.apply(b, y2);
  const auto v1 = y1.to_vector(), v2 = y2.to_vector();
  for (std::size_t i = 0; i < v1.size(); ++i) ASSERT_NEAR(v1[i], v2[i], 1e-10 * std::abs(v2[i]));
}

STRATA_INSTANTIATE_ON_EXECUTORS(LevelKinds);

// ------------------------------------------- a level kind the library lacks

/// A dense host matrix, row-major: the smallest level kind there is. Nothing
/// in the library knows it; it only implements the contract.
class DenseOperator final : public LevelOperator<double> {
 public:
  DenseOperator(size_type rows, size_type cols, std::vector<double> a)
      : rows_(rows), cols_(cols), a_(std::move(a)) {}
  double at(size_type i, size_type j) const { return a_[i * cols_ + j]; }
  const std::vector<double>& values() const { return a_; }

  size_type rows() const override { return rows_; }
  size_type cols() const override { return cols_; }
  const Executor& executor() const override { return exec_; }
  std::string describe() const override { return "dense " + std::to_string(rows_); }
  std::string kind() const override { return "dense (test)"; }
  size_type nnz() const override { return rows_ * cols_; }
  std::pair<size_type, size_type> row_nnz_range() const override { return {cols_, cols_}; }
  using LevelOperator<double>::apply;
  void apply(double alpha, const Vector<double>& x, double beta, const Vector<double>& z,
             Vector<double>& y) const override {
    for (size_type i = 0; i < rows_; ++i) {
      double s = 0;
      for (size_type j = 0; j < cols_; ++j) s += at(i, j) * x.data()[j];
      y.data()[i] = alpha * s + (beta == 0.0 ? 0.0 : beta * z.data()[i]);
    }
  }
  size_type scaling(DiagonalScaling kind, Vector<double>& d) const override {
    for (size_type i = 0; i < rows_; ++i) {
      double v = at(i, i);
      if (kind == DiagonalScaling::inverse_l1_norm) {
        v = 0;
        for (size_type j = 0; j < cols_; ++j) v += std::abs(at(i, j));
      }
      if (!(v != 0) || (kind == DiagonalScaling::inverse_sqrt_diagonal && !(v > 0))) return i;
      d.data()[i] = kind == DiagonalScaling::inverse_sqrt_diagonal ? 1 / std::sqrt(v) : 1 / v;
    }
    return -1;
  }
  Array<double> to_dense() const override {
    std::vector<double> column_major(rows_ * cols_);
    for (size_type i = 0; i < rows_; ++i)
      for (size_type j = 0; j < cols_; ++j) column_major[j * rows_ + i] = at(i, j);
    return Array<double>(exec_, column_major);
  }
  std::unique_ptr<CoarseProduct<double>> galerkin(const LevelOperator<double>& R,
                                                  const LevelOperator<double>& P) const override;
  std::shared_ptr<const LevelOperator<double>> clone() const override {
    return std::make_shared<const DenseOperator>(rows_, cols_, a_);
  }

 private:
  Executor exec_ = Executor::host();
  size_type rows_, cols_;
  std::vector<double> a_;
};

std::vector<double> multiply(const DenseOperator& X, const DenseOperator& Y) {
  std::vector<double> c(X.rows() * Y.cols(), 0.0);
  for (size_type i = 0; i < X.rows(); ++i)
    for (size_type k = 0; k < X.cols(); ++k)
      for (size_type j = 0; j < Y.cols(); ++j) c[i * Y.cols() + j] += X.at(i, k) * Y.at(k, j);
  return c;
}

class DenseProduct final : public CoarseProduct<double> {
 public:
  DenseProduct(const LevelOperator<double>& R, const LevelOperator<double>& A,
               const LevelOperator<double>& P) {
    recompute(R, A, P);
  }
  std::shared_ptr<const LevelOperator<double>> result() const override { return Ac_; }
  void recompute(const LevelOperator<double>& R, const LevelOperator<double>& A,
                 const LevelOperator<double>& P) override {
    const auto& r = dynamic_cast<const DenseOperator&>(R);
    const auto& a = dynamic_cast<const DenseOperator&>(A);
    const auto& p = dynamic_cast<const DenseOperator&>(P);
    const DenseOperator ap(a.rows(), p.cols(), multiply(a, p));
    Ac_ = std::make_shared<const DenseOperator>(r.rows(), p.cols(), multiply(r, ap));
  }

 private:
  std::shared_ptr<const DenseOperator> Ac_;
};

std::unique_ptr<CoarseProduct<double>> DenseOperator::galerkin(
    const LevelOperator<double>& R, const LevelOperator<double>& P) const {
  return std::make_unique<DenseProduct>(R, *this, P);
}

/// Linear interpolation on a 1D chain, as dense P and R.
class DenseLinearInterpolation final : public amg::Coarsening<double> {
 public:
  std::optional<amg::Transfer<double>> coarsen(const LevelOperator<double>& A, int,
                                               amg::StageTimes&) override {
    const size_type n = A.rows(), nc = (n - 1) / 2;
    if (nc < 1) return std::nullopt;
    std::vector<double> p(n * nc, 0.0), r(nc * n, 0.0);
    for (size_type i = 0; i < n; ++i) {
      if (i % 2 == 1) {
        p[i * nc + i / 2] = 1.0;
      } else {
        if (i / 2 >= 1) p[i * nc + i / 2 - 1] = 0.5;
        if (i / 2 < nc) p[i * nc + i / 2] = 0.5;
      }
    }
    for (size_type i = 0; i < n; ++i)
      for (size_type j = 0; j < nc; ++j) r[j * n + i] = p[i * nc + j];
    return amg::Transfer<double>{std::make_shared<const DenseOperator>(n, nc, std::move(p)),
                                 std::make_shared<const DenseOperator>(nc, n, std::move(r))};
  }
  std::string name() const override { return "dense linear interpolation (test)"; }
};

CsrMatrix<double> csr_of(const DenseOperator& D) {
  std::vector<offset_type> rp(D.rows() + 1, 0);
  std::vector<index_type> ci;
  std::vector<double> va;
  for (size_type i = 0; i < D.rows(); ++i) {
    for (size_type j = 0; j < D.cols(); ++j)
      if (D.at(i, j) != 0) ci.push_back(index_type(j)), va.push_back(D.at(i, j));
    rp[i + 1] = offset_type(ci.size());
  }
  const auto h = Executor::host();
  return CsrMatrix<double>(D.rows(), D.cols(), Array<offset_type>(h, rp), Array<index_type>(h, ci),
                           Array<double>(h, va));
}

/// The dense coarsening's P and R, stored as CSR.
class AsCsr final : public amg::Coarsening<double> {
 public:
  std::optional<amg::Transfer<double>> coarsen(const LevelOperator<double>& A, int level,
                                               amg::StageTimes& times) override {
    auto t = dense_.coarsen(A, level, times);
    if (!t) return t;
    return amg::Transfer<double>{std::make_shared<const CsrOperator<double>>(
                                     csr_of(dynamic_cast<const DenseOperator&>(*t->P))),
                                 std::make_shared<const CsrOperator<double>>(
                                     csr_of(dynamic_cast<const DenseOperator&>(*t->R)))};
  }
  std::string name() const override { return "linear interpolation as CSR (test)"; }

 private:
  DenseLinearInterpolation dense_;
};

TEST(LevelKindsHost, AKindDefinedOutsideTheLibraryRunsThroughTheHierarchy) {
  const size_type n = 255;
  std::vector<double> a(n * n, 0.0);
  for (size_type i = 0; i < n; ++i) {
    a[i * n + i] = 2;
    if (i > 0) a[i * n + i - 1] = -1;
    if (i + 1 < n) a[i * n + i + 1] = -1;
  }
  const auto A = std::make_shared<const DenseOperator>(n, n, a);
  for (const SmootherParams& smoother :
       {SmootherParams{L1JacobiParams{}}, SmootherParams{ChebyshevParams{}},
        SmootherParams{JacobiParams{.estimate_omega = true}}}) {
    amg::Hierarchy<double> H(A, std::make_unique<DenseLinearInterpolation>(),
                             {.coarse_size = 20, .smoother = smoother});
    ASSERT_GE(H.num_levels(), 3);
    for (int l = 0; l < H.num_levels(); ++l) EXPECT_EQ(H.level_operator(l).kind(), "dense (test)");
    Vector<double> b(Executor::host(), n, 1.0), x(Executor::host(), n, 0.0);
    const auto info = solve(KrylovMethod{Cg{}}, *A, b, x, &H);
    EXPECT_TRUE(info.converged()) << smoother_name(smoother) << ": " << info.message;
    EXPECT_LT(info.iterations, 15) << smoother_name(smoother);
    // The same operators in CSR give the same iterations.
    auto csr = share(csr_of(*A));
    amg::Hierarchy<double> C(csr, std::make_unique<AsCsr>(),
                             {.coarse_size = 20, .smoother = smoother});
    ASSERT_EQ(C.num_levels(), H.num_levels());
    Vector<double> y(Executor::host(), n, 0.0);
    const auto ic = solve(KrylovMethod{Cg{}}, CsrOperator<double>(csr), b, y, &C);
    EXPECT_EQ(info.iterations, ic.iterations) << smoother_name(smoother);
  }
}

// ------------------------------------------------------------- reductions

/// Counts every combination of partial sums (one process: the sums stay).
class CountingReduction final : public Reduction<double> {
 public:
  void combine(strata::Span<double> partial_sums) const override {
    ++calls;
    values += partial_sums.size();
  }
  mutable long calls = 0;
  mutable long values = 0;
};

TEST(Reductions, KcycleSolveAndSpectralEstimatesGoThroughTheHierarchysReduction) {
  const auto h = Executor::host();
  auto A = share(gallery::poisson2d(h, 40, 40));
  auto counter = std::make_shared<CountingReduction>();
  // Setup: Chebyshev's estimate on every smoothed level (five steps by
  // default: the row count and the Gram matrix of the Krylov basis).
  amg::Hierarchy<double> H(
      A, amg::make_aggregation_coarsening<double>({.dimension = 2}),
      {.coarse_size = 30, .cycle = amg::CycleType::K, .smoother = ChebyshevParams{}}, counter);
  ASSERT_GE(H.num_levels(), 3);
  const long after_setup = counter->calls;
  EXPECT_GE(after_setup, 2 * (H.num_levels() - 1)) << "the row count and the Gram matrix";
  // The K-cycle: its inner Krylov steps combine their dot products.
  Vector<double> b(h, A->rows(), 1.0), x(h, A->rows(), 0.0);
  H.apply(b, x);
  const long after_cycle = counter->calls;
  EXPECT_GE(after_cycle - after_setup, 3);
  // Stand-alone: the stopping test's norms.
  x.fill(0.0);
  KrylovParams p;
  p.relative_tolerance = 1e-4;  // unsmoothed aggregation alone converges slowly
  p.max_iterations = 100;
  const auto info = H.solve(b, x, p);
  EXPECT_TRUE(info.converged()) << info.message << " after " << info.iterations
                                << " cycles, relative residual " << info.relative_residual;
  EXPECT_GE(counter->calls - after_cycle, info.iterations * 4 + 2);
  // The smoothers' estimates alone, outside a hierarchy: the Gram form
  // combines once besides the row count, the Lanczos loop (ten steps) at
  // least once a step.
  CountingReduction alone;
  make_smoother(std::shared_ptr<const CsrMatrix<double>>(A), ChebyshevParams{}, alone);
  EXPECT_GE(alone.calls, 1);
  EXPECT_LE(alone.calls, 2);
  CountingReduction lanczos;
  make_smoother(std::shared_ptr<const CsrMatrix<double>>(A),
                ChebyshevParams{.estimation_steps = 10}, lanczos);
  EXPECT_GE(lanczos.calls, 10);
  CountingReduction arnoldi;
  make_smoother(std::shared_ptr<const CsrMatrix<double>>(A), JacobiParams{.estimate_omega = true},
                arnoldi);
  EXPECT_GE(arnoldi.calls, 1);
}

}  // namespace
}  // namespace strata
