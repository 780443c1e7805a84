// Single-source bodies of bsr_kernels.hpp (all but the tuned SpMV fast
// paths, which each backend writes for itself). Included by one backend file
// after that backend's parallel header, so the unqualified parallel_for,
// transform_reduce and stable_sort_by_key below resolve (by argument-dependent
// lookup on Exec) to that backend.

#include <cstdint>
#include <limits>
#include <type_traits>
#include <utility>

#include "kernels/base/hd.hpp"
#include "kernels/matrix/assembly_kernels.hpp"
#include "kernels/matrix/bsr_kernels.hpp"
#include "kernels/matrix/csr_kernels.hpp"

namespace strata::kernels::bsr {

namespace detail {

inline int bits_for(size_type count) {
  int bits = 0;
  while (bits < 63 && (size_type{1} << bits) < count) ++bits;
  return bits;
}

/// block_row_of[k] = the block row of block k.
template <class Exec>
void expand_block_rows(const Exec& exec, size_type block_rows, const offset_type* row_ptr,
                       size_type* block_row_of) {
  parallel_for(exec, block_rows, [=] STRATA_HD(size_type i) {
    for (offset_type k = row_ptr[i]; k < row_ptr[i + 1]; ++k) block_row_of[k] = i;
  });
}

/// SpMV with run-time block sizes, a thread per scalar row, summing in the
/// order of the contract (blocks in order, then columns of the block). The
/// fallback for block sizes without a fast path, on both backends.
template <class Exec, class T>
void spmv_generic(const Exec& exec, size_type block_rows, int r, int c, const offset_type* row_ptr,
                  const index_type* col_idx, const T* values, T alpha, const T* x, T beta, T* y) {
  const size_type block = static_cast<size_type>(r) * c;
  parallel_for(exec, block_rows * r, [=] STRATA_HD(size_type row) {
    const size_type I = row / r;
    const size_type a = row - I * r;
    T sum{0};
    for (offset_type k = row_ptr[I]; k < row_ptr[I + 1]; ++k) {
      const T* v = values + k * block + a * c;
      const T* xs = x + static_cast<size_type>(col_idx[k]) * c;
      for (int j = 0; j < c; ++j) sum += v[j] * xs[j];
    }
    y[row] = beta == T{0} ? alpha * sum : alpha * sum + beta * y[row];
  });
}

/// sum = block row I of A times x (B x B blocks), each row summed over the
/// blocks in order, then the columns of the block: the sweeps' residuals.
template <int B, class T>
STRATA_HD inline void block_row_times(size_type I, const offset_type* row_ptr,
                                      const index_type* col_idx, const T* values, const T* x,
                                      T (&sum)[B]) {
  for (int a = 0; a < B; ++a) sum[a] = T{0};
  for (offset_type k = row_ptr[I]; k < row_ptr[I + 1]; ++k) {
    const T* v = values + k * (B * B);
    const T* xs = x + static_cast<size_type>(col_idx[k]) * B;
    for (int a = 0; a < B; ++a) {
      for (int j = 0; j < B; ++j) sum[a] += v[a * B + j] * xs[j];
    }
  }
}

/// The shared body of jacobi_sweep for a compiled block size B.
template <int B, class Exec, class T>
void jacobi_sweep_fixed(const Exec& exec, size_type block_rows, const offset_type* row_ptr,
                        const index_type* col_idx, const T* values, const T* inverse, T omega,
                        const T* rhs, const T* x0, T* x) {
  parallel_for(exec, block_rows, [=] STRATA_HD(size_type I) {
    T sum[B];
    block_row_times<B>(I, row_ptr, col_idx, values, x0, sum);
    T r[B];
    for (int a = 0; a < B; ++a) r[a] = rhs[I * B + a] - sum[a];
    const T* inv = inverse + I * (B * B);
    for (int a = 0; a < B; ++a) {
      T s{0};
      for (int j = 0; j < B; ++j) s += inv[a * B + j] * r[j];
      x[I * B + a] = x0[I * B + a] + omega * s;
    }
  });
}

/// The shared body of diagonal_sweep for a compiled block size B.
template <int B, class Exec, class T>
void diagonal_sweep_fixed(const Exec& exec, size_type block_rows, const offset_type* row_ptr,
                          const index_type* col_idx, const T* values, const T* d, const T* rhs,
                          const T* x0, T* x) {
  parallel_for(exec, block_rows, [=] STRATA_HD(size_type I) {
    T sum[B];
    block_row_times<B>(I, row_ptr, col_idx, values, x0, sum);
    for (int a = 0; a < B; ++a) {
      const size_type i = I * B + a;
      x[i] = x0[i] + d[i] * (rhs[i] - sum[a]);
    }
  });
}

/// f(std::integral_constant<int, b>) for a square block size b with a fast
/// path (1, 2, 3, 4, 6; the caller checked b).
template <class F>
void with_square_block(int b, F&& f) {
  using std::integral_constant;
  if (b == 1) return f(integral_constant<int, 1>{});
  if (b == 2) return f(integral_constant<int, 2>{});
  if (b == 3) return f(integral_constant<int, 3>{});
  if (b == 4) return f(integral_constant<int, 4>{});
  f(integral_constant<int, 6>{});
}

}  // namespace detail

template <class Exec, class T>
void jacobi_sweep(const Exec& exec, size_type block_rows, size_type /*num_blocks*/, int b,
                  const offset_type* row_ptr, const index_type* col_idx, const T* values,
                  const T* inverse, T omega, const T* rhs, const T* x0, T* x) {
  detail::with_square_block(b, [&](auto B) {
    detail::jacobi_sweep_fixed<decltype(B)::value>(exec, block_rows, row_ptr, col_idx, values,
                                                   inverse, omega, rhs, x0, x);
  });
}

template <class Exec, class T>
void diagonal_sweep(const Exec& exec, size_type block_rows, size_type /*num_blocks*/, int b,
                    const offset_type* row_ptr, const index_type* col_idx, const T* values,
                    const T* d, const T* rhs, const T* x0, T* x) {
  detail::with_square_block(b, [&](auto B) {
    detail::diagonal_sweep_fixed<decltype(B)::value>(exec, block_rows, row_ptr, col_idx, values,
                                                     d, rhs, x0, x);
  });
}

template <class Exec, class T>
size_type validate(const Exec& exec, size_type block_rows, size_type block_cols,
                   size_type num_blocks, int block, const offset_type* row_ptr,
                   const index_type* col_idx, const T* values) {
  using csr::CsrDefect;
  constexpr size_type none = std::numeric_limits<size_type>::max();
  const size_type first = transform_reduce(
      exec, block_rows, none,
      [=] STRATA_HD(size_type i) -> size_type {
        const offset_type begin = row_ptr[i], end = row_ptr[i + 1];
        if (begin < 0 || end > num_blocks) return i * 8 + int(CsrDefect::row_ptr_out_of_range);
        if (end < begin) return i * 8 + int(CsrDefect::decreasing_row_ptr);
        bool sorted = true;
        for (offset_type k = begin; k < end; ++k) {
          const index_type col = col_idx[k];
          if (col < 0 || col >= block_cols) return i * 8 + int(CsrDefect::column_out_of_range);
          for (int b = 0; b < block; ++b) {
            const T v = values[k * block + b];
            if (!(v - v == T{0})) return i * 8 + int(CsrDefect::non_finite_value);
          }
          if (k > begin && col_idx[k - 1] >= col) sorted = false;
        }
        if (!sorted) {  // quadratic only for block rows whose columns are not sorted
          for (offset_type k = begin + 1; k < end; ++k) {
            for (offset_type m = begin; m < k; ++m) {
              if (col_idx[m] == col_idx[k]) return i * 8 + int(CsrDefect::duplicate_column);
            }
          }
        }
        return none;
      },
      ops::Min{});
  return first == none ? -1 : first;
}

namespace detail {

/// Block rows with at most this many block columns are converted row by
/// row (from_csr_by_block_rows).
constexpr int kRowwiseBlocks = 64;

/// The distinct block columns of block row I, ascending, into list (room for
/// kRowwiseBlocks); their number, or -1 when there are more.
STRATA_HD inline int block_columns_of(size_type I, int r, int c, const offset_type* row_ptr,
                                      const index_type* col_idx, index_type* list) {
  int n = 0;
  for (int a = 0; a < r; ++a) {
    const size_type i = I * r + a;
    for (offset_type k = row_ptr[i]; k < row_ptr[i + 1]; ++k) {
      const index_type J = col_idx[k] / c;
      int pos = n;  // the first position whose block column is >= J
      if (n > 0 && list[n - 1] >= J) {  // not past the end (sorted rows' common case)
        int lo = 0;
        while (lo < pos) {
          const int mid = (lo + pos) / 2;
          if (list[mid] < J) {
            lo = mid + 1;
          } else {
            pos = mid;
          }
        }
        if (list[pos] == J) continue;
      }
      if (n == kRowwiseBlocks) return -1;
      for (int q = n; q > pos; --q) list[q] = list[q - 1];
      list[pos] = J;
      ++n;
    }
  }
  return n;
}

}  // namespace detail

/// from_csr by block rows: each block row's distinct block columns sorted
/// in a short list of its own, then each entry placed by bisection in it.
/// Two passes over the entries and no sort of them all, which is what the
/// general path costs (a radix sort of every entry's key and its
/// permutation: 52 ms for the 666k entries of elasticity3d 14 on one host
/// core, against 17 ms for this). Host only (see from_csr). Returns false, having built nothing, when some block row has more
/// than kRowwiseBlocks block columns.
template <class Exec, class T>
bool from_csr_by_block_rows(const Exec& exec, size_type rows, size_type cols,
                            const offset_type* row_ptr, const index_type* col_idx, const T* values,
                            int r, int c, BsrMatrix<T>& out) {
  const size_type block_rows = rows / r, block_cols = cols / c;
  const size_type block = static_cast<size_type>(r) * c;
  const Executor e(exec);
  Array<offset_type> bsr_ptr(e, block_rows + 1);
  offset_type* ptr = bsr_ptr.data();
  parallel_for(exec, block_rows + 1, [=] STRATA_HD(size_type I) {
    index_type list[detail::kRowwiseBlocks];
    ptr[I] = I == block_rows ? 0 : detail::block_columns_of(I, r, c, row_ptr, col_idx, list);
  });
  const size_type too_long = transform_reduce(
      exec, block_rows, size_type{0},
      [=] STRATA_HD(size_type I) -> size_type { return ptr[I] < 0 ? 1 : 0; }, ops::Plus{});
  if (too_long > 0) return false;
  const offset_type blocks = exclusive_scan(exec, ptr, ptr, block_rows + 1);
  Array<index_type> bsr_col(e, blocks);
  Array<T> bsr_values(e, blocks * block, T{0});
  index_type* col = bsr_col.data();
  T* val = bsr_values.data();
  parallel_for(exec, block_rows, [=] STRATA_HD(size_type I) {
    index_type list[detail::kRowwiseBlocks];
    const int n = detail::block_columns_of(I, r, c, row_ptr, col_idx, list);
    const offset_type first = ptr[I];
    for (int q = 0; q < n; ++q) col[first + q] = list[q];
    for (int a = 0; a < r; ++a) {
      const size_type i = I * r + a;
      for (offset_type k = row_ptr[i]; k < row_ptr[i + 1]; ++k) {
        const index_type J = col_idx[k] / c;
        int lo = 0, hi = n;  // the first position whose block column is >= J
        while (lo < hi) {
          const int mid = (lo + hi) / 2;
          if (list[mid] < J) {
            lo = mid + 1;
          } else {
            hi = mid;
          }
        }
        val[(first + lo) * block + static_cast<size_type>(a) * c + col_idx[k] % c] = values[k];
      }
    }
  });
  out = BsrMatrix<T>(block_rows, block_cols, r, c, std::move(bsr_ptr), std::move(bsr_col),
                     std::move(bsr_values));
  return true;
}

template <class Exec, class T>
BsrMatrix<T> from_csr(const Exec& exec, size_type rows, size_type cols, const offset_type* row_ptr,
                      const index_type* col_idx, const T* values, size_type nnz, int r, int c) {
  // On the host only: on an H100 the thread per block row (its list in
  // local memory) took about 80 ms for a 486M-entry elasticity block that
  // the radix sort below converts in about 15 ms.
  if constexpr (std::is_same_v<Exec, HostExec>) {
    BsrMatrix<T> by_rows;
    if (from_csr_by_block_rows(exec, rows, cols, row_ptr, col_idx, values, r, c, by_rows)) {
      return by_rows;
    }
  }
  using assembly::key_type;
  const size_type block_rows = rows / r, block_cols = cols / c;
  const size_type block = static_cast<size_type>(r) * c;
  const int col_bits = detail::bits_for(block_cols);
  const int key_bits = detail::bits_for(block_rows) + col_bits;
  const Executor e(exec);

  // Every entry's block key, and its row inside the block.
  Array<key_type> keys(e, nnz);
  Array<std::int32_t> sub_row(e, nnz);
  key_type* key = keys.data();
  std::int32_t* sub = sub_row.data();
  parallel_for(exec, rows, [=] STRATA_HD(size_type i) {
    const key_type I = static_cast<key_type>(i / r);
    for (offset_type k = row_ptr[i]; k < row_ptr[i + 1]; ++k) {
      key[k] = (I << col_bits) | static_cast<key_type>(col_idx[k] / c);
      sub[k] = static_cast<std::int32_t>(i % r);
    }
  });
  // The blocks are the runs of equal keys after a stable sort.
  Array<size_type> perm(e, nnz);
  assembly::sort_entries(exec, nnz, key, perm.data(), key_bits);
  Array<size_type> starts_before(e, nnz);
  const size_type blocks = assembly::number_segments(exec, nnz, key, starts_before.data());
  Array<size_type> seg_ptr(e, blocks + 1);
  Array<key_type> seg_key(e, blocks);
  assembly::find_segments(exec, nnz, key, starts_before.data(), blocks, seg_ptr.data(),
                          seg_key.data());
  Array<offset_type> bsr_ptr(e, block_rows + 1);
  Array<index_type> bsr_col(e, blocks);
  assembly::build_pattern(exec, block_rows, blocks, seg_key.data(), col_bits, bsr_ptr.data(),
                          bsr_col.data());
  // Zero-filled blocks, then each entry scattered to its place.
  Array<T> bsr_values(e, blocks * block, T{0});
  T* out = bsr_values.data();
  const size_type* perm_data = perm.data();
  const size_type* before = starts_before.data();
  parallel_for(exec, nnz, [=] STRATA_HD(size_type i) {
    const size_type k = perm_data[i];
    const bool starts = i == 0 || key[i] != key[i - 1];
    const size_type s = starts ? before[i] : before[i] - 1;
    out[s * block + sub[k] * c + col_idx[k] % c] = values[k];
  });
  return BsrMatrix<T>(block_rows, block_cols, r, c, std::move(bsr_ptr), std::move(bsr_col),
                      std::move(bsr_values));
}

template <class Exec, class T>
CsrMatrix<T> to_csr(const Exec& exec, size_type block_rows, size_type block_cols, int r, int c,
                    const offset_type* row_ptr, const index_type* col_idx, const T* values,
                    size_type num_blocks) {
  const size_type rows = block_rows * r;
  const size_type block = static_cast<size_type>(r) * c;
  const Executor e(exec);
  Array<offset_type> csr_ptr(e, rows + 1);
  offset_type* ptr = csr_ptr.data();
  // Row a of block row I starts after the block rows before I (all their
  // values) and rows 0..a-1 of I (c entries per block each).
  parallel_for(exec, rows + 1, [=] STRATA_HD(size_type i) {
    if (i == rows) {
      ptr[i] = num_blocks * block;
      return;
    }
    const size_type I = i / r, a = i - I * r;
    ptr[i] = row_ptr[I] * block + a * (row_ptr[I + 1] - row_ptr[I]) * c;
  });
  Array<size_type> block_row(e, num_blocks);
  detail::expand_block_rows(exec, block_rows, row_ptr, block_row.data());
  Array<index_type> csr_col(e, num_blocks * block);
  Array<T> csr_values(e, num_blocks * block);
  index_type* col = csr_col.data();
  T* val = csr_values.data();
  const size_type* row_of = block_row.data();
  parallel_for(exec, num_blocks * block, [=] STRATA_HD(size_type t) {
    const size_type k = t / block, within = t - k * block;
    const size_type a = within / c, j = within - a * c;
    const size_type I = row_of[k];
    const offset_type position =
        row_ptr[I] * block + a * (row_ptr[I + 1] - row_ptr[I]) * c + (k - row_ptr[I]) * c + j;
    col[position] = static_cast<index_type>(static_cast<size_type>(col_idx[k]) * c + j);
    val[position] = values[t];
  });
  return CsrMatrix<T>(rows, block_cols * c, std::move(csr_ptr), std::move(csr_col),
                      std::move(csr_values));
}

template <class Exec, class T>
BsrMatrix<T> transpose(const Exec& exec, size_type block_rows, size_type block_cols, int r, int c,
                       const offset_type* row_ptr, const index_type* col_idx, const T* values,
                       size_type num_blocks) {
  const size_type block = static_cast<size_type>(r) * c;
  const Executor e(exec);
  // The pattern: sort the block indices by block column, stably, so that a
  // new block row lists its blocks in ascending old block row.
  Array<index_type> keys(e, num_blocks);
  Array<offset_type> perm(e, num_blocks);
  index_type* key = keys.data();
  offset_type* order = perm.data();
  parallel_for(exec, num_blocks, [=] STRATA_HD(size_type k) {
    key[k] = col_idx[k];
    order[k] = k;
  });
  stable_sort_by_key(exec, key, order, num_blocks);
  Array<offset_type> t_ptr(e, block_cols + 1);
  offset_type* ptr = t_ptr.data();
  parallel_for(exec, num_blocks + 1, [=] STRATA_HD(size_type s) {
    const size_type row = s < num_blocks ? static_cast<size_type>(key[s]) : block_cols;
    const size_type previous = s > 0 ? static_cast<size_type>(key[s - 1]) : -1;
    for (size_type i = previous + 1; i <= row; ++i) ptr[i] = s;
  });
  Array<size_type> block_row(e, num_blocks);
  detail::expand_block_rows(exec, block_rows, row_ptr, block_row.data());
  Array<index_type> t_col(e, num_blocks);
  index_type* col = t_col.data();
  const size_type* row_of = block_row.data();
  parallel_for(exec, num_blocks,
               [=] STRATA_HD(size_type p) { col[p] = static_cast<index_type>(row_of[order[p]]); });
  // Every block transposed: entry (a, j) of the new c x r block is entry
  // (j, a) of the old r x c one.
  Array<T> t_values(e, num_blocks * block);
  T* val = t_values.data();
  parallel_for(exec, num_blocks * block, [=] STRATA_HD(size_type t) {
    const size_type p = t / block, within = t - p * block;
    const size_type a = within / r, j = within - a * r;
    val[t] = values[order[p] * block + j * c + a];
  });
  return BsrMatrix<T>(block_cols, block_rows, c, r, std::move(t_ptr), std::move(t_col),
                      std::move(t_values));
}

}  // namespace strata::kernels::bsr
