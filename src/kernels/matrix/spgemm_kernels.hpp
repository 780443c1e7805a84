#pragma once
// Kernel contract of the sparse matrix-matrix product C = A B
// (strata/matrix/spgemm.hpp).
//
// multiply() and numeric() have one definition per backend: the host one
// (backend/host/matrix/spgemm_kernels.cpp: a row per task, hash set per
// thread) and the tuned CUDA one (backend/cuda/matrix/spgemm_kernels.cu:
// rows binned by work, a hash table per row in shared memory, a group of
// 1..32 lanes or a block per row; rows of at most 32 products sorted in
// registers instead, and rows of up to 256 products by a warp, once, in the
// count pass). The small helpers below them are written once in
// spgemm_kernels.ipp. Arguments are raw pointers in the executor's memory;
// the public entry points (src/core/spgemm.cpp) have checked locations and
// sizes.

#include <atomic>
#include <cstdint>
#include <vector>

#include "kernels/base/hd.hpp"
#include "strata/core/array.hpp"
#include "strata/core/executor.hpp"
#include "strata/core/types.hpp"
#include "strata/matrix/csr.hpp"
#include "strata/matrix/spgemm.hpp"

namespace strata::detail {

/// How the numeric phase splits C's rows between kernels (CUDA: rows grouped
/// by the kernel class that computes them, so recompute() launches the same
/// kernels on the same rows without classifying again). The host backend
/// leaves it empty: a dynamic OpenMP schedule needs no plan.
struct ProductSchedule {
  /// Row indices of C, grouped by class.
  Array<size_type> rows;
  /// Class c owns rows[class_begin[c] .. class_begin[c + 1]).
  std::vector<size_type> class_begin;
};

}  // namespace strata::detail

namespace strata::kernels::spgemm {

/// The pattern of a CSR matrix (rows x cols, nnz entries).
struct Pattern {
  size_type rows = 0;
  size_type cols = 0;
  size_type nnz = 0;
  const offset_type* row_ptr = nullptr;
  const index_type* col_idx = nullptr;
};

/// C = A B with its schedule for numeric().
template <class T>
struct Product {
  CsrMatrix<T> C;
  detail::ProductSchedule schedule;
  /// Number of products a_ik b_kj (sum of the rows' work), 64-bit.
  size_type products = 0;
};

/// C = A B for A (rows x n) and B (n x cols): C's columns ascending within
/// each row, c_ij = sum over A's row i in stored order of a_ik b_kj
/// (deterministic; see spgemm.hpp).
template <class Exec, class T>
Product<T> multiply(const Exec& exec, const Pattern& A, const T* a_values, const Pattern& B,
                    const T* b_values);

/// c_values = the values of A B on C's pattern (from multiply() with A and B
/// of the same patterns), summed in the same order as multiply().
template <class Exec, class T>
void numeric(const Exec& exec, const Pattern& A, const T* a_values, const Pattern& B,
             const T* b_values, const Pattern& C, const detail::ProductSchedule& schedule,
             T* c_values);

/// Entries of C that the CUDA count pass may keep for the fill (its medium
/// rows are computed whole when counted; rows past the budget are computed
/// again by the fill). The default costs at most 3 GB in double precision
/// while a product runs; strata::detail::spgemm_staging_budget() sets it
/// (the tests lower it to reach the rows past it).
inline std::atomic<std::uint64_t> staging_budget{std::uint64_t{1} << 28};

/// Whether the CUDA product records events between its stages and prints
/// their times to stderr (strata::detail::spgemm_stage_timing() sets it;
/// the benchmarks' --spgemm-stages).
inline std::atomic<bool> stage_timing{false};

/// First p in [0, n) with cols[p] >= key, cols ascending: the place of a
/// column in a sorted row of C (both products' value passes find their
/// entries this way; host and device).
template <class N>
STRATA_HD inline N find_column(const index_type* cols, N n, index_type key) {
  N lo = 0;
  while (n > 0) {
    const N half = n / 2;
    if (cols[lo + half] < key) {
      lo += half + 1;
      n -= half + 1;
    } else {
      n = half;
    }
  }
  return lo;
}

// ---- single-source helpers (spgemm_kernels.ipp) ----

/// work[i] = sum_{e in [a_row_ptr[i], a_row_ptr[i+1])} (b_row_ptr[k+1] - b_row_ptr[k]),
/// k = a_col_idx[e], for i < rows: the products of row i of A B (64-bit).
/// Returns sum_i work[i].
template <class Exec>
size_type row_products(const Exec& exec, size_type rows, const offset_type* a_row_ptr,
                       const index_type* a_col_idx, const offset_type* b_row_ptr,
                       offset_type* work);

/// row_ptr[0..rows) holds per-row counts; replaces them by their exclusive
/// prefix sums and sets row_ptr[rows] to the total, which it returns. Throws
/// invalid_argument naming the first row whose count lies outside
/// [0, max_per_row].
template <class Exec>
size_type counts_to_offsets(const Exec& exec, offset_type* row_ptr, size_type rows,
                            size_type max_per_row);

/// A 64-bit hash of the pattern (shape, row offsets, column indices) that is
/// independent of the summation order (a sum of per-entry hashes).
template <class Exec>
std::uint64_t pattern_fingerprint(const Exec& exec, const Pattern& P);

}  // namespace strata::kernels::spgemm
