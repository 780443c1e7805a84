// Host SpGEMM: C = A B row by row on OpenMP threads.
//
// Each thread owns an open-addressing hash set of column indices, sized to
// the row at hand (its work bounds its nonzeros) and cleared through the
// list of slots it filled, so memory stays O(longest row) per thread rather
// than O(B.cols()) as a dense accumulator would need (64 threads times a
// 10^8-column B would be 25 GB of markers). Three passes over the rows:
//   1. count the distinct columns of each row; row offsets by a scan;
//   2. collect each row's columns and sort them;
//   3. values: for each a_ik in A's stored order, each b_kj is added to the
//      entry of column j, found by binary search in the row's sorted columns.
// Pass 3 alone is numeric(), the value-only recompute. Its order of summation
// is the device's (see spgemm.hpp), so the two backends differ only by the
// device's fused multiply-adds.

#include "kernels/matrix/spgemm_kernels.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

#include "backend/host/base/parallel.hpp"
#include "kernels/matrix/spgemm_kernels.ipp"

namespace strata::kernels::spgemm {

namespace {

constexpr index_type empty_key = std::numeric_limits<index_type>::max();
// Rows per OpenMP task: small enough to balance rows of uneven work.
constexpr size_type rows_per_task = 64;

/// The distinct column indices of one row of C.
class ColumnSet {
 public:
  /// Starts a row that has at most `bound` distinct columns.
  void start(size_type bound) {
    std::size_t want = 16;
    while (want < 2 * static_cast<std::size_t>(bound)) want <<= 1;  // load factor <= 1/2
    if (table_.size() < want) table_.assign(want, empty_key);
    mask_ = table_.size() - 1;
    shift_ = 64;
    for (std::size_t s = table_.size(); s > 1; s >>= 1) --shift_;
    slots_.clear();
  }
  void insert(index_type key) {
    // Fibonacci hashing (high bits of key * 2^64 / phi): stencil columns
    // repeat with strides like n^2 that are multiples of the table size, and
    // the low bits of the key alone would pile them into one slot.
    std::size_t s = static_cast<std::size_t>(
        (static_cast<std::uint64_t>(static_cast<std::uint32_t>(key)) * 0x9E3779B97F4A7C15ull) >>
        shift_);
    while (true) {
      const index_type seen = table_[s];
      if (seen == key) return;
      if (seen == empty_key) {
        table_[s] = key;
        slots_.push_back(s);
        return;
      }
      s = (s + 1) & mask_;
    }
  }
  size_type size() const noexcept { return static_cast<size_type>(slots_.size()); }
  /// Writes the columns (unordered) to out[0 .. size()).
  void copy_to(index_type* out) const {
    for (std::size_t m = 0; m < slots_.size(); ++m) out[m] = table_[slots_[m]];
  }
  /// Empties the set in O(size()).
  void clear() {
    for (const std::size_t s : slots_) table_[s] = empty_key;
    slots_.clear();
  }

 private:
  std::vector<index_type> table_;
  std::vector<std::size_t> slots_;
  std::size_t mask_ = 0;
  int shift_ = 64;
};

/// f(scratch, i) for every row i, rows in dynamic chunks over the threads,
/// each thread with its own Scratch.
template <class Scratch, class F>
void for_each_row(const HostExec& exec, size_type rows, F&& f) {
#if STRATA_WITH_OPENMP
  const int threads = host_detail::thread_count(exec);
#pragma omp parallel num_threads(threads) if (rows > rows_per_task)
  {
    Scratch scratch;
#pragma omp for schedule(dynamic, rows_per_task)
    for (size_type i = 0; i < rows; ++i) f(scratch, i);
  }
#else
  (void)exec;
  Scratch scratch;
  for (size_type i = 0; i < rows; ++i) f(scratch, i);
#endif
}

struct NoScratch {};

/// Inserts the columns of row i of A B into `set`.
void insert_row(ColumnSet& set, const Pattern& A, const Pattern& B, size_type i, size_type bound) {
  set.start(bound);
  for (offset_type e = A.row_ptr[i]; e < A.row_ptr[i + 1]; ++e) {
    const index_type k = A.col_idx[e];
    for (offset_type q = B.row_ptr[k]; q < B.row_ptr[k + 1]; ++q) set.insert(B.col_idx[q]);
  }
}

}  // namespace

template <class Exec, class T>
void numeric(const Exec& exec, const Pattern& A, const T* a_values, const Pattern& B,
             const T* b_values, const Pattern& C, const detail::ProductSchedule& /*schedule*/,
             T* c_values) {
  for_each_row<NoScratch>(exec, C.rows, [&](NoScratch&, size_type i) {
    const offset_type c0 = C.row_ptr[i];
    const index_type* cols = C.col_idx + c0;
    const index_type* cols_end = C.col_idx + C.row_ptr[i + 1];
    T* acc = c_values + c0;
    std::fill(acc, acc + (cols_end - cols), T{0});
    for (offset_type e = A.row_ptr[i]; e < A.row_ptr[i + 1]; ++e) {
      const index_type k = A.col_idx[e];
      const T a = a_values[e];
      for (offset_type q = B.row_ptr[k]; q < B.row_ptr[k + 1]; ++q) {
        const auto p = std::lower_bound(cols, cols_end, B.col_idx[q]) - cols;
        acc[p] += a * b_values[q];
      }
    }
  });
}

template <class Exec, class T>
Product<T> multiply(const Exec& exec, const Pattern& A, const T* a_values, const Pattern& B,
                    const T* b_values) {
  const size_type rows = A.rows;
  Product<T> product;
  Array<offset_type> work(exec, rows);
  const offset_type* w = work.data();
  product.products = row_products(exec, rows, A.row_ptr, A.col_idx, B.row_ptr, work.data());

  // 1. Count.
  Array<offset_type> row_ptr(exec, rows + 1);
  offset_type* rp = row_ptr.data();
  for_each_row<ColumnSet>(exec, rows, [&](ColumnSet& set, size_type i) {
    insert_row(set, A, B, i, std::min<size_type>(w[i], B.cols));
    rp[i] = set.size();
    set.clear();
  });
  const size_type nnz = counts_to_offsets(exec, rp, rows, B.cols);

  // 2. Columns, sorted within rows.
  Array<index_type> col_idx(exec, nnz);
  index_type* ci = col_idx.data();
  for_each_row<ColumnSet>(exec, rows, [&](ColumnSet& set, size_type i) {
    insert_row(set, A, B, i, std::min<size_type>(w[i], B.cols));
    set.copy_to(ci + rp[i]);
    std::sort(ci + rp[i], ci + rp[i + 1]);
    set.clear();
  });

  // 3. Values.
  Array<T> values(exec, nnz);
  const Pattern C{rows, B.cols, nnz, rp, ci};
  numeric(exec, A, a_values, B, b_values, C, product.schedule, values.data());
  product.C = CsrMatrix<T>(rows, B.cols, std::move(row_ptr), std::move(col_idx), std::move(values));
  return product;
}

template Product<float> multiply(const HostExec&, const Pattern&, const float*, const Pattern&,
                                 const float*);
template Product<double> multiply(const HostExec&, const Pattern&, const double*, const Pattern&,
                                  const double*);
template void numeric(const HostExec&, const Pattern&, const float*, const Pattern&, const float*,
                      const Pattern&, const detail::ProductSchedule&, float*);
template void numeric(const HostExec&, const Pattern&, const double*, const Pattern&, const double*,
                      const Pattern&, const detail::ProductSchedule&, double*);
template size_type row_products(const HostExec&, size_type, const offset_type*, const index_type*,
                                const offset_type*, offset_type*);
template size_type counts_to_offsets(const HostExec&, offset_type*, size_type, size_type);
template std::uint64_t pattern_fingerprint(const HostExec&, const Pattern&);

}  // namespace strata::kernels::spgemm
