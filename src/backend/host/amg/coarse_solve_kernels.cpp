// Host coarse-level kernels: Gauss-Jordan inversion with partial pivoting.

#include <cmath>
#include <utility>
#include <vector>

#include "backend/host/base/parallel.hpp"
#include "kernels/amg/coarse_solve_kernels.ipp"

namespace strata::kernels::amg {

template <class Exec, class T>
size_type dense_invert(const Exec& exec, size_type n, T* a, T singular_tolerance) {
  // Gauss-Jordan on the column-major a: at step k choose the pivot row p
  // (largest |a_pk|), swap rows, scale, eliminate column k from every other
  // row; the row swaps are undone on the columns at the end.
  const auto at = [&](size_type i, size_type j) -> T& { return a[j * n + i]; };
  T scale{0};
  for (size_type k = 0; k < n * n; ++k) scale = std::max(scale, std::abs(a[k]));
  std::vector<size_type> pivot(static_cast<std::size_t>(n));
  for (size_type k = 0; k < n; ++k) {
    size_type p = k;
    for (size_type i = k + 1; i < n; ++i) {
      if (std::abs(at(i, k)) > std::abs(at(p, k))) p = i;
    }
    if (!(std::abs(at(p, k)) > singular_tolerance * scale)) return k;
    pivot[k] = p;
    if (p != k) {
      for (size_type j = 0; j < n; ++j) std::swap(at(k, j), at(p, j));
    }
    const T inv = T{1} / at(k, k);
    at(k, k) = T{1};  // in-place inversion: the pivot's slot becomes 1 / pivot
    for (size_type j = 0; j < n; ++j) at(k, j) *= inv;
    // Row operations, parallel over columns j (each column is contiguous).
    std::vector<T> factor(static_cast<std::size_t>(n));
    for (size_type i = 0; i < n; ++i) factor[i] = i == k ? T{0} : at(i, k);
    for (size_type i = 0; i < n; ++i) {
      if (i != k) at(i, k) = T{0};
    }
    parallel_for(exec, n, [&](size_type j) {
      const T akj = at(k, j);
      if (akj == T{0}) return;
      T* column = a + j * n;
      for (size_type i = 0; i < n; ++i) column[i] -= factor[i] * akj;
    });
  }
  for (size_type k = n - 1; k >= 0; --k) {  // undo the row swaps as column swaps
    if (pivot[k] != k) {
      for (size_type i = 0; i < n; ++i) std::swap(at(i, k), at(i, pivot[k]));
    }
  }
  return -1;
}

}  // namespace strata::kernels::amg

#define STRATA_EXEC HostExec
#include "kernels/amg/coarse_solve_instantiate.inc"
#undef STRATA_EXEC
