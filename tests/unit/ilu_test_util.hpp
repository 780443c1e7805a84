#pragma once
// Dense references and test matrices for the triangular-solve and ILU
// tests: everything here is computed independently of the code under test.

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "strata/matrix/csr.hpp"

namespace strata::test {

/// Row-major dense copy of a host or device CSR matrix.
inline std::vector<double> dense(const CsrMatrix<double>& A) {
  const auto rp = A.row_ptr().to_vector();
  const auto ci = A.col_idx().to_vector();
  const auto va = A.values().to_vector();
  std::vector<double> D(static_cast<std::size_t>(A.rows() * A.cols()), 0.0);
  for (size_type i = 0; i < A.rows(); ++i) {
    for (offset_type e = rp[i]; e < rp[i + 1]; ++e) D[i * A.cols() + ci[e]] += va[e];
  }
  return D;
}

/// A random n x n host matrix: the diagonal (weight `diagonal` times the
/// row's off-diagonal l1 norm, so it is diagonally dominant for weight > 1),
/// about `per_row` off-diagonal entries per row at random columns, some
/// rows without any, and the columns of every row shuffled (unsorted).
inline CsrMatrix<double> random_matrix(size_type n, int per_row, unsigned seed,
                                       double diagonal = 2.0) {
  std::mt19937 gen(seed);
  std::uniform_int_distribution<int> column(0, static_cast<int>(n) - 1);
  std::uniform_real_distribution<double> value(-1.0, 1.0);
  std::vector<offset_type> rp{0};
  std::vector<index_type> ci;
  std::vector<double> va;
  for (size_type i = 0; i < n; ++i) {
    std::vector<index_type> cols;
    const int count = (i % 7 == 3) ? 0 : per_row;  // some rows only have their diagonal
    for (int c = 0; c < count; ++c) {
      const index_type j = column(gen);
      if (j != i && std::find(cols.begin(), cols.end(), j) == cols.end()) cols.push_back(j);
    }
    double l1 = 0;
    std::vector<double> vals;
    for (std::size_t c = 0; c < cols.size(); ++c) {
      vals.push_back(value(gen));
      l1 += std::abs(vals.back());
    }
    cols.push_back(static_cast<index_type>(i));
    vals.push_back(diagonal * std::max(l1, 1.0) * (i % 2 ? -1.0 : 1.0));
    std::vector<std::size_t> perm(cols.size());
    for (std::size_t p = 0; p < perm.size(); ++p) perm[p] = p;
    std::shuffle(perm.begin(), perm.end(), gen);
    for (std::size_t p : perm) ci.push_back(cols[p]), va.push_back(vals[p]);
    rp.push_back(static_cast<offset_type>(ci.size()));
  }
  const auto host = Executor::host();
  return CsrMatrix<double>(n, n, Array<offset_type>(host, rp), Array<index_type>(host, ci),
                           Array<double>(host, va));
}

/// Solves T x = b by substitution with the triangle of the dense row-major
/// n x n matrix D (lower or upper; unit: the diagonal taken as 1).
inline std::vector<double> dense_triangular_solve(const std::vector<double>& D, size_type n,
                                                  bool lower, bool unit,
                                                  const std::vector<double>& b) {
  std::vector<double> x(static_cast<std::size_t>(n));
  for (size_type q = 0; q < n; ++q) {
    const size_type i = lower ? q : n - 1 - q;
    double s = b[i];
    if (lower) {
      for (size_type j = 0; j < i; ++j) s -= D[i * n + j] * x[j];
    } else {
      for (size_type j = i + 1; j < n; ++j) s -= D[i * n + j] * x[j];
    }
    x[i] = unit ? s : s / D[i * n + i];
  }
  return x;
}

/// The dense LU without pivoting of the row-major n x n D, as one matrix
/// (L strictly below the diagonal, unit diagonal implied; U on and above).
inline std::vector<double> dense_lu(std::vector<double> D, size_type n) {
  for (size_type k = 0; k < n; ++k) {
    for (size_type i = k + 1; i < n; ++i) {
      const double l = D[i * n + k] / D[k * n + k];
      D[i * n + k] = l;
      for (size_type j = k + 1; j < n; ++j) D[i * n + j] -= l * D[k * n + j];
    }
  }
  return D;
}

/// The product L U of a combined factor (row-major dense, n x n).
inline std::vector<double> lu_product(const std::vector<double>& F, size_type n) {
  std::vector<double> P(static_cast<std::size_t>(n * n), 0.0);
  for (size_type i = 0; i < n; ++i) {
    for (size_type j = 0; j < n; ++j) {
      double s = 0;
      for (size_type k = 0; k <= std::min(i, j); ++k) {
        const double l = k == i ? 1.0 : F[i * n + k];
        s += l * F[k * n + j];
      }
      P[i * n + j] = s;
    }
  }
  return P;
}

inline double max_abs(const std::vector<double>& v) {
  double m = 0;
  for (double x : v) m = std::max(m, std::abs(x));
  return m;
}

}  // namespace strata::test
