#pragma once
// Helpers of the SpGEMM and Galerkin tests: random matrices with chosen row
// lengths, a plain reference product, comparisons, and model prolongators.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "strata/matrix/bsr.hpp"
#include "strata/matrix/csr.hpp"

namespace strata::test {

/// rows x cols, row i with min(length(i, gen), cols) distinct columns in
/// random (unsorted) order and values in [-1, 1).
template <class Length>
CsrMatrix<double> random_sparse(const Executor& e, size_type rows, size_type cols, Length length,
                                unsigned seed) {
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<double> value(-1, 1);
  std::vector<offset_type> rp(static_cast<std::size_t>(rows) + 1, 0);
  std::vector<index_type> ci;
  std::vector<double> va;
  std::vector<index_type> all(static_cast<std::size_t>(cols));
  for (size_type j = 0; j < cols; ++j) all[j] = index_type(j);
  for (size_type i = 0; i < rows; ++i) {
    const size_type len = std::min<size_type>(length(i, gen), cols);
    // A partial shuffle picks len distinct columns.
    for (size_type k = 0; k < len; ++k) {
      std::uniform_int_distribution<size_type> pick(k, cols - 1);
      std::swap(all[k], all[pick(gen)]);
      ci.push_back(all[k]);
      va.push_back(value(gen));
    }
    rp[i + 1] = offset_type(ci.size());
  }
  return CsrMatrix<double>(rows, cols, Array<offset_type>(e, rp), Array<index_type>(e, ci),
                           Array<double>(e, va));
}

/// block_rows x block_cols blocks of r x c, the block pattern of
/// random_sparse (block rows of `length` blocks, unsorted) and every entry
/// of every block in [-1, 1).
template <class Length>
BsrMatrix<double> random_bsr(const Executor& e, size_type block_rows, size_type block_cols, int r,
                             int c, Length length, unsigned seed) {
  const auto pattern = random_sparse(e, block_rows, block_cols, length, seed);
  std::mt19937_64 gen(seed + 7);
  std::uniform_real_distribution<double> value(-1, 1);
  std::vector<double> va(static_cast<std::size_t>(pattern.nnz() * r * c));
  for (auto& v : va) v = value(gen);
  return BsrMatrix<double>(block_rows, block_cols, r, c, pattern.row_ptr().clone(),
                           pattern.col_idx().clone(), Array<double>(e, va));
}

/// The same block pattern and block sizes with new values (from `seed`).
inline BsrMatrix<double> with_new_values(const BsrMatrix<double>& M, unsigned seed) {
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<double> value(-2, 2);
  std::vector<double> va(static_cast<std::size_t>(M.nnz()));
  for (auto& v : va) v = value(gen);
  return BsrMatrix<double>(M.block_rows(), M.block_cols(), M.row_block_size(), M.col_block_size(),
                           M.row_ptr().clone(), M.col_idx().clone(),
                           Array<double>(M.executor(), va));
}

/// The same pattern with new values (drawn from `seed`).
inline CsrMatrix<double> with_new_values(const CsrMatrix<double>& M, unsigned seed) {
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<double> value(-2, 2);
  std::vector<double> va(static_cast<std::size_t>(M.nnz()));
  for (auto& v : va) v = value(gen);
  return CsrMatrix<double>(M.rows(), M.cols(), M.row_ptr().clone(), M.col_idx().clone(),
                           Array<double>(M.executor(), va));
}

/// C = A B by ordered maps: per entry, the value and the sum of |a_ik b_kj|
/// (the scale its rounding error is measured against).
struct ReferenceProduct {
  size_type rows = 0, cols = 0;
  std::vector<std::map<index_type, std::pair<double, double>>> row;
};

inline ReferenceProduct reference_product(const CsrMatrix<double>& A, const CsrMatrix<double>& B) {
  const auto arp = A.row_ptr().to_vector();
  const auto aci = A.col_idx().to_vector();
  const auto ava = A.values().to_vector();
  const auto brp = B.row_ptr().to_vector();
  const auto bci = B.col_idx().to_vector();
  const auto bva = B.values().to_vector();
  ReferenceProduct C;
  C.rows = A.rows();
  C.cols = B.cols();
  C.row.resize(static_cast<std::size_t>(A.rows()));
  for (size_type i = 0; i < A.rows(); ++i) {
    for (auto e = arp[i]; e < arp[i + 1]; ++e) {
      const auto k = aci[e];
      for (auto q = brp[k]; q < brp[k + 1]; ++q) {
        auto& entry = C.row[i][bci[q]];
        entry.first += ava[e] * bva[q];
        entry.second += std::abs(ava[e] * bva[q]);
      }
    }
  }
  return C;
}

/// C = A B with B given as a reference product (so R (A P) can be checked
/// without the library's own product anywhere): the scales compose.
inline ReferenceProduct reference_product(const CsrMatrix<double>& A, const ReferenceProduct& B) {
  const auto arp = A.row_ptr().to_vector();
  const auto aci = A.col_idx().to_vector();
  const auto ava = A.values().to_vector();
  ReferenceProduct C;
  C.rows = A.rows();
  C.cols = B.cols;
  C.row.resize(static_cast<std::size_t>(A.rows()));
  for (size_type i = 0; i < A.rows(); ++i) {
    for (auto e = arp[i]; e < arp[i + 1]; ++e) {
      for (const auto& [j, value] : B.row[static_cast<std::size_t>(aci[e])]) {
        auto& entry = C.row[i][j];
        entry.first += ava[e] * value.first;
        entry.second += std::abs(ava[e]) * value.second;
      }
    }
  }
  return C;
}

/// Multiplications a_ik b_kj of A B: for each entry (i, k) of A, the length
/// of B's row k.
inline size_type product_count(const CsrMatrix<double>& A,
                               const std::vector<size_type>& b_row_lengths) {
  const auto arp = A.row_ptr().to_vector();
  const auto aci = A.col_idx().to_vector();
  size_type count = 0;
  for (size_type i = 0; i < A.rows(); ++i) {
    for (auto e = arp[i]; e < arp[i + 1]; ++e)
      count += b_row_lengths[static_cast<std::size_t>(aci[e])];
  }
  return count;
}

/// C has exactly the reference's pattern, rows sorted, and its values within
/// `tolerance` times each entry's scale.
inline void expect_matches_reference(const CsrMatrix<double>& C, const ReferenceProduct& ref,
                                     const std::string& what, double tolerance = 1e-13) {
  ASSERT_EQ(C.rows(), ref.rows) << what;
  ASSERT_EQ(C.cols(), ref.cols) << what;
  C.validate();
  const auto rp = C.row_ptr().to_vector();
  const auto ci = C.col_idx().to_vector();
  const auto va = C.values().to_vector();
  for (size_type i = 0; i < C.rows(); ++i) {
    ASSERT_EQ(rp[i + 1] - rp[i], static_cast<offset_type>(ref.row[i].size()))
        << what << ": nonzeros of row " << i;
    auto p = rp[i];
    for (const auto& [col, entry] : ref.row[i]) {
      ASSERT_EQ(ci[p], col) << what << ": row " << i << ", entry " << p - rp[i];
      ASSERT_NEAR(va[p], entry.first, tolerance * entry.second + 1e-300)
          << what << ": row " << i << ", column " << col;
      ++p;
    }
  }
}

/// Same pattern, values equal bit for bit.
inline void expect_identical(const CsrMatrix<double>& X, const CsrMatrix<double>& Y,
                             const std::string& what) {
  ASSERT_EQ(X.rows(), Y.rows()) << what;
  ASSERT_EQ(X.cols(), Y.cols()) << what;
  EXPECT_EQ(X.row_ptr().to_vector(), Y.row_ptr().to_vector()) << what;
  EXPECT_EQ(X.col_idx().to_vector(), Y.col_idx().to_vector()) << what;
  const auto x = X.values().to_vector(), y = Y.values().to_vector();
  ASSERT_EQ(x.size(), y.size()) << what;
  EXPECT_EQ(0, std::memcmp(x.data(), y.data(), x.size() * sizeof(double))) << what;
}

/// Same pattern, values within `tolerance` relative to the largest |value|.
inline void expect_close(const CsrMatrix<double>& X, const CsrMatrix<double>& Y,
                         const std::string& what, double tolerance = 1e-13) {
  ASSERT_EQ(X.rows(), Y.rows()) << what;
  ASSERT_EQ(X.cols(), Y.cols()) << what;
  ASSERT_EQ(X.row_ptr().to_vector(), Y.row_ptr().to_vector()) << what;
  ASSERT_EQ(X.col_idx().to_vector(), Y.col_idx().to_vector()) << what;
  const auto x = X.values().to_vector(), y = Y.values().to_vector();
  double scale = 0;
  for (double v : y) scale = std::max(scale, std::abs(v));
  for (std::size_t k = 0; k < x.size(); ++k) {
    ASSERT_NEAR(x[k], y[k], tolerance * scale) << what << ": entry " << k;
  }
}

/// Piecewise-constant prolongator of an nx x ny x nz grid on bx x by x bz
/// blocks (aggregates): row (i, j, k) has `value` in column (i/bx, j/by, k/bz).
inline CsrMatrix<double> aggregation_prolongator(const Executor& e, size_type nx, size_type ny,
                                                 size_type nz, size_type b, double value = 1.0) {
  const size_type cx = (nx + b - 1) / b, cy = (ny + b - 1) / b, cz = (nz + b - 1) / b;
  const size_type rows = nx * ny * nz;
  std::vector<offset_type> rp(static_cast<std::size_t>(rows) + 1);
  std::vector<index_type> ci(static_cast<std::size_t>(rows));
  for (size_type r = 0; r < rows; ++r) {
    const size_type i = r % nx, j = (r / nx) % ny, k = r / (nx * ny);
    rp[r] = r;
    ci[r] = index_type(i / b + cx * (j / b + cy * (k / b)));
  }
  rp[rows] = rows;
  return CsrMatrix<double>(rows, cx * cy * cz, Array<offset_type>(e, rp), Array<index_type>(e, ci),
                           Array<double>(e, rows, value));
}

/// Trilinear interpolation on an n^3 grid from the coarse points at odd
/// fine indices (I = (i - 1) / 2); rows normalised to sum 1, so P 1 = 1.
inline CsrMatrix<double> linear_prolongator(const Executor& e, size_type n) {
  const size_type nc = n / 2, rows = n * n * n;
  std::vector<std::vector<std::pair<index_type, double>>> one_d(static_cast<std::size_t>(n));
  for (size_type i = 0; i < n; ++i) {
    if (i % 2 == 1) {
      one_d[i] = {{index_type((i - 1) / 2), 1.0}};
    } else {
      if (i / 2 - 1 >= 0) one_d[i].push_back({index_type(i / 2 - 1), 1.0});
      if (i / 2 < nc) one_d[i].push_back({index_type(i / 2), 1.0});
      for (auto& [c, w] : one_d[i]) w = 1.0 / double(one_d[i].size());
    }
  }
  std::vector<offset_type> rp(static_cast<std::size_t>(rows) + 1, 0);
  std::vector<index_type> ci;
  std::vector<double> va;
  for (size_type r = 0; r < rows; ++r) {
    for (const auto& [z, wz] : one_d[r / (n * n)]) {
      for (const auto& [y, wy] : one_d[(r / n) % n]) {
        for (const auto& [x, wx] : one_d[r % n]) {
          ci.push_back(index_type(x + nc * (y + nc * z)));
          va.push_back(wx * wy * wz);
        }
      }
    }
    rp[r + 1] = offset_type(ci.size());
  }
  return CsrMatrix<double>(rows, nc * nc * nc, Array<offset_type>(e, rp), Array<index_type>(e, ci),
                           Array<double>(e, va));
}

}  // namespace strata::test
