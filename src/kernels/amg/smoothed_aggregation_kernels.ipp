// Single-source bodies of smoothed_aggregation_kernels.hpp. Included by one
// backend file with that backend's parallel header, so the unqualified
// primitives (parallel_for, transform_reduce, exclusive_scan) resolve to that
// backend by argument-dependent lookup.

#include <cmath>
#include <cstdint>

#include "kernels/amg/smoothed_aggregation_kernels.hpp"
#include "kernels/base/hd.hpp"
#include "kernels/base/rounding.hpp"

namespace strata::kernels::smoothed_aggregation {

namespace detail {

/// Frobenius norm of the b x b block at v.
template <class T>
STRATA_HD T block_norm(const T* v, int b) {
  T sum{0};
  for (int t = 0; t < b * b; ++t) sum = add(sum, mul(v[t], v[t]));
  return sqrt(sum);
}

}  // namespace detail

// ------------------------------------------------------------ 1. strength

template <class Exec, class T>
size_type diagonal_block_norms(const Exec& exec, size_type block_rows, int b,
                               const offset_type* row_ptr, const index_type* col_idx,
                               const T* values, T* norm) {
  const size_type bb = static_cast<size_type>(b) * b;
  return transform_reduce(
      exec, block_rows, size_type{0},
      [=] STRATA_HD(size_type I) -> size_type {
        T d{0};
        for (offset_type e = row_ptr[I]; e < row_ptr[I + 1]; ++e) {
          if (static_cast<size_type>(col_idx[e]) == I) d = detail::block_norm(values + e * bb, b);
        }
        norm[I] = d;
        // Positive and finite (NaN fails the first test, infinity the second).
        return d > T{0} && d - d == T{0} ? 0 : 1;
      },
      ops::Plus{});
}

template <class Exec, class T>
void block_strength(const Exec& exec, size_type block_rows, int b, const offset_type* row_ptr,
                    const index_type* col_idx, const T* values, const T* norm, T theta, T* s,
                    std::uint8_t* keep) {
  const size_type bb = static_cast<size_type>(b) * b;
  const T quantum = T(16777216);  // 2^24
  parallel_for(exec, block_rows, [=] STRATA_HD(size_type I) {
    for (offset_type e = row_ptr[I]; e < row_ptr[I + 1]; ++e) {
      const index_type J = col_idx[e];
      if (static_cast<size_type>(J) == I) {
        s[e] = T{1};
        keep[e] = 1;
        continue;
      }
      // ||A_IJ|| > theta sqrt(||A_II|| ||A_JJ||), compared as the ratio so
      // that the graph's weights (used for joining aggregates) are the
      // scale-free strengths themselves.
      // Rounded to a multiple of 2^-24 (quantum): on coarse levels the host
      // and the device hold values that differ in the last bits (their
      // Galerkin products and spectral estimates round differently), and
      // the ratios of couplings that tie exactly (a regular mesh) must still
      // tie on both, or aggregates would join different roots.
      const T exact = detail::block_norm(values + e * bb, b) / sqrt(mul(norm[I], norm[J]));
      const T ratio = floor(exact * quantum + T(0.5)) / quantum;
      const bool strong = ratio > theta && ratio > T{0};
      s[e] = strong ? -ratio : T{0};
      keep[e] = strong ? 1 : 0;
    }
  });
}

// ------------------------------------------------------------- filtering

template <class Exec>
size_type filtered_pattern(const Exec& exec, size_type block_rows, const offset_type* row_ptr,
                           const std::uint8_t* keep, offset_type* f_row_ptr) {
  parallel_for(exec, block_rows + 1, [=] STRATA_HD(size_type I) {
    offset_type count = 0;
    if (I < block_rows) {
      for (offset_type e = row_ptr[I]; e < row_ptr[I + 1]; ++e) count += keep[e];
    }
    f_row_ptr[I] = count;
  });
  return exclusive_scan(exec, f_row_ptr, f_row_ptr, block_rows + 1);
}

template <class Exec>
void filtered_columns(const Exec& exec, size_type block_rows, const offset_type* row_ptr,
                      const index_type* col_idx, const std::uint8_t* keep,
                      const offset_type* f_row_ptr, index_type* f_col_idx) {
  parallel_for(exec, block_rows, [=] STRATA_HD(size_type I) {
    offset_type out = f_row_ptr[I];
    for (offset_type e = row_ptr[I]; e < row_ptr[I + 1]; ++e) {
      if (keep[e]) f_col_idx[out++] = col_idx[e];
    }
  });
}

template <class Exec, class T>
void filtered_values(const Exec& exec, size_type block_rows, int b, const offset_type* row_ptr,
                     const index_type* col_idx, const T* values, const std::uint8_t* keep,
                     const offset_type* f_row_ptr, T* f_values) {
  const size_type bb = static_cast<size_type>(b) * b;
  parallel_for(exec, block_rows, [=] STRATA_HD(size_type I) {
    offset_type out = f_row_ptr[I];
    T* diagonal = nullptr;
    for (offset_type e = row_ptr[I]; e < row_ptr[I + 1]; ++e) {
      if (!keep[e]) continue;
      T* block = f_values + out * bb;
      for (size_type t = 0; t < bb; ++t) block[t] = values[e * bb + t];
      if (static_cast<size_type>(col_idx[e]) == I) diagonal = block;
      ++out;
    }
    if (diagonal == nullptr) return;  // refused by the caller before
    for (offset_type e = row_ptr[I]; e < row_ptr[I + 1]; ++e) {
      if (keep[e]) continue;
      for (int a = 0; a < b; ++a) {
        T sum{0};
        for (int c = 0; c < b; ++c) sum = add(sum, values[e * bb + a * b + c]);
        diagonal[a * b + a] = add(diagonal[a * b + a], sum);
      }
    }
  });
}

// ----------------------------------------------------- 2., 3. aggregates, B

template <class Exec>
void expand_aggregates(const Exec& exec, size_type nodes, int b, const index_type* node_aggregate,
                       index_type* dof_aggregate) {
  parallel_for(exec, nodes * b,
               [=] STRATA_HD(size_type i) { dof_aggregate[i] = node_aggregate[i / b]; });
}

template <class Exec, class T>
void translations(const Exec& exec, size_type rows, int b, T* B) {
  parallel_for(exec, rows * b, [=] STRATA_HD(size_type t) {
    const size_type c = t / rows, i = t % rows;
    B[t] = i % b == c ? T{1} : T{0};
  });
}

template <class Exec, class T>
void rigid_body_modes(const Exec& exec, size_type nodes, int dim, const T* coordinates, T* B) {
  const size_type n = nodes * dim;
  parallel_for(exec, n, [=] STRATA_HD(size_type i) {
    const size_type p = i / dim;
    const int c = static_cast<int>(i % dim);
    const T* x = coordinates + p * dim;
    for (int m = 0; m < dim; ++m) B[m * n + i] = c == m ? T{1} : T{0};  // translations
    if (dim == 2) {
      B[2 * n + i] = c == 0 ? -x[1] : x[0];  // (-y, x)
      return;
    }
    // Rotations about x, y, z: (0, -z, y), (z, 0, -x), (-y, x, 0).
    const T r0[3] = {T{0}, -x[2], x[1]};
    const T r1[3] = {x[2], T{0}, -x[0]};
    const T r2[3] = {-x[1], x[0], T{0}};
    B[3 * n + i] = r0[c];
    B[4 * n + i] = r1[c];
    B[5 * n + i] = r2[c];
  });
}

template <class Exec, class T>
size_type complete_dropped_columns(const Exec& exec, size_type aggregates, int k,
                                   const offset_type* r_row_ptr, T* r_values,
                                   const index_type* r_col_idx, const offset_type* p_row_ptr,
                                   T* p_values, const index_type* keep) {
  return transform_reduce(
      exec, aggregates, size_type{0},
      [=] STRATA_HD(size_type a) -> size_type {
        const offset_type m = r_row_ptr[a * k + 1] - r_row_ptr[a * k];
        bool any = false;
        for (int c = 0; c < k; ++c) any = any || !keep[a * k + c];
        if (!any) return 0;
        if (m < k) return 1;
        for (int c = 0; c < k; ++c) {
          if (keep[a * k + c]) continue;
          T* v = r_values + r_row_ptr[a * k + c];
          // The unit vector e_u farthest from the present columns: its
          // squared distance is 1 - sum_d q_d(u)^2.
          offset_type best = 0;
          T best_distance{-1};
          for (offset_type u = 0; u < m; ++u) {
            T projected{0};
            for (int d = 0; d < k; ++d) {
              if (d == c || (!keep[a * k + d] && d > c)) continue;
              const T q = r_values[r_row_ptr[a * k + d] + u];
              projected = add(projected, mul(q, q));
            }
            const T distance = T{1} - projected;
            if (distance > best_distance) {
              best_distance = distance;
              best = u;
            }
          }
          for (offset_type t = 0; t < m; ++t) v[t] = t == best ? T{1} : T{0};
          for (int d = 0; d < k; ++d) {  // modified Gram-Schmidt against the present columns
            if (d == c || (!keep[a * k + d] && d > c)) continue;
            const T* q = r_values + r_row_ptr[a * k + d];
            T r{0};
            for (offset_type t = 0; t < m; ++t) r = add(r, mul(q[t], v[t]));
            for (offset_type t = 0; t < m; ++t) v[t] = add(v[t], -mul(r, q[t]));
          }
          T norm2{0};
          for (offset_type t = 0; t < m; ++t) norm2 = add(norm2, mul(v[t], v[t]));
          const T norm = sqrt(norm2);
          for (offset_type t = 0; t < m; ++t) {
            v[t] = v[t] / norm;
            p_values[p_row_ptr[r_col_idx[r_row_ptr[a * k + c] + t]] + c] = v[t];
          }
        }
        return 0;
      },
      ops::Plus{});
}

template <class Exec>
size_type tentative_pattern(const Exec& exec, size_type nodes, const index_type* node_aggregate,
                            offset_type* t_row_ptr, index_type* t_col_idx) {
  parallel_for(exec, nodes + 1, [=] STRATA_HD(size_type I) {
    t_row_ptr[I] = I < nodes && node_aggregate[I] >= 0 ? 1 : 0;
  });
  const size_type blocks = exclusive_scan(exec, t_row_ptr, t_row_ptr, nodes + 1);
  parallel_for(exec, nodes, [=] STRATA_HD(size_type I) {
    if (node_aggregate[I] >= 0) t_col_idx[t_row_ptr[I]] = node_aggregate[I];
  });
  return blocks;
}

// -------------------------------------------------- 4. prolongator smoothing

namespace detail {

/// Whether aggregate `g` occurs among the aggregates of the block columns
/// a_col_idx[begin, end) (non-aggregated ones skipped).
STRATA_HD inline bool seen_before(const index_type* a_col_idx, const index_type* node_aggregate,
                                  offset_type begin, offset_type end, index_type g) {
  for (offset_type f = begin; f < end; ++f) {
    if (node_aggregate[a_col_idx[f]] == g) return true;
  }
  return false;
}

}  // namespace detail

template <class Exec>
size_type smoothed_pattern(const Exec& exec, size_type block_rows, const offset_type* a_row_ptr,
                           const index_type* a_col_idx, const index_type* node_aggregate,
                           offset_type* p_row_ptr) {
  parallel_for(exec, block_rows + 1, [=] STRATA_HD(size_type I) {
    offset_type count = 0;
    if (I < block_rows) {
      const offset_type begin = a_row_ptr[I], end = a_row_ptr[I + 1];
      bool own = false;  // does I's own aggregate appear among the columns?
      for (offset_type e = begin; e < end; ++e) {
        const index_type g = node_aggregate[a_col_idx[e]];
        if (g < 0) continue;
        if (g == node_aggregate[I]) own = true;
        if (!detail::seen_before(a_col_idx, node_aggregate, begin, e, g)) ++count;
      }
      if (node_aggregate[I] >= 0 && !own) ++count;
    }
    p_row_ptr[I] = count;
  });
  return exclusive_scan(exec, p_row_ptr, p_row_ptr, block_rows + 1);
}

template <class Exec>
void smoothed_plan(const Exec& exec, size_type block_rows, const offset_type* a_row_ptr,
                   const index_type* a_col_idx, const index_type* node_aggregate,
                   const offset_type* p_row_ptr, index_type* p_col_idx, offset_type* target,
                   offset_type* tentative) {
  parallel_for(exec, block_rows, [=] STRATA_HD(size_type I) {
    const offset_type begin = a_row_ptr[I], end = a_row_ptr[I + 1];
    const offset_type p_begin = p_row_ptr[I];
    offset_type filled = 0;
    // Insertion into the ascending list of the row's aggregates.
    auto insert = [&](index_type g) {
      offset_type at = filled;
      for (offset_type q = 0; q < filled; ++q) {
        if (p_col_idx[p_begin + q] == g) return;
      }
      while (at > 0 && p_col_idx[p_begin + at - 1] > g) {
        p_col_idx[p_begin + at] = p_col_idx[p_begin + at - 1];
        --at;
      }
      p_col_idx[p_begin + at] = g;
      ++filled;
    };
    for (offset_type e = begin; e < end; ++e) {
      const index_type g = node_aggregate[a_col_idx[e]];
      if (g >= 0) insert(g);
    }
    if (node_aggregate[I] >= 0) insert(node_aggregate[I]);
    auto position = [&](index_type g) -> offset_type {
      for (offset_type q = 0; q < filled; ++q) {
        if (p_col_idx[p_begin + q] == g) return p_begin + q;
      }
      return -1;
    };
    for (offset_type e = begin; e < end; ++e) {
      const index_type g = node_aggregate[a_col_idx[e]];
      target[e] = g >= 0 ? position(g) : -1;
    }
    tentative[I] = node_aggregate[I] >= 0 ? position(node_aggregate[I]) : -1;
  });
}

template <class Exec>
void contribution_counts(const Exec& exec, size_type block_rows, const offset_type* a_row_ptr,
                         const offset_type* target, const offset_type* p_row_ptr,
                         offset_type* counts, index_type* p_row) {
  // One thread per block row: the blocks q of P's row I receive only from
  // A_f's row I, so the counts need no atomics. The extra last thread ends
  // the counts with the 0 that the scan turns into the total.
  parallel_for(exec, block_rows + 1, [=] STRATA_HD(size_type I) {
    if (I == block_rows) {
      counts[p_row_ptr[block_rows]] = 0;
      return;
    }
    for (offset_type q = p_row_ptr[I]; q < p_row_ptr[I + 1]; ++q) {
      counts[q] = 0;
      p_row[q] = static_cast<index_type>(I);
    }
    for (offset_type e = a_row_ptr[I]; e < a_row_ptr[I + 1]; ++e) {
      if (target[e] >= 0) ++counts[target[e]];
    }
  });
}

template <class Exec>
void contribution_fill(const Exec& exec, size_type block_rows, const offset_type* a_row_ptr,
                       const offset_type* target, const offset_type* p_row_ptr,
                       const offset_type* contrib_ptr, offset_type* cursor,
                       offset_type* contrib) {
  parallel_for(exec, block_rows, [=] STRATA_HD(size_type I) {
    for (offset_type q = p_row_ptr[I]; q < p_row_ptr[I + 1]; ++q) cursor[q] = contrib_ptr[q];
    for (offset_type e = a_row_ptr[I]; e < a_row_ptr[I + 1]; ++e) {
      if (target[e] >= 0) contrib[cursor[target[e]]++] = e;
    }
  });
}

namespace detail {

/// Column c of P's block q, with W's column c in w (w(r) is its entry r:
/// registers for a compiled block size, P's scratch otherwise). The sums
/// run over the contributions in ascending A_f order and over s in order,
/// as one block row at a time would add them, so every block size and
/// executor gives the same bits.
template <class T, class W>
STRATA_HD void smoothed_column(size_type q, int c, int b, int k, const index_type* a_col_idx,
                               const T* a_values, const offset_type* contrib_ptr,
                               const offset_type* contrib, const index_type* p_row,
                               const offset_type* t_row_ptr, const T* t_values, const T* dinv,
                               T omega, const offset_type* tentative, W&& w, T* p_values) {
  const size_type bb = static_cast<size_type>(b) * b;
  const size_type bk = static_cast<size_type>(b) * k;
  for (int r = 0; r < b; ++r) w(r) = T{0};
  for (offset_type x = contrib_ptr[q]; x < contrib_ptr[q + 1]; ++x) {
    const offset_type e = contrib[x];
    const T* A = a_values + e * bb;
    const T* TJ = t_values + t_row_ptr[a_col_idx[e]] * bk + c;
    for (int r = 0; r < b; ++r) {
      T sum = w(r);
      for (int s = 0; s < b; ++s) sum = add(sum, mul(A[r * b + s], TJ[s * k]));
      w(r) = sum;
    }
  }
  const index_type I = p_row[q];
  const T* D = dinv + I * bb;
  const T* TI = static_cast<offset_type>(q) == tentative[I] ? t_values + t_row_ptr[I] * bk + c
                                                            : nullptr;
  T* P = p_values + q * bk + c;
  for (int r = 0; r < b; ++r) {
    T dw{0};
    for (int s = 0; s < b; ++s) dw = add(dw, mul(D[r * b + s], w(s)));
    const T base = TI != nullptr ? TI[r * k] : T{0};
    P[r * k] = add(base, -mul(omega, dw));
  }
}

template <int B, class Exec, class T>
void smoothed_values_fixed(const Exec& exec, size_type p_blocks, int k,
                           const index_type* a_col_idx, const T* a_values,
                           const offset_type* contrib_ptr, const offset_type* contrib,
                           const index_type* p_row, const offset_type* t_row_ptr,
                           const T* t_values, const T* dinv, T omega,
                           const offset_type* tentative, T* p_values) {
  parallel_for(exec, p_blocks * k, [=] STRATA_HD(size_type t) {
    T w[B];
    smoothed_column(
        t / k, static_cast<int>(t % k), B, k, a_col_idx, a_values, contrib_ptr, contrib, p_row,
        t_row_ptr, t_values, dinv, omega, tentative, [&](int r) -> T& { return w[r]; },
        p_values);
  });
}

}  // namespace detail

template <class Exec, class T>
void smoothed_values(const Exec& exec, size_type p_blocks, int b, int k,
                     const index_type* a_col_idx, const T* a_values,
                     const offset_type* contrib_ptr, const offset_type* contrib,
                     const index_type* p_row, const offset_type* t_row_ptr, const T* t_values,
                     const T* dinv, T omega, const offset_type* tentative, T* scratch,
                     T* p_values) {
  switch (b) {
    case 1:
      return detail::smoothed_values_fixed<1>(exec, p_blocks, k, a_col_idx, a_values,
                                              contrib_ptr, contrib, p_row, t_row_ptr, t_values,
                                              dinv, omega, tentative, p_values);
    case 2:
      return detail::smoothed_values_fixed<2>(exec, p_blocks, k, a_col_idx, a_values,
                                              contrib_ptr, contrib, p_row, t_row_ptr, t_values,
                                              dinv, omega, tentative, p_values);
    case 3:
      return detail::smoothed_values_fixed<3>(exec, p_blocks, k, a_col_idx, a_values,
                                              contrib_ptr, contrib, p_row, t_row_ptr, t_values,
                                              dinv, omega, tentative, p_values);
    case 6:
      return detail::smoothed_values_fixed<6>(exec, p_blocks, k, a_col_idx, a_values,
                                              contrib_ptr, contrib, p_row, t_row_ptr, t_values,
                                              dinv, omega, tentative, p_values);
    default: {
      const size_type bk = static_cast<size_type>(b) * k;
      parallel_for(exec, p_blocks * k, [=] STRATA_HD(size_type t) {
        const size_type q = t / k;
        const int c = static_cast<int>(t % k);
        T* wq = scratch + q * bk + c;  // column c of W's block q: this thread's alone
        detail::smoothed_column(
            q, c, b, k, a_col_idx, a_values, contrib_ptr, contrib, p_row, t_row_ptr, t_values,
            dinv, omega, tentative, [=](int r) -> T& { return wq[r * k]; }, p_values);
      });
    }
  }
}

// ------------------------------------------------------------ 5. restriction

template <class Exec>
void transpose_plan(const Exec& exec, size_type p_block_rows, const offset_type* p_row_ptr,
                    const index_type* p_col_idx, const offset_type* r_row_ptr,
                    const index_type* r_col_idx, offset_type* source) {
  parallel_for(exec, p_block_rows, [=] STRATA_HD(size_type I) {
    for (offset_type q = p_row_ptr[I]; q < p_row_ptr[I + 1]; ++q) {
      const index_type g = p_col_idx[q];
      offset_type lo = r_row_ptr[g], hi = r_row_ptr[g + 1];
      while (lo < hi) {  // first block of R's row g with column >= I
        const offset_type mid = lo + (hi - lo) / 2;
        if (static_cast<size_type>(r_col_idx[mid]) < I) {
          lo = mid + 1;
        } else {
          hi = mid;
        }
      }
      source[lo] = q;
    }
  });
}

template <class Exec, class T>
void transpose_values(const Exec& exec, size_type r_blocks, int b, int k,
                      const offset_type* source, const T* p_values, T* r_values) {
  const size_type bk = static_cast<size_type>(b) * k;
  parallel_for(exec, r_blocks * bk, [=] STRATA_HD(size_type t) {
    const size_type r = t / bk, within = t % bk;
    const int row = static_cast<int>(within / b), col = static_cast<int>(within % b);  // in R's k x b
    r_values[t] = p_values[source[r] * bk + col * k + row];
  });
}

template <class Exec>
void block_diagonal_pattern(const Exec& exec, size_type block_rows, offset_type* row_ptr,
                            index_type* col_idx) {
  parallel_for(exec, block_rows + 1, [=] STRATA_HD(size_type I) {
    row_ptr[I] = static_cast<offset_type>(I);
    if (I < block_rows) col_idx[I] = static_cast<index_type>(I);
  });
}

template <class Exec, class T>
size_type identity_minus_scaled(const Exec& exec, size_type rows, const offset_type* row_ptr,
                                const index_type* col_idx, bool diagonal, T omega, T* values) {
  return transform_reduce(
      exec, rows, size_type{0},
      [=] STRATA_HD(size_type i) -> size_type {
        bool found = false;
        for (offset_type e = row_ptr[i]; e < row_ptr[i + 1]; ++e) {
          const bool on_diagonal = diagonal && static_cast<size_type>(col_idx[e]) == i;
          found = found || on_diagonal;
          values[e] = (on_diagonal ? T{1} : T{0}) - omega * values[e];
        }
        return diagonal && !found ? 1 : 0;
      },
      ops::Plus{});
}

}  // namespace strata::kernels::smoothed_aggregation
