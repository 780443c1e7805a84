// Host instantiation of the aggregation kernels (aggregation_kernels.ipp),
// and the host's own Galerkin product (row by row, see the header).
#include "kernels/amg/aggregation_kernels.ipp"

#include <algorithm>
#include <atomic>
#include <vector>

#include "backend/host/base/parallel.hpp"
#include "strata/core/primitives.hpp"

#define STRATA_EXEC HostExec
#include "kernels/amg/aggregation_instantiate.inc"
#undef STRATA_EXEC

namespace strata::kernels::aggregation {

namespace {

/// Contiguous shares of `rows` rows: one per thread, none under 256 rows
/// (at least one).
size_type share_count(const HostExec& exec, size_type rows) {
  return std::max<size_type>(1,
                             std::min<size_type>(host_detail::thread_count(exec), rows / 256 + 1));
}

/// f(first, last, scratch) over contiguous shares of [0, rows), one per
/// thread, each with its own scratch of `width` entries set to -1.
template <class F>
void for_each_share(const HostExec& exec, size_type rows, size_type width, F&& f) {
  const size_type shares = share_count(exec, rows);
  host_detail::for_each_task(exec, shares, [&](size_type s) {
    std::vector<index_type> scratch(static_cast<std::size_t>(width), -1);
    f(rows * s / shares, rows * (s + 1) / shares, scratch.data());
  });
}

/// MIS(2)'s propagation for the tuples that the open points' decisions
/// read: theirs and their neighbours'.
void propagate_read(const HostExec& exec, size_type rows, const offset_type* g_row_ptr,
                    const index_type* g_col_idx, const std::int8_t* state,
                    const std::uint32_t* priority, std::uint64_t* tuple,
                    const std::vector<index_type>& open, std::vector<std::uint8_t>& read,
                    std::vector<index_type>& rows_read) {
  // The marks all store 1, so their order does not matter.
  parallel_for(exec, static_cast<size_type>(open.size()), [&](size_type u) {
    const index_type i = open[static_cast<std::size_t>(u)];
    std::atomic_ref<std::uint8_t>(read[static_cast<std::size_t>(i)])
        .store(1, std::memory_order_relaxed);
    for (offset_type k = g_row_ptr[i]; k < g_row_ptr[i + 1]; ++k) {
      std::atomic_ref<std::uint8_t>(read[static_cast<std::size_t>(g_col_idx[k])])
          .store(1, std::memory_order_relaxed);
    }
  });
  rows_read.clear();
  for (size_type i = 0; i < rows; ++i) {
    if (read[static_cast<std::size_t>(i)]) {
      rows_read.push_back(static_cast<index_type>(i));
      read[static_cast<std::size_t>(i)] = 0;
    }
  }
  parallel_for(exec, static_cast<size_type>(rows_read.size()), [&](size_type r) {
    const index_type i = rows_read[static_cast<std::size_t>(r)];
    tuple[i] = detail::propagate_row(i, g_row_ptr, g_col_idx, state, priority);
  });
}

}  // namespace

size_type mis2_rounds(const HostExec& exec, size_type rows, const offset_type* g_row_ptr,
                      const index_type* g_col_idx, std::int8_t* state,
                      const std::uint32_t* priority, std::uint64_t* tuple) {
  std::vector<index_type> open;  // the undecided points, ascending
  for (size_type i = 0; i < rows; ++i) {
    if (state[i] == undecided) open.push_back(static_cast<index_type>(i));
  }
  std::vector<std::uint8_t> read(static_cast<std::size_t>(rows), 0);
  std::vector<index_type> rows_read;
  size_type rounds = 0;
  while (!open.empty() && rounds <= rows) {
    ++rounds;
    // While most points are open, nearly every tuple is read: propagate them
    // all rather than mark which (the marks cost a store per edge; tuples
    // nobody reads change no decision).
    if (static_cast<size_type>(open.size()) * 4 > rows) {
      parallel_for(exec, rows, [&](size_type i) {
        tuple[i] = detail::propagate_row(i, g_row_ptr, g_col_idx, state, priority);
      });
    } else {
      propagate_read(exec, rows, g_row_ptr, g_col_idx, state, priority, tuple, open, read,
                     rows_read);
    }
    parallel_for(exec, static_cast<size_type>(open.size()), [&](size_type u) {
      const index_type i = open[static_cast<std::size_t>(u)];
      state[i] = detail::decide_row(i, g_row_ptr, g_col_idx, tuple, 0);
    });
    open.erase(std::remove_if(open.begin(), open.end(),
                              [&](index_type i) { return state[i] != undecided; }),
               open.end());
  }
  return rounds;
}

/// f(J, r_Ii a_ij, p_jJ) for every term of coarse row I of R A P, in the
/// fixed order that makes a row's sums independent of the thread count
/// (R's fine rows, then A's and P's entries as stored). The fresh product
/// and the values-only recompute both sum through it: the same bits.
template <class T, class F>
void for_each_rap_term(size_type I, const offset_type* r_row_ptr, const index_type* r_col_idx,
                       const T* r_values, const offset_type* a_row_ptr, const index_type* a_col_idx,
                       const T* a_values, const offset_type* p_row_ptr, const index_type* p_col_idx,
                       const T* p_values, F&& f) {
  for (offset_type q = r_row_ptr[I]; q < r_row_ptr[I + 1]; ++q) {
    const index_type i = r_col_idx[q];
    const T r = r_values[q];
    for (offset_type k = a_row_ptr[i]; k < a_row_ptr[i + 1]; ++k) {
      const index_type j = a_col_idx[k];
      const T ra = r * a_values[k];
      for (offset_type t = p_row_ptr[j]; t < p_row_ptr[j + 1]; ++t)
        f(p_col_idx[t], ra, p_values[t]);
    }
  }
}

template <class T>
void galerkin_rows_values(const HostExec& exec, size_type coarse, const offset_type* r_row_ptr,
                          const index_type* r_col_idx, const T* r_values,
                          const offset_type* a_row_ptr, const index_type* a_col_idx,
                          const T* a_values, const offset_type* p_row_ptr,
                          const index_type* p_col_idx, const T* p_values,
                          const offset_type* ac_row_ptr, const index_type* ac_col_idx,
                          T* ac_values) {
  // position[J]: where column J of the current row is stored (set for the
  // row's own columns before its sums, so no reset is needed).
  for_each_share(exec, coarse, coarse, [&](size_type first, size_type last, index_type* position) {
    for (size_type I = first; I < last; ++I) {
      for (offset_type c = ac_row_ptr[I]; c < ac_row_ptr[I + 1]; ++c) {
        position[ac_col_idx[c]] = static_cast<index_type>(c - ac_row_ptr[I]);
        ac_values[c] = T{0};
      }
      T* row = ac_values + ac_row_ptr[I];
      for_each_rap_term(I, r_row_ptr, r_col_idx, r_values, a_row_ptr, a_col_idx, a_values,
                        p_row_ptr, p_col_idx, p_values,
                        [&](index_type J, T ra, T p) { row[position[J]] += ra * p; });
    }
  });
}

template <class T>
void galerkin_rows_product(const HostExec& exec, size_type coarse, const offset_type* r_row_ptr,
                           const index_type* r_col_idx, const T* r_values,
                           const offset_type* a_row_ptr, const index_type* a_col_idx,
                           const T* a_values, const offset_type* p_row_ptr,
                           const index_type* p_col_idx, const T* p_values,
                           Array<offset_type>& row_ptr, Array<index_type>& col_idx,
                           Array<T>& values) {
  struct Entry {
    index_type column;
    T value;
  };
  const size_type shares = share_count(exec, coarse);
  std::vector<std::vector<Entry>> found(static_cast<std::size_t>(shares));
  row_ptr = Array<offset_type>(exec, coarse + 1);
  offset_type* ptr = row_ptr.data();
  host_detail::for_each_task(exec, shares, [&](size_type s) {
    const size_type first = coarse * s / shares, last = coarse * (s + 1) / shares;
    std::vector<Entry>& entries = found[static_cast<std::size_t>(s)];
    // where[J]: J's place in `entries`, current in row I when >= begin.
    std::vector<std::int64_t> where(static_cast<std::size_t>(coarse), -1);
    for (size_type I = first; I < last; ++I) {
      const auto begin = static_cast<std::int64_t>(entries.size());
      for_each_rap_term(I, r_row_ptr, r_col_idx, r_values, a_row_ptr, a_col_idx, a_values,
                        p_row_ptr, p_col_idx, p_values, [&](index_type J, T ra, T p) {
                          std::int64_t& at = where[static_cast<std::size_t>(J)];
                          if (at < begin) {
                            at = static_cast<std::int64_t>(entries.size());
                            entries.push_back({J, T{0}});
                          }
                          entries[static_cast<std::size_t>(at)].value += ra * p;
                        });
      std::sort(entries.begin() + begin, entries.end(),
                [](const Entry& a, const Entry& b) { return a.column < b.column; });
      ptr[I] = static_cast<offset_type>(static_cast<std::int64_t>(entries.size()) - begin);
    }
  });
  ptr[coarse] = 0;
  const offset_type nnz = exclusive_scan(row_ptr, row_ptr);
  col_idx = Array<index_type>(exec, nnz);
  values = Array<T>(exec, nnz);
  index_type* cols = col_idx.data();
  T* vals = values.data();
  // Each share's rows are contiguous, so are its entries in the result.
  host_detail::for_each_task(exec, shares, [&](size_type s) {
    const std::vector<Entry>& entries = found[static_cast<std::size_t>(s)];
    const offset_type at = ptr[coarse * s / shares];
    for (std::size_t e = 0; e < entries.size(); ++e) {
      cols[at + static_cast<offset_type>(e)] = entries[e].column;
      vals[at + static_cast<offset_type>(e)] = entries[e].value;
    }
  });
}

template void galerkin_rows_product(const HostExec&, size_type, const offset_type*,
                                    const index_type*, const double*, const offset_type*,
                                    const index_type*, const double*, const offset_type*,
                                    const index_type*, const double*, Array<offset_type>&,
                                    Array<index_type>&, Array<double>&);

template void galerkin_rows_values(const HostExec&, size_type, const offset_type*,
                                   const index_type*, const double*, const offset_type*,
                                   const index_type*, const double*, const offset_type*,
                                   const index_type*, const double*, const offset_type*,
                                   const index_type*, double*);

}  // namespace strata::kernels::aggregation
