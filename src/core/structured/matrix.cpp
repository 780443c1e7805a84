// Structured vectors and matrices: argument checks, then box-loop kernels
// where the data lives.

#include "strata/structured/matrix.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <numeric>
#include <string>
#include <vector>

#include "core/structured/geometry.hpp"
#include "kernels/structured/structured_kernels.hpp"
#include "strata/core/primitives.hpp"

namespace strata::structured {

namespace ks = kernels::structured;

namespace {

/// Throws unless `box` is a non-empty box inside the grid.
void check_box_in_grid(const StructGrid& grid, const Box& box, const char* who) {
  require(!box.empty(), std::string(who) + ": box " + to_string(box) + " is empty");
  require(grid.box().contains(box), std::string(who) + ": box " + to_string(box) +
                                        " is not inside the grid's box " + to_string(grid.box()));
}

template <class T>
void check_values(const Array<T>& values, size_type expected, const Executor& exec,
                  const char* who, const std::string& meaning) {
  check_location(exec, values.executor(), "values", who);
  if (values.size() != expected) {
    throw dimension_mismatch(std::string(who) + ": values has " + std::to_string(values.size()) +
                             " entries, expected " + std::to_string(expected) + " (" + meaning +
                             ")");
  }
}

/// Layout of the cells of `box` inside an array over `data_box`.
ks::BoxLayout sub_layout(const Box& data_box, const Box& box) {
  const size_type dims[3] = {data_box.extent(0), data_box.extent(1), data_box.extent(2)};
  const size_type start[3] = {box.lower[0] - data_box.lower[0], box.lower[1] - data_box.lower[1],
                              box.lower[2] - data_box.lower[2]};
  const size_type one[3] = {1, 1, 1};
  return ks::layout_of(dims, start, one);
}

ks::Extent extent_of(const Box& box) { return {{box.extent(0), box.extent(1), box.extent(2)}}; }

template <class T>
void check_same_grid(const StructGrid& a, const StructGrid& b, const char* name, const char* who) {
  require(a == b, std::string(who) + ": " + name + " is on the grid " + to_string(b.box()) +
                      ", the matrix on " + to_string(a.box()) +
                      " (grids must be equal, periodicity included)");
}

}  // namespace

// ---------------------------------------------------------------- StructVector

template <class T>
StructVector<T>::StructVector(Executor exec, StructGrid grid, int ghost_width)
    : grid_(std::move(grid)), ghost_(ghost_width) {
  require(ghost_width >= 1 && ghost_width <= Stencil::max_reach,
          "StructVector: ghost_width must be in [1, " + std::to_string(Stencil::max_reach) +
              "], got " + std::to_string(ghost_width));
  data_box_ = grid_.box();
  for (int d = 0; d < grid_.ndim(); ++d) {
    data_box_.lower[d] -= ghost_;
    data_box_.upper[d] += ghost_;
  }
  // Ghosts start (and, without periodicity, stay) zero: they are the
  // eliminated Dirichlet boundary values.
  data_ = Array<T>(std::move(exec), data_box_.volume(), T{0});
}

template <class T>
void StructVector<T>::set_box_values(const Box& box, const Array<T>& values, Mode mode) {
  const char* who = "StructVector::set_box_values";
  check_box_in_grid(grid_, box, who);
  check_values(values, box.volume(), executor(), who, "one per cell of the box " + to_string(box));
  executor().visit([&](const auto& e) {
    ks::copy_box(e, extent_of(box), sub_layout(data_box_, box), data_.data(),
                 sub_layout(box, box), values.data(), mode == Mode::add);
  });
  update_ghosts();
}

template <class T>
void StructVector<T>::get_box_values(const Box& box, Array<T>& values) const {
  const char* who = "StructVector::get_box_values";
  check_box_in_grid(grid_, box, who);
  check_values(values, box.volume(), executor(), who, "one per cell of the box " + to_string(box));
  executor().visit([&](const auto& e) {
    ks::copy_box(e, extent_of(box), sub_layout(box, box), values.data(),
                 sub_layout(data_box_, box), data_.data(), false);
  });
}

template <class T>
void StructVector<T>::fill(T value) {
  const Box& box = grid_.box();
  executor().visit([&](const auto& e) {
    ks::fill_box(e, extent_of(box), sub_layout(data_box_, box), data_.data(), value);
  });
  update_ghosts();
}

template <class T>
void StructVector<T>::update_ghosts() {
  if (!grid_.any_periodic()) return;
  executor().visit([&](const auto& e) {
    ks::periodic_ghosts(e, detail::geometry(grid_, ghost_), grid_.periodic(), data_.data());
  });
}

template <class T>
void StructVector<T>::check_cell_vector(const Vector<T>& v, const char* who) const {
  check_location(executor(), v.executor(), "v", who);
  if (v.size() != grid_.points()) {
    throw dimension_mismatch(std::string(who) + ": v has " + std::to_string(v.size()) +
                             " entries, expected " + std::to_string(grid_.points()) +
                             " (one per cell)");
  }
}

template <class T>
void StructVector<T>::copy_to(Vector<T>& v) const {
  const char* who = "StructVector::copy_to";
  check_cell_vector(v, who);
  const Box& box = grid_.box();
  executor().visit([&](const auto& e) {
    ks::copy_box(e, extent_of(box), sub_layout(box, box), v.data(), sub_layout(data_box_, box),
                 data_.data(), false);
  });
}

template <class T>
void StructVector<T>::copy_from(const Vector<T>& v) {
  const char* who = "StructVector::copy_from";
  check_cell_vector(v, who);
  const Box& box = grid_.box();
  executor().visit([&](const auto& e) {
    ks::copy_box(e, extent_of(box), sub_layout(data_box_, box), data_.data(), sub_layout(box, box),
                 v.data(), false);
  });
  update_ghosts();
}

// ---------------------------------------------------------------- StructMatrix

template <class T>
StructMatrix<T>::StructMatrix(Executor exec, StructGrid grid, Stencil stencil, Storage storage)
    : grid_(std::move(grid)), stencil_(std::move(stencil)), storage_(storage) {
  require(stencil_.ndim() == grid_.ndim(),
          "StructMatrix: the stencil is " + std::to_string(stencil_.ndim()) + "D, the grid " +
              std::to_string(grid_.ndim()) + "D (they must agree)");
  if (storage_ == Storage::symmetric) {
    require(stencil_.find({0, 0, 0}) >= 0,
            "StructMatrix: symmetric storage needs the centre (0, 0, 0) in the stencil");
    for (int e = 0; e < stencil_.size(); ++e) {
      const Index& o = stencil_.offset(e);
      const int mirror = stencil_.find({-o[0], -o[1], -o[2]});
      require(o == Index{0, 0, 0} || mirror < 0,
              "StructMatrix: symmetric storage keeps one offset of each pair, but the stencil "
              "has offsets[" + std::to_string(e) + "] = " + to_string(o) + " and offsets[" +
                  std::to_string(mirror) + "] = " + to_string(stencil_.offset(std::max(mirror, 0))));
    }
  }
  coefficients_ = Array<T>(std::move(exec), grid_.points() * stencil_.size(), T{0});
}

template <class T>
StructMatrix<T> StructMatrix<T>::to_full() const {
  if (storage_ == Storage::full) {
    StructMatrix<T> copy_of(executor(), grid_, stencil_);
    copy(coefficients_, copy_of.coefficients_);
    return copy_of;
  }
  const int center = center_entry();
  std::vector<Index> offsets = stencil_.offsets();
  for (int e = 0; e < stencil_.size(); ++e) {
    if (e == center) continue;
    const Index& o = stencil_.offset(e);
    offsets.push_back({-o[0], -o[1], -o[2]});
  }
  StructMatrix<T> full(executor(), grid_, Stencil(grid_.ndim(), std::move(offsets)));
  executor().visit([&](const auto& e) {
    ks::expand_symmetric(e, detail::geometry(grid_, 0), detail::shape(stencil_), center,
                         grid_.periodic(), coefficients_.data(), full.coefficients_.data());
  });
  return full;
}

template <class T>
StructMatrix<T> StructMatrix<T>::to_symmetric(double tolerance) const {
  const char* who = "StructMatrix::to_symmetric";
  if (storage_ == Storage::symmetric) {
    StructMatrix<T> copy_of(executor(), grid_, stencil_, Storage::symmetric);
    copy(coefficients_, copy_of.coefficients_);
    return copy_of;
  }
  require(std::isnan(tolerance) == false && tolerance >= 0,
          std::string(who) + ": tolerance must be >= 0 (infinite: no check), got " +
              std::to_string(tolerance));
  const int center = center_entry();
  require(center >= 0, std::string(who) + ": the stencil has no centre (0, 0, 0)");
  // Lower: the last nonzero component (the largest stride) is negative.
  const auto lower = [](const Index& o) {
    return o[2] != 0 ? o[2] < 0 : o[1] != 0 ? o[1] < 0 : o[0] < 0;
  };
  ks::EntryMap mirror{};
  std::vector<int> kept{center};
  for (int e = 0; e < stencil_.size(); ++e) {
    const Index& o = stencil_.offset(e);
    mirror.e[e] = stencil_.find({-o[0], -o[1], -o[2]});
    require(mirror.e[e] >= 0, std::string(who) + ": offsets[" + std::to_string(e) +
                                  "] = " + to_string(o) + " has no mirror " +
                                  to_string(Index{-o[0], -o[1], -o[2]}) + " in the stencil");
    if (e != center && lower(o)) kept.push_back(e);
  }
  if (std::isfinite(tolerance)) {
    const double defect = executor().visit([&](const auto& e) {
      return double(ks::symmetry_defect(e, detail::geometry(grid_, 0), detail::shape(stencil_),
                                        center, mirror, grid_.periodic(), coefficients_.data()));
    });
    require(defect <= tolerance,
            std::string(who) + ": the matrix is not symmetric: a(p, q) and a(q, p) differ by " +
                std::to_string(defect) +
                " relative to the larger of them and the two diagonals (tolerance " +
                std::to_string(tolerance) + ")");
  }
  std::vector<Index> offsets;
  for (int e : kept) offsets.push_back(stencil_.offset(e));
  StructMatrix<T> half(executor(), grid_, Stencil(grid_.ndim(), std::move(offsets)),
                       Storage::symmetric);
  // Entry-major storage: each kept entry is one array of the cells.
  const size_type points = grid_.points();
  const Box& box = grid_.box();
  for (std::size_t s = 0; s < kept.size(); ++s) {
    ks::BoxLayout from = sub_layout(box, box), to = from;
    from.base += static_cast<size_type>(kept[s]) * points;
    to.base += static_cast<size_type>(s) * points;
    executor().visit([&](const auto& e) {
      ks::copy_box(e, extent_of(box), to, half.coefficients_.data(), from, coefficients_.data(),
                   false);
    });
  }
  return half;
}

template <class T>
void StructMatrix<T>::set_box_values(const Box& box, std::span<const int> entries,
                                     const Array<T>& values, Mode mode) {
  const char* who = "StructMatrix::set_box_values";
  check_box_in_grid(grid_, box, who);
  require(!entries.empty(), std::string(who) + ": entries must not be empty");
  for (std::size_t q = 0; q < entries.size(); ++q) {
    require(entries[q] >= 0 && entries[q] < stencil_.size(),
            std::string(who) + ": entries[" + std::to_string(q) + "] = " +
                std::to_string(entries[q]) + " is not a stencil entry (the stencil has " +
                std::to_string(stencil_.size()) + ")");
    for (std::size_t m = 0; m < q; ++m) {
      require(entries[m] != entries[q], std::string(who) + ": entries[" + std::to_string(q) +
                                            "] = " + std::to_string(entries[q]) +
                                            " repeats entries[" + std::to_string(m) + "]");
    }
  }
  const auto m = static_cast<size_type>(entries.size());
  check_values(values, box.volume() * m, executor(), who,
               std::to_string(entries.size()) + " per cell of the box " + to_string(box));
  const size_type points = grid_.points();
  const ks::BoxLayout dst = sub_layout(grid_.box(), box);
  for (size_type q = 0; q < m; ++q) {
    // Value q of a cell: entries fastest within the cell (hypre's order).
    const ks::BoxLayout src{q, {m, m * box.extent(0), m * box.extent(0) * box.extent(1)}};
    ks::BoxLayout to = dst;
    to.base += entries[static_cast<std::size_t>(q)] * points;
    executor().visit([&](const auto& e) {
      ks::copy_box(e, extent_of(box), to, coefficients_.data(), src, values.data(),
                   mode == Mode::add);
    });
  }
}

template <class T>
void StructMatrix<T>::fill_entry(int entry, T value) {
  require(entry >= 0 && entry < stencil_.size(),
          "StructMatrix::fill_entry: entry = " + std::to_string(entry) +
              " is not a stencil entry (the stencil has " + std::to_string(stencil_.size()) + ")");
  const Box& box = grid_.box();
  ks::BoxLayout to = sub_layout(box, box);
  to.base += entry * grid_.points();
  executor().visit([&](const auto& e) {
    ks::fill_box(e, extent_of(box), to, coefficients_.data(), value);
  });
}

template <class T>
CsrMatrix<T> StructMatrix<T>::to_csr() const {
  if (storage_ == Storage::symmetric) return to_full().to_csr();
  const auto geo = detail::geometry(grid_, 0);
  for (int d = 0; d < 3; ++d) {
    // The reach in this direction: a periodic direction no offset moves in
    // (e.g. one cell, its entries merged) folds nothing, whatever its size.
    std::int64_t reach = 0;
    for (const Index& o : stencil_.offsets()) reach = std::max<std::int64_t>(reach, std::abs(o[d]));
    if (grid_.periodic(d) && reach > 0) {
      require(geo.n[d] > 2 * reach,
              "StructMatrix::to_csr: periodic direction " + std::to_string(d) + " has " +
                  std::to_string(geo.n[d]) + " cells; it needs more than 2 * reach = " +
                  std::to_string(2 * reach) + " so that no two stencil entries fall on one column");
    }
  }
  // Entries ordered by their offset's place in the lexicographic numbering
  // (z, then y, then x): ascending columns in every row of a non-periodic grid.
  std::vector<int> order(static_cast<std::size_t>(stencil_.size()));
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](int a, int b) {
    const Index& oa = stencil_.offset(a);
    const Index& ob = stencil_.offset(b);
    return std::tie(oa[2], oa[1], oa[0]) < std::tie(ob[2], ob[1], ob[0]);
  });
  ks::Shape sorted{};
  ks::EntryMap map{};
  sorted.size = stencil_.size();
  for (int k = 0; k < stencil_.size(); ++k) {
    map.e[k] = order[static_cast<std::size_t>(k)];
    for (int d = 0; d < 3; ++d) sorted.o[k][d] = static_cast<int>(stencil_.offset(map.e[k])[d]);
  }
  const size_type n = grid_.points();
  const Executor& exec = executor();
  Array<offset_type> row_ptr(exec, n + 1, offset_type{0});
  exec.visit([&](const auto& e) {
    ks::csr_row_counts(e, geo, sorted, grid_.periodic(), row_ptr.data());
  });
  // Counts in row_ptr[0, n), row_ptr[n] = 0: the scan turns them into offsets.
  const offset_type nnz = exclusive_scan(row_ptr, row_ptr);
  Array<index_type> col(exec, nnz);
  Array<T> values(exec, nnz);
  exec.visit([&](const auto& e) {
    ks::csr_fill(e, geo, sorted, map, grid_.periodic(), coefficients_.data(), row_ptr.data(),
                 col.data(), values.data());
  });
  return CsrMatrix<T>(n, n, std::move(row_ptr), std::move(col), std::move(values));
}

// ---------------------------------------------------------------- products

template <class T>
void matvec(T alpha, const StructMatrix<T>& A, const StructVector<T>& x, T beta,
            StructVector<T>& y) {
  const char* who = "structured::matvec";
  check_location(A.executor(), x.executor(), "x", who);
  check_location(A.executor(), y.executor(), "y", who);
  check_same_grid<T>(A.grid(), x.grid(), "x", who);
  check_same_grid<T>(A.grid(), y.grid(), "y", who);
  require(&x != &y, std::string(who) + ": x and y must be distinct vectors");
  require(x.ghost_width() >= A.stencil().reach(),
          std::string(who) + ": x has " + std::to_string(x.ghost_width()) +
              " ghost layers, the stencil reaches " + std::to_string(A.stencil().reach()));
  const auto gx = detail::geometry(x.grid(), x.ghost_width());
  const auto gy = detail::geometry(y.grid(), y.ghost_width());
  const auto yl = detail::cell_layout(gy, true);
  A.executor().visit([&](const auto& e) {
    if (A.storage() == Storage::symmetric) {
      ks::symmetric_product(e, gx, detail::shape(A.stencil()), A.center_entry(),
                            A.coefficients().data(), A.grid().periodic(), alpha, x.data().data(),
                            beta, y.data().data(), yl, y.data().data(), yl);
    } else {
      ks::stencil_product(e, gx, detail::shape(A.stencil()), A.coefficients().data(), alpha,
                          x.data().data(), beta, y.data().data(), yl, y.data().data(), yl);
    }
  });
  y.update_ghosts();
}

template <class T>
void residual(const StructMatrix<T>& A, const StructVector<T>& b, const StructVector<T>& x,
              StructVector<T>& r) {
  const char* who = "structured::residual";
  check_location(A.executor(), b.executor(), "b", who);
  check_location(A.executor(), x.executor(), "x", who);
  check_location(A.executor(), r.executor(), "r", who);
  check_same_grid<T>(A.grid(), b.grid(), "b", who);
  check_same_grid<T>(A.grid(), x.grid(), "x", who);
  check_same_grid<T>(A.grid(), r.grid(), "r", who);
  require(&x != &r, std::string(who) + ": r must not be x");
  require(x.ghost_width() >= A.stencil().reach(),
          std::string(who) + ": x has " + std::to_string(x.ghost_width()) +
              " ghost layers, the stencil reaches " + std::to_string(A.stencil().reach()));
  const auto gx = detail::geometry(x.grid(), x.ghost_width());
  const auto bl = detail::cell_layout(detail::geometry(b.grid(), b.ghost_width()), true);
  const auto rl = detail::cell_layout(detail::geometry(r.grid(), r.ghost_width()), true);
  A.executor().visit([&](const auto& e) {
    if (A.storage() == Storage::symmetric) {
      ks::symmetric_product(e, gx, detail::shape(A.stencil()), A.center_entry(),
                            A.coefficients().data(), A.grid().periodic(), T{-1}, x.data().data(),
                            T{1}, b.data().data(), bl, r.data().data(), rl);
    } else {
      ks::stencil_product(e, gx, detail::shape(A.stencil()), A.coefficients().data(), T{-1},
                          x.data().data(), T{1}, b.data().data(), bl, r.data().data(), rl);
    }
  });
  r.update_ghosts();
}

template <class T>
StructOperator<T>::StructOperator(std::shared_ptr<const StructMatrix<T>> A) : A_(std::move(A)) {
  require(A_ != nullptr, "StructOperator: A must not be null");
}

template <class T>
void StructOperator<T>::check(const Vector<T>& x, const Vector<T>& y, const char* who) const {
  check_location(executor(), x.executor(), "x", who);
  check_location(executor(), y.executor(), "y", who);
  if (x.size() != cols() || y.size() != rows()) {
    throw dimension_mismatch(std::string(who) + ": x has " + std::to_string(x.size()) +
                             " and y " + std::to_string(y.size()) + " entries, expected " +
                             std::to_string(rows()) + " (one per cell)");
  }
  require(x.data() != y.data() || x.size() == 0, std::string(who) + ": x and y must be distinct");
}

template <class T>
T StructOperator<T>::apply_dot(const Vector<T>& x, Vector<T>& y) const {
  check(x, y, "StructOperator::apply_dot");
  return executor().visit([&](const auto& e) {
    if (A_->storage() == Storage::symmetric) {
      return ks::symmetric_product_compact_dot(
          e, detail::geometry(A_->grid(), 0), detail::shape(A_->stencil()), A_->center_entry(),
          A_->coefficients().data(), A_->grid().periodic(), x.data(), y.data());
    }
    return ks::stencil_product_compact_dot(e, detail::geometry(A_->grid(), 0),
                                           detail::shape(A_->stencil()), A_->coefficients().data(),
                                           A_->grid().periodic(), x.data(), y.data());
  });
}

template <class T>
void StructOperator<T>::apply(const Vector<T>& x, Vector<T>& y) const {
  check(x, y, "StructOperator::apply");
  const auto geo = detail::geometry(A_->grid(), 0);
  executor().visit([&](const auto& e) {
    if (A_->storage() == Storage::symmetric) {
      const auto yl = detail::cell_layout(geo, false);
      ks::symmetric_product(e, geo, detail::shape(A_->stencil()), A_->center_entry(),
                            A_->coefficients().data(), A_->grid().periodic(), T{1}, x.data(), T{0},
                            y.data(), yl, y.data(), yl);
    } else {
      ks::stencil_product_compact(e, geo, detail::shape(A_->stencil()), A_->coefficients().data(),
                                  A_->grid().periodic(), x.data(), y.data());
    }
  });
}

template <class T>
std::string StructOperator<T>::describe() const {
  const Box& b = A_->grid().box();
  return "struct " + std::to_string(b.extent(0)) + "x" + std::to_string(b.extent(1)) +
         (A_->grid().ndim() == 3 ? "x" + std::to_string(b.extent(2)) : std::string()) + " " +
         std::to_string(A_->stencil().size()) + "-point";
}

template class StructVector<double>;
template class StructMatrix<double>;
template class StructOperator<double>;
template void matvec(double, const StructMatrix<double>&, const StructVector<double>&, double,
                     StructVector<double>&);
template void residual(const StructMatrix<double>&, const StructVector<double>&,
                       const StructVector<double>&, StructVector<double>&);
// float: the levels and vectors of PFMG's single-precision cycle.
template class StructVector<float>;
template class StructMatrix<float>;
template void residual(const StructMatrix<float>&, const StructVector<float>&,
                       const StructVector<float>&, StructVector<float>&);

// ---------------------------------------------------------------- gallery

namespace gallery {

namespace {
void check_size(std::int64_t n, const char* name, const char* who) {
  require(n >= 1, std::string(who) + ": " + name + " must be >= 1, got " + std::to_string(n));
}
void check_coefficient(double c, const std::string& name, const char* who) {
  require(c > 0 && std::isfinite(c),
          std::string(who) + ": " + name + " must be positive and finite, got " + std::to_string(c));
}
}  // namespace

StructMatrix<double> anisotropic3d(const Executor& exec, std::int64_t nx, std::int64_t ny,
                                   std::int64_t nz, std::array<double, 3> c,
                                   std::array<bool, 3> periodic) {
  const char* who = "structured::gallery::anisotropic3d";
  check_size(nx, "nx", who);
  check_size(ny, "ny", who);
  check_size(nz, "nz", who);
  for (int d = 0; d < 3; ++d) check_coefficient(c[d], "c[" + std::to_string(d) + "]", who);
  StructMatrix<double> A(exec, StructGrid::from_extents(3, {nx, ny, nz}, periodic),
                         Stencil::seven_point());
  exec.visit([&](const auto& e) {
    ks::anisotropic_coefficients(e, detail::geometry(A.grid(), 0), true, c, periodic,
                                 A.coefficients().data());
  });
  return A;
}

StructMatrix<double> poisson3d(const Executor& exec, std::int64_t nx, std::int64_t ny,
                               std::int64_t nz) {
  return anisotropic3d(exec, nx, ny, nz, {1.0, 1.0, 1.0});
}

StructMatrix<double> anisotropic2d(const Executor& exec, std::int64_t nx, std::int64_t ny,
                                   std::array<double, 2> c, std::array<bool, 2> periodic) {
  const char* who = "structured::gallery::anisotropic2d";
  check_size(nx, "nx", who);
  check_size(ny, "ny", who);
  for (int d = 0; d < 2; ++d) check_coefficient(c[d], "c[" + std::to_string(d) + "]", who);
  const std::array<bool, 3> p{periodic[0], periodic[1], false};
  StructMatrix<double> A(exec, StructGrid::from_extents(2, {nx, ny, 1}, p), Stencil::five_point());
  exec.visit([&](const auto& e) {
    ks::anisotropic_coefficients(e, detail::geometry(A.grid(), 0), false,
                                 std::array<double, 3>{c[0], c[1], 0.0}, p,
                                 A.coefficients().data());
  });
  return A;
}

StructMatrix<double> jumps3d(const Executor& exec, std::int64_t nx, std::int64_t ny,
                             std::int64_t nz, double contrast, int inclusions_per_dim) {
  const char* who = "structured::gallery::jumps3d";
  check_size(nx, "nx", who);
  check_size(ny, "ny", who);
  check_size(nz, "nz", who);
  check_coefficient(contrast, "contrast", who);
  require(inclusions_per_dim >= 1, std::string(who) + ": inclusions_per_dim must be >= 1, got " +
                                       std::to_string(inclusions_per_dim));
  StructMatrix<double> A(exec, StructGrid::from_extents(3, {nx, ny, nz}), Stencil::seven_point());
  exec.visit([&](const auto& e) {
    ks::jumps_coefficients(e, detail::geometry(A.grid(), 0), contrast, inclusions_per_dim,
                           A.coefficients().data());
  });
  return A;
}

}  // namespace gallery

}  // namespace strata::structured
