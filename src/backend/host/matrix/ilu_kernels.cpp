// Host instantiation of the shared ILU kernels, and the factorizations that
// run on the host only: the symbolic phase of ILU(k) and ILUT, whose
// dropping decides the pattern while it eliminates, row after row.

#include "kernels/matrix/ilu_kernels.ipp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <utility>

#include "backend/host/base/parallel.hpp"

namespace strata::kernels::ilu {

void iluk_pattern(const HostExec&, size_type rows, const offset_type* row_ptr,
                  const index_type* col_idx, int level_of_fill, std::vector<offset_type>& out_ptr,
                  std::vector<index_type>& out_col) {
  constexpr int absent = std::numeric_limits<int>::max();
  out_ptr.assign(static_cast<std::size_t>(rows) + 1, 0);
  out_col.clear();
  std::vector<int> out_level;                 // level of fill of each kept entry
  std::vector<offset_type> upper(rows);       // first position right of the diagonal
  std::vector<int> level(rows, absent);       // the work row's levels by column
  std::set<index_type> columns;               // the work row's pattern, ascending
  for (size_type i = 0; i < rows; ++i) {
    columns.clear();
    for (offset_type e = row_ptr[i]; e < row_ptr[i + 1]; ++e) {
      columns.insert(col_idx[e]);
      level[col_idx[e]] = 0;
    }
    // Pivots in ascending order; a fill entry (i, j) has j > k, so it is
    // met later in this loop when j < i, and the level of (i, k) is final
    // when k is reached.
    for (auto it = columns.begin(); it != columns.end() && *it < i; ++it) {
      const index_type k = *it;
      const int lik = level[k];
      if (lik >= level_of_fill) continue;  // every entry it makes is above the limit
      for (offset_type e = upper[k]; e < out_ptr[k + 1]; ++e) {
        const index_type j = out_col[e];
        const int l = lik + out_level[e] + 1;
        if (l > level_of_fill) continue;
        if (level[j] == absent) columns.insert(j);
        level[j] = std::min(level[j], l);
      }
    }
    upper[i] = -1;
    for (const index_type j : columns) {
      if (j > i && upper[i] < 0) upper[i] = static_cast<offset_type>(out_col.size());
      out_col.push_back(j);
      out_level.push_back(level[j]);
      level[j] = absent;
    }
    if (upper[i] < 0) upper[i] = static_cast<offset_type>(out_col.size());
    out_ptr[i + 1] = static_cast<offset_type>(out_col.size());
  }
}

template <class T>
size_type ilut(const HostExec&, size_type rows, const offset_type* row_ptr,
               const index_type* col_idx, const T* values, double drop_tolerance, int max_fill,
               std::vector<offset_type>& out_ptr, std::vector<index_type>& out_col,
               std::vector<T>& out_val) {
  using Entry = std::pair<index_type, T>;
  // Rows of U, each with its diagonal first: later rows eliminate with them.
  std::vector<std::vector<Entry>> U(rows);
  std::vector<std::vector<Entry>> L(rows);
  std::vector<T> w(rows, T{0});            // the dense work row
  std::vector<char> used(rows, 0);         // w_j is in the pattern
  std::set<index_type> lower;              // pattern left of the diagonal, ascending
  std::vector<index_type> right;           // pattern on and right of it
  // The largest `most` entries by magnitude, then in column order.
  const auto keep_largest = [](std::vector<Entry>& v, int most) {
    if (static_cast<int>(v.size()) > most) {
      std::nth_element(v.begin(), v.begin() + most, v.end(), [](const Entry& a, const Entry& b) {
        return std::abs(a.second) > std::abs(b.second);
      });
      v.resize(static_cast<std::size_t>(most));
    }
    std::sort(v.begin(), v.end(), [](const Entry& a, const Entry& b) { return a.first < b.first; });
  };
  for (size_type i = 0; i < rows; ++i) {
    lower.clear();
    right.clear();
    T norm{0};
    const auto touch = [&](index_type j) {
      if (used[j]) return;
      used[j] = 1;
      w[j] = T{0};
      if (j < i) lower.insert(j);
      else right.push_back(j);
    };
    touch(static_cast<index_type>(i));  // the pivot, even when A has no entry there
    for (offset_type e = row_ptr[i]; e < row_ptr[i + 1]; ++e) {
      touch(col_idx[e]);
      w[col_idx[e]] = values[e];
      norm += values[e] * values[e];
    }
    const T tolerance = T(drop_tolerance) * std::sqrt(norm);
    std::vector<Entry>& l_row = L[i];
    for (auto it = lower.begin(); it != lower.end(); ++it) {
      const index_type k = *it;
      const T lik = w[k] / U[k].front().second;
      used[k] = 0;
      w[k] = T{0};
      if (!(std::abs(lik) > tolerance)) continue;  // dropped before use (exact zeros too)
      l_row.emplace_back(k, lik);
      for (std::size_t q = 1; q < U[k].size(); ++q) {
        const index_type j = U[k][q].first;
        touch(j);  // j > k: a new j < i is visited later in this loop
        w[j] -= lik * U[k][q].second;
      }
    }
    keep_largest(l_row, max_fill);
    const T pivot = w[i];
    std::vector<Entry> u_row;
    for (const index_type j : right) {
      if (j != i && std::abs(w[j]) > tolerance) u_row.emplace_back(j, w[j]);
      used[j] = 0;
      w[j] = T{0};
    }
    keep_largest(u_row, max_fill);
    if (!(pivot != T{0} && std::isfinite(pivot))) return i;
    U[i].reserve(u_row.size() + 1);
    U[i].emplace_back(static_cast<index_type>(i), pivot);
    U[i].insert(U[i].end(), u_row.begin(), u_row.end());
  }
  out_ptr.assign(static_cast<std::size_t>(rows) + 1, 0);
  out_col.clear();
  out_val.clear();
  for (size_type i = 0; i < rows; ++i) {
    for (const auto& [j, v] : L[i]) out_col.push_back(j), out_val.push_back(v);
    for (const auto& [j, v] : U[i]) out_col.push_back(j), out_val.push_back(v);
    out_ptr[i + 1] = static_cast<offset_type>(out_col.size());
  }
  return -1;
}

template size_type ilut<double>(const HostExec&, size_type, const offset_type*, const index_type*,
                                const double*, double, int, std::vector<offset_type>&,
                                std::vector<index_type>&, std::vector<double>&);

}  // namespace strata::kernels::ilu

#define STRATA_EXEC HostExec
#include "kernels/matrix/ilu_instantiate.inc"
#undef STRATA_EXEC
