// Single-source bodies of aggregation_kernels.hpp. Included by one backend
// file after that backend's parallel header, so the unqualified primitives
// (parallel_for, transform_reduce, exclusive_scan, stable_sort_by_key,
// reduce_by_key) resolve to that backend by argument-dependent lookup.

#include <cmath>
#include <cstdint>
#include <utility>

#include "kernels/amg/aggregation_kernels.hpp"
#include "kernels/base/hd.hpp"
#include "kernels/base/random.hpp"
#include "kernels/base/rounding.hpp"

namespace strata::kernels::aggregation {

namespace detail {

// Separately rounded products and sums (kernels/base/rounding.hpp): host
// and device coarse matrices agree bit for bit.
using kernels::add;
using kernels::mul;

/// First p in [0, n) with sorted[p] >= key (n when none).
template <class S, class K>
STRATA_HD size_type lower_bound(const S* sorted, size_type n, K key) {
  size_type lo = 0;
  while (n > 0) {
    const size_type half = n / 2;
    if (sorted[lo + half] < key) {
      lo += half + 1;
      n -= half + 1;
    } else {
      n = half;
    }
  }
  return lo;
}

/// The entry of column `col` in row `row`, or -1.
STRATA_HD inline offset_type find_in_row(const offset_type* row_ptr, const index_type* col_idx,
                                         bool sorted, index_type row, index_type col) {
  const offset_type begin = row_ptr[row], end = row_ptr[row + 1];
  if (sorted) {
    const offset_type k = begin + lower_bound(col_idx + begin, end - begin, col);
    return k < end && col_idx[k] == col ? k : -1;
  }
  for (offset_type k = begin; k < end; ++k) {
    if (col_idx[k] == col) return k;
  }
  return -1;
}

/// The entry (j, i) transposed to entry k = (i, j) of row i, or -1. The
/// mirrored place first: in a symmetric stencil's sorted rows, column i
/// sits in row j as far from its end as j from row i's start. On a CPU a
/// bisection's mispredicted branches cost more than the one look (27-point
/// 128^3: the strength graph 0.87 -> 0.58 s on two cores); on the device
/// the look is one load where the bisection is a chain of five (27-point
/// 192^3 on an H200: the aggregation strength stage 41 ms with bisection).
STRATA_HD inline offset_type find_transposed(const offset_type* row_ptr, const index_type* col_idx,
                                             bool sorted, index_type i, offset_type k) {
  const index_type j = col_idx[k];
  if (sorted) {
    const offset_type mirrored = row_ptr[j + 1] - 1 - (k - row_ptr[i]);
    if (mirrored >= row_ptr[j] && col_idx[mirrored] == i) return mirrored;
  }
  return find_in_row(row_ptr, col_idx, sorted, j, i);
}

/// C_ij of equation 3 for the value a_ij of row i: -s_i a_ij > alpha max_i
/// and > 0. The threshold product is one rounding on either backend.
template <class T>
STRATA_HD bool strong_coupling(T sign_i, T a_ij, T threshold_i) {
  const T c = -sign_i * a_ij;  // sign_i = +-1: exact
  return c > T{0} && c > threshold_i;
}

/// MIS(2) tuple (state, priority, index) packed so that the integer
/// maximum is the lexicographic one.
STRATA_HD inline std::uint64_t pack(std::int8_t state, std::uint32_t priority, std::int64_t i) {
  return (static_cast<std::uint64_t>(state + 1) << 62) |
         (static_cast<std::uint64_t>(priority) << 32) | static_cast<std::uint64_t>(i);
}

/// mis2_propagate's tuple of row i: the largest packed (state, priority, j)
/// over i and its neighbours.
STRATA_HD inline std::uint64_t propagate_row(size_type i, const offset_type* g_row_ptr,
                                             const index_type* g_col_idx, const std::int8_t* state,
                                             const std::uint32_t* priority) {
  std::uint64_t t = pack(state[i], priority[i], i);
  for (offset_type k = g_row_ptr[i]; k < g_row_ptr[i + 1]; ++k) {
    const index_type j = g_col_idx[k];
    const std::uint64_t u = pack(state[j], priority[j], j);
    t = u > t ? u : t;
  }
  return t;
}

/// mis2_decide's new state of the undecided row i.
STRATA_HD inline std::int8_t decide_row(size_type i, const offset_type* g_row_ptr,
                                        const index_type* g_col_idx, const std::uint64_t* tuple,
                                        std::int64_t first) {
  std::uint64_t t = tuple[i];
  for (offset_type k = g_row_ptr[i]; k < g_row_ptr[i + 1]; ++k) {
    const std::uint64_t u = tuple[g_col_idx[k]];
    t = u > t ? u : t;
  }
  if ((t & 0xffffffffull) == static_cast<std::uint64_t>(first + i)) {
    return root;  // the largest undecided tuple within distance two
  }
  if ((t >> 62) == static_cast<std::uint64_t>(root + 1)) {
    return not_root;  // a root lies within distance two
  }
  return undecided;
}

}  // namespace detail

// ------------------------------------------------------------ 1. strength

template <class Exec, class T>
bool row_strength(const Exec& exec, size_type rows, size_type /*nnz*/,
    const offset_type* row_ptr,
                  const index_type* col_idx, const T* values, T* sign, T* strongest) {
  // One pass per row: the diagonal, the extreme off-diagonal values (the
  // largest -s_i a_ij is -min or max depending on s_i) and the column order.
  const size_type unsorted = transform_reduce(
      exec, rows, size_type{0},
      [=] STRATA_HD(size_type i) -> size_type {
        T diag{0}, low{0}, high{0};
        size_type unordered = 0;
        for (offset_type k = row_ptr[i]; k < row_ptr[i + 1]; ++k) {
          const index_type j = col_idx[k];
          const T v = values[k];
          if (k > row_ptr[i] && !(col_idx[k - 1] < j)) unordered = 1;
          if (j == i) {
            diag = v;
          } else {
            low = v < low ? v : low;
            high = v > high ? v : high;
          }
        }
        const bool negative = diag < T{0};
        sign[i] = negative ? T{-1} : T{1};
        strongest[i] = negative ? high : -low;  // max(0, max_j -s_i a_ij)
        return unordered;
      },
      ops::Plus{});
  return unsorted == 0;
}

template <class Exec, class T>
size_type transposed_values(const Exec& exec, size_type rows, const offset_type* row_ptr,
                            const index_type* col_idx, const T* values, T* out) {
  return transform_reduce(
      exec, rows, size_type{0},
      [=] STRATA_HD(size_type i) -> size_type {
        size_type bad = 0;
        for (offset_type k = row_ptr[i]; k < row_ptr[i + 1]; ++k) {
          if (k > row_ptr[i] && col_idx[k] <= col_idx[k - 1]) ++bad;
          const offset_type t =
              detail::find_transposed(row_ptr, col_idx, true, static_cast<index_type>(i), k);
          if (t < 0) {
            ++bad;
          } else {
            out[k] = values[t];
          }
        }
        return bad;
      },
      ops::Plus{});
}

template <class Exec, class T>
size_type mark_strong(const Exec& exec, size_type rows, size_type /*nnz*/,
    const offset_type* row_ptr,
                      const index_type* col_idx, const T* values, bool sorted, T alpha,
                      const T* sign, const T* strongest, std::uint8_t* strong, offset_type* count,
                      index_type* influence) {
  return transform_reduce(
      exec, rows, size_type{0},
      [=] STRATA_HD(size_type i) -> size_type {
        const T s_i = sign[i];
        const T threshold_i = detail::mul(alpha, strongest[i]);
        size_type missing = 0;
        offset_type edges = 0;
        index_type influenced = 0;
        for (offset_type k = row_ptr[i]; k < row_ptr[i + 1]; ++k) {
          const index_type j = col_idx[k];
          if (j == i) {
            strong[k] = 0;
            continue;
          }
          const bool c_ij = detail::strong_coupling(s_i, values[k], threshold_i);
          const offset_type t =
              detail::find_transposed(row_ptr, col_idx, sorted, static_cast<index_type>(i), k);
          bool c_ji = false;
          if (t < 0) {
            ++missing;
          } else {
            c_ji = detail::strong_coupling(sign[j], values[t], detail::mul(alpha, strongest[j]));
          }
          strong[k] = (c_ij || c_ji) ? 1 : 0;
          edges += (c_ij || c_ji) ? 1 : 0;
          influenced += c_ji ? 1 : 0;
        }
        count[i] = edges;
        influence[i] = influenced;
        return missing;
      },
      ops::Plus{});
}

template <class Exec, class T>
void fill_strength_graph(const Exec& exec, size_type rows, size_type /*nnz*/,
    const offset_type* row_ptr,
                         const index_type* col_idx, const T* values, const T* sign,
                         const T* strongest, const std::uint8_t* strong,
                         const offset_type* g_row_ptr, index_type* g_col_idx, T* g_weight) {
  parallel_for(exec, rows, [=] STRATA_HD(size_type i) {
    offset_type out = g_row_ptr[i];
    const T s_i = sign[i], m_i = strongest[i];
    for (offset_type k = row_ptr[i]; k < row_ptr[i + 1]; ++k) {
      if (!strong[k]) continue;
      g_col_idx[out] = col_idx[k];
      g_weight[out] = m_i > T{0} ? (-s_i * values[k]) / m_i : T{0};
      ++out;
    }
  });
}

template <class Exec, class T>
CsrMatrix<T> symmetrize_pattern(const Exec& exec, size_type rows, size_type nnz,
                                const offset_type* row_ptr, const index_type* col_idx,
                                const T* values) {
  const size_type total = 2 * nnz;
  const std::uint64_t n = static_cast<std::uint64_t>(rows);
  Array<std::uint64_t> keys(exec, total);
  Array<T> vals(exec, total);
  std::uint64_t* key = keys.data();
  T* val = vals.data();
  parallel_for(exec, rows, [=] STRATA_HD(size_type i) {
    for (offset_type k = row_ptr[i]; k < row_ptr[i + 1]; ++k) {
      const std::uint64_t j = static_cast<std::uint64_t>(col_idx[k]);
      key[k] = static_cast<std::uint64_t>(i) * n + j;
      val[k] = values[k];
      key[nnz + k] = j * n + static_cast<std::uint64_t>(i);  // the transposed slot, value 0
      val[nnz + k] = T{0};
    }
  });
  stable_sort_by_key(exec, key, val, total);
  Array<std::uint64_t> unique_keys(exec, total);
  Array<T> sums(exec, total);
  // Each key has one value of A at most; the others are zeros: the sums are exact.
  const size_type entries = reduce_by_key(exec, key, val, total, unique_keys.data(), sums.data());
  Array<offset_type> s_row_ptr(exec, rows + 1);
  Array<index_type> s_col_idx(exec, entries);
  Array<T> s_values(exec, entries);
  offset_type* rp = s_row_ptr.data();
  index_type* ci = s_col_idx.data();
  T* va = s_values.data();
  const std::uint64_t* uk = unique_keys.data();
  const T* su = sums.data();
  parallel_for(exec, rows + 1, [=] STRATA_HD(size_type r) {
    rp[r] = detail::lower_bound(uk, entries, static_cast<std::uint64_t>(r) * n);
  });
  parallel_for(exec, entries, [=] STRATA_HD(size_type k) {
    ci[k] = static_cast<index_type>(uk[k] % n);
    va[k] = su[k];
  });
  return CsrMatrix<T>(rows, rows, std::move(s_row_ptr), std::move(s_col_idx), std::move(s_values));
}

template <class Exec, class T>
void strength_codes(const Exec& exec, size_type rows, const offset_type* row_ptr,
                    const index_type* col_idx, const T* values, index_type column_offset, T alpha,
                    const T* sign, const T* strongest, T* code, T* weight) {
  parallel_for(exec, rows, [=] STRATA_HD(size_type i) {
    const T s_i = sign[i], m_i = strongest[i];
    const T threshold_i = detail::mul(alpha, m_i);
    for (offset_type k = row_ptr[i]; k < row_ptr[i + 1]; ++k) {
      const bool off_diagonal = col_idx[k] + column_offset != i;
      const bool c_ij = off_diagonal && detail::strong_coupling(s_i, values[k], threshold_i);
      code[k] = c_ij ? T{2} : T{1};
      // The serial fill_strength_graph's expression: the weights agree bit for bit.
      if (weight != nullptr) weight[k] = m_i > T{0} ? (-s_i * values[k]) / m_i : T{0};
    }
  });
}

namespace detail {

/// The code of column j in row r of the transposed codes (0: not stored).
template <class T>
STRATA_HD T transposed_code(const TransposedCodes<T>& t, std::int64_t first, size_type r,
                            std::int64_t j) {
  for (offset_type k = t.local_ptr[r]; k < t.local_ptr[r + 1]; ++k) {
    if (first + t.local_cols[k] == j) return t.local_code[k];
  }
  for (offset_type k = t.remote_ptr[r]; k < t.remote_ptr[r + 1]; ++k) {
    if (t.remote_cols[k] == j) return t.remote_code[k];
  }
  return T{0};
}

/// Whether column j is stored in cols[begin, end).
STRATA_HD inline bool has_column(const std::int64_t* cols, offset_type begin, offset_type end,
                                 std::int64_t j) {
  for (offset_type k = begin; k < end; ++k) {
    if (cols[k] == j) return true;
  }
  return false;
}

/// Calls f(j) for each column j != self of row r of the transposed codes
/// with code 2 (C_jr) that row r of A does not store: the edges that the
/// serial graph gets from the explicit zeros of A + 0 A^T.
template <class T, class F>
STRATA_HD void for_each_transposed_only(const TransposedCodes<T>& t, std::int64_t first,
                                        size_type r, const offset_type* a_ptr,
                                        const std::int64_t* a_cols, F&& f) {
  const std::int64_t self = first + r;
  for (offset_type k = t.local_ptr[r]; k < t.local_ptr[r + 1]; ++k) {
    const std::int64_t j = first + t.local_cols[k];
    if (j != self && t.local_code[k] == T{2} && !has_column(a_cols, a_ptr[r], a_ptr[r + 1], j)) {
      f(j);
    }
  }
  for (offset_type k = t.remote_ptr[r]; k < t.remote_ptr[r + 1]; ++k) {
    const std::int64_t j = t.remote_cols[k];
    if (t.remote_code[k] == T{2} && !has_column(a_cols, a_ptr[r], a_ptr[r + 1], j)) f(j);
  }
}

}  // namespace detail

template <class Exec, class T>
void union_counts(const Exec& exec, size_type rows, std::int64_t first, const offset_type* a_ptr,
                  const std::int64_t* a_cols, const T* a_code, TransposedCodes<T> t,
                  offset_type* count, index_type* influence) {
  parallel_for(exec, rows + 1, [=] STRATA_HD(size_type r) {
    if (r == rows) {
      count[r] = 0;
      return;
    }
    const std::int64_t self = first + r;
    offset_type edges = 0;
    index_type influenced = 0;
    for (offset_type e = a_ptr[r]; e < a_ptr[r + 1]; ++e) {
      if (a_cols[e] == self) continue;
      const bool c_ji = detail::transposed_code(t, first, r, a_cols[e]) == T{2};
      edges += (a_code[e] == T{2} || c_ji) ? 1 : 0;
      influenced += c_ji ? 1 : 0;
    }
    detail::for_each_transposed_only(t, first, r, a_ptr, a_cols, [&](std::int64_t) {
      ++edges;
      ++influenced;
    });
    count[r] = edges;
    influence[r] = influenced;
  });
}

template <class Exec, class T>
void union_fill(const Exec& exec, size_type rows, std::int64_t first, const offset_type* a_ptr,
                const std::int64_t* a_cols, const T* a_code, const T* a_weight,
                TransposedCodes<T> t, const offset_type* g_row_ptr, std::int64_t* g_cols,
                T* g_weight) {
  parallel_for(exec, rows, [=] STRATA_HD(size_type r) {
    const std::int64_t self = first + r;
    offset_type out = g_row_ptr[r];
    for (offset_type e = a_ptr[r]; e < a_ptr[r + 1]; ++e) {
      if (a_cols[e] == self) continue;
      if (a_code[e] != T{2} && detail::transposed_code(t, first, r, a_cols[e]) != T{2}) continue;
      g_cols[out] = a_cols[e];
      g_weight[out] = a_weight[e];
      ++out;
    }
    detail::for_each_transposed_only(t, first, r, a_ptr, a_cols, [&](std::int64_t j) {
      g_cols[out] = j;
      g_weight[out] = T{0};
      ++out;
    });
  });
}

// --------------------------------------------------------------- 2. MIS(2)

template <class Exec>
void mis2_init(const Exec& exec, size_type rows, const offset_type* g_row_ptr,
               const index_type* influence, std::uint64_t seed, std::int64_t first,
               std::int8_t* state, std::uint32_t* priority) {
  parallel_for(exec, rows, [=] STRATA_HD(size_type i) {
    const bool isolated = g_row_ptr[i + 1] == g_row_ptr[i];
    state[i] = isolated ? not_root : undecided;
    const std::uint32_t count =
        static_cast<std::uint32_t>(influence[i] < 4095 ? influence[i] : 4095);
    const std::uint64_t h = base::splitmix64(seed, static_cast<std::uint64_t>(first + i));
    priority[i] = (count << 18) | static_cast<std::uint32_t>(h >> 46);
  });
}

template <class Exec>
void mis2_propagate(const Exec& exec, size_type rows, const offset_type* g_row_ptr,
                    const index_type* g_col_idx, const std::int8_t* state,
                    const std::uint32_t* priority, std::uint64_t* tuple) {
  parallel_for(exec, rows, [=] STRATA_HD(size_type i) {
    tuple[i] = detail::propagate_row(i, g_row_ptr, g_col_idx, state, priority);
  });
}

template <class Exec>
size_type mis2_decide(const Exec& exec, size_type rows, const offset_type* g_row_ptr,
                      const index_type* g_col_idx, const std::uint64_t* tuple, std::int64_t first,
                      std::int8_t* state) {
  return transform_reduce(
      exec, rows, size_type{0},
      [=] STRATA_HD(size_type i) -> size_type {
        if (state[i] != undecided) return 0;
        state[i] = detail::decide_row(i, g_row_ptr, g_col_idx, tuple, first);
        return state[i] == undecided ? 1 : 0;
      },
      ops::Plus{});
}

template <class Exec>
void mis2_pack(const Exec& exec, size_type rows, std::int64_t first, const std::int8_t* state,
               const std::uint32_t* priority, std::uint64_t* self) {
  parallel_for(exec, rows, [=] STRATA_HD(size_type i) {
    self[i] = detail::pack(state[i], priority[i], first + i);
  });
}

template <class Exec>
void mis2_propagate_packed(const Exec& exec, size_type rows, const offset_type* g_row_ptr,
                           const index_type* g_col_idx, const std::uint64_t* self,
                           std::uint64_t* tuple) {
  parallel_for(exec, rows, [=] STRATA_HD(size_type i) {
    std::uint64_t t = self[i];
    for (offset_type k = g_row_ptr[i]; k < g_row_ptr[i + 1]; ++k) {
      const std::uint64_t u = self[g_col_idx[k]];
      t = u > t ? u : t;
    }
    tuple[i] = t;
  });
}

template <class Exec>
void mis2_unpack_state(const Exec& exec, size_type count, const std::uint64_t* self,
                       std::int8_t* state) {
  parallel_for(exec, count, [=] STRATA_HD(size_type g) {
    state[g] = static_cast<std::int8_t>(static_cast<int>(self[g] >> 62) - 1);
  });
}

// ----------------------------------------------------------- aggregation

template <class Exec>
size_type number_roots(const Exec& exec, size_type rows, const std::int8_t* state, index_type first,
                       index_type* aggregate) {
  parallel_for(exec, rows, [=] STRATA_HD(size_type i) { aggregate[i] = state[i] == root ? 1 : 0; });
  const index_type roots = exclusive_scan(exec, aggregate, aggregate, rows);
  parallel_for(exec, rows, [=] STRATA_HD(size_type i) {
    aggregate[i] = state[i] == root ? first + aggregate[i] : -1;
  });
  return roots;
}

template <class Exec>
void list_roots(const Exec& exec, size_type rows, const std::int8_t* state,
                const index_type* aggregate, index_type first, index_type* root_of) {
  parallel_for(exec, rows, [=] STRATA_HD(size_type i) {
    if (state[i] == root) root_of[aggregate[i] - first] = static_cast<index_type>(i);
  });
}

template <class Exec, class T>
size_type join_nearest_root(const Exec& exec, size_type rows, const offset_type* g_row_ptr,
                            const index_type* g_col_idx, const T* g_weight,
                            const std::int8_t* state, index_type* aggregate) {
  Array<std::int32_t> distance(exec, rows);
  const PointIds ids{0, rows, nullptr};
  join_adjacent_root(exec, rows, g_row_ptr, g_col_idx, g_weight, state, ids, aggregate,
                     distance.data());
  return join_distance_two(exec, rows, g_row_ptr, g_col_idx, g_weight, distance.data(), ids,
                           aggregate);
}

template <class Exec, class T>
void join_adjacent_root(const Exec& exec, size_type rows, const offset_type* g_row_ptr,
                        const index_type* g_col_idx, const T* g_weight, const std::int8_t* state,
                        PointIds ids, index_type* aggregate, std::int32_t* distance) {
  parallel_for(exec, rows, [=] STRATA_HD(size_type i) {
    if (state[i] == root) {
      distance[i] = 0;
      return;
    }
    if (g_row_ptr[i + 1] == g_row_ptr[i]) {
      distance[i] = 3;
      return;
    }
    index_type best = -1;
    std::int64_t best_id = 0;
    T best_weight{0};
    for (offset_type k = g_row_ptr[i]; k < g_row_ptr[i + 1]; ++k) {
      const index_type j = g_col_idx[k];
      if (state[j] != root) continue;
      const T w = g_weight[k];
      const std::int64_t id = ids(j);
      if (best < 0 || w > best_weight || (w == best_weight && id < best_id)) {
        best = j;
        best_id = id;
        best_weight = w;
      }
    }
    // Roots keep their numbers in this pass, so reading aggregate[best] is safe.
    if (best >= 0) aggregate[i] = aggregate[best];
    distance[i] = best >= 0 ? 1 : 2;
  });
}

template <class Exec, class T>
size_type join_distance_two(const Exec& exec, size_type rows, const offset_type* g_row_ptr,
                            const index_type* g_col_idx, const T* g_weight,
                            const std::int32_t* distance, PointIds ids, index_type* aggregate) {
  return transform_reduce(
      exec, rows, size_type{0},
      [=] STRATA_HD(size_type i) -> size_type {
        if (distance[i] != 2) return 0;
        index_type best = -1;
        std::int64_t best_id = 0;
        T best_weight{0};
        for (offset_type k = g_row_ptr[i]; k < g_row_ptr[i + 1]; ++k) {
          const index_type j = g_col_idx[k];
          if (distance[j] != 1) continue;
          const T w = g_weight[k];
          const std::int64_t id = ids(j);
          if (best < 0 || w > best_weight || (w == best_weight && id < best_id)) {
            best = j;
            best_id = id;
            best_weight = w;
          }
        }
        // Distance-one points are not written in this pass.
        if (best >= 0) aggregate[i] = aggregate[best];
        return best >= 0 ? 0 : 1;
      },
      ops::Plus{});
}

// ---------------------------------------------------------- 3. interpolation

template <class Exec>
size_type interpolation_pattern(const Exec& exec, size_type rows, const index_type* aggregate,
                                int k, offset_type* row_ptr) {
  parallel_for(exec, rows + 1,
               [=] STRATA_HD(size_type i) { row_ptr[i] = i < rows && aggregate[i] >= 0 ? k : 0; });
  return exclusive_scan(exec, row_ptr, row_ptr, rows + 1);
}

template <class Exec, class T, class I>
void interpolation_fill(const Exec& exec, size_type rows, const index_type* aggregate, int k,
                        const T* B, const offset_type* row_ptr, I* col_idx, T* values) {
  parallel_for(exec, rows, [=] STRATA_HD(size_type i) {
    const index_type a = aggregate[i];
    if (a < 0) return;
    const offset_type base = row_ptr[i];
    for (int c = 0; c < k; ++c) {
      col_idx[base + c] = static_cast<I>(static_cast<size_type>(a) * k + c);
      values[base + c] = B[static_cast<size_type>(c) * rows + i];
    }
  });
}

template <class Exec, class T>
size_type orthonormalize_aggregates(const Exec& exec, size_type aggregates, int k,
                                    const offset_type* r_row_ptr, const index_type* r_col_idx,
                                    T* r_values, const offset_type* p_row_ptr, T* p_values,
                                    T* coarse_B, index_type* keep, T drop_tolerance) {
  const size_type coarse = aggregates * k;
  return transform_reduce(
      exec, aggregates, size_type{0},
      [=] STRATA_HD(size_type a) -> size_type {
        size_type dropped = 0;
        for (int c = 0; c < k; ++c) {
          const size_type row_c = a * k + c;
          T* v = r_values + r_row_ptr[row_c];
          const offset_type m = r_row_ptr[row_c + 1] - r_row_ptr[row_c];
          T before{0};
          for (offset_type t = 0; t < m; ++t) before = detail::add(before, detail::mul(v[t], v[t]));
          for (int d = 0; d < c; ++d) {  // modified Gram-Schmidt against q_0 .. q_c-1
            const T* q = r_values + r_row_ptr[a * k + d];
            T r{0};
            for (offset_type t = 0; t < m; ++t) r = detail::add(r, detail::mul(q[t], v[t]));
            for (offset_type t = 0; t < m; ++t) v[t] = detail::add(v[t], -detail::mul(r, q[t]));
            coarse_B[static_cast<size_type>(c) * coarse + a * k + d] = r;
          }
          T after{0};
          for (offset_type t = 0; t < m; ++t) after = detail::add(after, detail::mul(v[t], v[t]));
          const T norm = sqrt(after);
          const bool kept =
              norm > T{0} &&
              after > detail::mul(detail::mul(drop_tolerance, drop_tolerance), before);
          for (offset_type t = 0; t < m; ++t) v[t] = kept ? v[t] / norm : T{0};
          coarse_B[static_cast<size_type>(c) * coarse + row_c] = kept ? norm : T{0};
          for (int d = c + 1; d < k; ++d)
            coarse_B[static_cast<size_type>(c) * coarse + a * k + d] = T{0};
          keep[row_c] = kept ? 1 : 0;
          dropped += kept ? 0 : 1;
          // The same value into P(i, a k + c) (none for a distributed level).
          for (offset_type t = 0; t < m && p_values != nullptr; ++t) {
            p_values[p_row_ptr[r_col_idx[r_row_ptr[row_c] + t]] + c] = v[t];
          }
        }
        return dropped;
      },
      ops::Plus{});
}

template <class Exec, class T>
CsrMatrix<T> drop_columns(const Exec& exec, size_type rows, size_type old_cols, size_type new_cols,
                          const offset_type* p_row_ptr, const index_type* p_col_idx,
                          const T* p_values, const index_type* keep, const index_type* new_index,
                          int k, const T* B, T* B_kept) {
  Array<offset_type> row_ptr(exec, rows + 1);
  offset_type* rp = row_ptr.data();
  parallel_for(exec, rows + 1, [=] STRATA_HD(size_type i) {
    offset_type kept = 0;
    if (i < rows) {
      for (offset_type q = p_row_ptr[i]; q < p_row_ptr[i + 1]; ++q) kept += keep[p_col_idx[q]];
    }
    rp[i] = kept;
  });
  const size_type nnz = exclusive_scan(exec, rp, rp, rows + 1);
  Array<index_type> col_idx(exec, nnz);
  Array<T> values(exec, nnz);
  index_type* ci = col_idx.data();
  T* va = values.data();
  parallel_for(exec, rows, [=] STRATA_HD(size_type i) {
    offset_type out = rp[i];
    for (offset_type q = p_row_ptr[i]; q < p_row_ptr[i + 1]; ++q) {
      if (!keep[p_col_idx[q]]) continue;
      ci[out] = new_index[p_col_idx[q]];
      va[out] = p_values[q];
      ++out;
    }
  });
  parallel_for(exec, old_cols, [=] STRATA_HD(size_type r) {
    if (!keep[r]) return;
    const index_type c = new_index[r];
    for (int j = 0; j < k; ++j) {
      B_kept[static_cast<size_type>(j) * new_cols + c] =
          B[static_cast<size_type>(j) * old_cols + r];
    }
  });
  return CsrMatrix<T>(rows, new_cols, std::move(row_ptr), std::move(col_idx), std::move(values));
}

template <class Exec, class T>
void sort_rows(const Exec& exec, size_type rows, const offset_type* row_ptr, std::int64_t* cols,
               T* values) {
  parallel_for(exec, rows, [=] STRATA_HD(size_type r) {
    for (offset_type k = row_ptr[r] + 1; k < row_ptr[r + 1]; ++k) {
      const std::int64_t c = cols[k];
      const T v = values[k];
      offset_type p = k;
      for (; p > row_ptr[r] && cols[p - 1] > c; --p) {
        cols[p] = cols[p - 1];
        values[p] = values[p - 1];
      }
      cols[p] = c;
      values[p] = v;
    }
  });
}

template <class Exec>
void kept_row_lengths(const Exec& exec, size_type rows, size_type kept, const index_type* keep,
                      const index_type* new_index, const offset_type* row_ptr, offset_type* count) {
  parallel_for(exec, rows + 1, [=] STRATA_HD(size_type r) {
    if (r == rows) {
      count[kept] = 0;
    } else if (keep[r]) {
      count[new_index[r]] = row_ptr[r + 1] - row_ptr[r];
    }
  });
}

template <class Exec, class T>
void copy_kept_rows(const Exec& exec, size_type rows, size_type kept, const index_type* keep,
                    const index_type* new_index, const offset_type* row_ptr,
                    const std::int64_t* cols, const T* values, const offset_type* out_ptr,
                    std::int64_t* out_cols, T* out_values, int k, const T* B, T* B_kept) {
  parallel_for(exec, rows, [=] STRATA_HD(size_type r) {
    if (!keep[r]) return;
    const size_type to = new_index[r];
    offset_type out = out_ptr[to];
    for (offset_type e = row_ptr[r]; e < row_ptr[r + 1]; ++e, ++out) {
      out_cols[out] = cols[e];
      out_values[out] = values[e];
    }
    for (int c = 0; c < k; ++c) {
      B_kept[static_cast<size_type>(c) * kept + to] = B[static_cast<size_type>(c) * rows + r];
    }
  });
}

// ----------------------------------------------------------------- 4. Galerkin

namespace detail {

/// The single-entry flattening of GalerkinPlan (see the contract): the
/// nonzeros of each slot grouped (a counting sort within each row), then laid
/// out product by product in sorted order.
template <class Exec>
void flatten(const Exec& exec, size_type rows, const index_type* a_col_idx, GalerkinPlan& plan) {
  const offset_type* pair_ptr = plan.pair_ptr.data();  // = A's row_ptr here
  const index_type* pair_slot = plan.pair_slot.data();
  const offset_type* slot_ptr = plan.slot_ptr.data();
  const size_type slots = plan.slot.size();  // one product per slot
  const size_type nnz = plan.pair_slot.size();
  // Nonzeros per slot, then where each slot's list starts.
  Array<offset_type> starts(exec, slots + 1, offset_type{0});
  offset_type* start = starts.data();
  parallel_for(exec, rows, [=] STRATA_HD(size_type i) {
    for (offset_type k = pair_ptr[i]; k < pair_ptr[i + 1]; ++k) ++start[slot_ptr[i] + pair_slot[k]];
  });
  exclusive_scan(exec, start, start, slots + 1);
  Array<offset_type> grouped(exec, nnz), cursors(exec, slots);
  offset_type* by_slot = grouped.data();
  offset_type* cursor = cursors.data();
  parallel_for(exec, rows, [=] STRATA_HD(size_type i) {
    for (offset_type s = slot_ptr[i]; s < slot_ptr[i + 1]; ++s) cursor[s] = start[s];
    for (offset_type k = pair_ptr[i]; k < pair_ptr[i + 1]; ++k) {
      by_slot[cursor[slot_ptr[i] + pair_slot[k]]++] = k;
    }
  });
  cursors = Array<offset_type>();
  // Where each sorted product's nonzeros go in the flat sequence.
  Array<offset_type> flat_starts(exec, slots + 1);
  offset_type* flat = flat_starts.data();
  const offset_type* slot = plan.slot.data();
  parallel_for(exec, slots + 1, [=] STRATA_HD(size_type k) {
    flat[k] = k < slots ? start[slot[k] + 1] - start[slot[k]] : 0;
  });
  exclusive_scan(exec, flat, flat, slots + 1);
  plan.entry = Array<offset_type>(exec, nnz);
  plan.right = Array<offset_type>(exec, nnz);
  Array<offset_type> flat_left(exec, nnz);
  offset_type* entry = plan.entry.data();
  offset_type* right = plan.right.data();
  offset_type* left = flat_left.data();
  const offset_type* sorted_left = plan.left.data();
  parallel_for(exec, slots, [=] STRATA_HD(size_type k) {
    offset_type out = flat[k];
    for (offset_type t = start[slot[k]]; t < start[slot[k] + 1]; ++t, ++out) {
      const offset_type e = by_slot[t];
      entry[out] = e;
      left[out] = sorted_left[k];
      right[out] = a_col_idx[e];  // P's entry of row j is entry j
    }
  });
  offset_type* segment = plan.segment_start.data();
  parallel_for(exec, plan.segment_start.size(),
               [=] STRATA_HD(size_type r) { segment[r] = flat[segment[r]]; });
  plan.left = std::move(flat_left);
  plan.slot = Array<offset_type>();
  plan.pair_ptr = Array<offset_type>();
  plan.pair_slot = Array<index_type>();
  plan.slot_ptr = Array<offset_type>();
}

}  // namespace detail

template <class Exec>
GalerkinPlan galerkin_plan(const Exec& exec, size_type rows, const offset_type* a_row_ptr,
                           const index_type* a_col_idx, const offset_type* p_row_ptr,
                           const index_type* p_col_idx, size_type coarse) {
  GalerkinPlan plan;
  plan.single_entry = transform_reduce(
                          exec, rows, size_type{0},
                          [=] STRATA_HD(size_type i) -> size_type {
                            return p_row_ptr[i + 1] - p_row_ptr[i] == 1 ? 0 : 1;
                          },
                          ops::Plus{}) == 0;
  // 1a. Pairs (e, q) per row of A: sum over (i, j) of |P_j|; offsets by a scan.
  plan.pair_ptr = Array<offset_type>(exec, rows + 1);
  offset_type* pair_ptr = plan.pair_ptr.data();
  parallel_for(exec, rows + 1, [=] STRATA_HD(size_type i) {
    offset_type pairs = 0;
    if (i < rows) {
      for (offset_type k = a_row_ptr[i]; k < a_row_ptr[i + 1]; ++k) {
        const index_type j = a_col_idx[k];
        pairs += p_row_ptr[j + 1] - p_row_ptr[j];
      }
    }
    pair_ptr[i] = pairs;
  });
  const size_type total_pairs = exclusive_scan(exec, pair_ptr, pair_ptr, rows + 1);

  // 1b. The distinct J of each row, in order of first appearance (a short
  //     linear search: rows meet a handful of aggregates), and each pair's slot.
  plan.pair_slot = Array<index_type>(exec, total_pairs);
  Array<index_type> first_columns(exec, total_pairs);
  plan.slot_ptr = Array<offset_type>(exec, rows + 1);
  index_type* pair_slot = plan.pair_slot.data();
  index_type* seen = first_columns.data();
  offset_type* slot_ptr = plan.slot_ptr.data();
  parallel_for(exec, rows + 1, [=] STRATA_HD(size_type i) {
    if (i == rows) {
      slot_ptr[i] = 0;
      return;
    }
    const offset_type base = pair_ptr[i];
    offset_type t = base;
    index_type distinct = 0;
    for (offset_type k = a_row_ptr[i]; k < a_row_ptr[i + 1]; ++k) {
      const index_type j = a_col_idx[k];
      for (offset_type q = p_row_ptr[j]; q < p_row_ptr[j + 1]; ++q) {
        const index_type J = p_col_idx[q];
        index_type s = 0;
        while (s < distinct && seen[base + s] != J) ++s;
        if (s == distinct) seen[base + distinct++] = J;
        pair_slot[t++] = s;
      }
    }
    slot_ptr[i] = distinct;
  });
  const size_type total_slots = exclusive_scan(exec, slot_ptr, slot_ptr, rows + 1);
  Array<index_type> slot_columns(exec, total_slots);
  index_type* slot_col = slot_columns.data();
  parallel_for(exec, rows, [=] STRATA_HD(size_type i) {
    for (offset_type s = slot_ptr[i]; s < slot_ptr[i + 1]; ++s) {
      slot_col[s] = seen[pair_ptr[i] + (s - slot_ptr[i])];
    }
  });
  first_columns = Array<index_type>();

  // 2a. Products p_iI s_(i,J) per row: |P_i| * slots of i.
  Array<offset_type> offsets(exec, rows + 1);
  offset_type* offset = offsets.data();
  parallel_for(exec, rows + 1, [=] STRATA_HD(size_type i) {
    offset[i] = i < rows ? (p_row_ptr[i + 1] - p_row_ptr[i]) * (slot_ptr[i + 1] - slot_ptr[i]) : 0;
  });
  const size_type total = exclusive_scan(exec, offset, offset, rows + 1);

  // 2b. Each product as (key I n_c + J, its sources), in row order.
  const std::uint64_t nc = static_cast<std::uint64_t>(coarse);
  Array<std::uint64_t> keys(exec, total);
  Array<offset_type> order(exec, total), left0(exec, total), slot0(exec, total);
  std::uint64_t* key = keys.data();
  offset_type* ord = order.data();
  offset_type* l0 = left0.data();
  offset_type* s0 = slot0.data();
  parallel_for(exec, rows, [=] STRATA_HD(size_type i) {
    offset_type out = offset[i];
    for (offset_type p = p_row_ptr[i]; p < p_row_ptr[i + 1]; ++p) {
      const std::uint64_t I = static_cast<std::uint64_t>(p_col_idx[p]);
      for (offset_type s = slot_ptr[i]; s < slot_ptr[i + 1]; ++s) {
        key[out] = I * nc + static_cast<std::uint64_t>(slot_col[s]);
        ord[out] = out;
        l0[out] = p;
        s0[out] = s;
        ++out;
      }
    }
  });
  slot_columns = Array<index_type>();

  // 2c. Stable sort by key over the bits that n_c^2 needs.
  int bits = 1;
  while (bits < 64 && (std::uint64_t{1} << bits) < nc * nc) ++bits;
  stable_sort_by_key(exec, key, ord, total, bits);  // a radix sort over `bits` on the device

  // 2d. Sources in sorted order.
  plan.left = Array<offset_type>(exec, total);
  plan.slot = Array<offset_type>(exec, total);
  offset_type* left = plan.left.data();
  offset_type* slot = plan.slot.data();
  parallel_for(exec, total, [=] STRATA_HD(size_type k) {
    const offset_type o = ord[k];
    left[k] = l0[o];
    slot[k] = s0[o];
  });
  left0 = Array<offset_type>();
  slot0 = Array<offset_type>();

  // 2e. Segments: runs of equal keys, numbered by a scan of their heads.
  offset_type* head = ord;  // the order is no longer needed
  parallel_for(exec, total,
               [=] STRATA_HD(size_type k) { head[k] = k == 0 || key[k] != key[k - 1] ? 1 : 0; });
  const size_type coarse_nnz = exclusive_scan(exec, head, head, total);
  plan.segment_start = Array<offset_type>(exec, coarse_nnz + 1);
  Array<std::uint64_t> unique_keys(exec, coarse_nnz);
  offset_type* start = plan.segment_start.data();
  std::uint64_t* ukey = unique_keys.data();
  parallel_for(exec, total + 1, [=] STRATA_HD(size_type k) {
    if (k == total) {
      start[coarse_nnz] = total;
    } else if (k == 0 || key[k] != key[k - 1]) {
      start[head[k]] = k;
      ukey[head[k]] = key[k];
    }
  });

  // 2f. A_c's pattern: row I starts at the first key >= I n_c.
  plan.row_ptr = Array<offset_type>(exec, coarse + 1);
  plan.col_idx = Array<index_type>(exec, coarse_nnz);
  offset_type* rp = plan.row_ptr.data();
  index_type* ci = plan.col_idx.data();
  parallel_for(exec, coarse + 1, [=] STRATA_HD(size_type I) {
    rp[I] = detail::lower_bound(ukey, coarse_nnz, static_cast<std::uint64_t>(I) * nc);
  });
  parallel_for(exec, coarse_nnz,
               [=] STRATA_HD(size_type r) { ci[r] = static_cast<index_type>(ukey[r] % nc); });
  plan.sorted_products = total;
  if (plan.single_entry) detail::flatten(exec, rows, a_col_idx, plan);
  return plan;
}

template <class Exec, class T>
void galerkin_values(const Exec& exec, size_type rows, size_type coarse_nnz,
                     const offset_type* a_row_ptr, const index_type* a_col_idx,
                     const offset_type* p_row_ptr, const GalerkinPlanView& plan, const T* a_values,
                     const T* p_values, T* slot_values, T* ac_values) {
  const offset_type* segment_start = plan.segment_start;
  const offset_type* left = plan.left;
  if (plan.single_entry) {  // the flat sequence: (A_c)_r = sum of p[left] a[entry] p[right]
    const offset_type* entry = plan.entry;
    const offset_type* right = plan.right;
    parallel_for(exec, coarse_nnz, [=] STRATA_HD(size_type r) {
      T sum{0};
      for (offset_type k = segment_start[r]; k < segment_start[r + 1]; ++k) {
        sum = detail::add(sum, detail::mul(detail::mul(p_values[left[k]], a_values[entry[k]]),
                                           p_values[right[k]]));
      }
      ac_values[r] = sum;
    });
    return;
  }
  // 1. s_(i,J) = sum of a_ij p_jJ over row i, in the row's order.
  const offset_type* pair_ptr = plan.pair_ptr;
  const index_type* pair_slot = plan.pair_slot;
  const offset_type* slot_ptr = plan.slot_ptr;
  const offset_type* slot = plan.slot;
  {
    parallel_for(exec, rows, [=] STRATA_HD(size_type i) {
      T* s = slot_values + slot_ptr[i];
      const offset_type slots = slot_ptr[i + 1] - slot_ptr[i];
      for (offset_type t = 0; t < slots; ++t) s[t] = T{0};
      offset_type t = pair_ptr[i];
      for (offset_type k = a_row_ptr[i]; k < a_row_ptr[i + 1]; ++k) {
        const index_type j = a_col_idx[k];
        const T a = a_values[k];
        for (offset_type q = p_row_ptr[j]; q < p_row_ptr[j + 1]; ++q) {
          T& target = s[pair_slot[t++]];
          target = detail::add(target, detail::mul(a, p_values[q]));
        }
      }
    });
  }
  // 2. (A_c)_IJ = sum of p_iI s_(i,J) over the sorted segment.
  parallel_for(exec, coarse_nnz, [=] STRATA_HD(size_type r) {
    T sum{0};
    for (offset_type k = segment_start[r]; k < segment_start[r + 1]; ++k) {
      sum = detail::add(sum, detail::mul(p_values[left[k]], slot_values[slot[k]]));
    }
    ac_values[r] = sum;
  });
}

}  // namespace strata::kernels::aggregation
