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

}  // namespace strata::kernels::bsr_spgemm
