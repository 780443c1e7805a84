// ILU(0), ILU(k) and ILUT (strata/matrix/ilu.hpp): checks, the pattern
// stages, and the level-scheduled numeric factorization shared by ILU(0)
// and ILU(k).

#include "strata/matrix/ilu.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <type_traits>
#include <vector>

#include "kernels/matrix/ilu_kernels.hpp"
#include "strata/matrix/triangular.hpp"

namespace strata {

namespace {

/// |u_ii| <= tiny_pivot * max_j |a_ij| is a breakdown.
constexpr double tiny_pivot = 1e-14;

std::string number(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.6g", v);
  return text;
}

template <class T>
void check_square(const CsrMatrix<T>& A, const char* who) {
  if (A.rows() != A.cols()) {
    throw dimension_mismatch(std::string(who) + ": A must be square, it is " +
                             std::to_string(A.rows()) + " x " + std::to_string(A.cols()));
  }
}

[[noreturn]] void bad_pivot(const char* who, size_type row, size_type rows, double value) {
  throw invalid_argument(std::string(who) + ": the pivot u_ii of row " + std::to_string(row + 1) +
                         " (1-based) of " + std::to_string(rows) + " is " + number(value) +
                         "; expected a finite value with |u_ii| > 1e-14 max_j |a_ij|. The "
                         "incomplete factorization breaks down there (try more fill, a smaller "
                         "drop tolerance, or another preconditioner)");
}

/// A copy of A (same executor) with ascending columns in every row.
template <class T>
CsrMatrix<T> sorted_copy(const CsrMatrix<T>& A) {
  const Executor& exec = A.executor();
  const bool sorted = exec.visit([&](const auto& e) {
    return kernels::ilu::rows_sorted(e, A.rows(), A.row_ptr().data(), A.col_idx().data());
  });
  if (sorted) return A.clone();
  Array<index_type> col(exec, A.nnz());
  Array<T> val(exec, A.nnz());
  exec.visit([&](const auto& e) {
    kernels::ilu::sort_rows(e, A.rows(), A.nnz(), A.row_ptr().data(), A.col_idx().data(),
                            A.values().data(), col.data(), val.data());
  });
  return CsrMatrix<T>(A.rows(), A.cols(), A.row_ptr().clone(), std::move(col), std::move(val));
}

/// The numeric factorization of LU in place, where it lives: LU holds A's
/// values on its (sorted) pattern, fill entries zero. Row by row as in the
/// sequential IKJ ILU, the rows of one level of the lower triangular solve
/// with LU's pattern at a time.
template <class T>
void factor(CsrMatrix<T>& LU, const char* who) {
  const Executor& exec = LU.executor();
  const size_type n = LU.rows();
  Array<offset_type> diag(exec, n);
  Array<T> scale(exec, n);
  const size_type missing = exec.visit([&](const auto& e) {
    return kernels::ilu::diagonal_positions(e, n, LU.row_ptr().data(), LU.col_idx().data(),
                                            LU.values().data(), diag.data(), scale.data());
  });
  if (missing >= 0) {
    throw invalid_argument(std::string(who) + ": row " + std::to_string(missing + 1) +
                           " (1-based) of " + std::to_string(n) +
                           " has no diagonal entry in its pattern; the factorization divides "
                           "by the pivot u_ii there (store the diagonal, even as 0)");
  }
  // The levels of L's solve: row i depends on the rows k < i of its pattern.
  const TriangularSolver<T> lower(
      LU, {.triangle = Triangle::lower, .unit_diagonal = true,
           .algorithm = TriangularAlgorithm::level_scheduled});
  const auto& level_ptr = lower.level_ptr();
  exec.visit([&](const auto& e) {
    if constexpr (std::is_same_v<std::decay_t<decltype(e)>, CudaExec>) {
      kernels::ilu::factor_levels(e, level_ptr, LU.nnz(), lower.level_order().data(),
                                  LU.row_ptr().data(), LU.col_idx().data(), diag.data(),
                                  LU.values().data());
    } else {
      for (std::size_t l = 0; l + 1 < level_ptr.size(); ++l) {
        kernels::ilu::factor_level(e, level_ptr[l], level_ptr[l + 1], lower.level_order().data(),
                                   LU.row_ptr().data(), LU.col_idx().data(), diag.data(),
                                   LU.values().data());
      }
    }
  });
  const size_type bad = exec.visit([&](const auto& e) {
    return kernels::ilu::first_bad_pivot(e, n, diag.data(), LU.values().data(), scale.data(),
                                         T(tiny_pivot));
  });
  if (bad >= 0) {
    offset_type at = 0;
    T value{};
    copy_bytes(&at, Executor::host(), diag.data() + bad, exec, sizeof at);
    copy_bytes(&value, Executor::host(), LU.values().data() + at, exec, sizeof value);
    bad_pivot(who, bad, n, static_cast<double>(value));
  }
}

}  // namespace

template <class T>
CsrMatrix<T> ilu0(const CsrMatrix<T>& A) {
  check_square(A, "ilu0");
  CsrMatrix<T> LU = sorted_copy(A);
  factor(LU, "ilu0");
  return LU;
}

template <class T>
CsrMatrix<T> iluk(const CsrMatrix<T>& A, int level_of_fill) {
  require(level_of_fill >= 0,
          "iluk: level_of_fill must be >= 0, got " + std::to_string(level_of_fill));
  check_square(A, "iluk");
  if (level_of_fill == 0) return ilu0(A);
  const Executor& exec = A.executor();
  const size_type n = A.rows();
  // The symbolic phase runs on the host (see the header): a device pattern
  // is copied there, and the fill pattern back below.
  const CsrMatrix<T> sorted = sorted_copy(A);
  const CsrMatrix<T> copy = exec.is_host() ? CsrMatrix<T>() : sorted.to(Executor::host());
  const CsrMatrix<T>& S = exec.is_host() ? sorted : copy;
  std::vector<offset_type> ptr;
  std::vector<index_type> col;
  kernels::ilu::iluk_pattern(HostExec{}, n, S.row_ptr().data(), S.col_idx().data(), level_of_fill,
                             ptr, col);
  // A's values on the fill pattern (both rows sorted: a merge), fill zero.
  std::vector<T> val(col.size(), T{0});
  const auto rp = S.row_ptr().host_view();
  const auto ci = S.col_idx().host_view();
  const auto va = S.values().host_view();
  for (size_type i = 0; i < n; ++i) {
    offset_type at = ptr[i];
    for (offset_type e = rp[i]; e < rp[i + 1]; ++e) {
      while (col[at] < ci[e]) ++at;  // every entry of A is in the fill pattern
      val[at] = va[e];
    }
  }
  CsrMatrix<T> LU(n, n, Array<offset_type>(exec, ptr), Array<index_type>(exec, col),
                  Array<T>(exec, val));
  factor(LU, "iluk");
  return LU;
}

template <class T>
CsrMatrix<T> ilut(const CsrMatrix<T>& A, double drop_tolerance, int max_fill_per_row) {
  require(drop_tolerance >= 0 && std::isfinite(drop_tolerance),
          "ilut: drop_tolerance must be a finite number >= 0, got " + number(drop_tolerance));
  require(max_fill_per_row >= 0,
          "ilut: max_fill_per_row must be >= 0, got " + std::to_string(max_fill_per_row));
  check_square(A, "ilut");
  const Executor& exec = A.executor();
  const size_type n = A.rows();
  // Factored on the host (see the header).
  const CsrMatrix<T> copy = exec.is_host() ? CsrMatrix<T>() : A.to(Executor::host());
  const CsrMatrix<T>& H = exec.is_host() ? A : copy;
  const auto rp = H.row_ptr().host_view();
  const auto ci = H.col_idx().host_view();
  const auto va = H.values().host_view();
  std::vector<offset_type> ptr;
  std::vector<index_type> col;
  std::vector<T> val;
  const size_type broken = kernels::ilu::ilut(HostExec{}, n, rp.data(), ci.data(), va.data(),
                                              drop_tolerance, max_fill_per_row, ptr, col, val);
  if (broken >= 0) {
    throw invalid_argument("ilut: the pivot u_ii of row " + std::to_string(broken + 1) +
                           " (1-based) of " + std::to_string(n) +
                           " is zero or not finite after dropping; expected a finite nonzero "
                           "value (try a smaller drop_tolerance or a larger max_fill_per_row)");
  }
  // The same test of tiny pivots as ilu0 and iluk, against A's rows.
  for (size_type i = 0; i < n; ++i) {
    T largest{0}, pivot{0};
    for (offset_type e = rp[i]; e < rp[i + 1]; ++e) largest = std::max(largest, std::abs(va[e]));
    for (offset_type e = ptr[i]; e < ptr[i + 1]; ++e) {
      if (col[e] == i) pivot = val[e];
    }
    if (!(std::abs(pivot) > T(tiny_pivot) * largest)) bad_pivot("ilut", i, n, pivot);
  }
  return CsrMatrix<T>(n, n, Array<offset_type>(exec, ptr), Array<index_type>(exec, col),
                      Array<T>(exec, val));
}

template CsrMatrix<double> ilu0<double>(const CsrMatrix<double>&);
template CsrMatrix<double> iluk<double>(const CsrMatrix<double>&, int);
template CsrMatrix<double> ilut<double>(const CsrMatrix<double>&, double, int);

}  // namespace strata
