// Single-source bodies of smoother_kernels.hpp.

#include <cmath>
#include <limits>

#include "kernels/base/hd.hpp"
#include "kernels/smoother/smoother_kernels.hpp"

namespace strata::kernels::smoother {

template <class Exec, class T>
size_type diagonal_scaling(const Exec& exec, size_type rows, const offset_type* row_ptr,
                           const index_type* col_idx, const T* values,
                           const offset_type* outside_row_ptr, const T* outside_values,
                           Scaling scaling, T* d) {
  constexpr size_type none = std::numeric_limits<size_type>::max();
  const bool l1 = scaling == Scaling::inverse_l1_norm;
  const bool root = scaling == Scaling::inverse_sqrt_diagonal;
  const size_type bad = transform_reduce(
      exec, rows, none,
      [=] STRATA_HD(size_type i) -> size_type {
        T diag{0}, norm{0};
        for (offset_type k = row_ptr[i]; k < row_ptr[i + 1]; ++k) {
          const T v = values[k];
          if (col_idx[k] == i) diag += v;
          norm += v < T{0} ? -v : v;
        }
        if (l1 && outside_row_ptr != nullptr) {
          for (offset_type k = outside_row_ptr[i]; k < outside_row_ptr[i + 1]; ++k) {
            const T v = outside_values[k];
            norm += v < T{0} ? -v : v;
          }
        }
        const T scale = l1 ? norm : diag;
        // Nonzero (positive for the square root) and finite.
        const bool usable = (root ? diag > T{0} : diag != T{0}) && diag - diag == T{0};
        const T inverse = usable ? T{1} / scale : T{0};
        d[i] = root ? std::sqrt(inverse) : inverse;
        return usable ? none : i;
      },
      ops::Min{});
  return bad == none ? -1 : bad;
}

template <class Exec, class T>
void jacobi_correct(const Exec& exec, size_type n, T omega, const T* d, const T* b, const T* t,
                    T* x) {
  parallel_for(exec, n, [=] STRATA_HD(size_type i) { x[i] += omega * d[i] * (b[i] - t[i]); });
}

template <class Exec, class T>
void chebyshev_start(const Exec& exec, size_type n, T inv_theta, const T* d, const T* b, const T* t,
                     T* r, T* p, T* x) {
  if (t == nullptr) {
    parallel_for(exec, n, [=] STRATA_HD(size_type i) {
      const T ri = d[i] * b[i];
      const T pi = inv_theta * ri;
      r[i] = ri;
      p[i] = pi;
      x[i] = pi;
    });
  } else {
    parallel_for(exec, n, [=] STRATA_HD(size_type i) {
      const T ri = d[i] * (b[i] - t[i]);
      const T pi = inv_theta * ri;
      r[i] = ri;
      p[i] = pi;
      x[i] += pi;
    });
  }
}

template <class Exec, class T>
void chebyshev_step(const Exec& exec, size_type n, T c_keep, T c_new, const T* d, const T* t, T* r,
                    T* p, T* x) {
  parallel_for(exec, n, [=] STRATA_HD(size_type i) {
    const T ri = r[i] - d[i] * t[i];
    const T pi = c_keep * p[i] + c_new * ri;
    r[i] = ri;
    p[i] = pi;
    x[i] += pi;
  });
}

}  // namespace strata::kernels::smoother
