// Host instantiation of the classical-coarsening kernels, and the host-only
// Ruge-Stueben first pass of HMIS (sequential by nature within a block of
// rows; the blocks in parallel).
#include "kernels/amg/classical_kernels.ipp"

#include <algorithm>
#include <vector>

#include "backend/host/base/parallel.hpp"

namespace strata::kernels::classical {

namespace {

/// Points bucketed by measure, each bucket a FIFO list, with the largest
/// non-empty bucket at hand (measures only move by one, so finding it again
/// after a removal walks down a few buckets at most, amortised).
class MeasureBuckets {
 public:
  explicit MeasureBuckets(size_type n)
      : head_(n + 1, -1), tail_(n + 1, -1), next_(n, -1), prev_(n, -1) {}

  void insert(index_type i, index_type measure) {
    const auto m = static_cast<std::size_t>(measure);
    if (m >= head_.size()) {
      head_.resize(m + 1, -1);
      tail_.resize(m + 1, -1);
    }
    prev_[i] = tail_[m];
    next_[i] = -1;
    if (tail_[m] >= 0) {
      next_[tail_[m]] = i;
    } else {
      head_[m] = i;
    }
    tail_[m] = i;
    if (measure > top_) top_ = measure;
  }

  void remove(index_type i, index_type measure) {
    const auto m = static_cast<std::size_t>(measure);
    if (prev_[i] >= 0) {
      next_[prev_[i]] = next_[i];
    } else {
      head_[m] = next_[i];
    }
    if (next_[i] >= 0) {
      prev_[next_[i]] = prev_[i];
    } else {
      tail_[m] = prev_[i];
    }
  }

  /// The first point of the largest measure, or -1 when every bucket of a
  /// measure >= 1 is empty.
  index_type first_of_largest() {
    while (top_ >= 1 && head_[static_cast<std::size_t>(top_)] < 0) --top_;
    return top_ >= 1 ? head_[static_cast<std::size_t>(top_)] : -1;
  }

 private:
  std::vector<index_type> head_, tail_, next_, prev_;
  index_type top_ = 0;
};

}  // namespace

namespace {

/// The first pass on the rows [b0, b1) alone: edges to points outside are
/// ignored (as hypre's HMIS ignores those to other processes). Points are
/// numbered from b0 inside.
void first_pass_block(size_type b0, size_type b1, const offset_type* row_ptr,
                      const index_type* col_idx, const std::uint8_t* strong, std::int32_t* cf) {
  const size_type n = b1 - b0;
  if (n == 0) return;
  // Is (i -> j), i and j global, an edge within the block? Then j - b0.
  const auto inside = [&](offset_type k, size_type i) -> index_type {
    const index_type j = col_idx[k];
    if (j < b0 || j >= b1 || !detail::is_edge(strong, k, j, i)) return -1;
    return static_cast<index_type>(j - b0);
  };
  // S^T: for each point, the points that depend on it (ST_i = {j : j -> i}).
  std::vector<offset_type> st_ptr(n + 1, 0);
  for (size_type i = 0; i < n; ++i) {
    for (offset_type k = row_ptr[b0 + i]; k < row_ptr[b0 + i + 1]; ++k) {
      const index_type j = inside(k, b0 + i);
      if (j >= 0) ++st_ptr[j + 1];
    }
  }
  for (size_type i = 0; i < n; ++i) st_ptr[i + 1] += st_ptr[i];
  std::vector<index_type> st_col(static_cast<std::size_t>(st_ptr[n]));
  {
    std::vector<offset_type> fill(st_ptr.begin(), st_ptr.end() - 1);
    for (size_type i = 0; i < n; ++i) {
      for (offset_type k = row_ptr[b0 + i]; k < row_ptr[b0 + i + 1]; ++k) {
        const index_type j = inside(k, b0 + i);
        if (j >= 0) st_col[fill[j]++] = static_cast<index_type>(i);
      }
    }
  }
  std::int32_t* const state = cf + b0;  // the block's points, numbered from 0
  std::vector<index_type> measure(n);
  for (size_type i = 0; i < n; ++i) {
    measure[i] = static_cast<index_type>(st_ptr[i + 1] - st_ptr[i]);
    state[i] = kUndecided;
  }
  MeasureBuckets buckets(n);
  // Raise by one the measure of every undecided point that i depends on.
  // While the buckets are first filled (in index order, up to `filled`),
  // points not reached yet only count: they enter with their measure then.
  size_type filled = n;
  auto raise_dependencies = [&](size_type i) {
    for (offset_type k = row_ptr[b0 + i]; k < row_ptr[b0 + i + 1]; ++k) {
      const index_type j = inside(k, b0 + i);
      if (j < 0 || state[j] != kUndecided) continue;
      if (static_cast<size_type>(j) >= filled) {
        ++measure[j];
        continue;
      }
      buckets.remove(j, measure[j]);
      buckets.insert(j, ++measure[j]);
    }
  };
  for (size_type i = 0; i < n; ++i) {
    filled = i;
    if (measure[i] > 0) {
      buckets.insert(static_cast<index_type>(i), measure[i]);
    } else {
      // Influences no point: F, and the points it depends on gain a use.
      state[i] = kFine;
      raise_dependencies(i);
    }
  }
  filled = n;

  for (index_type c = buckets.first_of_largest(); c >= 0; c = buckets.first_of_largest()) {
    buckets.remove(c, measure[c]);
    state[c] = kCoarse;
    measure[c] = 0;
    // The points that depend on the new C point become F.
    for (offset_type t = st_ptr[c]; t < st_ptr[c + 1]; ++t) {
      const index_type j = st_col[t];
      if (state[j] != kUndecided) continue;
      buckets.remove(j, measure[j]);
      state[j] = kFine;
      measure[j] = 0;
      raise_dependencies(j);
    }
    // The points the new C point depends on are needed by one point fewer.
    for (offset_type k = row_ptr[b0 + c]; k < row_ptr[b0 + c + 1]; ++k) {
      const index_type j = inside(k, b0 + c);
      if (j < 0 || state[j] != kUndecided) continue;
      buckets.remove(j, measure[j]);
      if (--measure[j] > 0) {
        buckets.insert(j, measure[j]);
      } else {
        state[j] = kFine;
        raise_dependencies(j);
      }
    }
  }
}

}  // namespace

void ruge_stueben_first_pass(const HostExec& exec, size_type n, const offset_type* row_ptr,
                             const index_type* col_idx, const std::uint8_t* strong,
                             std::int32_t* cf) {
  const size_type block = ruge_stueben_block_rows;
  const size_type blocks = (n + block - 1) / block;
  host_detail::for_each_task(exec, blocks, [&](size_type b) {
    first_pass_block(b * block, std::min(n, (b + 1) * block), row_ptr, col_idx, strong, cf);
  });
}

}  // namespace strata::kernels::classical

#define STRATA_EXEC HostExec
#include "kernels/amg/classical_instantiate.inc"
#undef STRATA_EXEC
