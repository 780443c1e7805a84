#pragma once
/// \file
/// Model smoothed-aggregation prolongators for gallery::elasticity3d, for the
/// tests and the benchmark of the blocked products (they reach it through
/// ${PROJECT_SOURCE_DIR}/src; not part of the installed API). The real
/// coarsening (amg/smoothed_aggregation.hpp) aggregates by MIS(2) on the
/// block strength graph and orthonormalises each aggregate's modes; these
/// use geometric aggregates of a x a x a nodes and the raw modes, which give
/// products of the same shapes and about the same sizes: a 3x6 tentative P
/// with one block per node row, smoothed once with (I - omega D^-1 A).
/// Everything is built on the host and returned on the operands' executor.

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "strata/core/error.hpp"
#include "strata/matrix/bsr.hpp"
#include "strata/matrix/bsr_spgemm.hpp"
#include "strata/matrix/vector.hpp"

namespace strata::detail {

/// The tentative prolongator of elasticity3d(exec, ne) (node (i, j, k),
/// i = 1..ne, j, k = 0..ne, is node (i-1) + ne (j + (ne+1) k); see
/// gallery.hpp) for aggregates of a x a x a nodes (fewer at the far faces):
/// node p's block row holds one 3x6 block, in the column of its aggregate,
/// the six rigid-body modes at the node (translations, then rotations about
/// x, y and z) about the aggregate's centroid. `coordinates` are
/// elasticity3d's (3 per node, interleaved).
inline BsrMatrix<double> rigid_body_tentative_prolongator(size_type ne,
                                                          const Vector<double>& coordinates,
                                                          int a = 2) {
  const size_type nx = ne, ny = ne + 1, nz = ne + 1, nodes = nx * ny * nz;
  require(ne >= 1 && a >= 1 && coordinates.size() == 3 * nodes,
          "rigid_body_tentative_prolongator: coordinates have " +
              std::to_string(coordinates.size()) + " entries, expected 3 (ne (ne+1)^2) = " +
              std::to_string(3 * nodes) + " for ne = " + std::to_string(ne));
  const auto x = coordinates.to_vector();
  const size_type cx = (nx + a - 1) / a, cy = (ny + a - 1) / a, cz = (nz + a - 1) / a;
  const auto aggregate = [&](size_type p) {
    const size_type i = p % nx, j = (p / nx) % ny, k = p / (nx * ny);
    return static_cast<index_type>(i / a + cx * (j / a + cy * (k / a)));
  };
  const size_type aggregates = cx * cy * cz;
  std::vector<double> centroid(static_cast<std::size_t>(3 * aggregates), 0.0);
  std::vector<double> members(static_cast<std::size_t>(aggregates), 0.0);
  for (size_type p = 0; p < nodes; ++p) {
    const index_type g = aggregate(p);
    for (int d = 0; d < 3; ++d) centroid[3 * g + d] += x[3 * p + d];
    members[g] += 1;
  }
  for (size_type g = 0; g < aggregates; ++g) {
    for (int d = 0; d < 3; ++d) centroid[3 * g + d] /= members[g];
  }
  std::vector<offset_type> row_ptr(static_cast<std::size_t>(nodes) + 1);
  std::vector<index_type> col_idx(static_cast<std::size_t>(nodes));
  std::vector<double> values(static_cast<std::size_t>(18 * nodes), 0.0);
  for (size_type p = 0; p < nodes; ++p) {
    const index_type g = aggregate(p);
    row_ptr[p] = p;
    col_idx[p] = g;
    const double dx = x[3 * p] - centroid[3 * g], dy = x[3 * p + 1] - centroid[3 * g + 1],
                 dz = x[3 * p + 2] - centroid[3 * g + 2];
    // Rows u_x, u_y, u_z; columns: translations x, y, z, rotations about x, y, z.
    const double block[3][6] = {
        {1, 0, 0, 0, dz, -dy}, {0, 1, 0, -dz, 0, dx}, {0, 0, 1, dy, -dx, 0}};
    for (int r = 0; r < 3; ++r) {
      for (int c = 0; c < 6; ++c) values[18 * p + 6 * r + c] = block[r][c];
    }
  }
  row_ptr[nodes] = nodes;
  const Executor h = Executor::host();
  return BsrMatrix<double>(nodes, aggregates, 3, 6, Array<offset_type>(h, row_ptr),
                           Array<index_type>(h, col_idx), Array<double>(h, values))
      .to(coordinates.executor());
}

/// The inverse of the b x b block at `m` (row-major), into `inv`, by
/// Gauss-Jordan elimination with partial pivoting. Throws invalid_argument
/// for a singular block.
inline void invert_block(int b, const double* m, double* inv) {
  std::vector<double> w(m, m + b * b);
  for (int i = 0; i < b * b; ++i) inv[i] = i % (b + 1) == 0 ? 1.0 : 0.0;
  for (int col = 0; col < b; ++col) {
    int pivot = col;
    for (int r = col + 1; r < b; ++r) {
      if (std::abs(w[r * b + col]) > std::abs(w[pivot * b + col])) pivot = r;
    }
    require(w[pivot * b + col] != 0.0, "invert_block: the diagonal block is singular");
    for (int c = 0; c < b; ++c) {
      std::swap(w[col * b + c], w[pivot * b + c]);
      std::swap(inv[col * b + c], inv[pivot * b + c]);
    }
    const double d = w[col * b + col];
    for (int c = 0; c < b; ++c) {
      w[col * b + c] /= d;
      inv[col * b + c] /= d;
    }
    for (int r = 0; r < b; ++r) {
      if (r == col) continue;
      const double f = w[r * b + col];
      for (int c = 0; c < b; ++c) {
        w[r * b + c] -= f * w[col * b + c];
        inv[r * b + c] -= f * inv[col * b + c];
      }
    }
  }
}

/// D^-1 A for a BSR A of square blocks, D its block diagonal: block row I
/// multiplied from the left by the inverse of its diagonal block. On the host.
inline BsrMatrix<double> block_jacobi_scaled(const BsrMatrix<double>& A) {
  const int b = A.row_block_size();
  require(b == A.col_block_size() && A.block_rows() == A.block_cols(),
          "block_jacobi_scaled: A must be square with square blocks");
  const auto rp = A.row_ptr().to_vector();
  const auto ci = A.col_idx().to_vector();
  auto va = A.values().to_vector();
  const std::size_t bb = static_cast<std::size_t>(b) * b;
  std::vector<double> inv(bb), block(bb);
  for (size_type I = 0; I < A.block_rows(); ++I) {
    offset_type diagonal = -1;
    for (offset_type k = rp[I]; k < rp[I + 1]; ++k) {
      if (ci[k] == I) diagonal = k;
    }
    require(diagonal >= 0,
            "block_jacobi_scaled: block row " + std::to_string(I) + " has no diagonal block");
    invert_block(b, va.data() + diagonal * bb, inv.data());
    for (offset_type k = rp[I]; k < rp[I + 1]; ++k) {
      double* v = va.data() + k * bb;
      for (int i = 0; i < b; ++i) {
        for (int j = 0; j < b; ++j) {
          double s = 0;
          for (int l = 0; l < b; ++l) s += inv[i * b + l] * v[l * b + j];
          block[i * b + j] = s;
        }
      }
      std::copy(block.begin(), block.end(), v);
    }
  }
  const Executor h = Executor::host();
  return BsrMatrix<double>(A.block_rows(), A.block_cols(), b, b, Array<offset_type>(h, rp),
                           Array<index_type>(h, ci), Array<double>(h, va));
}

/// The largest |eigenvalue| of S (square), estimated by `steps` power
/// iterations from a fixed start; on the host.
inline double spectral_radius_estimate(const BsrMatrix<double>& S, int steps = 30) {
  const size_type n = S.rows();
  const Executor h = Executor::host();
  std::vector<double> start(static_cast<std::size_t>(n));
  for (size_type i = 0; i < n; ++i) start[i] = 1.0 + static_cast<double>((i * 7919) % 13) / 13.0;
  Vector<double> x(Array<double>(h, start)), y(h, n);
  double rho = 0;
  for (int s = 0; s < steps; ++s) {
    spmv(S, x, y);
    const auto v = y.to_vector();
    double norm = 0;
    for (double e : v) norm += e * e;
    norm = std::sqrt(norm);
    if (norm == 0) return 0;
    std::vector<double> next(v.size());
    for (std::size_t i = 0; i < v.size(); ++i) next[i] = v[i] / norm;
    const auto before = x.to_vector();
    double before_norm = 0;
    for (double e : before) before_norm += e * e;
    rho = norm / std::sqrt(before_norm);
    x = Vector<double>(Array<double>(h, next));
  }
  return rho;
}

/// P = (I - omega D^-1 A) P_tent, omega = damping / rho(D^-1 A) (D the
/// block diagonal of A): one prolongator smoothing step of smoothed
/// aggregation, D^-1 A P_tent by the blocked product. P's block pattern is
/// that of D^-1 A P_tent (which holds P_tent's, A having its diagonal
/// blocks). Computed on the host, returned on A's executor.
inline BsrMatrix<double> smoothed_prolongator(const BsrMatrix<double>& A,
                                              const BsrMatrix<double>& P_tent,
                                              double damping = 4.0 / 3.0) {
  const Executor h = Executor::host();
  const BsrMatrix<double> S = block_jacobi_scaled(A.to(h));
  const double omega = damping / spectral_radius_estimate(S);
  const BsrMatrix<double> T = P_tent.to(h);
  const BsrMatrix<double> SP = spgemm(S, T);
  const auto rp = SP.row_ptr().to_vector();
  const auto ci = SP.col_idx().to_vector();
  auto va = SP.values().to_vector();
  for (double& v : va) v *= -omega;
  const auto trp = T.row_ptr().to_vector();
  const auto tci = T.col_idx().to_vector();
  const auto tva = T.values().to_vector();
  const std::size_t bb = static_cast<std::size_t>(T.row_block_size()) * T.col_block_size();
  for (size_type I = 0; I < T.block_rows(); ++I) {
    for (offset_type k = trp[I]; k < trp[I + 1]; ++k) {
      const auto at = std::lower_bound(ci.begin() + rp[I], ci.begin() + rp[I + 1], tci[k]);
      require(at != ci.begin() + rp[I + 1] && *at == tci[k],
              "smoothed_prolongator: A lacks a diagonal block in block row " + std::to_string(I));
      const std::size_t p = static_cast<std::size_t>(at - ci.begin());
      for (std::size_t e = 0; e < bb; ++e) va[p * bb + e] += tva[k * bb + e];
    }
  }
  return BsrMatrix<double>(SP.block_rows(), SP.block_cols(), SP.row_block_size(),
                           SP.col_block_size(), Array<offset_type>(h, rp), Array<index_type>(h, ci),
                           Array<double>(h, va))
      .to(A.executor());
}

}  // namespace strata::detail
