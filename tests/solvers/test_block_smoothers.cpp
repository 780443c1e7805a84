// Point-block smoothers on BSR levels: Jacobi, l1-Jacobi and Chebyshev
// preconditioned by the inverted diagonal blocks. On 1x1 blocks they are the
// scalar smoothers; on elasticity they reduce the error, precondition CG,
// and take fewer CG iterations than the scalar diagonal. The spectral
// estimates of the block D^-1 A against a long power iteration.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "strata/strata.hpp"
#include "test_util.hpp"

namespace strata {
namespace {

std::shared_ptr<const LevelOperator<double>> bsr_level(const CsrMatrix<double>& A, int b) {
  return std::make_shared<const BsrOperator<double>>(to_bsr(A, b));
}

std::shared_ptr<const LevelOperator<double>> csr_level(const CsrMatrix<double>& A) {
  return std::make_shared<const CsrOperator<double>>(test::shared(A));
}

double max_difference(const Vector<double>& x, const Vector<double>& y) {
  const auto a = x.to_vector(), b = y.to_vector();
  double d = 0;
  for (std::size_t i = 0; i < a.size(); ++i) d = std::max(d, std::abs(a[i] - b[i]));
  return d;
}

Vector<double> random_vector(size_type n, unsigned seed) {
  return Vector<double>(Array<double>(Executor::host(), test::random_values(n, seed)));
}

TEST(BlockSmoothers, OneByOneBlocksGiveTheScalarSmoother) {
  const auto A = gallery::poisson3d(Executor::host(), 7, 6, 5);
  const auto scalar = csr_level(A), blocks = bsr_level(A, 1);
  ASSERT_EQ(blocks->diagonal_block_size(), 1);
  ASSERT_EQ(scalar->diagonal_block_size(), 0);
  const Vector<double> b = random_vector(A.rows(), 1), x0 = random_vector(A.rows(), 2);
  for (const SmootherParams& p :
       {SmootherParams(JacobiParams{.omega = 0.8}), SmootherParams(L1JacobiParams{.omega = 0.9}),
        SmootherParams(JacobiParams{.estimate_omega = true})}) {
    const auto Ss = make_smoother(scalar, p), Sb = make_smoother(blocks, p);
    EXPECT_EQ(Ss->describe().find("block"), std::string::npos) << Ss->describe();
    EXPECT_NE(Sb->describe().find("block"), std::string::npos) << Sb->describe();
    Vector<double> xs = x0.clone(), xb = x0.clone();
    Ss->smooth(b, xs, 3);
    Sb->smooth(b, xb, 3);
    EXPECT_LE(max_difference(xs, xb), 1e-12) << smoother_name(p);
    Vector<double> ys(Executor::host(), A.rows()), yb(Executor::host(), A.rows());
    Ss->sweep_from(b, x0, ys);
    Sb->sweep_from(b, x0, yb);
    EXPECT_LE(max_difference(ys, yb), 1e-12) << smoother_name(p);
    Ss->apply(b, ys);
    Sb->apply(b, yb);
    EXPECT_LE(max_difference(ys, yb), 1e-12) << smoother_name(p);
  }
}

TEST(BlockSmoothers, OneByOneBlockLanczosEstimatesTheScalarEigenvalue) {
  // D^-1 A of the 7-point Laplacian on nx x ny x nz: largest eigenvalue
  // 1 + (cos(pi/(nx+1)) + cos(pi/(ny+1)) + cos(pi/(nz+1))) / 3. Lanczos in
  // the D inner product (1x1 blocks) and on D^-1/2 A D^-1/2 (scalar) start
  // from other vectors, so they agree only as estimates: both from below.
  const auto A = gallery::poisson3d(Executor::host(), 7, 6, 5);
  const double pi = 3.141592653589793;
  const double exact = 1.0 + (std::cos(pi / 8) + std::cos(pi / 7) + std::cos(pi / 6)) / 3.0;
  const auto blocks = bsr_level(A, 1);
  const double block =
      lanczos_max_eigenvalue(*blocks, blocks->block_diagonal(BlockDiagonalKind::plain), 10);
  const double scalar = lanczos_max_eigenvalue(*csr_level(A), 10);
  for (double estimate : {block, scalar}) {
    EXPECT_LE(estimate, exact * (1 + 1e-12));
    EXPECT_GT(estimate, 0.97 * exact);
  }
}

TEST(BlockSmoothers, PointBlockFalseKeepsTheScalarDiagonal) {
  const auto A = gallery::elasticity3d(Executor::host(), 3).A;
  const auto scalar = csr_level(A), blocks = bsr_level(A, 3);
  const Vector<double> b = random_vector(A.rows(), 3), x0 = random_vector(A.rows(), 4);
  for (const SmootherParams& p : {SmootherParams(JacobiParams{.omega = 0.5, .point_block = false}),
                                  SmootherParams(L1JacobiParams{.point_block = false}),
                                  SmootherParams(ChebyshevParams{.point_block = false})}) {
    const auto Ss = make_smoother(scalar, p), Sb = make_smoother(blocks, p);
    EXPECT_EQ(Sb->describe().find("block"), std::string::npos) << Sb->describe();
    Vector<double> xs = x0.clone(), xb = x0.clone();
    Ss->smooth(b, xs, 2);
    Sb->smooth(b, xb, 2);
    EXPECT_LE(max_difference(xs, xb), 1e-12) << smoother_name(p);
  }
}

/// ||x||_A^2
double energy(const LevelOperator<double>& A, const Vector<double>& x) {
  Vector<double> t(A.executor(), A.rows());
  A.apply(x, t);
  return dot(x, t);
}

std::vector<SmootherParams> block_smoothers() {
  return {JacobiParams{.estimate_omega = true}, L1JacobiParams{}, ChebyshevParams{.degree = 2},
          ChebyshevParams{.degree = 3, .symmetric = false}};
}

TEST(BlockSmoothers, ReduceTheErrorOnElasticity) {
  const auto A = gallery::elasticity3d(Executor::host(), 4).A;
  const auto level = bsr_level(A, 3);
  const Vector<double> zero(Executor::host(), A.rows(), 0.0);  // error equation A e = 0
  for (const auto& p : block_smoothers()) {
    const auto S = make_smoother(level, p);
    EXPECT_NE(S->describe().find("block"), std::string::npos) << S->describe();
    Vector<double> e = random_vector(A.rows(), 7);
    double before = energy(*level, e);
    for (int sweep = 0; sweep < 3; ++sweep) {
      S->smooth(zero, e, 1);
      const double after = energy(*level, e);
      EXPECT_LT(after, 0.9 * before) << S->describe() << ", sweep " << sweep;
      before = after;
    }
    // sweep_from and post_smooth reduce it too (the fused sweep for Jacobi).
    Vector<double> e0 = random_vector(A.rows(), 8), e1(Executor::host(), A.rows());
    S->post_smooth(zero, e0, e1, 2);
    EXPECT_LT(energy(*level, e1), 0.8 * energy(*level, e0)) << S->describe();
  }
}

TEST(BlockSmoothers, FusedSweepIsTheUnfusedSweep) {
  for (int b : {2, 3, 5}) {  // 5: no compiled path (three passes)
    const auto A = gallery::elasticity3d(Executor::host(), 4).A;
    // 300 rows: 2 and 5 divide 300 too (blocks across nodes, still invertible).
    const auto level = bsr_level(A, b);
    for (const SmootherParams& p :
         {SmootherParams(JacobiParams{.omega = 0.6}), SmootherParams(L1JacobiParams{})}) {
      const auto S = make_smoother(level, p);
      const Vector<double> rhs = random_vector(A.rows(), 9), x0 = random_vector(A.rows(), 10);
      Vector<double> fused(Executor::host(), A.rows()), unfused = x0.clone();
      S->sweep_from(rhs, x0, fused);
      S->smooth(rhs, unfused, 1);
      EXPECT_LE(max_difference(fused, unfused), 1e-12) << "b = " << b << ", " << S->describe();
    }
  }
}

int cg_iterations(const LevelOperator<double>& A, const LinearOperator<double>& M) {
  Vector<double> b(Executor::host(), A.rows(), 1.0), x(Executor::host(), A.rows(), 0.0);
  const auto info = solve(KrylovMethod{Cg{}}, A, b, x, &M);
  EXPECT_TRUE(info.converged()) << M.describe() << ": " << info.message;
  // The true residual, not only the recurrence's.
  Vector<double> r(Executor::host(), A.rows());
  A.residual(b, x, r);
  EXPECT_LE(norm2(r), 1e-7 * norm2(b)) << M.describe();
  return info.iterations;
}

TEST(BlockSmoothers, PreconditionCgInFewerIterationsThanTheScalarDiagonal) {
  const auto A = gallery::elasticity3d(Executor::host(), 6).A;
  const auto level = bsr_level(A, 3);
  struct Pair {
    SmootherParams block, point;
  };
  const std::vector<Pair> pairs = {
      {JacobiParams{}, JacobiParams{.point_block = false}},
      {L1JacobiParams{}, L1JacobiParams{.point_block = false}},
      {ChebyshevParams{.degree = 2}, ChebyshevParams{.degree = 2, .point_block = false}},
  };
  for (const auto& [block, point] : pairs) {
    const auto Sb = make_smoother(level, block), Sp = make_smoother(level, point);
    const int with_blocks = cg_iterations(*level, *Sb), scalar = cg_iterations(*level, *Sp);
    std::printf("elasticity3d ne=6 (%lld rows), CG with %s: %d iterations; %s: %d\n",
                static_cast<long long>(A.rows()), Sb->describe().c_str(), with_blocks,
                Sp->describe().c_str(), scalar);
    EXPECT_LT(with_blocks, scalar) << Sb->describe();
  }
}

/// Q^T A Q for Q block diagonal with a pseudo-random rotation per node: the
/// same problem in another coordinate frame at every node. Block (I, J)
/// becomes Q_I^T A_IJ Q_J.
struct Rotated {
  BsrMatrix<double> A;
  std::vector<double> Q;  // 9 per node, row-major
};

Rotated rotate_nodes(const BsrMatrix<double>& A, unsigned seed) {
  const size_type nodes = A.block_rows();
  std::vector<double> Q(9 * nodes);
  const auto angles = test::random_values(3 * nodes, seed, 0.0, 6.283185307179586);
  for (size_type p = 0; p < nodes; ++p) {
    // Rz(a) Ry(b) Rx(c)
    const double a = angles[3 * p], b = angles[3 * p + 1], c = angles[3 * p + 2];
    const double ca = std::cos(a), sa = std::sin(a), cb = std::cos(b), sb = std::sin(b),
                 cc = std::cos(c), sc = std::sin(c);
    // clang-format off
    const double R[9] = {ca * cb, ca * sb * sc - sa * cc, ca * sb * cc + sa * sc,
                         sa * cb, sa * sb * sc + ca * cc, sa * sb * cc - ca * sc,
                         -sb,     cb * sc,                cb * cc};
    // clang-format on
    std::copy(R, R + 9, Q.begin() + 9 * p);
  }
  const auto rp = A.row_ptr().to_vector();
  const auto ci = A.col_idx().to_vector();
  auto va = A.values().to_vector();
  for (size_type I = 0; I < nodes; ++I) {
    for (offset_type k = rp[I]; k < rp[I + 1]; ++k) {
      const double* QI = &Q[9 * I];
      const double* QJ = &Q[9 * ci[k]];
      double* B = &va[9 * k];
      double AQ[9] = {}, out[9] = {};
      for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c)
          for (int m = 0; m < 3; ++m) AQ[r * 3 + c] += B[r * 3 + m] * QJ[m * 3 + c];
      for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c)
          for (int m = 0; m < 3; ++m) out[r * 3 + c] += QI[m * 3 + r] * AQ[m * 3 + c];
      std::copy(out, out + 9, B);
    }
  }
  return {BsrMatrix<double>(A.block_rows(), A.block_cols(), 3, 3, A.row_ptr().clone(),
                            A.col_idx().clone(), Array<double>(Executor::host(), va)),
          Q};
}

int cg_iterations(const LevelOperator<double>& A, const LinearOperator<double>& M,
                  const Vector<double>& b) {
  Vector<double> x(Executor::host(), A.rows(), 0.0);
  const auto info = solve(KrylovMethod{Cg{}}, A, b, x, &M);
  EXPECT_TRUE(info.converged()) << M.describe() << ": " << info.message;
  return info.iterations;
}

TEST(BlockSmoothers, BlockJacobiDoesNotDependOnTheFrameOfEachNode) {
  // Point-block Jacobi is invariant under a change of basis inside each
  // node (D^-1 A becomes Q^T D^-1 A Q, a similar matrix), the scalar one is
  // not: rotating every node's unknowns leaves the block-preconditioned CG
  // iterations as they were and costs the scalar diagonal many more.
  const auto A = to_bsr(gallery::elasticity3d(Executor::host(), 6).A, 3);
  const auto [R, Q] = rotate_nodes(A, 21);
  const std::shared_ptr<const LevelOperator<double>> original =
      std::make_shared<const BsrOperator<double>>(A.clone());
  const std::shared_ptr<const LevelOperator<double>> rotated =
      std::make_shared<const BsrOperator<double>>(R.clone());
  // b' = Q^T b for b = 1, so the two solves are the same problem.
  std::vector<double> rotated_rhs(A.rows());
  for (size_type p = 0; p < A.block_rows(); ++p) {
    for (int c = 0; c < 3; ++c) {
      rotated_rhs[3 * p + c] = Q[9 * p + 0 * 3 + c] + Q[9 * p + 1 * 3 + c] + Q[9 * p + 2 * 3 + c];
    }
  }
  const Vector<double> ones(Executor::host(), A.rows(), 1.0);
  const Vector<double> b(Array<double>(Executor::host(), rotated_rhs));
  for (const auto& [block, point] : std::vector<std::pair<SmootherParams, SmootherParams>>{
           {JacobiParams{}, JacobiParams{.point_block = false}},
           {ChebyshevParams{}, ChebyshevParams{.point_block = false}}}) {
    const int block_before = cg_iterations(*original, *make_smoother(original, block), ones);
    const int block_after = cg_iterations(*rotated, *make_smoother(rotated, block), b);
    const int scalar_before = cg_iterations(*original, *make_smoother(original, point), ones);
    const int scalar_after = cg_iterations(*rotated, *make_smoother(rotated, point), b);
    std::printf(
        "elasticity3d ne=6, nodes rotated: CG with %s: %d -> %d iterations, with %s: %d "
        "-> %d\n",
        smoother_name(block).c_str(), block_before, block_after,
        make_smoother(rotated, point)->describe().c_str(), scalar_before, scalar_after);
    EXPECT_LE(std::abs(block_after - block_before), 1) << smoother_name(block);
    EXPECT_GT(scalar_after, scalar_before + 5) << smoother_name(point);
    EXPECT_LT(block_after, scalar_after) << smoother_name(block);
  }
}

/// Largest eigenvalue of D^-1 A by 3000 power steps (D^-1 A is similar to
/// an SPD matrix, so its spectral radius is its largest eigenvalue).
double power_iteration(const LevelOperator<double>& A, const BlockDiagonal<double>& D) {
  Vector<double> v = random_vector(A.rows(), 11), t(Executor::host(), A.rows());
  double lambda = 0;
  for (int it = 0; it < 3000; ++it) {
    A.apply(v, t);
    D.apply(t, v);
    lambda = norm2(v);
    scale(1.0 / lambda, v);
  }
  return lambda;
}

TEST(BlockSmoothers, SpectralEstimatesOfTheBlockPreconditionedOperator) {
  const auto A = gallery::elasticity3d(Executor::host(), 3).A;
  const auto level = bsr_level(A, 3);
  const auto D = level->block_diagonal(BlockDiagonalKind::plain);
  const double exact = power_iteration(*level, D);
  const double lanczos = lanczos_max_eigenvalue(*level, D, 10);
  EXPECT_LE(lanczos, exact * (1 + 1e-8));  // Ritz values approach from below
  EXPECT_GT(lanczos, 0.9 * exact);
  EXPECT_EQ(lanczos, lanczos_max_eigenvalue(*level, D, 10)) << "estimates must repeat";
  const double arnoldi = arnoldi_spectral_radius(*level, D, 10);
  EXPECT_LE(arnoldi, exact * 1.02);
  EXPECT_GT(arnoldi, 0.8 * exact);
  // More Lanczos steps come closer.
  EXPECT_GE(lanczos_max_eigenvalue(*level, D, 30), lanczos);
  // The scalar estimate is of another operator: the block D^-1 A is not the
  // scalar one (its largest eigenvalue differs).
  EXPECT_GT(std::abs(lanczos_max_eigenvalue(*csr_level(A), 10) - lanczos), 1e-3 * lanczos);
  // A block D that is not positive definite is refused by Lanczos.
  auto values = to_bsr(A, 3);
  auto va = values.values().to_vector();
  for (auto& v : va) v = -v;
  values.values() = Array<double>(Executor::host(), va);
  const BsrOperator<double> minus(std::move(values));
  const auto Dm = minus.block_diagonal(BlockDiagonalKind::plain);
  EXPECT_THROW(lanczos_max_eigenvalue(minus, Dm, 10), invalid_argument);
}

TEST(BlockSmoothers, SingularDiagonalBlockIsNamed) {
  auto B = to_bsr(gallery::elasticity3d(Executor::host(), 2).A, 3);
  auto va = B.values().to_vector();
  const auto rp = B.row_ptr().to_vector();
  const auto ci = B.col_idx().to_vector();
  for (offset_type k = rp[3]; k < rp[4]; ++k) {
    if (ci[k] == 3) {
      for (int e = 0; e < 9; ++e) va[k * 9 + e] = 1.0;  // rank one
    }
  }
  B.values() = Array<double>(Executor::host(), va);
  const std::shared_ptr<const LevelOperator<double>> level =
      std::make_shared<const BsrOperator<double>>(std::move(B));
  // Not l1-Jacobi: its off-block row sums make this block invertible.
  for (const SmootherParams& p :
       {SmootherParams(JacobiParams{}), SmootherParams(JacobiParams{.estimate_omega = true}),
        SmootherParams(ChebyshevParams{}), SmootherParams(ChebyshevParams{.symmetric = false})}) {
    const std::string m = test::message_of([&] { make_smoother(level, p); });
    EXPECT_NE(m.find("block row 3 "), std::string::npos) << smoother_name(p) << ": " << m;
  }
}

TEST(BlockSmoothers, RectangularBlocksHaveNoBlockDiagonal) {
  const auto A = gallery::elasticity3d(Executor::host(), 2).A;  // 54 rows
  const BsrOperator<double> level(to_bsr(A, 3, 6));
  EXPECT_EQ(level.diagonal_block_size(), 0);
  EXPECT_THROW(level.block_diagonal(BlockDiagonalKind::plain), invalid_argument);
  const CsrOperator<double> scalar(test::shared(A));
  EXPECT_EQ(scalar.diagonal_block_size(), 0);
  const std::string m = test::message_of([&] { scalar.block_diagonal(BlockDiagonalKind::plain); });
  EXPECT_NE(m.find("CSR"), std::string::npos) << m;
}

}  // namespace
}  // namespace strata
