// The block diagonal and the block smoothers on the device against the host:
// the same inverted blocks and the same applications (to rounding: each
// kernel is one algorithm written once, summing in the same order), on
// matrices larger than a warp and a thread block, for compiled block sizes
// and a run-time one.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "strata/strata.hpp"
#include "test_util.hpp"

namespace strata {
namespace {

double max_difference(const std::vector<double>& a, const std::vector<double>& b) {
  EXPECT_EQ(a.size(), b.size());
  double scale = 0, diff = 0;
  for (std::size_t i = 0; i < a.size() && i < b.size(); ++i) {
    scale = std::max(scale, std::abs(a[i]));
    diff = std::max(diff, std::abs(a[i] - b[i]));
  }
  return diff / (1 + scale);
}

/// Block matrices larger than a thread block: elasticity (3x3), the same in
/// 1x1 blocks, and a block-pentadiagonal nonsymmetric matrix of 5x5 blocks
/// (no fast path) whose diagonal blocks need pivoting.
std::vector<BsrMatrix<double>> matrices() {
  const auto h = Executor::host();
  std::vector<BsrMatrix<double>> out;
  const auto E = gallery::elasticity3d(h, 7).A;
  out.push_back(to_bsr(E, 3));
  out.push_back(to_bsr(E, 1));
  const size_type block_rows = 300;
  const int b = 5;
  std::mt19937_64 gen(17);
  std::uniform_real_distribution<double> value(-1, 1);
  std::vector<offset_type> rp{0};
  std::vector<index_type> ci;
  std::vector<double> va;
  for (size_type I = 0; I < block_rows; ++I) {
    for (size_type J = I < 2 ? 0 : I - 2; J <= I + 2 && J < block_rows; ++J) {
      ci.push_back(static_cast<index_type>(J));
      for (int e = 0; e < b * b; ++e) {
        va.push_back(value(gen) + (I == J && e / b + e % b == b - 1 ? 2.0 * b : 0.0));
      }
    }
    rp.push_back(static_cast<offset_type>(ci.size()));
  }
  out.emplace_back(block_rows, block_rows, b, b, Array<offset_type>(h, rp),
                   Array<index_type>(h, ci), Array<double>(h, va));
  return out;
}

TEST(BlockDiagonalDevice, InverseAndApplyMatchTheHost) {
  STRATA_REQUIRE_DEVICE();
  const auto d = Executor::cuda();
  for (const auto& A : matrices()) {
    const auto Ad = A.to(d);
    for (auto kind : {BlockDiagonalKind::plain, BlockDiagonalKind::l1}) {
      const auto Dh = BlockDiagonal<double>::inverse(A, kind);
      auto Dd = BlockDiagonal<double>::inverse(Ad, kind);
      EXPECT_EQ(Dd.executor().location(), Location::cuda);
      EXPECT_LE(max_difference(Dh.values().to_vector(), Dd.values().to_vector()), 1e-13)
          << A.row_block_size();
      Dd.recompute(Ad);
      EXPECT_LE(max_difference(Dh.values().to_vector(), Dd.values().to_vector()), 1e-13);
      const auto xv = test::random_values(A.rows(), 5), yv = test::random_values(A.rows(), 6);
      Vector<double> xh(Array<double>(Executor::host(), xv)), yh(Array<double>(Executor::host(), yv));
      Vector<double> xd = xh.to(d), yd = yh.to(d);
      Dh.apply(0.7, xh, -1.5, yh);
      Dd.apply(0.7, xd, -1.5, yd);
      EXPECT_LE(max_difference(yh.to_vector(), yd.to_vector()), 1e-13);
    }
  }
}

TEST(BlockDiagonalDevice, ErrorsNameTheSameBlockRowAsOnTheHost) {
  STRATA_REQUIRE_DEVICE();
  auto A = to_bsr(gallery::elasticity3d(Executor::host(), 6).A, 3);
  // Block rows 200 and 333 get a zero diagonal block; the first is named.
  auto va = A.values().to_vector();
  const auto rp = A.row_ptr().to_vector();
  const auto ci = A.col_idx().to_vector();
  for (size_type I : {size_type(333), size_type(200)}) {
    for (offset_type k = rp[I]; k < rp[I + 1]; ++k) {
      if (ci[k] == index_type(I)) std::fill(va.begin() + k * 9, va.begin() + k * 9 + 9, 0.0);
    }
  }
  A.values() = Array<double>(Executor::host(), va);
  const auto on_host = test::message_of([&] { BlockDiagonal<double>::inverse(A); });
  const auto on_device =
      test::message_of([&] { BlockDiagonal<double>::inverse(A.to(Executor::cuda())); });
  EXPECT_NE(on_host.find("block row 200 "), std::string::npos) << on_host;
  EXPECT_EQ(on_host, on_device);
}

}  // namespace
}  // namespace strata
