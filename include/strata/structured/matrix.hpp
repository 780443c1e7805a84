#pragma once
/// \file
/// Structured vectors and matrices (the hypre paper, section 3.1): data laid
/// out on the boxes of a StructGrid, on one executor, filled by box with set
/// or add semantics; the stencil matrix-vector product, the residual and the
/// bridge to CSR so that every AMG in Strata can solve structured input.
///
/// Layout: cells of a box are lexicographic with x fastest, the order of
/// gallery.hpp, so to_csr() of a structured gallery problem numbers its
/// unknowns like the CSR gallery does. A StructVector stores a ghost layer
/// around its box; a StructMatrix stores one coefficient array per stencil
/// entry over the box itself (no ghosts: a matrix is never read at a
/// neighbour's position).
///
/// Boundaries: a coefficient that reaches outside a non-periodic boundary
/// multiplies the ghost value, which is zero: the Dirichlet condition is
/// eliminated, as in the CSR gallery, whatever that coefficient holds. In a
/// periodic direction the ghost holds the periodic image instead
/// (StructVector::update_ghosts()).

#include <memory>
#include <span>
#include <string>

#include "strata/core/array.hpp"
#include "strata/matrix/csr.hpp"
#include "strata/matrix/vector.hpp"
#include "strata/solver/operator.hpp"
#include "strata/structured/grid.hpp"

namespace strata::structured {

/// How values given by box combine with what is stored.
enum class Mode { set, add };

/// A vector on the cells of a grid, with `ghost_width` ghost layers in every
/// direction of the grid's dimension (none in z for 2D). Ghosts are zero
/// except in periodic directions after update_ghosts(); kernels never write
/// them otherwise.
template <class T>
class StructVector {
 public:
  /// Zero everywhere. ghost_width in [1, Stencil::max_reach].
  StructVector(Executor exec, StructGrid grid, int ghost_width = 1);

  const StructGrid& grid() const noexcept { return grid_; }
  const Executor& executor() const noexcept { return data_.executor(); }
  int ghost_width() const noexcept { return ghost_; }
  /// The box with its ghost layers: the extent of the stored data.
  const Box& data_box() const noexcept { return data_box_; }
  /// Stored values, ghosts included, lexicographic over data_box().
  const Array<T>& data() const noexcept { return data_; }
  Array<T>& data() noexcept { return data_; }

  /// Sets (or adds to) the cells of `box` from `values`: box.volume()
  /// values, x fastest, on this vector's executor. `box` must lie in the grid.
  void set_box_values(const Box& box, const Array<T>& values, Mode mode = Mode::set);
  /// The values of the cells of `box` (inside the grid), x fastest, into
  /// `values` (box.volume() entries, on this vector's executor).
  void get_box_values(const Box& box, Array<T>& values) const;
  /// Every cell (not the ghosts) set to `value`.
  void fill(T value);

  /// Ghost cells of periodic directions take the values of their periodic
  /// images; a no-op without periodicity (ghosts stay zero).
  void update_ghosts();

  /// The cells as a plain vector (grid().points() values, x fastest): what
  /// Krylov methods and CSR matrices work on.
  void copy_to(Vector<T>& v) const;
  /// The cells from a plain vector; ghosts are refreshed (update_ghosts()).
  void copy_from(const Vector<T>& v);

 private:
  /// v lives here and has one entry per cell (location_mismatch,
  /// dimension_mismatch naming `who` otherwise).
  void check_cell_vector(const Vector<T>& v, const char* who) const;

  StructGrid grid_;
  int ghost_;
  Box data_box_;
  Array<T> data_;
};

/// How a StructMatrix stores its stencil.
enum class Storage {
  /// Every entry of the stencil has its coefficients.
  full,
  /// hypre's symmetric storage: the stencil holds the centre and one offset
  /// of each pair {o, -o}; entry o at cell p is a(p, p + o) and, by
  /// symmetry, a(p + o, p). About half the coefficients of full storage.
  symmetric,
};

/// A matrix on a grid: one coefficient per cell and stencil entry. Zero
/// after construction.
///
/// Coefficients are stored entry by entry (all cells of entry 0, then entry
/// 1, ...), so that the product reads each array with unit stride.
template <class T>
class StructMatrix {
 public:
  /// With Storage::symmetric the stencil must hold (0, 0, 0) and never both
  /// o and -o (invalid_argument naming the pair otherwise).
  StructMatrix(Executor exec, StructGrid grid, Stencil stencil, Storage storage = Storage::full);

  Storage storage() const noexcept { return storage_; }
  /// The same matrix in full storage (a copy for a full one): the stored
  /// entries, then -o for every stored o != 0 with a(p, p - o) = entry o at
  /// p - o (zero where p - o is outside a non-periodic boundary).
  StructMatrix to_full() const;
  /// The same matrix in symmetric storage: the centre and, of each pair
  /// {o, -o}, the offset reaching a lower cell (x fastest: hypre's choice),
  /// in the stencil's order; a copy for a symmetric one. Products, residuals
  /// and PFMG's smoothers on it read about half the coefficients. Throws
  /// invalid_argument when the stencil has no centre or lacks the mirror of
  /// an offset, or when some a(p, q) and a(q, p) (q inside the grid, or
  /// across a periodic boundary) differ by more than `tolerance` times the
  /// largest of them and the two diagonals (saying by how much). The check
  /// is one pass over the coefficients; an infinite tolerance skips it,
  /// for a caller that knows A is symmetric up to rounding (the kept entry
  /// of each pair is then the operator).
  StructMatrix to_symmetric(double tolerance = 0.0) const;

  const StructGrid& grid() const noexcept { return grid_; }
  const Stencil& stencil() const noexcept { return stencil_; }
  const Executor& executor() const noexcept { return coefficients_.executor(); }
  /// grid().points() x stencil().size() coefficients, entry-major.
  const Array<T>& coefficients() const noexcept { return coefficients_; }
  Array<T>& coefficients() noexcept { return coefficients_; }
  /// Entry of the (0, 0, 0) offset, or -1 when the stencil has none.
  int center_entry() const noexcept { return stencil_.find({0, 0, 0}); }

  /// Sets (or adds to) the coefficients of stencil entries `entries` at the
  /// cells of `box`. `values` (on this matrix's executor) has
  /// box.volume() * entries.size() values ordered as in hypre's
  /// SetBoxValues: cells x fastest, and the given entries fastest within a
  /// cell. `box` must lie in the grid; entries must be distinct and valid.
  void set_box_values(const Box& box, std::span<const int> entries, const Array<T>& values,
                      Mode mode = Mode::set);
  /// Every coefficient of entry `entry` set to `value`.
  void fill_entry(int entry, T value);

  /// The same matrix as CSR on the same executor (rows and columns are the
  /// cells, x fastest). Entries reaching outside a non-periodic boundary are
  /// dropped (Dirichlet elimination, as in the gallery); stored zeros inside
  /// the grid are kept, so the pattern is the stencil's. Columns within a
  /// row are ascending when the grid is not periodic (a symmetric matrix
  /// is converted through to_full()). A periodic direction
  /// must have more than 2 * reach cells (the stencil's reach in that
  /// direction; any number when no offset moves in it), so that no two
  /// entries fold onto one column.
  CsrMatrix<T> to_csr() const;

 private:
  StructGrid grid_;
  Stencil stencil_;
  Array<T> coefficients_;
  Storage storage_ = Storage::full;
};

/// y = alpha A x + beta y over the cells (beta == 0 overwrites y). x's
/// ghosts must be current (update_ghosts() after changing x in a periodic
/// grid); x and y are on A's grid, executor, and distinct.
template <class T>
void matvec(T alpha, const StructMatrix<T>& A, const StructVector<T>& x, T beta,
            StructVector<T>& y);

/// r = b - A x over the cells (r may be b; not x).
template <class T>
void residual(const StructMatrix<T>& A, const StructVector<T>& b, const StructVector<T>& x,
              StructVector<T>& r);

/// A StructMatrix as a LinearOperator on plain vectors of grid().points()
/// values (x fastest), for the Krylov methods. The product reads x where it
/// is (a boundary test per neighbour instead of ghosts), so it moves the
/// same bytes as matvec() on StructVectors.
template <class T>
class StructOperator final : public LinearOperator<T> {
 public:
  explicit StructOperator(std::shared_ptr<const StructMatrix<T>> A);
  size_type rows() const override { return A_->grid().points(); }
  size_type cols() const override { return A_->grid().points(); }
  const Executor& executor() const override { return A_->executor(); }
  void apply(const Vector<T>& x, Vector<T>& y) const override;
  /// y = A x and x^T y from one pass over the cells.
  T apply_dot(const Vector<T>& x, Vector<T>& y) const override;
  std::string describe() const override;
  const StructMatrix<T>& matrix() const noexcept { return *A_; }

 private:
  void check(const Vector<T>& x, const Vector<T>& y, const char* who) const;

  std::shared_ptr<const StructMatrix<T>> A_;
};

/// The gallery's problems built through the structured interface, in
/// parallel where `exec` says. Without periodicity, to_csr() of each equals
/// the CSR gallery function named beside it, entry for entry.
namespace gallery {

/// 7-point -c_x u_xx - c_y u_yy - c_z u_zz on nx x ny x nz cells: diagonal
/// 2 (c_x + c_y + c_z), -c_d to the two neighbours in direction d; the
/// coefficients reaching outside the grid are zero (Dirichlet), except in
/// the directions with periodic[d], where they couple to the periodic
/// image (-c_d). c = (1, 1, 1) without periodicity is
/// strata::gallery::poisson3d. Each c_d > 0 and finite. Periodic in every
/// direction, the matrix is singular (rows sum to zero; the constants are
/// its null space): A x = b is solvable for b of zero sum only.
StructMatrix<double> anisotropic3d(const Executor& exec, std::int64_t nx, std::int64_t ny,
                                   std::int64_t nz, std::array<double, 3> c = {1.0, 1.0, 1.0},
                                   std::array<bool, 3> periodic = {false, false, false});

/// strata::gallery::poisson3d on the structured interface.
StructMatrix<double> poisson3d(const Executor& exec, std::int64_t nx, std::int64_t ny,
                               std::int64_t nz);

/// 5-point -c_x u_xx - c_y u_yy on nx x ny cells; c = (1, 1) is
/// strata::gallery::poisson2d, (1, epsilon) is
/// strata::gallery::anisotropic2d(epsilon, theta = 0). periodic[d] as in
/// anisotropic3d.
StructMatrix<double> anisotropic2d(const Executor& exec, std::int64_t nx, std::int64_t ny,
                                   std::array<double, 2> c = {1.0, 1.0},
                                   std::array<bool, 2> periodic = {false, false});

/// strata::gallery::jumps3d (cell-centred finite volumes, harmonic face
/// averages, coefficient `contrast` in p^3 inclusions) on the structured
/// interface, with the same JumpsOptions meaning and checks.
StructMatrix<double> jumps3d(const Executor& exec, std::int64_t nx, std::int64_t ny,
                             std::int64_t nz, double contrast = 1.0e6, int inclusions_per_dim = 2);

}  // namespace gallery

}  // namespace strata::structured
