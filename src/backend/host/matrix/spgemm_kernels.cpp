// Host SpGEMM: C = A B row by row on OpenMP threads.
//
// Each thread owns an open-addressing hash set of column indices, sized to
// the row at hand (its work bounds its nonzeros) and cleared through the
// list of slots it filled, so memory stays O(longest row) per thread rather
// than O(B.cols()) as a dense accumulator would need (64 threads times a
// 10^8-column B would be 25 GB of markers). One pass computes each row whole:
// its products inserted once, each product's slot noted; the row's columns
// sorted and each slot given its place; then the values, for each a_ik in A's
// stored order each b_kj added to its column's entry through the noted slot,
// while the row's products are still in cache. Rows go in blocks of
// rows_per_task to buffers of their own (of exactly the block's size), moved
// into C once the counts give the offsets: C is held twice for a moment.
// numeric(), the value-only recompute, has only C's sorted columns: it finds
// each product's entry through a hash set of the row's columns (rows of more
// than 16 columns; shorter ones by bisection).
//
// Where B has few enough columns that every thread can hold a mark per
// column (dense_marks_budget over all threads: the Galerkin products of AMG,
// whose B is P or A P with the coarse level's columns), both use that
// instead: a column's place in the row is one load, with no hashing and no
// slots to note. Measured on 7-point 128^3 classical AMG (2 threads): see
// bench/NOTES.md. Every c_ij is summed in A's
// order in both, the device's order (see spgemm.hpp), so the two backends
// differ only by the device's fused multiply-adds.

#include "kernels/matrix/spgemm_kernels.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

#include "backend/host/base/parallel.hpp"
#include "backend/host/matrix/column_marks.hpp"
#include "kernels/base/random.hpp"
#include "kernels/matrix/spgemm_kernels.ipp"

namespace strata::kernels::spgemm {

// Named, not anonymous: multiply()'s lambdas hold these types, and GCC warns
// (-Wsubobject-linkage) when such a lambda is instantiated from an included
// file (the instantiations are in spgemm_instantiate.inc).
namespace host_product {

constexpr index_type empty_key = std::numeric_limits<index_type>::max();
// Rows per OpenMP task: small enough to balance rows of uneven work.
constexpr size_type rows_per_task = 64;
using host_detail::ColumnMarks;
using host_detail::for_each_with_scratch;
using host_detail::use_marks;

/// The distinct column indices of one row of C, and, once the row is
/// sorted, the place of each in it.
class ColumnSet {
 public:
  /// Starts a row that has at most `bound` distinct columns.
  void start(size_type bound) {
    std::size_t want = 16;
    while (want < 2 * static_cast<std::size_t>(bound)) want <<= 1;  // load factor <= 1/2
    if (table_.size() < want) {
      table_.assign(want, empty_key);
      place_.resize(want);
    }
    mask_ = table_.size() - 1;
    shift_ = 64;
    for (std::size_t s = table_.size(); s > 1; s >>= 1) --shift_;
    slots_.clear();
  }
  /// The slot of `key`, inserted if it is new.
  std::uint32_t insert(index_type key) {
    std::size_t s = home(key);
    while (true) {
      const index_type seen = table_[s];
      if (seen == key) return static_cast<std::uint32_t>(s);
      if (seen == empty_key) {
        table_[s] = key;
        slots_.push_back(s);
        return static_cast<std::uint32_t>(s);
      }
      s = (s + 1) & mask_;
    }
  }
  /// The slot of a key that is in the set.
  std::size_t slot_of(index_type key) const {
    std::size_t s = home(key);
    while (table_[s] != key) s = (s + 1) & mask_;
    return s;
  }
  size_type size() const noexcept { return static_cast<size_type>(slots_.size()); }
  /// Writes the columns (unordered) to out[0 .. size()).
  void copy_to(index_type* out) const {
    for (std::size_t m = 0; m < slots_.size(); ++m) out[m] = table_[slots_[m]];
  }
  /// Notes the place p of each column cols[p] of the sorted row.
  void set_places(const index_type* cols, size_type n) {
    for (size_type p = 0; p < n; ++p) place_[slot_of(cols[p])] = static_cast<std::int32_t>(p);
  }
  /// The place of the column in `slot` (after set_places).
  std::int32_t place(std::size_t slot) const { return place_[slot]; }
  /// Empties the set in O(size()).
  void clear() {
    for (const std::size_t s : slots_) table_[s] = empty_key;
    slots_.clear();
  }

 private:
  // Fibonacci hashing (high bits of key * 2^64 / phi): stencil columns
  // repeat with strides like n^2 that are multiples of the table size, and
  // the low bits of the key alone would pile them into one slot.
  std::size_t home(index_type key) const {
    return static_cast<std::size_t>(base::fibonacci_hash(static_cast<std::uint32_t>(key), shift_));
  }

  std::vector<index_type> table_;
  std::vector<std::int32_t> place_;
  std::vector<std::size_t> slots_;
  std::size_t mask_ = 0;
  int shift_ = 64;
};

/// The rows of C of one task, one after another, before C's offsets are
/// known.
template <class T>
struct RowBlock {
  std::vector<index_type> cols;
  std::vector<T> values;
};

/// A thread's scratch for the fill: the row's column set, the slot of each
/// of its products in A's order, and the rows of the block at hand (kept
/// across blocks, so they grow once; each block then keeps an exact copy).
template <class T>
struct FillScratch {
  ColumnSet set;
  std::vector<std::uint32_t> product_slot;
  ColumnMarks marks;
  RowBlock<T> rows;
};

/// A thread's scratch for numeric(): a hash set or the column marks.
struct NumericScratch {
  ColumnSet set;
  ColumnMarks marks;
};

/// acc[place(j)] += a_ik b_kj for the products of row i in A's order (for
/// each a_ik, B's row k in its stored order): the order of the device.
template <class T, class Place>
void accumulate_row(const Pattern& A, const T* a_values, const Pattern& B, const T* b_values,
                    size_type i, Place&& place, T* acc) {
  for (offset_type e = A.row_ptr[i]; e < A.row_ptr[i + 1]; ++e) {
    const index_type k = A.col_idx[e];
    const T a = a_values[e];
    for (offset_type q = B.row_ptr[k]; q < B.row_ptr[k + 1]; ++q) {
      acc[place(q)] += a * b_values[q];
    }
  }
}

/// Row i of C appended to `out` (columns ascending, values summed in A's
/// order); returns its nonzeros. The row's products are inserted once, each
/// product's slot noted; the values are summed through those slots once the
/// sorted row gives each slot its place, while the products are in cache.
template <class T>
size_type fill_row(FillScratch<T>& scratch, const Pattern& A, const T* a_values, const Pattern& B,
                   const T* b_values, size_type i, size_type products, RowBlock<T>& out) {
  // Past this many products a row's slots are looked up again rather than
  // noted, so that a pathological row (a dense row of A meeting long rows of
  // B) needs memory for its columns only, as the device's batches do.
  constexpr size_type note_up_to = size_type{1} << 22;
  const bool note = products <= note_up_to;
  ColumnSet& set = scratch.set;
  std::vector<std::uint32_t>& slot = scratch.product_slot;
  set.start(std::min<size_type>(products, B.cols));
  slot.clear();
  for (offset_type e = A.row_ptr[i]; e < A.row_ptr[i + 1]; ++e) {
    const index_type k = A.col_idx[e];
    for (offset_type q = B.row_ptr[k]; q < B.row_ptr[k + 1]; ++q) {
      const std::uint32_t s = set.insert(B.col_idx[q]);
      if (note) slot.push_back(s);
    }
  }
  const size_type n = set.size();
  const std::size_t c0 = out.cols.size();
  out.cols.resize(c0 + static_cast<std::size_t>(n));
  out.values.resize(c0 + static_cast<std::size_t>(n), T{0});
  index_type* cols = out.cols.data() + c0;
  set.copy_to(cols);
  std::sort(cols, cols + n);
  set.set_places(cols, n);
  T* acc = out.values.data() + c0;
  if (note) {
    std::size_t product = 0;  // the products come in the order their slots were noted
    accumulate_row(
        A, a_values, B, b_values, i, [&](offset_type) { return set.place(slot[product++]); }, acc);
  } else {
    accumulate_row(
        A, a_values, B, b_values, i,
        [&](offset_type q) { return set.place(set.slot_of(B.col_idx[q])); }, acc);
  }
  set.clear();
  return n;
}

/// fill_row() through the column marks (use_marks()): the row's distinct
/// columns collected as first seen, sorted, each given its place in its
/// mark; the values summed through the marks in the same order.
template <class T>
size_type fill_row_marked(FillScratch<T>& scratch, const Pattern& A, const T* a_values,
                          const Pattern& B, const T* b_values, size_type i, RowBlock<T>& out) {
  std::int32_t* const mark = scratch.marks.place.data();
  const std::size_t c0 = out.cols.size();
  for (offset_type e = A.row_ptr[i]; e < A.row_ptr[i + 1]; ++e) {
    const index_type k = A.col_idx[e];
    for (offset_type q = B.row_ptr[k]; q < B.row_ptr[k + 1]; ++q) {
      const index_type c = B.col_idx[q];
      if (mark[c] < 0) {
        mark[c] = 0;
        out.cols.push_back(c);
      }
    }
  }
  const size_type n = static_cast<size_type>(out.cols.size() - c0);
  index_type* cols = out.cols.data() + c0;
  std::sort(cols, cols + n);
  for (size_type p = 0; p < n; ++p) mark[cols[p]] = static_cast<std::int32_t>(p);
  out.values.resize(c0 + static_cast<std::size_t>(n), T{0});
  accumulate_row(
      A, a_values, B, b_values, i, [&](offset_type q) { return mark[B.col_idx[q]]; },
      out.values.data() + c0);
  for (size_type p = 0; p < n; ++p) mark[cols[p]] = -1;
  return n;
}

}  // namespace host_product

using namespace host_product;

template <class Exec, class T>
void numeric(const Exec& exec, const Pattern& A, const T* a_values, const Pattern& B,
             const T* b_values, const Pattern& C, const detail::ProductSchedule& /*schedule*/,
             T* c_values) {
  // A row of more columns than this finds them through a hash set of its
  // columns rather than by bisection.
  constexpr size_type bisect_up_to = 16;
  const bool marked = use_marks(exec, B.cols);
  for_each_with_scratch<NumericScratch>(exec, C.rows, rows_per_task, [&](NumericScratch& scratch,
                                                                         size_type i) {
    ColumnSet& set = scratch.set;
    const offset_type c0 = C.row_ptr[i];
    const size_type n = C.row_ptr[i + 1] - c0;
    const index_type* cols = C.col_idx + c0;
    T* acc = c_values + c0;
    std::fill(acc, acc + n, T{0});
    if (marked) {
      scratch.marks.reserve(B.cols);
      std::int32_t* const mark = scratch.marks.place.data();
      for (size_type p = 0; p < n; ++p) mark[cols[p]] = static_cast<std::int32_t>(p);
      accumulate_row(
          A, a_values, B, b_values, i, [&](offset_type q) { return mark[B.col_idx[q]]; }, acc);
      for (size_type p = 0; p < n; ++p) mark[cols[p]] = -1;
      return;
    }
    if (n <= bisect_up_to) {
      accumulate_row(
          A, a_values, B, b_values, i,
          [&](offset_type q) { return std::lower_bound(cols, cols + n, B.col_idx[q]) - cols; },
          acc);
      return;
    }
    set.start(n);
    for (size_type p = 0; p < n; ++p) set.insert(cols[p]);
    set.set_places(cols, n);
    accumulate_row(
        A, a_values, B, b_values, i,
        [&](offset_type q) { return set.place(set.slot_of(B.col_idx[q])); }, acc);
    set.clear();
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

  // 1. Each block of rows_per_task rows computed whole into its own buffers
  //    (columns sorted, values summed), its counts into row_ptr.
  Array<offset_type> row_ptr(exec, rows + 1);
  offset_type* rp = row_ptr.data();
  const size_type blocks = (rows + rows_per_task - 1) / rows_per_task;
  std::vector<RowBlock<T>> block(static_cast<std::size_t>(blocks));
  const bool marked = use_marks(exec, B.cols);
  for_each_with_scratch<FillScratch<T>>(exec, blocks, 1, [&](FillScratch<T>& scratch, size_type b) {
    RowBlock<T>& out = scratch.rows;
    out.cols.clear();
    out.values.clear();
    const size_type first = b * rows_per_task;
    const size_type last = std::min(rows, first + rows_per_task);
    if (marked) scratch.marks.reserve(B.cols);
    for (size_type i = first; i < last; ++i) {
      rp[i] = marked ? fill_row_marked(scratch, A, a_values, B, b_values, i, out)
                     : fill_row(scratch, A, a_values, B, b_values, i, w[i], out);
    }
    // Exactly the block's size: the blocks together hold C once until the move.
    block[b].cols.assign(out.cols.begin(), out.cols.end());
    block[b].values.assign(out.values.begin(), out.values.end());
  });
  const size_type nnz = counts_to_offsets(exec, rp, rows, B.cols);

  // 2. The blocks moved to their places.
  Array<index_type> col_idx(exec, nnz);
  Array<T> values(exec, nnz);
  index_type* ci = col_idx.data();
  T* cv = values.data();
  host_detail::for_each_task(exec, blocks, [&](size_type b) {
    RowBlock<T>& from = block[b];
    const offset_type c0 = rp[b * rows_per_task];
    std::copy(from.cols.begin(), from.cols.end(), ci + c0);
    std::copy(from.values.begin(), from.values.end(), cv + c0);
    from = RowBlock<T>{};
  });
  product.C = CsrMatrix<T>(rows, B.cols, std::move(row_ptr), std::move(col_idx), std::move(values));
  return product;
}

}  // namespace strata::kernels::spgemm

#define STRATA_EXEC HostExec
#include "kernels/matrix/spgemm_instantiate.inc"
#undef STRATA_EXEC
