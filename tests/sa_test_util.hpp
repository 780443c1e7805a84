#pragma once
// Helpers of the smoothed-aggregation tests (host: solvers/, device:
// kernels/).

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "strata/strata.hpp"

namespace strata::test {

/// The BSR matrix of a level operator (throws for other kinds).
inline const BsrMatrix<double>& bsr_of(const LevelOperator<double>& op) {
  const auto* bsr = dynamic_cast<const BsrOperator<double>*>(&op);
  if (bsr == nullptr) throw std::runtime_error("expected a BSR level, got " + op.kind());
  return bsr->matrix();
}

/// Copies of vectors (which copy only explicitly).
inline std::vector<Vector<double>> clones(const std::vector<Vector<double>>& v) {
  std::vector<Vector<double>> out;
  for (const auto& x : v) out.push_back(x.clone());
  return out;
}

/// max |a - b| / max |b|.
inline double relative_difference(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size()) return INFINITY;
  double diff = 0, scale = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    diff = std::max(diff, std::abs(a[i] - b[i]));
    scale = std::max(scale, std::abs(b[i]));
  }
  return scale > 0 ? diff / scale : diff;
}

/// New values for a host BSR matrix of 3x3 blocks that keep every block's
/// strength ratio ||A_IJ|| / sqrt(||A_II|| ||A_JJ||) bit for bit (so a
/// fresh setup finds the same strength graph and aggregates): block row and
/// column I scaled by a power of two s_I, and the components of every node
/// permuted cyclically (x, y, z) -> (y, z, x). A stays SPD; P, D^-1 and the
/// coarse operators change.
inline void permute_and_scale_blocks(BsrMatrix<double>& A) {
  const auto rp = A.row_ptr().to_vector();
  const auto ci = A.col_idx().to_vector();
  auto v = A.values().to_vector();
  auto s = [](index_type I) { return std::ldexp(1.0, int(I % 3) - 1); };
  for (size_type I = 0; I < A.block_rows(); ++I) {
    for (offset_type e = rp[I]; e < rp[I + 1]; ++e) {
      double block[9];
      for (int a = 0; a < 3; ++a) {
        for (int c = 0; c < 3; ++c) {
          block[a * 3 + c] =
              v[e * 9 + ((a + 1) % 3) * 3 + (c + 1) % 3] * s(index_type(I)) * s(ci[e]);
        }
      }
      std::copy(block, block + 9, v.begin() + e * 9);
    }
  }
  copy(Array<double>(Executor::host(), v), A.values());
}

}  // namespace strata::test
