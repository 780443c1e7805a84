#pragma once
// The box loop: hypre's BoxLoop (the hypre paper, section 3.1, figure 2)
// as one lambda-based primitive instead of a family of macros.
//
// A loop runs over `extent` = (n0, n1, n2) points. Each array taking part
// has its own BoxLayout (hypre's data box, start and stride folded into one
// affine map), so arrays with different data boxes (a ghosted vector, a
// ghostless coefficient array, a coarse vector read at every other point)
// are indexed together: the body gets the point and one index per layout.
//
// It is written once on top of parallel_for over the flattened point
// number t = i0 + n0 (i1 + n1 i2), so it runs where parallel_for runs: on
// the host, OpenMP's static schedule gives each thread a run of consecutive
// points (hypre's CPU partitioning, figure 3a); on the device consecutive
// threads take consecutive i0 and read adjacent memory (hypre's cell-wise
// interleaved GPU partitioning, figure 3b).

#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <utility>

#include "kernels/base/hd.hpp"
#include "strata/core/executor.hpp"
#include "strata/core/types.hpp"

namespace strata::kernels::structured {

/// Number of points per direction of a loop.
struct Extent {
  size_type n[3];
  STRATA_HD size_type volume() const { return n[0] * n[1] * n[2]; }
};

/// index(i0, i1, i2) = base + i0 s[0] + i1 s[1] + i2 s[2]: where the loop's
/// point (i0, i1, i2) is in one array. Strides may be negative or larger
/// than one row (every other point of a fine array).
struct BoxLayout {
  size_type base;
  size_type s[3];
  STRATA_HD size_type operator()(size_type i0, size_type i1, size_type i2) const {
    return base + i0 * s[0] + i1 * s[1] + i2 * s[2];
  }
};

/// The layout of an array stored lexicographically over a data box with
/// `dims` cells per direction (x fastest), for a loop starting at cell
/// `start` of that data box and advancing `step` cells per loop step.
STRATA_HD inline BoxLayout layout_of(const size_type dims[3], const size_type start[3],
                                     const size_type step[3]) {
  const size_type sx = 1, sy = dims[0], sz = dims[0] * dims[1];
  return {start[0] * sx + start[1] * sy + start[2] * sz, {step[0] * sx, step[1] * sy, step[2] * sz}};
}

namespace detail {
/// The layouts of one loop as an array: nvcc's extended lambdas cannot
/// capture the elements of a parameter pack, but can capture this.
template <std::size_t N>
struct LayoutList {
  BoxLayout l[N > 0 ? N : 1];
};
template <class F, std::size_t N, std::size_t... I>
STRATA_HD auto call_at(const F& f, size_type i0, size_type i1, size_type i2,
                       const LayoutList<N>& list, std::index_sequence<I...>) {
  return f(i0, i1, i2, list.l[I](i0, i1, i2)...);
}
}  // namespace detail

/// f(i0, i1, i2, layouts(i0, i1, i2)...) for every point of `extent`, in
/// parallel on `exec`. f must not depend on the order of the points.
///
/// The partitioning follows the paper's figure 3. On the device, one thread
/// per point, consecutive threads on consecutive i0 (coalesced), launched
/// as a 3D grid (parallel_for_box: the point from the block and thread
/// indices, no division: PFMG's Jacobi sweep from zero 1.8x and its
/// residual 1.25x faster in float at 256^3 than with a flat index divided
/// into i0, i1, i2, bench/NOTES.md); a box beyond a 3D grid's limits takes
/// the flat path. On the host, each task is a run of consecutive i0 within
/// one row: the inner loop has no index division and streams through
/// memory. Rows are split into pieces only when there are too few of them
/// for parallel_for to go parallel (it runs at most host_serial_limit
/// iterations on the calling thread: backend/host/base/parallel.hpp).
template <class Exec, class F, class... Layouts>
void box_loop(const Exec& exec, const Extent& extent, F f, Layouts... layouts) {
  static_assert((std::is_same_v<Layouts, BoxLayout> && ...), "box_loop takes BoxLayouts");
  constexpr std::size_t N = sizeof...(Layouts);
  const detail::LayoutList<N> list{{layouts...}};
  using Seq = std::make_index_sequence<N>;
  const size_type n0 = extent.n[0], n01 = extent.n[0] * extent.n[1];
  if (extent.volume() <= 0) return;
  if constexpr (Exec::location() == Location::host) {
    constexpr size_type host_serial_limit = 8192;
    const size_type rows = extent.n[1] * extent.n[2];
    size_type pieces = 1;
    if (rows <= host_serial_limit && extent.volume() > host_serial_limit) {
      pieces = std::min<size_type>(n0, host_serial_limit / rows + 1);
    }
    const size_type length = (n0 + pieces - 1) / pieces;
    const size_type n1 = extent.n[1];
    parallel_for(exec, rows * pieces, [=](size_type task) {
      const size_type row = task / pieces, piece = task - row * pieces;
      const size_type i2 = row / n1, i1 = row - i2 * n1;
      const size_type end = std::min(n0, (piece + 1) * length);
      for (size_type i0 = piece * length; i0 < end; ++i0) detail::call_at(f, i0, i1, i2, list, Seq{});
    });
  } else if (parallel_for_box(exec, extent.n[0], extent.n[1], extent.n[2],
                              [=] STRATA_HD(size_type i0, size_type i1, size_type i2) {
                                detail::call_at(f, i0, i1, i2, list, Seq{});
                              })) {
    // One thread per point of a 3D launch: no index division.
  } else if (extent.volume() <= size_type{0x7fffffff}) {
    // 32-bit division: a 64-bit one costs tens of instructions per thread
    // on the device, as much as the memory traffic of a small stencil.
    const unsigned m0 = static_cast<unsigned>(n0), m01 = static_cast<unsigned>(n01);
    parallel_for(exec, extent.volume(), [=] STRATA_HD(size_type t) {
      const unsigned u = static_cast<unsigned>(t);
      const unsigned i2 = u / m01;
      const unsigned rest = u - i2 * m01;
      const unsigned i1 = rest / m0;
      const unsigned i0 = rest - i1 * m0;
      detail::call_at(f, size_type{i0}, size_type{i1}, size_type{i2}, list, Seq{});
    });
  } else {
    parallel_for(exec, extent.volume(), [=] STRATA_HD(size_type t) {
      const size_type i2 = t / n01;
      const size_type rest = t - i2 * n01;
      const size_type i1 = rest / n0;
      const size_type i0 = rest - i1 * n0;
      detail::call_at(f, i0, i1, i2, list, Seq{});
    });
  }
}

/// op-reduction of f(i0, i1, i2, layouts(...)...) over `extent`, in an
/// order fixed by the extent (transform_reduce_box: on the device a 3D
/// launch, on the host chunks of consecutive points; neither divides an
/// index per point, except on the device for a box beyond a 3D launch's
/// limits). f may also write: a kernel and a reduction of its results in
/// one pass (a product and a dot).
template <class Exec, class T, class F, class Op, class... Layouts>
T box_reduce(const Exec& exec, const Extent& extent, T identity, F f, Op op, Layouts... layouts) {
  static_assert((std::is_same_v<Layouts, BoxLayout> && ...), "box_reduce takes BoxLayouts");
  constexpr std::size_t N = sizeof...(Layouts);
  const detail::LayoutList<N> list{{layouts...}};
  using Seq = std::make_index_sequence<N>;
  return transform_reduce_box(
      exec, extent.n[0], extent.n[1], extent.n[2], identity,
      [=] STRATA_HD(size_type i0, size_type i1, size_type i2) -> T {
        return detail::call_at(f, i0, i1, i2, list, Seq{});
      },
      op);
}

}  // namespace strata::kernels::structured
