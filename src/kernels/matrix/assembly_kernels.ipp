// Single-source bodies of assembly_kernels.hpp (all but sort_entries, which
// each backend defines with its own sort). Included by one backend file after
// that backend's parallel header, so the unqualified parallel_for,
// transform_reduce and exclusive_scan below resolve (by argument-dependent
// lookup on Exec) to that backend.

#include <cstdint>
#include <limits>

#include "kernels/base/hd.hpp"
#include "kernels/matrix/assembly_kernels.hpp"
#include "strata/core/array.hpp"

namespace strata::kernels::assembly {

namespace detail {

/// The reduction value of check_batch (a plain aggregate, as CUB's block
/// reduction wants): the smallest bad position and the off-process count.
struct CheckValue {
  size_type first_bad;
  size_type off_process;
};

struct CheckCombine {
  STRATA_HD CheckValue operator()(const CheckValue& a, const CheckValue& b) const {
    return {b.first_bad < a.first_bad ? b.first_bad : a.first_bad, a.off_process + b.off_process};
  }
};

template <class T>
STRATA_HD bool finite(T v) {
  return v - v == T{0};  // false for NaN and +-Inf, without <cmath> on the device
}

/// The stash key of batch entry i.
struct KeyOf {
  const size_type* rows;
  const size_type* cols;
  size_type row_begin;
  int col_bits;
  STRATA_HD key_type operator()(size_type i) const {
    const key_type r = static_cast<key_type>(rows[i] - row_begin);
    const key_type c = cols != nullptr ? static_cast<key_type>(cols[i]) : key_type{0};
    return (r << col_bits) | c;
  }
};

}  // namespace detail

template <class Exec, class T>
BatchCheck check_batch(const Exec& exec, size_type n, const size_type* rows, const size_type* cols,
                       const T* values, int block, size_type global_rows, size_type global_cols,
                       size_type row_begin, size_type row_end) {
  constexpr size_type none = std::numeric_limits<size_type>::max();
  const detail::CheckValue result = transform_reduce(
      exec, n, detail::CheckValue{none, 0},
      [=] STRATA_HD(size_type i) -> detail::CheckValue {
        const size_type r = rows[i];
        bool good = r >= 0 && r < global_rows;
        if (cols != nullptr) good = good && cols[i] >= 0 && cols[i] < global_cols;
        for (int b = 0; b < block; ++b) good = good && detail::finite(values[i * block + b]);
        if (!good) return {i, 0};
        return {none, (r < row_begin || r >= row_end) ? size_type{1} : size_type{0}};
      },
      detail::CheckCombine{});
  BatchCheck check;
  check.first_bad = result.first_bad == none ? size_type{-1} : result.first_bad;
  check.off_process = result.off_process;
  return check;
}

template <class Exec, class T>
void stash_batch(const Exec& exec, size_type n, const size_type* rows, const size_type* cols,
                 const T* values, int block, size_type row_begin, size_type row_end, int col_bits,
                 std::uint8_t mode, size_type off_process, StashTarget<T> target) {
  const detail::KeyOf key_of{rows, cols, row_begin, col_bits};
  if (off_process == 0) {  // the common case: a straight copy
    parallel_for(exec, n, [=] STRATA_HD(size_type i) {
      target.keys[i] = key_of(i);
      target.modes[i] = mode;
    });
    parallel_for(exec, n * block, [=] STRATA_HD(size_type t) { target.values[t] = values[t]; });
    return;
  }
  // Stream compaction: local_before[i] = local entries before i, so entry i
  // goes to local slot local_before[i] or off-process slot i - local_before[i].
  Array<size_type> scratch(Executor(exec), n);
  size_type* local_before = scratch.data();
  parallel_for(exec, n, [=] STRATA_HD(size_type i) {
    local_before[i] = rows[i] >= row_begin && rows[i] < row_end ? 1 : 0;
  });
  exclusive_scan(exec, local_before, local_before, n);
  parallel_for(exec, n, [=] STRATA_HD(size_type i) {
    const size_type slot = local_before[i];
    const bool local = rows[i] >= row_begin && rows[i] < row_end;
    if (local) {
      target.keys[slot] = key_of(i);
      target.modes[slot] = mode;
    } else {
      target.off_rows[i - slot] = rows[i];
      if (target.off_cols != nullptr) target.off_cols[i - slot] = cols[i];
      target.off_modes[i - slot] = mode;
    }
  });
  parallel_for(exec, n * block, [=] STRATA_HD(size_type t) {
    const size_type i = t / block, b = t - i * block;
    const size_type slot = local_before[i];
    if (rows[i] >= row_begin && rows[i] < row_end) {
      target.values[slot * block + b] = values[t];
    } else {
      target.off_values[(i - slot) * block + b] = values[t];
    }
  });
}

template <class Exec>
size_type number_segments(const Exec& exec, size_type n, const key_type* keys,
                          size_type* starts_before) {
  parallel_for(exec, n, [=] STRATA_HD(size_type i) {
    starts_before[i] = (i == 0 || keys[i] != keys[i - 1]) ? 1 : 0;
  });
  return exclusive_scan(exec, starts_before, starts_before, n);
}

template <class Exec>
void find_segments(const Exec& exec, size_type n, const key_type* keys,
                   const size_type* starts_before, size_type segments, size_type* seg_ptr,
                   key_type* seg_key) {
  parallel_for(exec, n + 1, [=] STRATA_HD(size_type i) {
    if (i == n) {
      seg_ptr[segments] = n;
    } else if (i == 0 || keys[i] != keys[i - 1]) {
      seg_ptr[starts_before[i]] = i;
      seg_key[starts_before[i]] = keys[i];
    }
  });
}

template <class Exec>
void build_pattern(const Exec& exec, size_type rows, size_type segments, const key_type* seg_key,
                   int col_bits, offset_type* row_ptr, index_type* col_idx) {
  const key_type col_mask = (key_type{1} << col_bits) - 1;
  // Position s starts every row in (row of s-1, row of s]; s == segments
  // closes the rows after the last key.
  parallel_for(exec, segments + 1, [=] STRATA_HD(size_type s) {
    const size_type row = s < segments ? static_cast<size_type>(seg_key[s] >> col_bits) : rows;
    const size_type previous = s > 0 ? static_cast<size_type>(seg_key[s - 1] >> col_bits) : -1;
    for (size_type r = previous + 1; r <= row; ++r) row_ptr[r] = s;
    if (s < segments) col_idx[s] = static_cast<index_type>(seg_key[s] & col_mask);
  });
}

template <class Exec>
void pattern_keys(const Exec& exec, size_type rows, const offset_type* row_ptr,
                  const index_type* col_idx, int col_bits, key_type* keys) {
  parallel_for(exec, rows, [=] STRATA_HD(size_type r) {
    for (offset_type k = row_ptr[r]; k < row_ptr[r + 1]; ++k) {
      keys[k] = (static_cast<key_type>(r) << col_bits) | static_cast<key_type>(col_idx[k]);
    }
  });
}

template <class Exec>
size_type locate_segments(const Exec& exec, size_type segments, const key_type* seg_key,
                          int col_bits, const offset_type* row_ptr, const index_type* col_idx,
                          size_type* target) {
  return transform_reduce(
      exec, segments, size_type{0},
      [=] STRATA_HD(size_type s) -> size_type {
        if (col_bits < 0) {
          target[s] = static_cast<size_type>(seg_key[s]);
          return 0;
        }
        const size_type row = static_cast<size_type>(seg_key[s] >> col_bits);
        const index_type col =
            static_cast<index_type>(seg_key[s] & ((key_type{1} << col_bits) - 1));
        offset_type lo = row_ptr[row], hi = row_ptr[row + 1];
        while (lo < hi) {  // first position with col_idx >= col
          const offset_type mid = lo + (hi - lo) / 2;
          if (col_idx[mid] < col)
            lo = mid + 1;
          else
            hi = mid;
        }
        const bool found = lo < row_ptr[row + 1] && col_idx[lo] == col;
        target[s] = found ? static_cast<size_type>(lo) : size_type{-1};
        return found ? 0 : 1;
      },
      ops::Plus{});
}

template <class Exec, class T>
size_type compress(const Exec& exec, const CompressArgs<T>& args) {
  const CompressArgs<T> a = args;  // by value into the lambda
  const size_type items = a.segments * a.block;
  return transform_reduce(
      exec, items, size_type{0},
      [=] STRATA_HD(size_type t) -> size_type {
        const size_type s = a.block == 1 ? t : t / a.block;
        const int b = static_cast<int>(t - s * a.block);
        const size_type begin = a.seg_ptr[s], end = a.seg_ptr[s + 1];
        size_type mismatches = 0;
        if (a.verify_keys != nullptr && b == 0) {
          const key_type key = a.seg_key[s];
          for (size_type i = begin; i < end; ++i) mismatches += a.verify_keys[a.perm[i]] != key;
        }
        // Reverse exclusive segmented max-scan over the modes, in its
        // sequential form: walking back from the end, the scan value of an
        // entry is 1 once a set has been seen after it. Entries with scan
        // value 1 are discarded, so the reduction starts at the last set.
        size_type first = begin;
        bool has_set = false;
        for (size_type i = end; i-- > begin;) {
          if (a.modes[a.perm[i]] != 0) {
            first = i;
            has_set = true;
            break;
          }
        }
        // Segmented reduction of the kept values, in arrival order.
        T sum = a.values[a.perm[first] * a.block + b];
        for (size_type i = first + 1; i < end; ++i) sum += a.values[a.perm[i] * a.block + b];
        const size_type position = a.target != nullptr ? a.target[s] : s;
        const size_type slot = position * a.block + b;
        a.out[slot] = (has_set || a.old_values == nullptr) ? sum : a.old_values[slot] + sum;
        if (a.out_modes != nullptr && b == 0) a.out_modes[s] = has_set ? 1 : 0;
        return mismatches;
      },
      ops::Plus{});
}

}  // namespace strata::kernels::assembly
