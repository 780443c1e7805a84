#pragma once
// Kernel contract of the blocked sparse product C = A B
// (strata/matrix/bsr_spgemm.hpp): A of r x m blocks, B of m x c blocks, C of
// r x c blocks, all row-major.
//
// The symbolic phase is the CSR product's (kernels/matrix/spgemm_kernels.hpp)
// on the block patterns; only the numeric phase is blocked. numeric() has
// one definition per backend: the host one (backend/host/matrix/
// bsr_spgemm_kernels.cpp: a block row per iteration, blocks found by
// bisection) and the CUDA one (backend/cuda/matrix/bsr_spgemm_kernels.cu: a
// group of lanes per block row, one lane per entry of C's blocks). The block
// shapes with compiled fast paths are listed once, here, for both.

#include <atomic>
#include <limits>
#include <type_traits>

#include "kernels/matrix/spgemm_kernels.hpp"
#include "strata/core/executor.hpp"
#include "strata/core/types.hpp"

namespace strata::kernels::bsr_spgemm {

using spgemm::Pattern;

/// Block sizes of a product: A is r x m blocks, B m x c, C r x c.
struct BlockShape {
  int r = 1;
  int m = 1;
  int c = 1;
};

/// Calls f(R, M, C) with std::integral_constant<int, ...> arguments for a
/// shape with a compiled fast path (each of r, m, c 3 or 6, the elasticity
/// blocks of smoothed aggregation; or all 1), and with R = M = C = 0 (sizes
/// known at run time only) for any other shape.
template <class F>
void with_block_shape(const BlockShape& s, F&& f) {
  using std::integral_constant;
  const auto three_or_six = [](int x) { return x == 3 || x == 6; };
  if (three_or_six(s.r) && three_or_six(s.m) && three_or_six(s.c)) {
    const auto pick_c = [&](auto R, auto M) {
      if (s.c == 3) {
        f(R, M, integral_constant<int, 3>{});
      } else {
        f(R, M, integral_constant<int, 6>{});
      }
    };
    const auto pick_m = [&](auto R) {
      if (s.m == 3) {
        pick_c(R, integral_constant<int, 3>{});
      } else {
        pick_c(R, integral_constant<int, 6>{});
      }
    };
    if (s.r == 3) {
      pick_m(integral_constant<int, 3>{});
    } else {
      pick_m(integral_constant<int, 6>{});
    }
  } else if (s.r == 1 && s.m == 1 && s.c == 1) {
    f(integral_constant<int, 1>{}, integral_constant<int, 1>{}, integral_constant<int, 1>{});
  } else {
    f(integral_constant<int, 0>{}, integral_constant<int, 0>{}, integral_constant<int, 0>{});
  }
}

/// c_values = the values of C = A B on C's block pattern (which is the block
/// pattern of A B, block columns ascending in each block row; from the
/// symbolic phase on A's and B's patterns). For each block row I of C:
/// C_IJ = 0; then for each block a_IK of A's row I in stored order, for each
/// block b_KJ of B's row K, for each entry (i, j) of C_IJ:
///   c_ij += a_IK(i, k) b_KJ(k, j) for k = 0, ..., m - 1, in that order.
/// Values are r*m, m*c and r*c per block, row-major.
template <class Exec, class T>
void numeric(const Exec& exec, BlockShape shape, const Pattern& A, const T* a_values,
             const Pattern& B, const T* b_values, const Pattern& C, T* c_values);

// ---- the product plan (CUDA only) ----
//
// numeric() finds, for every block product a_IK b_KJ, the block of C it adds
// into, and serialises the products of one block row of C behind barriers
// (two a_IK may add into one C_IJ). A value-only recompute repeats all of it.
// The plan does that work once: for each block of C (in C's stored order)
// the list of its block products in the order numeric() adds them, as pairs
// (position of a_IK among A's blocks, position of b_KJ among B's). A planned
// numeric pass then gives each row of each block of C one thread that walks
// its list with the sums in registers: no search, no shared accumulation,
// no barrier, and the same additions in the same order (equal bit for bit).
// It costs 8 bytes per block product (A P of elasticity3d at n = 64: about
// 32M products), so it is kept where products are recomputed.

/// Whether plan() and planned_numeric() take this product, and whether the
/// plan pays: a compiled block shape (with_block_shape's fast paths, not the
/// run-time one), block positions of A and B that fit the plan's 32-bit
/// pairs, and at least 2^16 rows of blocks of C (c_blocks * r): the planned
/// pass gives each one thread, and below that the lists are long and the
/// GPU idle while numeric()'s groups share a row's work (the coarsest
/// products of smoothed aggregation on elasticity3d n = 64, 289 and 6138
/// blocks of C meeting 197 and 57 products each: 489 against 383 us and
/// 213 against 157 us on an H200; its 35k-block product, 59 each, 590
/// against 786 us).
/// (The tests lower plan_min_threads to plan small products.)
inline std::atomic<size_type> plan_min_threads{size_type{1} << 16};

inline bool plannable(BlockShape shape, const Pattern& A, const Pattern& B, size_type c_blocks) {
  bool compiled = false;
  with_block_shape(shape, [&](auto r, auto, auto) { compiled = decltype(r)::value > 0; });
  const auto limit = static_cast<size_type>(std::numeric_limits<index_type>::max());
  return compiled && A.nnz <= limit && B.nnz <= limit &&
         c_blocks * static_cast<size_type>(shape.r) >= plan_min_threads.load();
}

/// The plan of C = A B on C's block pattern (from the symbolic phase):
/// `counts[p]` the number of block products that add into block p of C (the
/// symbolic CSR product's values with unit operands, exact in float), which
/// must sum to `products` (the symbolic phase's count; invalid_argument
/// otherwise, before anything is written); fills plan_ptr (C.nnz + 1
/// offsets) and pairs (2 * products entries, a's position then b's, list by
/// list). Requires plannable().
void plan(const CudaExec& exec, const Pattern& A, const Pattern& B, const Pattern& C,
          const float* counts, size_type products, offset_type* plan_ptr, index_type* pairs);

/// c_values = the values of A B from its plan (the same sums as numeric()).
template <class T>
void planned_numeric(const CudaExec& exec, BlockShape shape, size_type c_blocks,
                     const offset_type* plan_ptr, const index_type* pairs, const T* a_values,
                     const T* b_values, T* c_values);

}  // namespace strata::kernels::bsr_spgemm
