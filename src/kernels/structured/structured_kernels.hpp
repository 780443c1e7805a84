#pragma once
// Kernel contract of the structured interface and PFMG. Every kernel is a
// box loop (box_loop.hpp); arrays are in the executor's memory.
//
// Conventions: a "ghosted" array is stored over its box grown by `g` cells
// on each side of the directions the grid has (Geometry::g), a "compact"
// array over the box itself. Matrix coefficients are compact and
// entry-major: coefficient e of cell p is coef[e * points + p].

#include <array>
#include <limits>

#include "kernels/structured/box_loop.hpp"
#include "strata/core/executor.hpp"
#include "strata/core/types.hpp"

namespace strata::kernels::structured {

inline constexpr int max_entries = 64;

/// The cells of one box and the ghost width of its vectors.
struct Geometry {
  /// Cells per direction.
  size_type n[3];
  /// Ghost layers per direction (0 in z for 2D).
  size_type g[3];
  STRATA_HD size_type points() const { return n[0] * n[1] * n[2]; }
  STRATA_HD size_type ghosted(int d) const { return n[d] + 2 * g[d]; }
  /// Index of cell (i, j, k) in a ghosted array.
  STRATA_HD size_type gidx(size_type i, size_type j, size_type k) const {
    return (i + g[0]) + ghosted(0) * ((j + g[1]) + ghosted(1) * (k + g[2]));
  }
  /// Index of cell (i, j, k) in a compact array.
  STRATA_HD size_type cidx(size_type i, size_type j, size_type k) const {
    return i + n[0] * (j + n[1] * k);
  }
  STRATA_HD bool inside(size_type i, size_type j, size_type k) const {
    return i >= 0 && i < n[0] && j >= 0 && j < n[1] && k >= 0 && k < n[2];
  }
  Extent extent() const { return {{n[0], n[1], n[2]}}; }
};

/// A map between the entries of two stencils (by value into the kernels):
/// the matrix entry of each entry of a reordered Shape (csr_fill), or the
/// merged entry of each entry (merge_entries).
struct EntryMap {
  int e[max_entries];
};

/// Stencil offsets as a kernel argument (passed by value).
struct Shape {
  int size;
  int o[max_entries][3];
};

/// Fixed-size table from an offset with components in [-1, 1] to a stencil
/// entry (-1: none): table[(ox + 1) + 3 (oy + 1) + 9 (oz + 1)].
struct OffsetTable {
  int entry[27];
};

/// dst(p) = src(p) (add: dst(p) += src(p)) over `extent`.
template <class Exec, class T>
void copy_box(const Exec& exec, Extent extent, BoxLayout dst_layout, T* dst, BoxLayout src_layout,
              const T* src, bool add);

/// dst(p) = To(src(p) 2^exponent) over `extent`, scaled exactly before
/// rounding: a vector entering or leaving a single-precision PFMG cycle,
/// its precision and its layout (ghosted or compact) changed in one pass.
template <class Exec, class To, class From>
void convert_box(const Exec& exec, Extent extent, BoxLayout dst_layout, To* dst,
                 BoxLayout src_layout, const From* src, int exponent);

/// convert_box, returning sum over the points of w(p) dst(p) (w in its own
/// layout) from the same pass: a single-precision cycle's result leaving
/// it as z = M r with r^T z (CG's next r^T z without reading r and z again).
template <class Exec, class To, class From>
To convert_box_dot(const Exec& exec, Extent extent, BoxLayout dst_layout, To* dst,
                   BoxLayout src_layout, const From* src, int exponent, BoxLayout w_layout,
                   const To* w);

/// dst(p) = value over `extent`.
template <class Exec, class T>
void fill_box(const Exec& exec, Extent extent, BoxLayout layout, T* dst, T value);

/// Ghost cells of a ghosted array in the directions with periodic[d] take
/// their periodic image; other ghosts are left as they are.
template <class Exec, class T>
void periodic_ghosts(const Exec& exec, Geometry geo, std::array<bool, 3> periodic, T* data);

/// y = alpha (A x) + beta z over the cells, A given by `shape` and
/// coefficients; x ghosted, z and y in their own layouts (z unread when
/// beta == 0; z may be y).
template <class Exec, class T>
void stencil_product(const Exec& exec, Geometry geo, const Shape& shape, const T* coef, T alpha,
                     const T* x, T beta, const T* z, BoxLayout z_layout, T* y, BoxLayout y_layout);

/// y = A x with x and y compact (no ghosts): neighbours outside a
/// non-periodic boundary are skipped, periodic ones wrapped. What a Krylov
/// method's product needs, without first copying x into a ghosted array.
template <class Exec, class T>
void stencil_product_compact(const Exec& exec, Geometry geo, const Shape& shape, const T* coef,
                             std::array<bool, 3> periodic, const T* x, T* y);

/// The same product, returning x^T y from the same pass (CG's p^T A p
/// without reading p and A p again).
template <class Exec, class T>
T stencil_product_compact_dot(const Exec& exec, Geometry geo, const Shape& shape, const T* coef,
                              std::array<bool, 3> periodic, const T* x, T* y);

/// The product of a symmetrically stored matrix (strata::structured::Storage
/// ::symmetric): y = alpha (A x) + beta z with
/// (A x)(p) = sum_s c_s(p) x(p + o_s) + sum_{s != center} c_s(p - o_s) x(p - o_s),
/// neighbours outside a non-periodic boundary skipped, periodic ones
/// wrapped. x is stored over the cells grown by x_geo.g ghosts (0: plain);
/// z and y in their layouts (z unread when beta == 0).
template <class Exec, class T>
void symmetric_product(const Exec& exec, Geometry x_geo, const Shape& shape, int center,
                       const T* coef, std::array<bool, 3> periodic, T alpha, const T* x, T beta,
                       const T* z, BoxLayout z_layout, T* y, BoxLayout y_layout);

/// symmetric_product with x and y compact (beta = 0, alpha = 1), returning
/// x^T y from the same pass (CG's p^T A p on a symmetrically stored A).
template <class Exec, class T>
T symmetric_product_compact_dot(const Exec& exec, Geometry geo, const Shape& shape, int center,
                                const T* coef, std::array<bool, 3> periodic, const T* x, T* y);

/// Full storage of a symmetric matrix: entries [0, shape.size) copied, then
/// for the k-th stored entry s != center (in order), entry shape.size + k
/// with offset -o_s: coef_full at p = c_s(p - o_s), 0 outside the grid.
template <class Exec, class T>
void expand_symmetric(const Exec& exec, Geometry geo, const Shape& shape, int center,
                      std::array<bool, 3> periodic, const T* coef, T* coef_full);

/// x = omega b / a_center over the cells: a Jacobi sweep from x = 0 (no
/// product needed); ghosted arrays.
template <class Exec, class T>
void jacobi_from_zero(const Exec& exec, Geometry geo, const T* coef, int center, T omega,
                      const T* b, T* x);

/// A stencil matrix as the smoothers read it: offsets, coefficients
/// (compact, entry-major), the centre entry, and the storage. Symmetric
/// (strata::structured::Storage::symmetric): entry s at p is a(p, p + o_s)
/// and, mirrored, a(p + o_s, p), so that a row reads the coefficients of
/// its mirrored entries at the neighbours (about half the bytes of full
/// storage); the periodic directions then say where those wrap.
template <class T>
struct StencilMatrix {
  Shape shape;
  const T* coef;
  int center;
  bool symmetric;
  std::array<bool, 3> periodic;
};

/// t(p) = omega (b - A x)(p) / a_center(p) at the cells of colour `colour`
/// ((i + j + k + parity) mod 2; -1: all cells); b, x, t ghosted. Returns
/// nothing; a zero diagonal was excluded at setup.
template <class Exec, class T>
void relax_correction(const Exec& exec, Geometry geo, const StencilMatrix<T>& A, T omega,
                      const T* b, const T* x, T* t, int colour, int parity);

/// One weighted Jacobi sweep into separate storage:
/// x_new = x + omega (b - A x) / a_center over the cells (ghosted arrays;
/// x_new's ghosts are not written).
template <class Exec, class T>
void jacobi_sweep(const Exec& exec, Geometry geo, const StencilMatrix<T>& A, T omega, const T* b,
                  const T* x, T* x_new);

/// x(p) += t(p) at the cells of `colour` (-1: all); ghosted arrays.
template <class Exec, class T>
void add_correction(const Exec& exec, Geometry geo, const T* t, T* x, int colour, int parity);

/// PFMG interpolation weights in direction d, from the stencil collapsed
/// onto that direction: at every fine cell, with c = sum of the
/// coefficients whose offset has no d component, wl = -(sum with offset
/// -1 in d) / c and wr = -(sum with +1 in d) / c (coefficients reaching
/// outside a non-periodic boundary count as zero; across a periodic one
/// they count). Where c is zero or not finite, wl = wr = 0 (such a cell
/// takes nothing from the coarse grid; no reduction, so the setup does not
/// wait for the device here).
template <class Exec, class T>
void interpolation_weights(const Exec& exec, Geometry fine, const Shape& shape, const T* coef,
                           int d, std::array<bool, 3> periodic, T* wl, T* wr);

/// Coarse cell I <-> fine cell 2 I in direction d (the same cell in the
/// others). r_c(I) = r_f(2I) + wr(2I-1) r_f(2I-1) + wl(2I+1) r_f(2I+1):
/// restriction by P^T. Fine cells outside the fine box are dropped, or,
/// when d is periodic (an even number of fine cells), wrapped: coarse cell
/// 0 takes fine cell n - 1. r_f and r_c ghosted (their ghosts unread),
/// weights compact on the fine box.
template <class Exec, class T>
void restrict_by_stencil(const Exec& exec, Geometry fine, Geometry coarse, int d, bool periodic,
                         const T* wl, const T* wr, const T* r_f, T* r_c);

/// x_f += P e_c (add), or x_f = P e_c (not add: x_f unread, for a level
/// whose x is still zero): x_f(2I) += e_c(I); x_f(2I+1) += wl e_c(I) +
/// wr e_c(I+1) (a coarse cell outside the coarse box contributes nothing,
/// or, when d is periodic, is wrapped: the last fine cell takes coarse cell
/// 0). x_f's ghosts are not written.
template <class Exec, class T>
void interpolate_add(const Exec& exec, Geometry fine, Geometry coarse, int d, bool periodic,
                     const T* wl, const T* wr, const T* e_c, T* x_f, bool add);

/// The Galerkin coarse operator P^T A P computed on stencils: for each coarse
/// cell I, the sum over the fine cells i in {2I-1, 2I, 2I+1} (weight 1, or
/// P's weight of i towards I), the fine entries s with j = i + o_s inside
/// the fine box, and the coarse cells J that j interpolates from, of
/// R(I, i) a_s(i) P(j, J), added to the coarse entry of offset J - I.
/// In a periodic direction i and j are wrapped where they are read, and
/// J - I is taken before wrapping, so that the coarse stencil keeps its
/// offsets in [-1, 1] and the coarse grid is periodic with half the period
/// (the fine period must be even in d). Fine offsets within [-1, 1];
/// `coarse_table` maps every offset that occurs to a coarse entry.
template <class Exec, class T>
void galerkin_product(const Exec& exec, Geometry fine, Geometry coarse, int d, const Shape& fine_shape,
                      std::array<bool, 3> periodic, const T* fine_coef, const T* wl, const T* wr,
                      OffsetTable coarse_table, int coarse_entries, T* coarse_coef);

/// The non-Galerkin coarse operator of Ashby and Falgout's ParFlow PFMG
/// (hypre's rap_type 1) for a star stencil (every offset on an axis): the
/// coarse stencil has the fine one's offsets. For coarse cell I, fine cell
/// f = 2I (in d) and its fine neighbours f -/+ 1 in d:
///  - across d: the Galerkin coupling of the 1D problem, a_s(f) times P's
///    weight of f -/+ 1 towards I -/+ 1;
///  - along the coarse plane (offset without a d component): a_s(f) +
///    (a_s(f - 1) + a_s(f + 1)) / 2, the coupling of the slab the coarse
///    cell stands for; zero where a_s(f) is zero or reaches outside;
///  - the centre: such that A_c's row sums are those of P^T A P restricted
///    to f (constants stay in the null space of a zero-row-sum operator).
/// Fine neighbours outside a non-periodic boundary count as zero; a
/// periodic d wraps. Every level keeps 7 (5) entries instead of the
/// Galerkin 15 and 27, about half the bytes per V-cycle.
template <class Exec, class T>
void non_galerkin_product(const Exec& exec, Geometry fine, Geometry coarse, int d,
                          const Shape& shape, int center, std::array<bool, 3> periodic,
                          const T* fine_coef, const T* wl, const T* wr, T* coarse_coef);

/// max over the cells p and the entries s whose mirror (offset -o_s) is
/// entry mirror.e[s] (-1: none) of |c_s(p) - c_m(p + o_s)| divided by the
/// largest of |c_s(p)|, |c_m(p + o_s)| and the two cells' |diagonal| (0
/// where all are zero), over the neighbours p + o_s inside the grid
/// (wrapped in a periodic direction): how far a fully stored matrix is from
/// symmetric (0: exactly).
template <class Exec, class T>
T symmetry_defect(const Exec& exec, Geometry geo, const Shape& shape, int center, EntryMap mirror,
                  std::array<bool, 3> periodic, const T* coef);

/// Per-direction sums of direction_coupling, as one reduction value.
template <class T>
struct CouplingSums {
  T v[6] = {T{0}, T{0}, T{0}, T{0}, T{0}, T{0}};
  STRATA_HD friend CouplingSums operator+(const CouplingSums& a, const CouplingSums& b) {
    CouplingSums c;
    for (int q = 0; q < 6; ++q) c.v[q] = a.v[q] + b.v[q];
    return c;
  }
};

/// For each direction d, sums over the cells of c_d = -(sum of the
/// coefficients whose offset has a nonzero d component and reaches a cell
/// inside the grid, or across a periodic boundary), and of c_d squared, as
/// {sum c_0, sum c_0^2, sum c_1, sum c_1^2, sum c_2, sum c_2^2}: the coupling
/// strength per direction (PFMG's choice of the coarsening direction), in
/// one pass over the coefficients.
template <class Exec, class T>
std::array<T, 6> direction_coupling(const Exec& exec, Geometry geo, const Shape& shape,
                                    const T* coef, std::array<bool, 3> periodic);

/// max over the cells of |sum of the coefficients| / |coefficient `center`|
/// (every entry counted, as in a grid periodic in every direction): zero up
/// to rounding when the constants are in the matrix's null space.
template <class Exec, class T>
T largest_relative_row_sum(const Exec& exec, Geometry geo, int entries, const T* coef, int center);

/// merged(f, p) = sum of coef(e, p) over the entries e with map.e[e] == f
/// (f in [0, merged_entries)): stencil entries that reach the same cell
/// combined into one (a periodic direction of one cell).
template <class Exec, class T>
void merge_entries(const Exec& exec, Geometry geo, int entries, EntryMap map, int merged_entries,
                   const T* coef, T* merged);

/// What bad_diagonal writes when every diagonal is usable.
inline constexpr size_type no_bad_cell = std::numeric_limits<size_type>::max();

/// *first (exec's memory) = the smallest (and first) cell whose coefficient
/// `center` is zero, subnormal (its reciprocal overflows) or not finite,
/// no_bad_cell when none; written in stream order without waiting, so that
/// a setup checks every level's diagonal and waits once.
template <class Exec, class T>
void bad_diagonal(const Exec& exec, Geometry geo, const T* coef, int center, size_type* first);

/// Entries per CSR row of a structured matrix: the entries reaching a cell
/// inside the grid (after wrapping periodic directions).
template <class Exec>
void csr_row_counts(const Exec& exec, Geometry geo, const Shape& shape,
                    std::array<bool, 3> periodic, offset_type* counts);


/// Fills columns and values of the CSR rows (row_ptr from the counts),
/// entries in the order of `shape` (order.e[k] is the matrix entry whose
/// offset is shape entry k).
template <class Exec, class T>
void csr_fill(const Exec& exec, Geometry geo, const Shape& shape, EntryMap order,
              std::array<bool, 3> periodic, const T* coef, const offset_type* row_ptr,
              index_type* col, T* values);

/// 7-point (5-point when geo.n[2] == 1 and `three_d` is false) constant
/// anisotropic coefficients: centre 2 sum c_d, -c_d towards the neighbours
/// inside the grid or across a periodic boundary, 0 towards outside.
/// Entries in Stencil::seven_point / five_point order.
template <class Exec, class T>
void anisotropic_coefficients(const Exec& exec, Geometry geo, bool three_d, std::array<T, 3> c,
                              std::array<bool, 3> periodic, T* coef);

/// gallery::jumps3d's finite-volume coefficients in seven_point order.
template <class Exec, class T>
void jumps_coefficients(const Exec& exec, Geometry geo, T contrast, int inclusions_per_dim,
                        T* coef);

}  // namespace strata::kernels::structured
