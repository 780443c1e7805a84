#pragma once
// Groups of G lanes inside a warp (G a power of two dividing 32), for
// kernels that give a sparse row to a group: its lanes load the row
// together and exchange values by shuffles within the group.

namespace strata::cuda_detail {

/// The lanes of this thread's group of G, for the shuffles: groups of one
/// warp may loop different counts, so a shuffle names only its own group.
template <int G>
__device__ __forceinline__ unsigned group_mask() {
  static_assert(G >= 1 && G <= 32 && (G & (G - 1)) == 0, "G: a power of two up to 32");
  if constexpr (G == 32) {
    return 0xffffffffu;
  } else {
    return ((1u << G) - 1) << ((threadIdx.x % 32) / G * G);
  }
}

}  // namespace strata::cuda_detail
