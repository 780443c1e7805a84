// Single-source bodies of classical_kernels.hpp. Included by one backend file
// after that backend's parallel header, so the unqualified primitives
// (parallel_for, transform_reduce, exclusive_scan) resolve, by
// argument-dependent lookup on Exec, to that backend.

#include <cstdint>
#include <cstring>
#include <limits>
#include <utility>

#include "kernels/amg/classical_kernels.hpp"
#include "kernels/base/hd.hpp"
#include "kernels/base/random.hpp"

namespace strata::kernels::classical {

namespace detail {

/// Sets *flag = 0 while other threads may do the same (every writer writes
/// the same value; the atomic store only keeps the host build free of a
/// formal data race).
STRATA_HD inline void clear_flag(std::uint8_t* flag) {
#if defined(__CUDA_ARCH__)
  *reinterpret_cast<volatile std::uint8_t*>(flag) = 0;
#else
  __atomic_store_n(flag, std::uint8_t{0}, __ATOMIC_RELAXED);
#endif
}

STRATA_HD inline void atomic_increment(std::int32_t* counter) {
#if defined(__CUDA_ARCH__)
  atomicAdd(reinterpret_cast<int*>(counter), 1);
#else
  __atomic_fetch_add(counter, 1, __ATOMIC_RELAXED);
#endif
}

/// The top 32 bits of |v| (1 + 2^-30) as a double: sign (0), exponent and
/// 20 bits of mantissa. Orders magnitudes like |v| does, but values within a
/// relative ~1e-6 of each other compare equal, so rounding differences
/// between backends do not change which entries a truncation keeps. The
/// factor lifts values that sit exactly on a bucket boundary (0.25, 0.375:
/// common in structured problems) well inside their bucket, where a value
/// rounded a few ulps below lands too.
STRATA_HD inline std::uint32_t magnitude_key(double v) {
  const double a = (v < 0 ? -v : v) * (1.0 + 0x1.0p-30);
#if defined(__CUDA_ARCH__)
  const auto bits = static_cast<std::uint64_t>(__double_as_longlong(a));
#else
  std::uint64_t bits;
  std::memcpy(&bits, &a, sizeof bits);
#endif
  return static_cast<std::uint32_t>(bits >> 32);
}

/// Truncation order of an entry: larger magnitude key first, then smaller
/// column (distinct within a row).
STRATA_HD inline std::uint64_t truncation_order(double v, index_type col) {
  return (std::uint64_t(magnitude_key(v)) << 32) |
         std::uint64_t(0x7FFFFFFFu - static_cast<std::uint32_t>(col));
}

/// Is entry k of row i an edge of the graph (see pmis())?
STRATA_HD inline bool is_edge(const std::uint8_t* strong, offset_type k, index_type j,
                              size_type i) {
  return j != i && (strong == nullptr || strong[k] != 0);
}

/// Does (weight, id) of point a beat that of point b (weights wa, wb)?
STRATA_HD inline bool beats(double wa, double wb, const index_type* global_id, size_type a,
                            size_type b) {
  if (wa != wb) return wa > wb;
  const size_type ida = global_id ? global_id[a] : a;
  const size_type idb = global_id ? global_id[b] : b;
  return ida > idb;
}

/// PMIS keeps a decided point's weight at this (weights of undecided points
/// are >= 0), so that one gather of a neighbour's weight also tells whether
/// it is still undecided: the independent-set pass reads one scattered
/// sector per neighbour instead of two (cf and weight).
inline constexpr double kDecidedWeight = -1.0;

/// counts[0..rows) hold per-row counts and counts[rows] == 0: turns them
/// into row offsets and returns the total.
template <class Exec>
size_type counts_to_offsets(const Exec& exec, offset_type* counts, size_type rows) {
  return exclusive_scan(exec, counts, counts, rows + 1);
}

/// a_ji if j depends strongly on i (entry (j, i) of A is strong), else 0;
/// row j is bisected when the rows are sorted.
template <class T>
STRATA_HD T strong_entry(const offset_type* row_ptr, const index_type* col_idx, const T* values,
                         const std::uint8_t* strong, bool sorted, index_type j, size_type i) {
  offset_type lo = row_ptr[j], hi = row_ptr[j + 1];
  if (sorted) {
    while (lo < hi) {
      const offset_type mid = lo + (hi - lo) / 2;
      if (col_idx[mid] < i) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo < row_ptr[j + 1] && col_idx[lo] == i && strong[lo] ? values[lo] : T{0};
  }
  for (offset_type k = lo; k < hi; ++k) {
    if (col_idx[k] == i) return strong[k] ? values[k] : T{0};
  }
  return T{0};
}

/// The denominator d_k of the MM formulas (see MmOperands) for F point k
/// seen from row i.
template <class T>
STRATA_HD T mm_denominator(MmVariant variant, const offset_type* row_ptr, const index_type* col_idx,
                           const T* values, const std::uint8_t* strong, bool sorted, const T* beta,
                           const T* mu, index_type k, size_type i, T& reverse) {
  reverse = T{0};
  switch (variant) {
    case MmVariant::ext:
      return beta[k];
    case MmVariant::ext_i:
      reverse = strong_entry(row_ptr, col_idx, values, strong, sorted, k, i);
      return beta[k] + reverse;
    case MmVariant::ext_e:
      return beta[k] + mu[k];
  }
  return beta[k];
}

/// Fills the two MM factors; the column arrays may be null (values only,
/// on the patterns built before).
template <class Exec, class T>
void fill_mm(const Exec& exec, const InterpolationInput<T>& in, MmVariant variant,
             const offset_type* afc_ptr, index_type* afc_col, T* afc_val,
             const offset_type* aff_ptr, index_type* aff_col, T* aff_val) {
  const size_type n = in.n;
  Array<T> beta_array(exec, n), mu_array(exec, n);
  T* beta = beta_array.data();
  T* mu = mu_array.data();
  const offset_type* row_ptr = in.row_ptr;
  const index_type* col_idx = in.col_idx;
  const T* values = in.values;
  const std::uint8_t* strong = in.strong;
  const std::int32_t* role = in.role;
  const index_type* cmap = in.cmap;
  const index_type* dmap = in.dmap;
  const bool sorted = in.sorted_rows;

  // AFC, with beta_k (sum of strong connections to targets) and mu_k (mean
  // strong connection to non-targets) of every non-target point.
  parallel_for(exec, n, [=] STRATA_HD(size_type i) {
    offset_type p = afc_ptr[i];
    if (role[i] == kTarget) {
      if (afc_col) afc_col[p] = cmap[i];
      afc_val[p] = T{1};
      beta[i] = T{0};
      mu[i] = T{0};
      return;
    }
    T b{0}, m{0};
    int count = 0;
    for (offset_type k = row_ptr[i]; k < row_ptr[i + 1]; ++k) {
      const index_type j = col_idx[k];
      if (j == i || !strong[k]) continue;
      if (role[j] == kTarget) {
        if (afc_col) afc_col[p] = cmap[j];
        afc_val[p] = values[k];
        ++p;
        b += values[k];
      } else {
        m += values[k];
        ++count;
      }
    }
    beta[i] = b;
    mu[i] = count > 0 ? m / T(count) : T{0};
  });

  // AFF: the scaled strong connections of each interpolated point to
  // non-targets, behind its own (scaled) unit entry.
  parallel_for(exec, n, [=] STRATA_HD(size_type i) {
    const std::int32_t r = role[i];
    if (r < 0) return;
    offset_type p = aff_ptr[dmap[i]];
    if (r == kTarget) {
      if (aff_col) aff_col[p] = static_cast<index_type>(i);
      aff_val[p] = T{1};
      return;
    }
    // First pass: the denominators d_k, parked in the row's value slots.
    T weak_sum{0}, lumped{0}, theta{0};
    offset_type q = p + 1;
    for (offset_type k = row_ptr[i]; k < row_ptr[i + 1]; ++k) {
      const index_type j = col_idx[k];
      const T v = values[k];
      if (j == i || !strong[k]) {
        weak_sum += v;  // the diagonal and the weak connections
        continue;
      }
      if (role[j] == kTarget) continue;
      T reverse;
      const T d = mm_denominator(variant, row_ptr, col_idx, values, strong, sorted, beta, mu, j, i,
                                 reverse);
      if (d == T{0}) {
        lumped += v;
      } else if (variant == MmVariant::ext_i) {
        theta += reverse * (v / d);
      } else if (variant == MmVariant::ext_e) {
        theta += v * (mu[j] / d);
      }
      if (aff_col) aff_col[q] = j;
      aff_val[q] = d;
      ++q;
    }
    const T denominator = weak_sum + lumped + theta;
    const T s = denominator != T{0} ? T{-1} / denominator : T{0};
    if (aff_col) aff_col[p] = static_cast<index_type>(i);
    aff_val[p] = s;
    // Second pass: the scaled values.
    q = p + 1;
    for (offset_type k = row_ptr[i]; k < row_ptr[i + 1]; ++k) {
      const index_type j = col_idx[k];
      if (j == i || !strong[k] || role[j] == kTarget) continue;
      const T d = aff_val[q];
      aff_val[q] = d != T{0} ? s * (values[k] / d) : T{0};
      ++q;
    }
  });
}

/// Fills direct interpolation; col may be null (values only).
template <class Exec, class T>
void fill_direct(const Exec& exec, const InterpolationInput<T>& in, const offset_type* ptr,
                 index_type* col, T* val) {
  const offset_type* row_ptr = in.row_ptr;
  const index_type* col_idx = in.col_idx;
  const T* values = in.values;
  const std::uint8_t* strong = in.strong;
  const std::int32_t* role = in.role;
  const index_type* cmap = in.cmap;
  const index_type* dmap = in.dmap;
  parallel_for(exec, in.n, [=] STRATA_HD(size_type i) {
    const std::int32_t r = role[i];
    if (r < 0) return;
    offset_type p = ptr[dmap[i]];
    if (r == kTarget) {
      if (col) col[p] = cmap[i];
      val[p] = T{1};
      return;
    }
    T diag{0}, neg_all{0}, pos_all{0}, neg_c{0}, pos_c{0};
    for (offset_type k = row_ptr[i]; k < row_ptr[i + 1]; ++k) {
      const index_type j = col_idx[k];
      const T v = values[k];
      if (j == i) {
        diag += v;
        continue;
      }
      const bool c = strong[k] && role[j] == kTarget;
      if (v < T{0}) {
        neg_all += v;
        if (c) neg_c += v;
      } else {
        pos_all += v;
        if (c) pos_c += v;
      }
    }
    const T alpha = neg_c != T{0} ? neg_all / neg_c : T{0};
    T beta{0};
    if (pos_c != T{0}) {
      beta = pos_all / pos_c;
    } else {
      diag += pos_all;
    }
    const T inv = diag != T{0} ? T{1} / diag : T{0};
    for (offset_type k = row_ptr[i]; k < row_ptr[i + 1]; ++k) {
      const index_type j = col_idx[k];
      if (j == i || !strong[k] || role[j] != kTarget) continue;
      const T v = values[k];
      if (col) col[p] = cmap[j];
      val[p] = -(v < T{0} ? alpha : beta) * v * inv;
      ++p;
    }
  });
}

}  // namespace detail

template <class Exec, class T>
void strength(const Exec& exec, size_type n, size_type nnz, const offset_type* row_ptr,
              const index_type* col_idx, const T* values, double theta, double max_row_sum,
              std::uint8_t* strong) {
  (void)nnz;
  const bool use_row_sum = max_row_sum < 1.0;
  const double shift = 1.0 + strength_tie_tolerance;
  parallel_for(exec, n, [=] STRATA_HD(size_type i) {
    T diag{0}, row_sum{0}, lo{0}, hi{0};
    for (offset_type k = row_ptr[i]; k < row_ptr[i + 1]; ++k) {
      const T v = values[k];
      row_sum += v;
      if (col_idx[k] == i) {
        diag += v;
      } else {
        lo = v < lo ? v : lo;
        hi = v > hi ? v : hi;
      }
    }
    const T abs_sum = row_sum < T{0} ? -row_sum : row_sum;
    const T abs_diag = diag < T{0} ? -diag : diag;
    const bool none = use_row_sum && abs_sum > T(max_row_sum) * abs_diag;
    const bool negative_diag = diag < T{0};
    const T threshold = T(theta * shift) * (negative_diag ? hi : lo);
    for (offset_type k = row_ptr[i]; k < row_ptr[i + 1]; ++k) {
      const T v = values[k];
      const bool s = !none && col_idx[k] != i && (negative_diag ? v > threshold : v < threshold);
      strong[k] = s ? 1 : 0;
    }
  });
}

namespace detail {

/// PMIS set-up: weight_i = influence_i + hash, isolated points decided,
/// cand_i = 1 for the undecided ones. Returns the number of undecided points.
template <class Exec>
size_type pmis_init(const Exec& exec, size_type n, const offset_type* row_ptr,
                    const index_type* col_idx, const std::uint8_t* strong, std::uint64_t seed,
                    const index_type* global_id, bool isolated_coarse,
                    const std::int32_t* influence, double* weight, std::int32_t* cf,
                    std::uint8_t* cand) {
  return transform_reduce(
      exec, n, size_type{0},
      [=] STRATA_HD(size_type i) -> size_type {
        bool depends = false;
        for (offset_type k = row_ptr[i]; k < row_ptr[i + 1] && !depends; ++k) {
          depends = is_edge(strong, k, col_idx[k], i);
        }
        const size_type id = global_id ? global_id[i] : i;
        const bool isolated = !depends && influence[i] == 0;
        weight[i] = isolated
                        ? kDecidedWeight
                        : double(influence[i]) + base::random_unit(seed, static_cast<std::uint64_t>(id));
        cf[i] = isolated ? (isolated_coarse ? kCoarse : kFine) : kUndecided;
        cand[i] = isolated ? 0 : 1;
        return isolated ? 0 : 1;
      },
      ops::Plus{});
}

}  // namespace detail

namespace detail {

/// The influence counts of PMIS: influence_i = #{j : j -> i}.
template <class Exec>
void pmis_influence(const Exec& exec, size_type n, const offset_type* row_ptr,
                    const index_type* col_idx, const std::uint8_t* strong,
                    std::int32_t* influence) {
  parallel_for(exec, n, [=] STRATA_HD(size_type i) { influence[i] = 0; });
  parallel_for(exec, n, [=] STRATA_HD(size_type i) {
    for (offset_type k = row_ptr[i]; k < row_ptr[i + 1]; ++k) {
      const index_type j = col_idx[k];
      if (is_edge(strong, k, j, i)) atomic_increment(&influence[j]);
    }
  });
}

/// The rounds of PMIS, from weights, cf and candidate flags set up for
/// every point (decided points: weight kDecidedWeight, cand 0), until no
/// point is undecided.
template <class Exec>
void pmis_rounds(const Exec& exec, size_type n, const offset_type* row_ptr,
                 const index_type* col_idx, const std::uint8_t* strong,
                 const index_type* global_id, double* weight, std::int32_t* cf,
                 std::uint8_t* cand) {
  Array<std::uint8_t> candidate_b(exec, n);
  Array<index_type> list_a(exec, n), list_b(exec, n), keep_array(exec, n);
  std::uint8_t* next = candidate_b.data();
  index_type* list = list_a.data();
  index_type* next_list = list_b.data();
  index_type* keep = keep_array.data();

  // The undecided points, in index order: the rounds work on this list only.
  size_type m = enumerate(exec, n, cf, kUndecided, keep);
  list_points(exec, n, cf, kUndecided, keep, list);

  while (m > 0) {
    // Two rounds per list update: a round costs two launches over the list,
    // an update a round trip to the host (its count).
    for (int round = 0; round < 2; ++round) {
      // Independent set: an undecided point stays a candidate when it beats
      // every undecided neighbour; each edge clears the loser's flag.
      parallel_for(exec, m, [=] STRATA_HD(size_type t) {
        const index_type i = list[t];
        const double wi = weight[i];
        if (wi < 0) return;  // decided
        bool lost = false;
        for (offset_type k = row_ptr[i]; k < row_ptr[i + 1]; ++k) {
          const index_type j = col_idx[k];
          if (!is_edge(strong, k, j, i)) continue;
          const double wj = weight[j];
          if (wj < 0) continue;
          if (beats(wj, wi, global_id, j, i)) {
            lost = true;
          } else {
            clear_flag(&cand[j]);
          }
        }
        if (lost) clear_flag(&cand[i]);
      });
      // Candidates become C; undecided points depending on one become F.
      parallel_for(exec, m, [=] STRATA_HD(size_type t) {
        const index_type i = list[t];
        next[i] = 0;
        if (cf[i] != kUndecided) return;
        if (cand[i]) {
          cf[i] = kCoarse;
          weight[i] = kDecidedWeight;
          return;
        }
        for (offset_type k = row_ptr[i]; k < row_ptr[i + 1]; ++k) {
          const index_type j = col_idx[k];
          if (is_edge(strong, k, j, i) && cand[j]) {
            cf[i] = kFine;
            weight[i] = kDecidedWeight;
            return;
          }
        }
        next[i] = 1;
      });
      std::swap(cand, next);
    }
    // Keep the points still undecided; clear both flags of the others.
    parallel_for(exec, m, [=] STRATA_HD(size_type t) {
      const index_type i = list[t];
      const bool undecided = cf[i] == kUndecided;
      keep[t] = undecided ? 1 : 0;
      if (!undecided) {
        cand[i] = 0;
        next[i] = 0;
      }
    });
    const size_type remaining = static_cast<size_type>(exclusive_scan(exec, keep, keep, m));
    parallel_for(exec, m, [=] STRATA_HD(size_type t) {
      const index_type i = list[t];
      if (cf[i] == kUndecided) next_list[keep[t]] = i;
    });
    std::swap(list, next_list);
    m = remaining;
  }
}

}  // namespace detail

template <class Exec>
void pmis(const Exec& exec, size_type n, size_type nnz, const offset_type* row_ptr,
          const index_type* col_idx, const std::uint8_t* strong, std::uint64_t seed,
          const index_type* global_id, bool isolated_coarse, std::int32_t* cf) {
  (void)nnz;
  if (n == 0) return;
  Array<std::int32_t> influence_array(exec, n);
  Array<double> weight_array(exec, n);
  Array<std::uint8_t> candidate_a(exec, n);
  std::int32_t* influence = influence_array.data();
  double* weight = weight_array.data();
  std::uint8_t* cand = candidate_a.data();

  // Weights: how many points depend on i, plus the hash.
  detail::pmis_influence(exec, n, row_ptr, col_idx, strong, influence);
  detail::pmis_init(exec, n, row_ptr, col_idx, strong, seed, global_id, isolated_coarse, influence,
                    weight, cf, cand);
  detail::pmis_rounds(exec, n, row_ptr, col_idx, strong, global_id, weight, cf, cand);
}

template <class Exec>
void pmis_from_coarse(const Exec& exec, size_type n, size_type nnz, const offset_type* row_ptr,
                      const index_type* col_idx, const std::uint8_t* strong, std::uint64_t seed,
                      const index_type* global_id, std::int32_t* cf) {
  (void)nnz;
  if (n == 0) return;
  Array<std::int32_t> influence_array(exec, n);
  Array<double> weight_array(exec, n);
  Array<std::uint8_t> candidate_a(exec, n);
  std::int32_t* influence = influence_array.data();
  double* weight = weight_array.data();
  std::uint8_t* cand = candidate_a.data();

  detail::pmis_influence(exec, n, row_ptr, col_idx, strong, influence);
  // The given C points stay C; a point that depends on one of them is F;
  // isolated points are F; the others are undecided, weighted as in pmis().
  parallel_for(exec, n, [=] STRATA_HD(size_type i) {
    const bool coarse = cf[i] == kCoarse;
    bool depends = false, on_coarse = false;
    for (offset_type k = row_ptr[i]; k < row_ptr[i + 1]; ++k) {
      const index_type j = col_idx[k];
      if (!detail::is_edge(strong, k, j, i)) continue;
      depends = true;
      if (cf[j] == kCoarse) on_coarse = true;
    }
    const bool isolated = !depends && influence[i] == 0;
    const bool decided = coarse || on_coarse || isolated;
    const size_type id = global_id ? global_id[i] : i;
    weight[i] = decided ? detail::kDecidedWeight
                        : double(influence[i]) +
                              base::random_unit(seed, static_cast<std::uint64_t>(id));
    cand[i] = decided ? 0 : 1;
  });
  // A second pass: cf is read above for the neighbours, so it changes only now.
  parallel_for(exec, n, [=] STRATA_HD(size_type i) {
    if (cf[i] == kCoarse) return;
    cf[i] = weight[i] < 0 ? kFine : kUndecided;
  });
  detail::pmis_rounds(exec, n, row_ptr, col_idx, strong, global_id, weight, cf, cand);
}

template <class Exec>
bool rows_sorted(const Exec& exec, size_type n, const offset_type* row_ptr,
                 const index_type* col_idx) {
  const size_type unsorted = transform_reduce(
      exec, n, size_type{0},
      [=] STRATA_HD(size_type i) -> size_type {
        for (offset_type k = row_ptr[i] + 1; k < row_ptr[i + 1]; ++k) {
          if (col_idx[k] <= col_idx[k - 1]) return 1;
        }
        return 0;
      },
      ops::Plus{});
  return unsorted == 0;
}

template <class Exec>
size_type enumerate(const Exec& exec, size_type n, const std::int32_t* marker, std::int32_t value,
                    index_type* map) {
  if (n == 0) return 0;
  parallel_for(exec, n, [=] STRATA_HD(size_type i) { map[i] = marker[i] == value ? 1 : 0; });
  return static_cast<size_type>(exclusive_scan(exec, map, map, n));
}

template <class Exec>
void list_points(const Exec& exec, size_type n, const std::int32_t* marker, std::int32_t value,
                 const index_type* map, index_type* points) {
  parallel_for(exec, n, [=] STRATA_HD(size_type i) {
    if (marker[i] == value) points[map[i]] = static_cast<index_type>(i);
  });
}

template <class Exec>
void one_stage_roles(const Exec& exec, size_type n, const std::int32_t* cf, std::int32_t* role,
                     index_type* dmap) {
  parallel_for(exec, n, [=] STRATA_HD(size_type i) {
    role[i] = cf[i] == kCoarse ? kTarget : kInterpolated;
    dmap[i] = static_cast<index_type>(i);
  });
}

template <class Exec>
void two_stage_roles(const Exec& exec, size_type n, const std::int32_t* cf1,
                     const index_type* c1map, const std::int32_t* cf2, const index_type* c2map,
                     std::int32_t* role, index_type* cmap, index_type* dmap,
                     std::int32_t* final_cf) {
  parallel_for(exec, n, [=] STRATA_HD(size_type i) {
    if (cf1[i] != kCoarse) {
      role[i] = kIntermediate;
      cmap[i] = -1;
      dmap[i] = -1;
      final_cf[i] = kFine;
      return;
    }
    const index_type c = c1map[i];
    dmap[i] = c;
    if (cf2[c] == kCoarse) {
      role[i] = kTarget;
      cmap[i] = c2map[c];
      final_cf[i] = kCoarse;
    } else {
      role[i] = kInterpolated;
      cmap[i] = -1;
      final_cf[i] = kFine;
    }
  });
}

template <class Exec, class T>
MmOperands<T> mm_operands(const Exec& exec, const InterpolationInput<T>& in, MmVariant variant) {
  const size_type n = in.n, nd = in.nd;
  const offset_type* row_ptr = in.row_ptr;
  const index_type* col_idx = in.col_idx;
  const std::uint8_t* strong = in.strong;
  const std::int32_t* role = in.role;
  const index_type* dmap = in.dmap;

  Array<offset_type> afc_ptr(exec, n + 1), aff_ptr(exec, nd + 1);
  offset_type* fc = afc_ptr.data();
  offset_type* ff = aff_ptr.data();
  parallel_for(exec, n + 1, [=] STRATA_HD(size_type i) {
    if (i == n) {
      fc[n] = 0;
      ff[nd] = 0;
      return;
    }
    const std::int32_t r = role[i];
    offset_type to_target = 0, to_others = 0;
    if (r != kTarget) {
      for (offset_type k = row_ptr[i]; k < row_ptr[i + 1]; ++k) {
        const index_type j = col_idx[k];
        if (j == i || !strong[k]) continue;
        if (role[j] == kTarget) {
          ++to_target;
        } else {
          ++to_others;
        }
      }
    }
    fc[i] = r == kTarget ? 1 : to_target;
    if (r >= 0) ff[dmap[i]] = r == kTarget ? 1 : 1 + to_others;
  });
  const size_type fc_nnz = detail::counts_to_offsets(exec, fc, n);
  const size_type ff_nnz = detail::counts_to_offsets(exec, ff, nd);
  Array<index_type> afc_col(exec, fc_nnz), aff_col(exec, ff_nnz);
  Array<T> afc_val(exec, fc_nnz), aff_val(exec, ff_nnz);
  detail::fill_mm(exec, in, variant, fc, afc_col.data(), afc_val.data(), ff, aff_col.data(),
                  aff_val.data());
  return MmOperands<T>{
      CsrMatrix<T>(nd, n, std::move(aff_ptr), std::move(aff_col), std::move(aff_val)),
      CsrMatrix<T>(n, in.nc, std::move(afc_ptr), std::move(afc_col), std::move(afc_val))};
}

template <class Exec, class T>
void mm_operand_values(const Exec& exec, const InterpolationInput<T>& in, MmVariant variant,
                       MmOperands<T>& operands) {
  detail::fill_mm(exec, in, variant, operands.AFC.row_ptr().data(), nullptr,
                  operands.AFC.values().data(), operands.AFF.row_ptr().data(), nullptr,
                  operands.AFF.values().data());
}

template <class Exec, class T>
CsrMatrix<T> direct_interpolation(const Exec& exec, const InterpolationInput<T>& in) {
  const size_type n = in.n, nd = in.nd;
  const offset_type* row_ptr = in.row_ptr;
  const index_type* col_idx = in.col_idx;
  const std::uint8_t* strong = in.strong;
  const std::int32_t* role = in.role;
  const index_type* dmap = in.dmap;
  Array<offset_type> ptr_array(exec, nd + 1);
  offset_type* ptr = ptr_array.data();
  parallel_for(exec, n + 1, [=] STRATA_HD(size_type i) {
    if (i == n) {
      ptr[nd] = 0;
      return;
    }
    const std::int32_t r = role[i];
    if (r < 0) return;
    offset_type count = 0;
    if (r == kTarget) {
      count = 1;
    } else {
      for (offset_type k = row_ptr[i]; k < row_ptr[i + 1]; ++k) {
        const index_type j = col_idx[k];
        if (j != i && strong[k] && role[j] == kTarget) ++count;
      }
    }
    ptr[dmap[i]] = count;
  });
  const size_type nnz = detail::counts_to_offsets(exec, ptr, nd);
  Array<index_type> col(exec, nnz);
  Array<T> val(exec, nnz);
  detail::fill_direct(exec, in, ptr, col.data(), val.data());
  return CsrMatrix<T>(nd, in.nc, std::move(ptr_array), std::move(col), std::move(val));
}

template <class Exec, class T>
void direct_interpolation_values(const Exec& exec, const InterpolationInput<T>& in,
                                 CsrMatrix<T>& P) {
  detail::fill_direct(exec, in, P.row_ptr().data(), static_cast<index_type*>(nullptr),
                      P.values().data());
}

template <class Exec, class T>
CsrMatrix<T> truncate(const Exec& exec, const CsrMatrix<T>& P, int max_elements, double factor,
                      Array<offset_type>& source) {
  const size_type m = P.rows();
  const offset_type* p_ptr = P.row_ptr().data();
  const index_type* p_col = P.col_idx().data();
  const T* p_val = P.values().data();
  Array<std::uint8_t> keep_array(exec, P.nnz());
  Array<offset_type> ptr_array(exec, m + 1);
  std::uint8_t* keep = keep_array.data();
  offset_type* ptr = ptr_array.data();
  parallel_for(exec, m + 1, [=] STRATA_HD(size_type r) {
    if (r == m) {
      ptr[m] = 0;
      return;
    }
    const offset_type b = p_ptr[r], e = p_ptr[r + 1];
    double largest = 0;
    for (offset_type k = b; k < e; ++k) {
      const double a = p_val[k] < T{0} ? -double(p_val[k]) : double(p_val[k]);
      largest = a > largest ? a : largest;
    }
    const std::uint32_t floor_key = factor > 0 ? detail::magnitude_key(factor * largest) : 0u;
    offset_type eligible = 0;
    for (offset_type k = b; k < e; ++k) {
      const bool ok = detail::magnitude_key(double(p_val[k])) >= floor_key;
      keep[k] = ok ? 1 : 0;
      eligible += ok ? 1 : 0;
    }
    if (max_elements > 0 && eligible > max_elements) {
      // The max_elements largest (magnitude key, then smaller column) by
      // repeated selection of the next largest below the last one found.
      std::uint64_t cutoff = ~std::uint64_t{0};
      for (int t = 0; t < max_elements; ++t) {
        std::uint64_t best = 0;
        for (offset_type k = b; k < e; ++k) {
          if (!keep[k]) continue;
          const std::uint64_t o = detail::truncation_order(double(p_val[k]), p_col[k]);
          if (o < cutoff && o > best) best = o;
        }
        cutoff = best;
      }
      eligible = 0;
      for (offset_type k = b; k < e; ++k) {
        const bool ok = keep[k] && detail::truncation_order(double(p_val[k]), p_col[k]) >= cutoff;
        keep[k] = ok ? 1 : 0;
        eligible += ok ? 1 : 0;
      }
    }
    ptr[r] = eligible;
  });
  const size_type nnz = detail::counts_to_offsets(exec, ptr, m);
  Array<index_type> col_array(exec, nnz);
  source = Array<offset_type>(exec, nnz);
  index_type* col = col_array.data();
  offset_type* src = source.data();
  parallel_for(exec, m, [=] STRATA_HD(size_type r) {
    offset_type q = ptr[r];
    for (offset_type k = p_ptr[r]; k < p_ptr[r + 1]; ++k) {
      if (!keep[k]) continue;
      col[q] = p_col[k];
      src[q] = k;
      ++q;
    }
  });
  CsrMatrix<T> result(m, P.cols(), std::move(ptr_array), std::move(col_array), Array<T>(exec, nnz));
  truncated_values(exec, P, source.data(), result);
  return result;
}

template <class Exec, class T>
void truncated_values(const Exec& exec, const CsrMatrix<T>& P, const offset_type* source,
                      CsrMatrix<T>& result) {
  const offset_type* p_ptr = P.row_ptr().data();
  const T* p_val = P.values().data();
  const offset_type* ptr = result.row_ptr().data();
  T* val = result.values().data();
  parallel_for(exec, result.rows(), [=] STRATA_HD(size_type r) {
    T all{0}, kept{0};
    for (offset_type k = p_ptr[r]; k < p_ptr[r + 1]; ++k) all += p_val[k];
    for (offset_type q = ptr[r]; q < ptr[r + 1]; ++q) kept += p_val[source[q]];
    const T scale = kept != T{0} ? all / kept : T{1};
    for (offset_type q = ptr[r]; q < ptr[r + 1]; ++q) val[q] = p_val[source[q]] * scale;
  });
}

template <class Exec, class T>
size_type truncated_values_by_columns(const Exec& exec, const CsrMatrix<T>& P,
                                      CsrMatrix<T>& result) {
  const offset_type* p_ptr = P.row_ptr().data();
  const index_type* p_col = P.col_idx().data();
  const T* p_val = P.values().data();
  const offset_type* ptr = result.row_ptr().data();
  const index_type* col = result.col_idx().data();
  T* val = result.values().data();
  return transform_reduce(
      exec, result.rows(), size_type{0},
      [=] STRATA_HD(size_type r) -> size_type {
        // The kept entries are some of P's row, in its order: one walk
        // along the row finds each (columns within a row are distinct).
        const offset_type end = p_ptr[r + 1];
        T all{0}, kept{0};
        for (offset_type k = p_ptr[r]; k < end; ++k) all += p_val[k];
        offset_type k = p_ptr[r];
        for (offset_type q = ptr[r]; q < ptr[r + 1]; ++q, ++k) {
          while (k < end && p_col[k] != col[q]) ++k;
          if (k == end) return 1;
          kept += p_val[k];
        }
        const T scale = kept != T{0} ? all / kept : T{1};
        k = p_ptr[r];
        for (offset_type q = ptr[r]; q < ptr[r + 1]; ++q, ++k) {
          while (p_col[k] != col[q]) ++k;
          val[q] = p_val[k] * scale;
        }
        return 0;
      },
      ops::Plus{});
}

template <class Exec, class T>
void gather_values(const Exec& exec, size_type n, const T* src, const offset_type* map, T* dst) {
  parallel_for(exec, n, [=] STRATA_HD(size_type k) { dst[k] = src[map[k]]; });
}

template <class Exec, class T>
void entry_numbers(const Exec& exec, size_type n, T* values) {
  parallel_for(exec, n, [=] STRATA_HD(size_type k) { values[k] = static_cast<T>(k); });
}

template <class Exec, class T>
void entry_numbers_to_map(const Exec& exec, size_type n, const T* values, offset_type* map) {
  parallel_for(exec, n,
               [=] STRATA_HD(size_type k) { map[k] = static_cast<offset_type>(values[k]); });
}

template <class Exec>
std::pair<CsrMatrix<float>, CsrMatrix<float>> second_pass_operands(
    const Exec& exec, size_type n, const offset_type* row_ptr, const index_type* col_idx,
    const std::uint8_t* strong, const std::int32_t* cf, const index_type* cmap, size_type nc) {
  Array<offset_type> s1_ptr_array(exec, nc + 1), s2_ptr_array(exec, n + 1);
  offset_type* s1_ptr = s1_ptr_array.data();
  offset_type* s2_ptr = s2_ptr_array.data();
  parallel_for(exec, n + 1, [=] STRATA_HD(size_type i) {
    if (i == n) {
      s1_ptr[nc] = 0;
      s2_ptr[n] = 0;
      return;
    }
    offset_type all = 0, to_c = 0;
    for (offset_type k = row_ptr[i]; k < row_ptr[i + 1]; ++k) {
      const index_type j = col_idx[k];
      if (j == i || !strong[k]) continue;
      ++all;
      if (cf[j] == kCoarse) ++to_c;
    }
    s2_ptr[i] = to_c;
    if (cf[i] == kCoarse) s1_ptr[cmap[i]] = all + 1;
  });
  const size_type s1_nnz = detail::counts_to_offsets(exec, s1_ptr, nc);
  const size_type s2_nnz = detail::counts_to_offsets(exec, s2_ptr, n);
  Array<index_type> s1_col_array(exec, s1_nnz), s2_col_array(exec, s2_nnz);
  Array<float> s1_val_array(exec, s1_nnz), s2_val_array(exec, s2_nnz);
  index_type* s1_col = s1_col_array.data();
  index_type* s2_col = s2_col_array.data();
  float* s1_val = s1_val_array.data();
  float* s2_val = s2_val_array.data();
  parallel_for(exec, n, [=] STRATA_HD(size_type i) {
    const bool coarse = cf[i] == kCoarse;
    offset_type p1 = coarse ? s1_ptr[cmap[i]] : 0;
    offset_type p2 = s2_ptr[i];
    if (coarse) {
      s1_col[p1] = static_cast<index_type>(i);
      s1_val[p1] = 1.0f;
      ++p1;
    }
    for (offset_type k = row_ptr[i]; k < row_ptr[i + 1]; ++k) {
      const index_type j = col_idx[k];
      if (j == i || !strong[k]) continue;
      if (coarse) {
        s1_col[p1] = j;
        s1_val[p1] = 1.0f;
        ++p1;
      }
      if (cf[j] == kCoarse) {
        s2_col[p2] = cmap[j];
        s2_val[p2] = 1.0f;
        ++p2;
      }
    }
  });
  return {CsrMatrix<float>(nc, n, std::move(s1_ptr_array), std::move(s1_col_array),
                           std::move(s1_val_array)),
          CsrMatrix<float>(n, nc, std::move(s2_ptr_array), std::move(s2_col_array),
                           std::move(s2_val_array))};
}

template <class Exec>
CsrMatrix<float> second_pass_graph(const Exec& exec, const CsrMatrix<float>& counts,
                                   int num_paths) {
  const size_type m = counts.rows();
  const offset_type* c_ptr = counts.row_ptr().data();
  const index_type* c_col = counts.col_idx().data();
  const float* c_val = counts.values().data();
  const float least = static_cast<float>(num_paths);
  Array<offset_type> ptr_array(exec, m + 1);
  offset_type* ptr = ptr_array.data();
  parallel_for(exec, m + 1, [=] STRATA_HD(size_type r) {
    if (r == m) {
      ptr[m] = 0;
      return;
    }
    offset_type count = 0;
    for (offset_type k = c_ptr[r]; k < c_ptr[r + 1]; ++k) {
      if (c_col[k] != r && c_val[k] >= least) ++count;
    }
    ptr[r] = count;
  });
  const size_type nnz = detail::counts_to_offsets(exec, ptr, m);
  Array<index_type> col_array(exec, nnz);
  Array<float> val_array(exec, nnz);
  index_type* col = col_array.data();
  float* val = val_array.data();
  parallel_for(exec, m, [=] STRATA_HD(size_type r) {
    offset_type q = ptr[r];
    for (offset_type k = c_ptr[r]; k < c_ptr[r + 1]; ++k) {
      if (c_col[k] != r && c_val[k] >= least) {
        col[q] = c_col[k];
        val[q] = 1.0f;
        ++q;
      }
    }
  });
  return CsrMatrix<float>(m, counts.cols(), std::move(ptr_array), std::move(col_array),
                          std::move(val_array));
}

template <class Exec, class T>
CsrMatrix<T> strength_pattern(const Exec& exec, size_type n, const offset_type* row_ptr,
                              const index_type* col_idx, const std::uint8_t* strong) {
  Array<offset_type> ptr_array(exec, n + 1);
  offset_type* ptr = ptr_array.data();
  parallel_for(exec, n + 1, [=] STRATA_HD(size_type i) {
    if (i == n) {
      ptr[n] = 0;
      return;
    }
    offset_type count = 0;
    for (offset_type k = row_ptr[i]; k < row_ptr[i + 1]; ++k) count += strong[k] ? 1 : 0;
    ptr[i] = count;
  });
  const size_type nnz = detail::counts_to_offsets(exec, ptr, n);
  Array<index_type> col_array(exec, nnz);
  Array<T> val_array(exec, nnz);
  index_type* col = col_array.data();
  T* val = val_array.data();
  parallel_for(exec, n, [=] STRATA_HD(size_type i) {
    offset_type q = ptr[i];
    for (offset_type k = row_ptr[i]; k < row_ptr[i + 1]; ++k) {
      if (!strong[k]) continue;
      col[q] = col_idx[k];
      val[q] = T{1};
      ++q;
    }
  });
  return CsrMatrix<T>(n, n, std::move(ptr_array), std::move(col_array), std::move(val_array));
}

}  // namespace strata::kernels::classical
