// Single-source bodies of distributed_classical_kernels.hpp. Included by one
// backend file after that backend's parallel header, so the unqualified
// primitives (parallel_for, transform_reduce) resolve, by argument-dependent
// lookup on Exec, to that backend.

#include <cstdint>

#include "kernels/amg/classical_kernels.hpp"
#include "kernels/amg/distributed_classical_kernels.hpp"
#include "kernels/base/hd.hpp"
#include "kernels/base/random.hpp"

namespace strata::kernels::distributed_classical {

namespace detail {

STRATA_HD inline void atomic_add(std::int32_t* target, std::int32_t value) {
#if defined(__CUDA_ARCH__)
  atomicAdd(reinterpret_cast<int*>(target), static_cast<int>(value));
#else
  __atomic_fetch_add(target, value, __ATOMIC_RELAXED);
#endif
}

/// Sets *flag = 0 while other threads may do the same (every writer writes
/// the same value; the atomic store keeps the host build free of a formal
/// data race).
STRATA_HD inline void clear_flag(std::int32_t* flag) {
#if defined(__CUDA_ARCH__)
  *reinterpret_cast<volatile std::int32_t*>(flag) = 0;
#else
  __atomic_store_n(flag, std::int32_t{0}, __ATOMIC_RELAXED);
#endif
}

/// Entry k of row i of the local view is an edge of the strength graph.
STRATA_HD inline bool is_edge(const std::uint8_t* strong, offset_type k, index_type j,
                              size_type i) {
  return j != i && strong[k] != 0;
}

/// Does (weight, global id) of a beat that of b? The serial pmis() rule.
STRATA_HD inline bool beats(double wa, double wb, std::int64_t ida, std::int64_t idb) {
  if (wa != wb) return wa > wb;
  return ida > idb;
}

/// Position of id in the sorted, distinct ids[0..count) (bisection; id present).
STRATA_HD inline index_type position(const std::int64_t* ids, size_type count, std::int64_t id) {
  size_type lo = 0, hi = count;
  while (lo < hi) {
    const size_type mid = lo + (hi - lo) / 2;
    if (ids[mid] < id) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return static_cast<index_type>(lo);
}

}  // namespace detail

template <class Exec>
void pmis_influence(const Exec& exec, size_type n, const offset_type* row_ptr,
                    const index_type* col_idx, const std::uint8_t* strong,
                    std::int32_t* owned_count, std::int32_t* ghost_count) {
  parallel_for(exec, n, [=] STRATA_HD(size_type i) {
    for (offset_type k = row_ptr[i]; k < row_ptr[i + 1]; ++k) {
      const index_type j = col_idx[k];
      if (!detail::is_edge(strong, k, j, i)) continue;
      if (j < n) {
        detail::atomic_add(&owned_count[j], 1);
      } else {
        detail::atomic_add(&ghost_count[j - n], 1);
      }
    }
  });
}

template <class Exec>
void add_at(const Exec& exec, size_type count, const std::int32_t* value, const index_type* index,
            std::int32_t* target) {
  parallel_for(exec, count,
               [=] STRATA_HD(size_type k) { detail::atomic_add(&target[index[k]], value[k]); });
}

template <class Exec>
void clear_at(const Exec& exec, size_type count, const std::int32_t* value, const index_type* index,
              std::int32_t* target) {
  parallel_for(exec, count, [=] STRATA_HD(size_type k) {
    if (value[k] == 0) detail::clear_flag(&target[index[k]]);
  });
}

template <class Exec>
size_type pmis_weights(const Exec& exec, size_type n, const offset_type* row_ptr,
                       const index_type* col_idx, const std::uint8_t* strong, std::uint64_t seed,
                       std::int64_t hash_begin, const index_type* hash_offset,
                       bool isolated_coarse, const std::int32_t* influence, double* weight,
                       std::int32_t* cf, std::int32_t* cand) {
  return transform_reduce(
      exec, n, size_type{0},
      [=] STRATA_HD(size_type i) -> size_type {
        bool depends = false;
        for (offset_type k = row_ptr[i]; k < row_ptr[i + 1] && !depends; ++k) {
          depends = detail::is_edge(strong, k, col_idx[k], i);
        }
        const bool isolated = !depends && influence[i] == 0;
        const std::int64_t offset = hash_offset ? hash_offset[i] : static_cast<std::int64_t>(i);
        const auto id = static_cast<std::uint64_t>(hash_begin + offset);
        weight[i] = isolated ? -1.0 : double(influence[i]) + base::random_unit(seed, id);
        cf[i] = isolated ? (isolated_coarse ? classical::kCoarse : classical::kFine)
                         : classical::kUndecided;
        cand[i] = isolated ? 0 : 1;
        return isolated ? 0 : 1;
      },
      ops::Plus{});
}

template <class Exec>
void pmis_select(const Exec& exec, size_type n, const offset_type* row_ptr,
                 const index_type* col_idx, const std::uint8_t* strong, std::int64_t row_begin,
                 const std::int64_t* ghost_id, const double* owned_weight,
                 const double* ghost_weight, std::int32_t* owned_cand, std::int32_t* ghost_cand) {
  parallel_for(exec, n, [=] STRATA_HD(size_type i) {
    const double wi = owned_weight[i];
    if (wi < 0) return;  // decided
    const std::int64_t id_i = row_begin + static_cast<std::int64_t>(i);
    bool lost = false;
    for (offset_type k = row_ptr[i]; k < row_ptr[i + 1]; ++k) {
      const index_type j = col_idx[k];
      if (!detail::is_edge(strong, k, j, i)) continue;
      const bool owned = j < n;
      const double wj = owned ? owned_weight[j] : ghost_weight[j - n];
      if (wj < 0) continue;
      const std::int64_t id_j = owned ? row_begin + j : ghost_id[j - n];
      if (detail::beats(wj, wi, id_j, id_i)) {
        lost = true;
      } else {
        detail::clear_flag(owned ? &owned_cand[j] : &ghost_cand[j - n]);
      }
    }
    if (lost) detail::clear_flag(&owned_cand[i]);
  });
}

template <class Exec>
size_type pmis_decide(const Exec& exec, size_type n, const offset_type* row_ptr,
                      const index_type* col_idx, const std::uint8_t* strong,
                      const std::int32_t* owned_cand, const std::int32_t* ghost_cand,
                      std::int32_t* cf, double* weight, std::int32_t* next_cand) {
  return transform_reduce(
      exec, n, size_type{0},
      [=] STRATA_HD(size_type i) -> size_type {
        next_cand[i] = 0;
        if (cf[i] != classical::kUndecided) return 0;
        if (owned_cand[i]) {
          cf[i] = classical::kCoarse;
          weight[i] = -1.0;
          return 0;
        }
        for (offset_type k = row_ptr[i]; k < row_ptr[i + 1]; ++k) {
          const index_type j = col_idx[k];
          if (!detail::is_edge(strong, k, j, i)) continue;
          if (j < n ? owned_cand[j] : ghost_cand[j - n]) {
            cf[i] = classical::kFine;
            weight[i] = -1.0;
            return 0;
          }
        }
        next_cand[i] = 1;
        return 1;
      },
      ops::Plus{});
}

template <class Exec>
void coarse_ids(const Exec& exec, size_type n, const std::int32_t* cf, const index_type* cmap,
                std::int64_t coarse_begin, std::int64_t* out) {
  parallel_for(exec, n, [=] STRATA_HD(size_type i) {
    out[i] = cf[i] == classical::kCoarse ? coarse_begin + cmap[i] : std::int64_t{-1};
  });
}

template <class Exec>
void extended_candidates(const Exec& exec, size_type ghosts, const std::int64_t* ghost_ids,
                         size_type fetched, const std::int64_t* fetched_cols,
                         std::int64_t row_begin, std::int64_t row_end, std::int64_t* out) {
  parallel_for(exec, ghosts + fetched, [=] STRATA_HD(size_type k) {
    if (k < ghosts) {
      out[k] = ghost_ids[k];
    } else {
      const std::int64_t g = fetched_cols[k - ghosts];
      out[k] = g >= row_begin && g < row_end ? ghost_ids[0] : g;
    }
  });
}

template <class Exec>
void extended_columns(const Exec& exec, size_type n, size_type ghosts, size_type fetched,
                      const index_type* position, const std::int64_t* fetched_cols,
                      std::int64_t row_begin, std::int64_t row_end, index_type* ghost_column,
                      index_type* fetched_col, index_type* source) {
  const auto owned = static_cast<index_type>(n);
  parallel_for(exec, ghosts + fetched, [=] STRATA_HD(size_type k) {
    if (k < ghosts) {
      ghost_column[k] = owned + position[k];
      source[position[k]] = static_cast<index_type>(k);
    } else {
      const std::int64_t g = fetched_cols[k - ghosts];
      fetched_col[k - ghosts] = g >= row_begin && g < row_end
                                    ? static_cast<index_type>(g - row_begin)
                                    : owned + position[k];
    }
  });
}

template <class Exec>
void localize(const Exec& exec, size_type m, const std::int64_t* global, std::int64_t row_begin,
              std::int64_t row_end, const std::int64_t* ids, size_type count, index_type* out) {
  const auto n = static_cast<index_type>(row_end - row_begin);
  parallel_for(exec, m, [=] STRATA_HD(size_type k) {
    const std::int64_t g = global[k];
    out[k] = g >= row_begin && g < row_end ? static_cast<index_type>(g - row_begin)
                                           : n + detail::position(ids, count, g);
  });
}

template <class Exec>
void extended_counts(const Exec& exec, size_type n, size_type count, const offset_type* local_ptr,
                     const offset_type* fetched_ptr, const index_type* source,
                     offset_type* extended_count) {
  parallel_for(exec, n + count + 1, [=] STRATA_HD(size_type r) {
    offset_type c = 0;
    if (r < n) {
      c = local_ptr[r + 1] - local_ptr[r];
    } else if (r < n + count) {
      const index_type s = source[r - n];
      c = s < 0 ? 0 : fetched_ptr[s + 1] - fetched_ptr[s];
    }
    extended_count[r] = c;
  });
}

template <class Exec, class T>
void extended_fill(const Exec& exec, size_type n, size_type count, const offset_type* local_ptr,
                   const index_type* local_col, const T* local_val, const index_type* ghost_column,
                   const offset_type* fetched_ptr, const index_type* fetched_col,
                   const T* fetched_val, const index_type* source, const offset_type* ptr,
                   offset_type nnz, index_type* col, T* val) {
  for_each_row_entry(exec, n + count, nnz, ptr, [=] STRATA_HD(size_type r, offset_type q) {
    const offset_type p = q - ptr[r];
    if (r < n) {
      const offset_type k = local_ptr[r] + p;
      const index_type j = local_col[k];
      if (col) col[q] = j < static_cast<index_type>(n) ? j : ghost_column[j - n];
      val[q] = local_val[k];
      return;
    }
    // A row with entries has a source (extended_counts gave the others none).
    const offset_type k = fetched_ptr[source[r - n]] + p;
    if (col) col[q] = fetched_col[k];
    val[q] = fetched_val[k];
  });
}

template <class Exec>
void extended_roles(const Exec& exec, size_type n, size_type count, const std::int32_t* cf,
                    const index_type* cmap, std::int64_t coarse_begin, size_type owned_coarse,
                    const std::int64_t* coarse_id, const index_type* extended_rank, size_type below,
                    std::int32_t* role, index_type* column, index_type* row, std::int64_t* table) {
  parallel_for(exec, n + count, [=] STRATA_HD(size_type p) {
    if (p < n) {
      row[p] = static_cast<index_type>(p);
      if (cf[p] == classical::kCoarse) {
        const index_type c = static_cast<index_type>(below) + cmap[p];
        role[p] = classical::kTarget;
        column[p] = c;
        table[c] = coarse_begin + cmap[p];
      } else {
        role[p] = classical::kInterpolated;
        column[p] = -1;
      }
      return;
    }
    const size_type u = p - n;
    if (coarse_id[u] < 0) {
      role[p] = classical::kIntermediate;
      column[p] = -1;
      row[p] = -1;
      return;
    }
    const index_type rank = extended_rank[u];
    const index_type c =
        static_cast<size_type>(rank) < below ? rank : rank + static_cast<index_type>(owned_coarse);
    role[p] = classical::kTarget;
    column[p] = c;
    row[p] = static_cast<index_type>(n) + rank;
    table[c] = coarse_id[u];
  });
}

template <class Exec>
void two_stage_extended_roles(const Exec& exec, size_type n, size_type count,
                              const std::int32_t* owned_role, const index_type* owned_column,
                              const index_type* owned_row, size_type owned_rows,
                              std::int64_t coarse_begin, size_type owned_coarse,
                              const std::int64_t* coarse_id, const index_type* extended_rank,
                              size_type below, std::int32_t* role, index_type* column,
                              index_type* row, std::int64_t* table) {
  parallel_for(exec, n + count, [=] STRATA_HD(size_type p) {
    if (p < n) {
      role[p] = owned_role[p];
      row[p] = owned_row[p];
      if (owned_role[p] == classical::kTarget) {
        const index_type c = static_cast<index_type>(below) + owned_column[p];
        column[p] = c;
        table[c] = coarse_begin + owned_column[p];
      } else {
        column[p] = -1;
      }
      return;
    }
    const size_type u = p - n;
    if (coarse_id[u] < 0) {
      role[p] = classical::kIntermediate;
      column[p] = -1;
      row[p] = -1;
      return;
    }
    const index_type rank = extended_rank[u];
    const index_type c =
        static_cast<size_type>(rank) < below ? rank : rank + static_cast<index_type>(owned_coarse);
    role[p] = classical::kTarget;
    column[p] = c;
    row[p] = static_cast<index_type>(owned_rows) + rank;
    table[c] = coarse_id[u];
  });
}

template <class Exec>
void row_slice(const Exec& exec, size_type first, size_type rows, const offset_type* ptr,
               const index_type* col, const std::int64_t* table, offset_type* out_ptr,
               std::int64_t* out_cols) {
  parallel_for(exec, rows + 1, [=] STRATA_HD(size_type r) {
    const offset_type base = ptr[first];
    out_ptr[r] = ptr[first + r] - base;
    if (r == rows) return;
    for (offset_type k = ptr[first + r]; k < ptr[first + r + 1]; ++k) {
      out_cols[k - base] = table[col[k]];
    }
  });
}

template <class Exec>
void owned_columns_first(const Exec& exec, size_type m, const index_type* col, size_type below,
                         size_type owned, index_type* out) {
  const auto b = static_cast<index_type>(below);
  const auto o = static_cast<index_type>(owned);
  parallel_for(exec, m, [=] STRATA_HD(size_type k) {
    const index_type c = col[k];
    out[k] = c < b ? o + c : (c < b + o ? c - b : c);
  });
}

template <class Exec>
void stacked_counts(const Exec& exec, size_type a_rows, size_type b_rows, const offset_type* a_ptr,
                    const offset_type* b_ptr, offset_type* count) {
  parallel_for(exec, a_rows + b_rows + 1, [=] STRATA_HD(size_type r) {
    offset_type c = 0;
    if (r < a_rows) {
      c = a_ptr[r + 1] - a_ptr[r];
    } else if (r < a_rows + b_rows) {
      c = b_ptr[r - a_rows + 1] - b_ptr[r - a_rows];
    }
    count[r] = c;
  });
}

template <class Exec, class T>
void stacked_fill(const Exec& exec, size_type a_rows, size_type b_rows, const offset_type* a_ptr,
                  const index_type* a_col, const T* a_val, const offset_type* b_ptr,
                  const index_type* b_col, const T* b_val, const offset_type* ptr,
                  offset_type nnz, index_type* col, T* val) {
  for_each_row_entry(exec, a_rows + b_rows, nnz, ptr, [=] STRATA_HD(size_type r, offset_type q) {
    const bool first = r < a_rows;
    const size_type s = first ? r : r - a_rows;
    const offset_type k = (first ? a_ptr : b_ptr)[s] + (q - ptr[r]);
    if (col) col[q] = (first ? a_col : b_col)[k];
    val[q] = (first ? a_val : b_val)[k];
  });
}

template <class Exec, class T>
void split_values(const Exec& exec, size_type n, const offset_type* ptr, const index_type* col,
                  const T* values, const std::int64_t* table, std::int64_t coarse_begin,
                  std::int64_t coarse_end, const offset_type* diag_ptr, T* diag_values,
                  const offset_type* offd_ptr, T* offd_values) {
  parallel_for(exec, n, [=] STRATA_HD(size_type i) {
    offset_type d = diag_ptr[i], o = offd_ptr[i];
    for (offset_type k = ptr[i]; k < ptr[i + 1]; ++k) {
      const std::int64_t g = table[col[k]];
      if (g >= coarse_begin && g < coarse_end) {
        diag_values[d++] = values[k];
      } else {
        offd_values[o++] = values[k];
      }
    }
  });
}

template <class Exec>
size_type count_below(const Exec& exec, size_type m, const std::int64_t* ids, std::int64_t bound) {
  return transform_reduce(
      exec, m, size_type{0},
      [=] STRATA_HD(size_type k) -> size_type { return ids[k] >= 0 && ids[k] < bound ? 1 : 0; },
      ops::Plus{});
}

template <class Exec>
void mark_coarse(const Exec& exec, size_type m, const std::int64_t* ids, std::int32_t* markers) {
  parallel_for(exec, m, [=] STRATA_HD(size_type k) { markers[k] = ids[k] >= 0 ? 1 : 0; });
}

template <class Exec>
void globalize(const Exec& exec, size_type m, const index_type* col, const std::int64_t* table,
               std::int64_t* out) {
  parallel_for(exec, m, [=] STRATA_HD(size_type k) { out[k] = table[col[k]]; });
}

}  // namespace strata::kernels::distributed_classical
