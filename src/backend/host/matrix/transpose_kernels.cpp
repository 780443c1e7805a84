// Host CSR transpose: a counting sort of A's entries by column. Taking A's
// rows in order fills each row of A^T in ascending columns, the order the
// stable sort of transpose_kernels.ipp gives, so both backends agree exactly.
#include "kernels/matrix/transpose_kernels.hpp"

#include <numeric>
#include <vector>

namespace strata::kernels::transpose {

template <class T>
CsrMatrix<T> transpose_csr(const HostExec& exec, size_type rows, size_type cols, size_type nnz,
                           const offset_type* row_ptr, const index_type* col_idx, const T* values) {
  Array<offset_type> t_row_ptr(exec, cols + 1, offset_type{0});
  offset_type* t_ptr = t_row_ptr.data();
  for (size_type k = 0; k < nnz; ++k) ++t_ptr[col_idx[k] + 1];
  std::partial_sum(t_ptr, t_ptr + cols + 1, t_ptr);
  Array<index_type> t_col_idx(exec, nnz);
  Array<T> t_values(exec, nnz);
  index_type* t_col = t_col_idx.data();
  T* t_val = t_values.data();
  std::vector<offset_type> next(t_ptr, t_ptr + cols);
  for (size_type i = 0; i < rows; ++i) {
    for (offset_type k = row_ptr[i]; k < row_ptr[i + 1]; ++k) {
      const offset_type p = next[col_idx[k]]++;
      t_col[p] = static_cast<index_type>(i);
      t_val[p] = values[k];
    }
  }
  return CsrMatrix<T>(cols, rows, std::move(t_row_ptr), std::move(t_col_idx), std::move(t_values));
}

template CsrMatrix<float> transpose_csr(const HostExec&, size_type, size_type, size_type,
                                        const offset_type*, const index_type*, const float*);
template CsrMatrix<double> transpose_csr(const HostExec&, size_type, size_type, size_type,
                                         const offset_type*, const index_type*, const double*);

}  // namespace strata::kernels::transpose
