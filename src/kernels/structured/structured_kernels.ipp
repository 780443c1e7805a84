// Single-source bodies of structured_kernels.hpp: every loop is a box loop,
// compiled by the host compiler for HostExec and by nvcc for CudaExec.

#include <cmath>
#include <limits>
#include <type_traits>

#include "kernels/base/hd.hpp"
#include "kernels/structured/box_loop.hpp"
#include "kernels/structured/structured_kernels.hpp"

namespace strata::kernels::structured {

namespace detail {
/// c wrapped into [0, n). Most calls are for a cell inside already, which
/// skip the 64-bit division (tens of instructions, per stencil entry).
STRATA_HD inline size_type wrap(size_type c, size_type n) {
  if (c >= 0 && c < n) return c;
  const size_type r = c % n;
  return r < 0 ? r + n : r;
}
STRATA_HD inline bool in_colour(size_type i, size_type j, size_type k, int colour, int parity) {
  return colour < 0 || ((i + j + k + parity) & 1) == colour;
}
/// Offsets of the stencil entries in a ghosted array, by value into the
/// kernels (a type at namespace scope: nvcc's extended lambdas cannot
/// capture one local to a function).
struct EntryOffsets {
  size_type d[max_entries];
};
/// Offset of stencil entry e in a ghosted array of geo.
STRATA_HD inline size_type ghosted_offset(const Geometry& geo, const int* o) {
  return o[0] + geo.ghosted(0) * (o[1] + geo.ghosted(1) * o[2]);
}
}  // namespace detail

template <class Exec, class T>
void copy_box(const Exec& exec, Extent extent, BoxLayout dst_layout, T* dst, BoxLayout src_layout,
              const T* src, bool add) {
  if (add) {
    box_loop(
        exec, extent,
        [=] STRATA_HD(size_type, size_type, size_type, size_type d, size_type s) { dst[d] += src[s]; },
        dst_layout, src_layout);
  } else {
    box_loop(
        exec, extent,
        [=] STRATA_HD(size_type, size_type, size_type, size_type d, size_type s) { dst[d] = src[s]; },
        dst_layout, src_layout);
  }
}

template <class Exec, class To, class From>
void convert_box(const Exec& exec, Extent extent, BoxLayout dst_layout, To* dst,
                 BoxLayout src_layout, const From* src, int exponent) {
  box_loop(
      exec, extent,
      [=] STRATA_HD(size_type, size_type, size_type, size_type d, size_type s) {
        // ldexp scales exactly (see kernels::base::convert).
        dst[d] = static_cast<To>(ldexp(static_cast<double>(src[s]), exponent));
      },
      dst_layout, src_layout);
}

template <class Exec, class To, class From>
To convert_box_dot(const Exec& exec, Extent extent, BoxLayout dst_layout, To* dst,
                   BoxLayout src_layout, const From* src, int exponent, BoxLayout w_layout,
                   const To* w) {
  return box_reduce(
      exec, extent, To{0},
      [=] STRATA_HD(size_type, size_type, size_type, size_type d, size_type s, size_type v) -> To {
        const To value = static_cast<To>(ldexp(static_cast<double>(src[s]), exponent));
        dst[d] = value;
        return w[v] * value;
      },
      ops::Plus{}, dst_layout, src_layout, w_layout);
}

template <class Exec, class T>
void fill_box(const Exec& exec, Extent extent, BoxLayout layout, T* dst, T value) {
  box_loop(
      exec, extent, [=] STRATA_HD(size_type, size_type, size_type, size_type d) { dst[d] = value; },
      layout);
}

template <class Exec, class T>
void periodic_ghosts(const Exec& exec, Geometry geo, std::array<bool, 3> periodic, T* data) {
  // Direction by direction, only the ghost layers of a periodic direction
  // (both sides at once) across the whole ghosted extent of the others:
  // edges and corners take their image through the directions done before.
  // A ghost beyond a non-periodic boundary is read as it is (zero), so the
  // result is the same as wrapping each ghost cell on its own, at the cost
  // of the ghost layers instead of the whole array (the V-cycle refreshes
  // ghosts after every sweep).
  for (int d = 0; d < 3; ++d) {
    if (!periodic[d] || geo.g[d] == 0) continue;
    const size_type g = geo.g[d], n = geo.n[d];
    Extent layers{{geo.ghosted(0), geo.ghosted(1), geo.ghosted(2)}};
    layers.n[d] = 2 * g;
    box_loop(exec, layers, [=] STRATA_HD(size_type a, size_type b, size_type c) {
      size_type at[3] = {a, b, c};
      // Layer t < g is ghost t (cell t - g); t >= g is ghost n + t (cell n + t - g).
      if (at[d] >= g) at[d] += n;
      size_type from[3] = {at[0], at[1], at[2]};
      from[d] = detail::wrap(at[d] - g, n) + g;
      const size_type w0 = geo.ghosted(0), w1 = geo.ghosted(1);
      data[at[0] + w0 * (at[1] + w1 * at[2])] = data[from[0] + w0 * (from[1] + w1 * from[2])];
    });
  }
}

template <class Exec, class T>
void stencil_product(const Exec& exec, Geometry geo, const Shape& shape, const T* coef, T alpha,
                     const T* x, T beta, const T* z, BoxLayout z_layout, T* y, BoxLayout y_layout) {
  const int entries = shape.size;
  // Each entry's offset in x's ghosted array, computed once: the loop body
  // is then a plain sum over the entries, with no boundary tests (the
  // ghosts hold the boundary values).
  detail::EntryOffsets offsets;
  for (int e = 0; e < entries; ++e) offsets.d[e] = detail::ghosted_offset(geo, shape.o[e]);
  const size_type points = geo.points();
  const size_type cdims[3] = {geo.n[0], geo.n[1], geo.n[2]};
  const size_type gdims[3] = {geo.ghosted(0), geo.ghosted(1), geo.ghosted(2)};
  const size_type zero[3] = {0, 0, 0}, one[3] = {1, 1, 1};
  const size_type gstart[3] = {geo.g[0], geo.g[1], geo.g[2]};
  const BoxLayout c_layout = layout_of(cdims, zero, one);
  const BoxLayout x_layout = layout_of(gdims, gstart, one);
  if (beta == T{0}) {
    box_loop(
        exec, geo.extent(),
        [=] STRATA_HD(size_type, size_type, size_type, size_type p, size_type xi, size_type yi) {
          T acc{0};
          for (int e = 0; e < entries; ++e) acc += coef[e * points + p] * x[xi + offsets.d[e]];
          y[yi] = alpha * acc;
        },
        c_layout, x_layout, y_layout);
  } else {
    box_loop(
        exec, geo.extent(),
        [=] STRATA_HD(size_type, size_type, size_type, size_type p, size_type xi, size_type zi,
                      size_type yi) {
          T acc{0};
          for (int e = 0; e < entries; ++e) acc += coef[e * points + p] * x[xi + offsets.d[e]];
          y[yi] = alpha * acc + beta * z[zi];
        },
        c_layout, x_layout, z_layout, y_layout);
  }
}

namespace detail {
/// Row p = (i, j, k) of A x for a compact (ghostless) x: a neighbour outside
/// a non-periodic boundary adds nothing, one across a periodic boundary
/// wraps.
template <class T, bool Wrap>
struct CompactRow {
  Geometry geo;
  Shape s;
  EntryOffsets offsets;  // of each entry's neighbour in a compact array
  size_type reach[3];    // of the stencil, per direction
  bool periodic[3];
  const T* coef;

  CompactRow(Geometry g, const Shape& shape, const T* c, std::array<bool, 3> p)
      : geo(g), s(shape), reach{0, 0, 0}, periodic{p[0], p[1], p[2]}, coef(c) {
    for (int e = 0; e < s.size; ++e) {
      for (int d = 0; d < 3; ++d) {
        const size_type r = s.o[e][d] < 0 ? -s.o[e][d] : s.o[e][d];
        reach[d] = r > reach[d] ? r : reach[d];
      }
      offsets.d[e] = s.o[e][0] + geo.n[0] * (s.o[e][1] + geo.n[1] * s.o[e][2]);
    }
  }

  /// x is compact: its index of cell p is p.
  STRATA_HD T operator()(const T* x, size_type i, size_type j, size_type k, size_type p,
                         size_type /*xi*/) const {
    const size_type points = geo.points();
    T acc{0};
    if constexpr (!Wrap) {
      // Every cell on one path, a neighbour outside the grid masked by one
      // unsigned comparison per direction (a negative index becomes a huge
      // one): an interior path beside a boundary path would leave the warps
      // that hold a face cell running both (bench/NOTES.md, session 19).
      using U = std::make_unsigned_t<size_type>;
      for (int e = 0; e < s.size; ++e) {
        if (static_cast<U>(i + s.o[e][0]) < static_cast<U>(geo.n[0]) &&
            static_cast<U>(j + s.o[e][1]) < static_cast<U>(geo.n[1]) &&
            static_cast<U>(k + s.o[e][2]) < static_cast<U>(geo.n[2])) {
          acc += coef[e * points + p] * x[p + offsets.d[e]];
        }
      }
    } else if (i >= reach[0] && i < geo.n[0] - reach[0] && j >= reach[1] &&
               j < geo.n[1] - reach[1] && k >= reach[2] && k < geo.n[2] - reach[2]) {
      for (int e = 0; e < s.size; ++e) acc += coef[e * points + p] * x[p + offsets.d[e]];
    } else {
      for (int e = 0; e < s.size; ++e) {
        size_type a = i + s.o[e][0], b = j + s.o[e][1], c = k + s.o[e][2];
        if (periodic[0]) a = wrap(a, geo.n[0]);
        if (periodic[1]) b = wrap(b, geo.n[1]);
        if (periodic[2]) c = wrap(c, geo.n[2]);
        if (geo.inside(a, b, c)) acc += coef[e * points + p] * x[geo.cidx(a, b, c)];
      }
    }
    return acc;
  }
};

/// A row functor called as row(x, i, j, k, p, xi): A x at cell (i, j, k),
/// p its index in a compact array, xi in x's array (p for a compact x).
/// y = A x over the cells, x and y compact.
template <class Exec, class T, class Row>
void compact_product(const Exec& exec, const Row& row, const T* x, T* y) {
  const Geometry geo = row.geo;
  box_loop(exec, geo.extent(), [=] STRATA_HD(size_type i, size_type j, size_type k) {
    const size_type p = geo.cidx(i, j, k);
    y[p] = row(x, i, j, k, p, p);
  });
}

/// compact_product, returning x^T y from the same pass.
template <class Exec, class T, class Row>
T compact_product_dot(const Exec& exec, const Row& row, const T* x, T* y) {
  const Geometry geo = row.geo;
  return box_reduce(
      exec, geo.extent(), T{0},
      [=] STRATA_HD(size_type i, size_type j, size_type k) -> T {
        const size_type p = geo.cidx(i, j, k);
        const T v = row(x, i, j, k, p, p);
        y[p] = v;
        return x[p] * v;
      },
      ops::Plus{});
}
}  // namespace detail

template <class Exec, class T>
void stencil_product_compact(const Exec& exec, Geometry geo, const Shape& shape, const T* coef,
                             std::array<bool, 3> periodic, const T* x, T* y) {
  if (periodic[0] || periodic[1] || periodic[2]) {
    detail::compact_product(exec, detail::CompactRow<T, true>(geo, shape, coef, periodic), x, y);
  } else {
    detail::compact_product(exec, detail::CompactRow<T, false>(geo, shape, coef, periodic), x, y);
  }
}

template <class Exec, class T>
T stencil_product_compact_dot(const Exec& exec, Geometry geo, const Shape& shape, const T* coef,
                              std::array<bool, 3> periodic, const T* x, T* y) {
  if (periodic[0] || periodic[1] || periodic[2]) {
    return detail::compact_product_dot(
        exec, detail::CompactRow<T, true>(geo, shape, coef, periodic), x, y);
  }
  return detail::compact_product_dot(exec, detail::CompactRow<T, false>(geo, shape, coef, periodic),
                                     x, y);
}

namespace detail {
/// Cell (a, b, c) wrapped in the periodic directions; false when it lies
/// outside the grid in another direction.
STRATA_HD inline bool locate(const Geometry& geo, bool p0, bool p1, bool p2, size_type& a,
                             size_type& b, size_type& c) {
  if (p0) a = wrap(a, geo.n[0]);
  if (p1) b = wrap(b, geo.n[1]);
  if (p2) c = wrap(c, geo.n[2]);
  return geo.inside(a, b, c);
}
/// Direction d of a geometry as scalars: its cells, and the distance
/// between neighbours in d in a ghosted and in a compact array.
struct AxisStrides {
  int d;
  size_type n, ghosted, compact;
};
inline AxisStrides axis_strides(const Geometry& geo, int d) {
  const size_type ghosted = d == 0 ? 1 : d == 1 ? geo.ghosted(0) : geo.ghosted(0) * geo.ghosted(1);
  const size_type compact = d == 0 ? 1 : d == 1 ? geo.n[0] : geo.n[0] * geo.n[1];
  return {d, geo.n[d], ghosted, compact};
}
}  // namespace detail

namespace detail {
/// Row p = (i, j, k) of A x for a symmetrically stored A (StencilMatrix):
/// sum_s c_s(p) x(p + o_s) + sum_{s != centre} c_s(p - o_s) x(p - o_s), x
/// stored over the cells grown by geo.g ghosts (0: compact), xi the index
/// of cell p in it. Neighbours outside a non-periodic boundary add nothing;
/// with Wrap (the split paths: an unmasked interior loop, and cells near a
/// face tested and wrapped one by one), periodic ones wrap.
template <class T, bool Wrap>
struct SymmetricRow {
  Geometry geo;
  Shape s;
  int center;
  EntryOffsets x_off;  // of each entry's neighbour in x's array
  EntryOffsets c_off;  // ... in a compact (coefficient) array
  size_type reach[3];
  bool periodic[3];
  const T* coef;

  SymmetricRow(Geometry g, const Shape& shape, int c, const T* cf, std::array<bool, 3> p)
      : geo(g), s(shape), center(c), reach{0, 0, 0}, periodic{p[0], p[1], p[2]}, coef(cf) {
    for (int e = 0; e < s.size; ++e) {
      for (int d = 0; d < 3; ++d) {
        const size_type r = s.o[e][d] < 0 ? -s.o[e][d] : s.o[e][d];
        reach[d] = r > reach[d] ? r : reach[d];
      }
      x_off.d[e] = ghosted_offset(geo, s.o[e]);
      c_off.d[e] = s.o[e][0] + geo.n[0] * (s.o[e][1] + geo.n[1] * s.o[e][2]);
    }
  }

  STRATA_HD T operator()(const T* x, size_type i, size_type j, size_type k, size_type p,
                         size_type xi) const {
    const size_type points = geo.points();
    T acc{0};
    if constexpr (!Wrap) {
      // One path for every cell (an interior path beside a boundary path
      // leaves the warps holding a face cell running both). A neighbour
      // outside the grid is masked by an unsigned comparison per direction
      // and read at the cell itself instead, so that every load is
      // unconditional and, unrolled, the loads of several entries are
      // issued before the first is waited for: CG's fused p^T A p at 256^3
      // (H200, ncu) took 341 us with the loads behind branches, 322 so
      // (the full-storage product: 355; bench/NOTES.md, session 20).
      using U = std::make_unsigned_t<size_type>;
      const U n0 = static_cast<U>(geo.n[0]), n1 = static_cast<U>(geo.n[1]),
              n2 = static_cast<U>(geo.n[2]);
#ifdef __CUDA_ARCH__
#pragma unroll 4
#endif
      for (int e = 0; e < s.size; ++e) {
        const size_type a = s.o[e][0], b = s.o[e][1], c = s.o[e][2];
        const bool ahead = static_cast<U>(i + a) < n0 && static_cast<U>(j + b) < n1 &&
                           static_cast<U>(k + c) < n2;
        const T fwd = coef[e * points + p] * x[ahead ? xi + x_off.d[e] : xi];
        acc += ahead ? fwd : T{0};
        if (e == center) continue;
        const bool behind = static_cast<U>(i - a) < n0 && static_cast<U>(j - b) < n1 &&
                            static_cast<U>(k - c) < n2;
        const size_type back = behind ? c_off.d[e] : 0, x_back = behind ? x_off.d[e] : 0;
        const T mirrored = coef[e * points + p - back] * x[xi - x_back];
        acc += behind ? mirrored : T{0};
      }
    } else if (i >= reach[0] && i < geo.n[0] - reach[0] && j >= reach[1] &&
               j < geo.n[1] - reach[1] && k >= reach[2] && k < geo.n[2] - reach[2]) {
      for (int e = 0; e < s.size; ++e) {
        acc += coef[e * points + p] * x[xi + x_off.d[e]];
        if (e != center) acc += coef[e * points + p - c_off.d[e]] * x[xi - x_off.d[e]];
      }
    } else {
      for (int e = 0; e < s.size; ++e) {
        // a(p, p + o) = c_e(p).
        size_type a = i + s.o[e][0], b = j + s.o[e][1], c = k + s.o[e][2];
        if (locate(geo, periodic[0], periodic[1], periodic[2], a, b, c)) {
          acc += coef[e * points + p] * x[geo.gidx(a, b, c)];
        }
        if (e == center) continue;
        // a(p, p - o) = a(p - o, p) = c_e(p - o).
        a = i - s.o[e][0];
        b = j - s.o[e][1];
        c = k - s.o[e][2];
        if (locate(geo, periodic[0], periodic[1], periodic[2], a, b, c)) {
          acc += coef[e * points + geo.cidx(a, b, c)] * x[geo.gidx(a, b, c)];
        }
      }
    }
    return acc;
  }
};

/// Row p of A x for a symmetrically stored A, a non-periodic grid and a
/// ghosted x (its ghosts zero): the neighbour p - o_s of a mirrored entry
/// is read in x's ghosts when it lies outside the grid, so its coefficient
/// c_s(p - o_s) is multiplied by zero and may be any cell's: the index is
/// only kept inside the array. No mask per neighbour, as in GhostedRow.
/// Measured in PFMG's float cycle at 256^3 (H200): the residual 229 us
/// against 219 in full storage, the Jacobi sweep 201 against 217: these
/// kernels are bound by their loads (the same number in both storages)
/// more than by the DRAM bytes that symmetric storage saves.
template <class T>
struct SymmetricGhostedRow {
  int size, center;
  size_type points;
  EntryOffsets x_off, c_off;
  const T* coef;

  SymmetricGhostedRow(Geometry geo, const Shape& s, int c, const T* cf)
      : size(s.size), center(c), points(geo.points()), coef(cf) {
    for (int e = 0; e < s.size; ++e) {
      x_off.d[e] = ghosted_offset(geo, s.o[e]);
      c_off.d[e] = s.o[e][0] + geo.n[0] * (s.o[e][1] + geo.n[1] * s.o[e][2]);
    }
  }
  STRATA_HD T operator()(const T* x, size_type, size_type, size_type, size_type p,
                         size_type xi) const {
    using U = std::make_unsigned_t<size_type>;
    T acc{0};
    for (int e = 0; e < size; ++e) {
      acc += coef[e * points + p] * x[xi + x_off.d[e]];
      if (e == center) continue;
      const size_type q = p - c_off.d[e];
      acc += coef[e * points + (static_cast<U>(q) < static_cast<U>(points) ? q : p)] *
             x[xi - x_off.d[e]];
    }
    return acc;
  }
};

/// Row p of A x for a fully stored A and a ghosted x (the ghosts hold zero
/// or the periodic images): a plain sum over the entries.
template <class T>
struct GhostedRow {
  int size;
  size_type points;
  EntryOffsets x_off;
  const T* coef;

  GhostedRow(Geometry geo, const Shape& s, const T* c) : size(s.size), points(geo.points()), coef(c) {
    for (int e = 0; e < s.size; ++e) x_off.d[e] = ghosted_offset(geo, s.o[e]);
  }
  STRATA_HD T operator()(const T* x, size_type, size_type, size_type, size_type p,
                         size_type xi) const {
    T acc{0};
    for (int e = 0; e < size; ++e) acc += coef[e * points + p] * x[xi + x_off.d[e]];
    return acc;
  }
};

template <class Exec, class T, class Row>
void row_product(const Exec& exec, Geometry geo, const Row& row, T alpha, const T* x, T beta,
                 const T* z, BoxLayout z_layout, T* y, BoxLayout y_layout) {
  box_loop(
      exec, geo.extent(),
      [=] STRATA_HD(size_type i, size_type j, size_type k, size_type zi, size_type yi) {
        const T v = alpha * row(x, i, j, k, geo.cidx(i, j, k), geo.gidx(i, j, k));
        y[yi] = beta == T{0} ? v : v + beta * z[zi];
      },
      z_layout, y_layout);
}

template <class Exec, class T, class Row>
void row_jacobi_sweep(const Exec& exec, Geometry geo, const Row& row, const T* coef, int center,
                      T omega, const T* b, const T* x, T* x_new) {
  const size_type points = geo.points();
  box_loop(exec, geo.extent(), [=] STRATA_HD(size_type i, size_type j, size_type k) {
    const size_type p = geo.cidx(i, j, k), g = geo.gidx(i, j, k);
    x_new[g] = x[g] + omega * (b[g] - row(x, i, j, k, p, g)) / coef[center * points + p];
  });
}

template <class Exec, class T, class Row>
void row_relax_correction(const Exec& exec, Geometry geo, const Row& row, const T* coef,
                          int center, T omega, const T* b, const T* x, T* t, int colour,
                          int parity) {
  const size_type points = geo.points();
  box_loop(exec, geo.extent(), [=] STRATA_HD(size_type i, size_type j, size_type k) {
    if (!in_colour(i, j, k, colour, parity)) return;
    const size_type p = geo.cidx(i, j, k), g = geo.gidx(i, j, k);
    t[g] = omega * (b[g] - row(x, i, j, k, p, g)) / coef[center * points + p];
  });
}

/// Whether a symmetric row takes the split paths (SymmetricRow<T, true>):
/// with a periodic direction, and on the host, where a predicted branch
/// to the unmasked interior loop is cheaper than masking every neighbour
/// (masking every neighbour made PFMG-PCG's host solve 1.25x slower).
template <class Exec>
bool split_rows(std::array<bool, 3> periodic) {
  return Exec::location() == Location::host || periodic[0] || periodic[1] || periodic[2];
}
/// Whether x has ghosts (SymmetricGhostedRow applies on the device).
inline bool ghosted(const Geometry& geo) { return geo.g[0] > 0 || geo.g[1] > 0 || geo.g[2] > 0; }
}  // namespace detail

template <class Exec, class T>
void symmetric_product(const Exec& exec, Geometry x_geo, const Shape& shape, int center,
                       const T* coef, std::array<bool, 3> periodic, T alpha, const T* x, T beta,
                       const T* z, BoxLayout z_layout, T* y, BoxLayout y_layout) {
  if (detail::split_rows<Exec>(periodic)) {
    detail::row_product(exec, x_geo, detail::SymmetricRow<T, true>(x_geo, shape, center, coef, periodic),
                        alpha, x, beta, z, z_layout, y, y_layout);
  } else if (detail::ghosted(x_geo)) {
    detail::row_product(exec, x_geo, detail::SymmetricGhostedRow<T>(x_geo, shape, center, coef),
                        alpha, x, beta, z, z_layout, y, y_layout);
  } else {
    detail::row_product(exec, x_geo,
                        detail::SymmetricRow<T, false>(x_geo, shape, center, coef, periodic), alpha,
                        x, beta, z, z_layout, y, y_layout);
  }
}

template <class Exec, class T>
T symmetric_product_compact_dot(const Exec& exec, Geometry geo, const Shape& shape, int center,
                                const T* coef, std::array<bool, 3> periodic, const T* x, T* y) {
  if (detail::split_rows<Exec>(periodic)) {
    return detail::compact_product_dot(
        exec, detail::SymmetricRow<T, true>(geo, shape, center, coef, periodic), x, y);
  }
  return detail::compact_product_dot(
      exec, detail::SymmetricRow<T, false>(geo, shape, center, coef, periodic), x, y);
}

template <class Exec, class T>
void expand_symmetric(const Exec& exec, Geometry geo, const Shape& shape, int center,
                      std::array<bool, 3> periodic, const T* coef, T* coef_full) {
  const Shape s = shape;
  const size_type points = geo.points();
  const bool p0 = periodic[0], p1 = periodic[1], p2 = periodic[2];
  box_loop(exec, geo.extent(), [=] STRATA_HD(size_type i, size_type j, size_type k) {
    const size_type p = geo.cidx(i, j, k);
    int next = s.size;
    for (int e = 0; e < s.size; ++e) {
      coef_full[e * points + p] = coef[e * points + p];
      if (e == center) continue;
      size_type a = i - s.o[e][0], b = j - s.o[e][1], c = k - s.o[e][2];
      coef_full[next * points + p] =
          detail::locate(geo, p0, p1, p2, a, b, c) ? coef[e * points + geo.cidx(a, b, c)] : T{0};
      ++next;
    }
  });
}

template <class Exec, class T>
void jacobi_from_zero(const Exec& exec, Geometry geo, const T* coef, int center, T omega,
                      const T* b, T* x) {
  const size_type points = geo.points();
  box_loop(exec, geo.extent(), [=] STRATA_HD(size_type i, size_type j, size_type k) {
    const size_type g = geo.gidx(i, j, k);
    x[g] = omega * b[g] / coef[center * points + geo.cidx(i, j, k)];
  });
}

template <class Exec, class T>
void relax_correction(const Exec& exec, Geometry geo, const StencilMatrix<T>& A, T omega,
                      const T* b, const T* x, T* t, int colour, int parity) {
  if (!A.symmetric) {
    detail::row_relax_correction(exec, geo, detail::GhostedRow<T>(geo, A.shape, A.coef), A.coef,
                                 A.center, omega, b, x, t, colour, parity);
  } else if (detail::split_rows<Exec>(A.periodic)) {
    detail::row_relax_correction(
        exec, geo, detail::SymmetricRow<T, true>(geo, A.shape, A.center, A.coef, A.periodic),
        A.coef, A.center, omega, b, x, t, colour, parity);
  } else {
    detail::row_relax_correction(exec, geo,
                                 detail::SymmetricGhostedRow<T>(geo, A.shape, A.center, A.coef),
                                 A.coef, A.center, omega, b, x, t, colour, parity);
  }
}

template <class Exec, class T>
void jacobi_sweep(const Exec& exec, Geometry geo, const StencilMatrix<T>& A, T omega, const T* b,
                  const T* x, T* x_new) {
  if (!A.symmetric) {
    detail::row_jacobi_sweep(exec, geo, detail::GhostedRow<T>(geo, A.shape, A.coef), A.coef,
                             A.center, omega, b, x, x_new);
  } else if (detail::split_rows<Exec>(A.periodic)) {
    detail::row_jacobi_sweep(
        exec, geo, detail::SymmetricRow<T, true>(geo, A.shape, A.center, A.coef, A.periodic),
        A.coef, A.center, omega, b, x, x_new);
  } else {
    detail::row_jacobi_sweep(exec, geo,
                             detail::SymmetricGhostedRow<T>(geo, A.shape, A.center, A.coef), A.coef,
                             A.center, omega, b, x, x_new);
  }
}

template <class Exec, class T>
void add_correction(const Exec& exec, Geometry geo, const T* t, T* x, int colour, int parity) {
  box_loop(exec, geo.extent(), [=] STRATA_HD(size_type i, size_type j, size_type k) {
    if (!detail::in_colour(i, j, k, colour, parity)) return;
    const size_type g = geo.gidx(i, j, k);
    x[g] += t[g];
  });
}

template <class Exec, class T>
void interpolation_weights(const Exec& exec, Geometry fine, const Shape& shape, const T* coef,
                           int d, std::array<bool, 3> periodic, T* wl, T* wr) {
  const Shape s = shape;
  const size_type points = fine.points();
  const bool p0 = periodic[0], p1 = periodic[1], p2 = periodic[2];
  box_loop(exec, fine.extent(), [=] STRATA_HD(size_type i, size_type j, size_type k) {
    T c{0}, left{0}, right{0};
    const size_type p = fine.cidx(i, j, k);
    for (int e = 0; e < s.size; ++e) {
      size_type a = i + s.o[e][0], b = j + s.o[e][1], q = k + s.o[e][2];
      if (!detail::locate(fine, p0, p1, p2, a, b, q)) continue;
      const T v = coef[e * points + p];
      if (s.o[e][d] == 0) c += v;
      else if (s.o[e][d] < 0) left += v;
      else right += v;
    }
    const bool usable = c != T{0} && c - c == T{0};
    wl[p] = usable ? -left / c : T{0};
    wr[p] = usable ? -right / c : T{0};
  });
}

template <class Exec, class T>
void restrict_by_stencil(const Exec& exec, Geometry fine, Geometry coarse, int d, bool periodic,
                         const T* wl, const T* wr, const T* r_f, T* r_c) {
  // Neighbours in d by strides, computed here: a cell as an array indexed
  // by the runtime d would sit in local memory, and the loop would run at
  // a fraction of the memory bandwidth.
  const detail::AxisStrides a = detail::axis_strides(fine, d);
  box_loop(exec, coarse.extent(), [=] STRATA_HD(size_type I, size_type J, size_type K) {
    const size_type fi = a.d == 0 ? 2 * I : I, fj = a.d == 1 ? 2 * J : J,
                    fk = a.d == 2 ? 2 * K : K;
    const size_type t = a.d == 0 ? fi : a.d == 1 ? fj : fk;
    const size_type g = fine.gidx(fi, fj, fk), p = fine.cidx(fi, fj, fk);
    const size_type wrap_g = (a.n - 1) * a.ghosted, wrap_p = (a.n - 1) * a.compact;
    T acc = r_f[g];
    if (t >= 1) acc += wr[p - a.compact] * r_f[g - a.ghosted];
    else if (periodic) acc += wr[p + wrap_p] * r_f[g + wrap_g];
    if (t + 1 < a.n) acc += wl[p + a.compact] * r_f[g + a.ghosted];
    else if (periodic) acc += wl[p - wrap_p] * r_f[g - wrap_g];
    r_c[coarse.gidx(I, J, K)] = acc;
  });
}

template <class Exec, class T>
void interpolate_add(const Exec& exec, Geometry fine, Geometry coarse, int d, bool periodic,
                     const T* wl, const T* wr, const T* e_c, T* x_f, bool add) {
  const detail::AxisStrides a = detail::axis_strides(coarse, d);  // see restrict_by_stencil
  box_loop(exec, fine.extent(), [=] STRATA_HD(size_type i, size_type j, size_type k) {
    const size_type f = a.d == 0 ? i : a.d == 1 ? j : k;
    const size_type gc = coarse.gidx(a.d == 0 ? i >> 1 : i, a.d == 1 ? j >> 1 : j,
                                     a.d == 2 ? k >> 1 : k);
    T v = e_c[gc];
    if (f & 1) {
      const size_type p = fine.cidx(i, j, k);
      v *= wl[p];
      if ((f >> 1) + 1 < a.n) v += wr[p] * e_c[gc + a.ghosted];
      else if (periodic) v += wr[p] * e_c[gc - (a.n - 1) * a.ghosted];
    }
    const size_type g = fine.gidx(i, j, k);
    x_f[g] = add ? x_f[g] + v : v;
  });
}

template <class Exec, class T>
void galerkin_product(const Exec& exec, Geometry fine, Geometry coarse, int d,
                      const Shape& fine_shape, std::array<bool, 3> periodic, const T* fine_coef,
                      const T* wl, const T* wr, OffsetTable coarse_table, int coarse_entries,
                      T* coarse_coef) {
  const Shape s = fine_shape;
  const size_type fine_points = fine.points(), coarse_points = coarse.points();
  const bool p0 = periodic[0], p1 = periodic[1], p2 = periodic[2];
  const bool pd = periodic[d];
  box_loop(exec, coarse.extent(), [=] STRATA_HD(size_type I, size_type J, size_type K) {
    T acc[27];
    for (int e = 0; e < 27; ++e) acc[e] = T{0};
    const size_type C[3] = {I, J, K};
    for (int a = -1; a <= 1; ++a) {
      // Fine cell i = 2I + a (in d) and R(I, i) = P(i, I); in a periodic d
      // the cell before fine cell 0 is the last one.
      size_type fi[3] = {I, J, K};
      fi[d] = 2 * C[d] + a;
      if (pd) fi[d] = detail::wrap(fi[d], fine.n[d]);
      if (fi[d] < 0 || fi[d] >= fine.n[d]) continue;
      const size_type pi = fine.cidx(fi[0], fi[1], fi[2]);
      const T r = a == 0 ? T{1} : (a < 0 ? wr[pi] : wl[pi]);
      if (r == T{0}) continue;
      for (int e = 0; e < s.size; ++e) {
        // j = i + o: jd unwrapped (relative to 2I, so that the coarse
        // offsets below stay in [-1, 1]); fj wrapped, where j is read.
        const size_type jd = 2 * C[d] + a + s.o[e][d];
        size_type fj[3] = {fi[0] + s.o[e][0], fi[1] + s.o[e][1], fi[2] + s.o[e][2]};
        if (!detail::locate(fine, p0, p1, p2, fj[0], fj[1], fj[2])) continue;
        const T ra = r * fine_coef[e * fine_points + pi];
        // Coarse cells that fine cell j interpolates from, with P(j, J);
        // jd - 1 and jd are even where they are halved, so the divisions
        // are exact for negative jd too.
        int off[3] = {s.o[e][0], s.o[e][1], s.o[e][2]};
        if (jd % 2 == 0) {
          off[d] = static_cast<int>(jd / 2 - C[d]);
          acc[(off[0] + 1) + 3 * (off[1] + 1) + 9 * (off[2] + 1)] += ra;
        } else {
          const size_type pj = fine.cidx(fj[0], fj[1], fj[2]);
          off[d] = static_cast<int>((jd - 1) / 2 - C[d]);
          acc[(off[0] + 1) + 3 * (off[1] + 1) + 9 * (off[2] + 1)] += ra * wl[pj];
          if (pd || (jd + 1) / 2 < coarse.n[d]) {
            off[d] += 1;
            acc[(off[0] + 1) + 3 * (off[1] + 1) + 9 * (off[2] + 1)] += ra * wr[pj];
          }
        }
      }
    }
    const size_type pc = coarse.cidx(I, J, K);
    for (int c = 0; c < 27; ++c) {
      const int e = coarse_table.entry[c];
      if (e >= 0) coarse_coef[e * coarse_points + pc] = acc[c];
    }
    (void)coarse_entries;
  });
}

template <class Exec, class T>
void non_galerkin_product(const Exec& exec, Geometry fine, Geometry coarse, int d,
                          const Shape& shape, int center, std::array<bool, 3> periodic,
                          const T* fine_coef, const T* wl, const T* wr, T* coarse_coef) {
  const Shape s = shape;
  const size_type fine_points = fine.points(), coarse_points = coarse.points();
  const bool p0 = periodic[0], p1 = periodic[1], p2 = periodic[2];
  const bool pd = periodic[d];
  const detail::AxisStrides ax = detail::axis_strides(fine, d);  // see restrict_by_stencil
  box_loop(exec, coarse.extent(), [=] STRATA_HD(size_type I, size_type J, size_type K) {
    // The fine cell f = 2I of the coarse cell and its two fine neighbours
    // in d (wrapped in a periodic d; below: outside the fine grid).
    const size_type f0 = ax.d == 0 ? 2 * I : I, f1 = ax.d == 1 ? 2 * J : J,
                    f2 = ax.d == 2 ? 2 * K : K;
    const size_type t = ax.d == 0 ? f0 : ax.d == 1 ? f1 : f2;
    const size_type pf = fine.cidx(f0, f1, f2), wrap = (ax.n - 1) * ax.compact;
    const size_type below = t >= 1 ? pf - ax.compact : pd ? pf + wrap : -1;
    const size_type above = t + 1 < ax.n ? pf + ax.compact : pd ? pf - wrap : -1;
    const size_type pc = coarse.cidx(I, J, K);
    T diagonal = fine_coef[center * fine_points + pf];
    for (int e = 0; e < s.size; ++e) {
      if (e == center) continue;
      // An entry reaching outside a non-periodic boundary is not part of
      // the operator (the products skip it): it stays zero.
      size_type a = f0 + s.o[e][0], b = f1 + s.o[e][1], q = f2 + s.o[e][2];
      T value{0};
      if (detail::locate(fine, p0, p1, p2, a, b, q)) {
        const T v = fine_coef[e * fine_points + pf];
        if (s.o[e][d] != 0) {
          // Across the coarsening direction: the Galerkin coupling of the
          // 1D problem, through the fine cell in between (P's weight of it
          // towards the far coarse cell; the rest of it stays at I).
          const size_type m = s.o[e][d] < 0 ? below : above;
          const T far = m < 0 ? T{0} : (s.o[e][d] < 0 ? wl[m] : wr[m]);
          const T near = m < 0 ? T{0} : (s.o[e][d] < 0 ? wr[m] : wl[m]);
          value = v * far;
          diagonal += v * near;
        } else if (v != T{0}) {
          // Along the coarse plane: the coupling of the slab of fine cells
          // 2I - 1/2 .. 2I + 1/2 the coarse cell stands for (half of each
          // neighbouring plane), kept zero where the fine one is zero.
          value = v;
          if (below >= 0) value += T(0.5) * fine_coef[e * fine_points + below];
          if (above >= 0) value += T(0.5) * fine_coef[e * fine_points + above];
          diagonal += v - value;
        }
      }
      coarse_coef[e * coarse_points + pc] = value;
    }
    coarse_coef[center * coarse_points + pc] = diagonal;
  });
}

template <class Exec, class T>
T symmetry_defect(const Exec& exec, Geometry geo, const Shape& shape, int center, EntryMap mirror,
                  std::array<bool, 3> periodic, const T* coef) {
  const Shape s = shape;
  const size_type points = geo.points();
  const bool p0 = periodic[0], p1 = periodic[1], p2 = periodic[2];
  return box_reduce(
      exec, geo.extent(), T{0},
      [=] STRATA_HD(size_type i, size_type j, size_type k) -> T {
        const size_type p = geo.cidx(i, j, k);
        const T dp = coef[center * points + p];
        T worst{0};
        for (int e = 0; e < s.size; ++e) {
          const int m = mirror.e[e];
          if (m < 0 || e == center) continue;
          size_type a = i + s.o[e][0], b = j + s.o[e][1], c = k + s.o[e][2];
          if (!detail::locate(geo, p0, p1, p2, a, b, c)) continue;
          const size_type q = geo.cidx(a, b, c);
          const T u = coef[e * points + p], v = coef[m * points + q], dq = coef[center * points + q];
          const T diff = u > v ? u - v : v - u;
          T scale = u < T{0} ? -u : u;
          const T abs_v = v < T{0} ? -v : v, abs_p = dp < T{0} ? -dp : dp,
                  abs_q = dq < T{0} ? -dq : dq;
          scale = abs_v > scale ? abs_v : scale;
          scale = abs_p > scale ? abs_p : scale;
          scale = abs_q > scale ? abs_q : scale;
          // Non-finite entries: differences that are not numbers count as
          // infinitely asymmetric.
          const T r = diff == T{0} ? T{0} : (diff - diff == T{0} ? diff / scale : std::numeric_limits<T>::infinity());
          worst = r > worst ? r : worst;
        }
        return worst;
      },
      ops::Max{});
}

template <class Exec, class T>
std::array<T, 6> direction_coupling(const Exec& exec, Geometry geo, const Shape& shape,
                                    const T* coef, std::array<bool, 3> periodic) {
  const Shape s = shape;
  const size_type points = geo.points();
  const bool p0 = periodic[0], p1 = periodic[1], p2 = periodic[2];
  // One pass over the coefficients for every direction (the setup's
  // largest read of the finest matrix, once instead of six times).
  const CouplingSums<T> sums = box_reduce(
      exec, geo.extent(), CouplingSums<T>{},
      [=] STRATA_HD(size_type i, size_type j, size_type k) -> CouplingSums<T> {
        CouplingSums<T> c{};
        for (int e = 0; e < s.size; ++e) {
          size_type a = i + s.o[e][0], b = j + s.o[e][1], q = k + s.o[e][2];
          if (!detail::locate(geo, p0, p1, p2, a, b, q)) continue;
          const T v = coef[e * points + geo.cidx(i, j, k)];
          for (int d = 0; d < 3; ++d) {
            if (s.o[e][d] != 0) c.v[2 * d] -= v;
          }
        }
        for (int d = 0; d < 3; ++d) c.v[2 * d + 1] = c.v[2 * d] * c.v[2 * d];
        return c;
      },
      ops::Plus{});
  return {sums.v[0], sums.v[1], sums.v[2], sums.v[3], sums.v[4], sums.v[5]};
}

template <class Exec, class T>
T largest_relative_row_sum(const Exec& exec, Geometry geo, int entries, const T* coef, int center) {
  const size_type points = geo.points();
  return box_reduce(
      exec, geo.extent(), T{0},
      [=] STRATA_HD(size_type i, size_type j, size_type k) -> T {
        const size_type p = geo.cidx(i, j, k);
        T sum{0};
        for (int e = 0; e < entries; ++e) sum += coef[e * points + p];
        const T diagonal = coef[center * points + p];
        const T a = sum < T{0} ? -sum : sum, b = diagonal < T{0} ? -diagonal : diagonal;
        // A zero diagonal counts as a nonzero row sum (bad_diagonal rejects it).
        return b > T{0} ? a / b : std::numeric_limits<T>::infinity();
      },
      ops::Max{});
}

template <class Exec, class T>
void merge_entries(const Exec& exec, Geometry geo, int entries, EntryMap map, int merged_entries,
                   const T* coef, T* merged) {
  const size_type points = geo.points();
  box_loop(exec, geo.extent(), [=] STRATA_HD(size_type i, size_type j, size_type k) {
    const size_type p = geo.cidx(i, j, k);
    for (int f = 0; f < merged_entries; ++f) merged[f * points + p] = T{0};
    for (int e = 0; e < entries; ++e) merged[map.e[e] * points + p] += coef[e * points + p];
  });
}

template <class Exec, class T>
void bad_diagonal(const Exec& exec, Geometry geo, const T* coef, int center, size_type* first) {
  constexpr size_type none = no_bad_cell;
  // Below the smallest normal number, 1 / a overflows (a subnormal double
  // diagonal, or a double one that rounds to a subnormal float).
  const T smallest = std::numeric_limits<T>::min();
  const size_type points = geo.points();
  transform_reduce_to(
      exec, points, none,
      [=] STRATA_HD(size_type p) -> size_type {
        const T a = coef[center * points + p];
        return ((a < T{0} ? -a : a) >= smallest && a - a == T{0}) ? none : p;
      },
      ops::Min{}, first);
}

template <class Exec>
void csr_row_counts(const Exec& exec, Geometry geo, const Shape& shape,
                    std::array<bool, 3> periodic, offset_type* counts) {
  const Shape s = shape;
  const bool p0 = periodic[0], p1 = periodic[1], p2 = periodic[2];
  box_loop(exec, geo.extent(), [=] STRATA_HD(size_type i, size_type j, size_type k) {
    offset_type n = 0;
    for (int e = 0; e < s.size; ++e) {
      const bool in0 = p0 || (i + s.o[e][0] >= 0 && i + s.o[e][0] < geo.n[0]);
      const bool in1 = p1 || (j + s.o[e][1] >= 0 && j + s.o[e][1] < geo.n[1]);
      const bool in2 = p2 || (k + s.o[e][2] >= 0 && k + s.o[e][2] < geo.n[2]);
      n += (in0 && in1 && in2) ? 1 : 0;
    }
    counts[geo.cidx(i, j, k)] = n;
  });
}

template <class Exec, class T>
void csr_fill(const Exec& exec, Geometry geo, const Shape& shape, EntryMap order,
              std::array<bool, 3> periodic, const T* coef, const offset_type* row_ptr,
              index_type* col, T* values) {
  const Shape s = shape;
  const bool p0 = periodic[0], p1 = periodic[1], p2 = periodic[2];
  const size_type points = geo.points();
  box_loop(exec, geo.extent(), [=] STRATA_HD(size_type i, size_type j, size_type k) {
    const size_type row = geo.cidx(i, j, k);
    offset_type at = row_ptr[row];
    for (int e = 0; e < s.size; ++e) {
      size_type a = i + s.o[e][0], b = j + s.o[e][1], c = k + s.o[e][2];
      if (p0) a = detail::wrap(a, geo.n[0]);
      if (p1) b = detail::wrap(b, geo.n[1]);
      if (p2) c = detail::wrap(c, geo.n[2]);
      if (!geo.inside(a, b, c)) continue;
      col[at] = static_cast<index_type>(geo.cidx(a, b, c));
      values[at] = coef[order.e[e] * points + row];
      ++at;
    }
  });
}

template <class Exec, class T>
void anisotropic_coefficients(const Exec& exec, Geometry geo, bool three_d, std::array<T, 3> c,
                              std::array<bool, 3> periodic, T* coef) {
  const size_type points = geo.points();
  const T cx = c[0], cy = c[1], cz = three_d ? c[2] : T{0};
  const T diagonal = three_d ? 2 * (cx + cy + cz) : 2 * (cx + cy);
  const bool p0 = periodic[0], p1 = periodic[1], p2 = periodic[2];
  box_loop(exec, geo.extent(), [=] STRATA_HD(size_type i, size_type j, size_type k) {
    const size_type p = geo.cidx(i, j, k);
    coef[p] = diagonal;
    coef[1 * points + p] = p0 || i > 0 ? -cx : T{0};
    coef[2 * points + p] = p0 || i + 1 < geo.n[0] ? -cx : T{0};
    coef[3 * points + p] = p1 || j > 0 ? -cy : T{0};
    coef[4 * points + p] = p1 || j + 1 < geo.n[1] ? -cy : T{0};
    if (three_d) {
      coef[5 * points + p] = p2 || k > 0 ? -cz : T{0};
      coef[6 * points + p] = p2 || k + 1 < geo.n[2] ? -cz : T{0};
    }
  });
}

namespace detail {
/// gallery::jumps3d's coefficient field (kernels/gallery/gallery_kernels.ipp,
/// Jumps3dRow): kappa = contrast in the cells whose centre lies in an odd
/// coefficient cell in every direction; harmonic face averages.
struct JumpsField {
  size_type nx, ny, nz;
  double contrast;
  std::uint64_t pattern;
  STRATA_HD bool in_odd_cell(size_type i, size_type n) const {
    const std::uint64_t c =
        (2 * static_cast<std::uint64_t>(i) + 1) * pattern / (2 * static_cast<std::uint64_t>(n));
    return c % 2 == 1;
  }
  STRATA_HD double kappa(size_type i, size_type j, size_type k) const {
    return in_odd_cell(i, nx) && in_odd_cell(j, ny) && in_odd_cell(k, nz) ? contrast : 1.0;
  }
  STRATA_HD static double face(double a, double b) { return a == b ? a : 2.0 * a * b / (a + b); }
};
}  // namespace detail

template <class Exec, class T>
void jumps_coefficients(const Exec& exec, Geometry geo, T contrast, int inclusions_per_dim,
                        T* coef) {
  const size_type points = geo.points();
  const detail::JumpsField field{geo.n[0], geo.n[1], geo.n[2], contrast,
                                 2 * static_cast<std::uint64_t>(inclusions_per_dim) + 1};
  box_loop(exec, geo.extent(), [=] STRATA_HD(size_type i, size_type j, size_type k) {
    const size_type p = geo.cidx(i, j, k);
    const double kp = field.kappa(i, j, k);
    // The same faces and the same order of additions as the CSR gallery, so
    // that the two matrices agree bit for bit.
    const bool inside[6] = {k > 0, j > 0, i > 0, i + 1 < geo.n[0], j + 1 < geo.n[1],
                            k + 1 < geo.n[2]};
    double w[6];
    w[0] = inside[0] ? field.face(kp, field.kappa(i, j, k - 1)) : kp;
    w[1] = inside[1] ? field.face(kp, field.kappa(i, j - 1, k)) : kp;
    w[2] = inside[2] ? field.face(kp, field.kappa(i - 1, j, k)) : kp;
    w[3] = inside[3] ? field.face(kp, field.kappa(i + 1, j, k)) : kp;
    w[4] = inside[4] ? field.face(kp, field.kappa(i, j + 1, k)) : kp;
    w[5] = inside[5] ? field.face(kp, field.kappa(i, j, k + 1)) : kp;
    coef[p] = ((w[2] + w[3]) + (w[1] + w[4])) + (w[0] + w[5]);
    // seven_point order: centre, -x, +x, -y, +y, -z, +z.
    coef[1 * points + p] = inside[2] ? -w[2] : T{0};
    coef[2 * points + p] = inside[3] ? -w[3] : T{0};
    coef[3 * points + p] = inside[1] ? -w[1] : T{0};
    coef[4 * points + p] = inside[4] ? -w[4] : T{0};
    coef[5 * points + p] = inside[0] ? -w[0] : T{0};
    coef[6 * points + p] = inside[5] ? -w[5] : T{0};
  });
}

}  // namespace strata::kernels::structured
