#pragma once
// Per-thread scratch of the host's sparse products (CSR and block SpGEMM):
// a mark per column of the result, so that a product's entry in the row at
// hand is one load, and the loop that hands every thread its own scratch.

#include <cstdint>
#include <vector>

#include "backend/host/base/parallel.hpp"
#include "strata/core/types.hpp"

namespace strata::host_detail {

// Column marks (4 bytes each) all threads together may hold: 64 MB.
inline constexpr size_type dense_marks_budget = size_type{1} << 24;

/// Whether a product whose result has `columns` columns takes the column
/// marks on `exec`'s threads (the Galerkin products of AMG, whose right
/// operand is P or A P with the coarse level's columns), rather than a
/// search of each row's columns.
inline bool use_marks(const HostExec& exec, size_type columns) {
  return columns * thread_count(exec) <= dense_marks_budget;
}

/// One mark per column: the column's place in the row at hand, or -1.
/// Between rows every mark is -1 again (reset through the row's columns).
struct ColumnMarks {
  std::vector<std::int32_t> place;
  void reserve(size_type columns) {
    if (place.size() < static_cast<std::size_t>(columns)) {
      place.assign(static_cast<std::size_t>(columns), -1);
    }
  }
};

/// f(scratch, i) for every i in [0, n), in dynamic chunks of `chunk` over
/// the threads, each thread with its own Scratch.
template <class Scratch, class F>
void for_each_with_scratch(const HostExec& exec, size_type n, size_type chunk, F&& f) {
#if STRATA_WITH_OPENMP
  const int threads = thread_count(exec);
#pragma omp parallel num_threads(threads) if (n > chunk)
  {
    Scratch scratch;
#pragma omp for schedule(dynamic, chunk)
    for (size_type i = 0; i < n; ++i) f(scratch, i);
  }
#else
  (void)exec;
  (void)chunk;
  Scratch scratch;
  for (size_type i = 0; i < n; ++i) f(scratch, i);
#endif
}

}  // namespace strata::host_detail
