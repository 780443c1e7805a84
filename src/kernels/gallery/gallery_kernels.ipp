// Single-source bodies of gallery_kernels.hpp. Included by one backend file
// after that backend's parallel header, so the unqualified parallel_for and
// exclusive_scan below resolve (by argument-dependent lookup on Exec) to that
// backend.
//
// Every problem is a "row functor": a small struct of scalars whose
//   template <class Emit> void operator()(size_type row, Emit& emit) const
// calls emit(column, value) for each entry of `row`, in ascending column
// order. assemble_by_rows() runs it twice over all rows: once to count, once
// to write.

#include <cstdint>
#include <utility>

#include "kernels/base/hd.hpp"
#include "kernels/gallery/gallery_kernels.hpp"

namespace strata::kernels::gallery {

namespace detail {

/// Emit target of the counting pass.
struct CountEntries {
  offset_type count = 0;
  STRATA_HD void operator()(size_type /*column*/, double /*value*/) { ++count; }
};

/// Emit target of the writing pass: consecutive slots of one row, the
/// column as Column (32-bit local indices of a whole matrix, 64-bit global
/// ids of a row range).
template <class Column>
struct WriteEntries {
  Column* column;
  double* value;
  STRATA_HD void operator()(size_type c, double v) {
    *column++ = static_cast<Column>(c);
    *value++ = v;
  }
};

/// The rows first .. first + count - 1 that row(i, emit) emits, compressed:
/// pass 1 stores the length of each row in row_ptr[i] and 0 in
/// row_ptr[count]; the exclusive scan over count + 1 entries turns these
/// into offsets and leaves nnz (64-bit) in row_ptr[count]; pass 2 writes
/// the entries.
template <class Column, class Exec, class Row>
void generate_rows(const Exec& exec, size_type first, size_type count, Row row,
                   Array<offset_type>& row_ptr, Array<Column>& col_idx, Array<double>& values) {
  row_ptr = Array<offset_type>(exec, count + 1);
  offset_type* ptr = row_ptr.data();
  parallel_for(exec, count + 1, [=] STRATA_HD(size_type i) {
    CountEntries counter;
    if (i < count) row(first + i, counter);
    ptr[i] = counter.count;
  });
  const offset_type nnz = exclusive_scan(exec, ptr, ptr, count + 1);

  col_idx = Array<Column>(exec, nnz);
  values = Array<double>(exec, nnz);
  Column* col = col_idx.data();
  double* val = values.data();
  parallel_for(exec, count, [=] STRATA_HD(size_type i) {
    WriteEntries<Column> writer{col + ptr[i], val + ptr[i]};
    row(first + i, writer);
  });
}

/// The CSR matrix whose row i holds the entries that row(i, emit) emits.
template <class Exec, class Row>
CsrMatrix<double> assemble_by_rows(const Exec& exec, size_type rows, size_type cols, Row row) {
  Array<offset_type> row_ptr;
  Array<index_type> col_idx;
  Array<double> values;
  generate_rows(exec, 0, rows, row, row_ptr, col_idx, values);
  return CsrMatrix<double>(rows, cols, std::move(row_ptr), std::move(col_idx), std::move(values));
}

/// Rows [first, first + count) with global column ids.
template <class Exec, class Row>
RowRange row_range(const Exec& exec, size_type first, size_type count, Row row) {
  RowRange range;
  generate_rows(exec, first, count, row, range.row_ptr, range.cols, range.values);
  return range;
}

/// Row of the 2D 5-point Laplacian at (i, j), row = i + nx j:
///   4 u(i,j) - u(i,j-1) - u(i-1,j) - u(i+1,j) - u(i,j+1).
struct Poisson2dRow {
  size_type nx, ny;

  template <class Emit>
  STRATA_HD void operator()(size_type row, Emit& emit) const {
    const size_type i = row % nx, j = row / nx;
    if (j > 0) emit(row - nx, -1.0);
    if (i > 0) emit(row - 1, -1.0);
    emit(row, 4.0);
    if (i + 1 < nx) emit(row + 1, -1.0);
    if (j + 1 < ny) emit(row + nx, -1.0);
  }
};

/// Row of the 2D 9-point Laplacian: 8 u(i,j) - sum_{0 < max(|di|,|dj|) <= 1} u(i+di, j+dj).
struct Poisson2d9ptRow {
  size_type nx, ny;

  template <class Emit>
  STRATA_HD void operator()(size_type row, Emit& emit) const {
    const size_type i = row % nx, j = row / nx;
    for (size_type dj = -1; dj <= 1; ++dj) {
      if (j + dj < 0 || j + dj >= ny) continue;
      for (size_type di = -1; di <= 1; ++di) {
        if (i + di < 0 || i + di >= nx) continue;
        const bool centre = di == 0 && dj == 0;
        emit(row + di + nx * dj, centre ? 8.0 : -1.0);
      }
    }
  }
};

/// Row of the 3D 7-point Laplacian at (i, j, k), row = i + nx (j + ny k):
///   6 u - u(k-1) - u(j-1) - u(i-1) - u(i+1) - u(j+1) - u(k+1).
struct Poisson3dRow {
  size_type nx, ny, nz;

  template <class Emit>
  STRATA_HD void operator()(size_type row, Emit& emit) const {
    const size_type i = row % nx, j = (row / nx) % ny, k = row / (nx * ny);
    const size_type plane = nx * ny;
    if (k > 0) emit(row - plane, -1.0);
    if (j > 0) emit(row - nx, -1.0);
    if (i > 0) emit(row - 1, -1.0);
    emit(row, 6.0);
    if (i + 1 < nx) emit(row + 1, -1.0);
    if (j + 1 < ny) emit(row + nx, -1.0);
    if (k + 1 < nz) emit(row + plane, -1.0);
  }
};

/// Row of the 3D 27-point operator: 26 u - sum of the 26 neighbours with
/// max(|di|, |dj|, |dk|) = 1.
struct Diffusion27Row {
  size_type nx, ny, nz;

  template <class Emit>
  STRATA_HD void operator()(size_type row, Emit& emit) const {
    const size_type i = row % nx, j = (row / nx) % ny, k = row / (nx * ny);
    for (size_type dk = -1; dk <= 1; ++dk) {
      if (k + dk < 0 || k + dk >= nz) continue;
      for (size_type dj = -1; dj <= 1; ++dj) {
        if (j + dj < 0 || j + dj >= ny) continue;
        for (size_type di = -1; di <= 1; ++di) {
          if (i + di < 0 || i + di >= nx) continue;
          const bool centre = di == 0 && dj == 0 && dk == 0;
          emit(row + di + nx * (dj + ny * dk), centre ? 26.0 : -1.0);
        }
      }
    }
  }
};

/// Row of a constant 3x3 stencil: sum_{dx,dy} stencil[dx+1][dy+1] u(i+dx, j+dy),
/// zero entries skipped.
struct Stencil2dRow {
  size_type nx, ny;
  Stencil2d stencil;

  template <class Emit>
  STRATA_HD void operator()(size_type row, Emit& emit) const {
    const size_type i = row % nx, j = row / nx;
    for (size_type dj = -1; dj <= 1; ++dj) {
      if (j + dj < 0 || j + dj >= ny) continue;
      for (size_type di = -1; di <= 1; ++di) {
        if (i + di < 0 || i + di >= nx) continue;
        const double value = stencil.entry[di + 1][dj + 1];
        if (value != 0.0) emit(row + di + nx * dj, value);
      }
    }
  }
};

/// Row of the jumps3d finite-volume matrix at cell P = (i, j, k):
///   sum_F w_F u_P - sum_{F interior} w_F u_Q(F),
/// over the six faces F of P, w_F = 2 kP kQ / (kP + kQ) for an interior face
/// to cell Q (kP when kP == kQ) and w_F = kP on the boundary.
struct Jumps3dRow {
  size_type nx, ny, nz;
  double contrast;
  /// Coefficient cells per direction, 2 * inclusions_per_dim + 1.
  std::uint64_t pattern;

  /// Whether the centre (i + 1/2) / n of cell i lies in an odd coefficient
  /// cell, i.e. floor((i + 1/2) / n * pattern) is odd; exact integer arithmetic.
  STRATA_HD bool in_odd_cell(size_type i, size_type n) const {
    const std::uint64_t c =
        (2 * static_cast<std::uint64_t>(i) + 1) * pattern / (2 * static_cast<std::uint64_t>(n));
    return c % 2 == 1;
  }
  STRATA_HD double kappa(size_type i, size_type j, size_type k) const {
    return in_odd_cell(i, nx) && in_odd_cell(j, ny) && in_odd_cell(k, nz) ? contrast : 1.0;
  }
  /// Harmonic average of the two cells' kappa (symmetric in a and b, bit for bit).
  STRATA_HD static double face(double a, double b) { return a == b ? a : 2.0 * a * b / (a + b); }

  template <class Emit>
  STRATA_HD void operator()(size_type row, Emit& emit) const {
    const size_type i = row % nx, j = (row / nx) % ny, k = row / (nx * ny);
    const size_type plane = nx * ny;
    const double kp = kappa(i, j, k);
    // Faces in ascending order of the neighbour's index: -z, -y, -x, +x, +y, +z.
    const bool inside[6] = {k > 0, j > 0, i > 0, i + 1 < nx, j + 1 < ny, k + 1 < nz};
    const size_type offset[6] = {-plane, -nx, -1, 1, nx, plane};
    double w[6];
    w[0] = inside[0] ? face(kp, kappa(i, j, k - 1)) : kp;
    w[1] = inside[1] ? face(kp, kappa(i, j - 1, k)) : kp;
    w[2] = inside[2] ? face(kp, kappa(i - 1, j, k)) : kp;
    w[3] = inside[3] ? face(kp, kappa(i + 1, j, k)) : kp;
    w[4] = inside[4] ? face(kp, kappa(i, j + 1, k)) : kp;
    w[5] = inside[5] ? face(kp, kappa(i, j, k + 1)) : kp;
    const double diagonal = ((w[2] + w[3]) + (w[1] + w[4])) + (w[0] + w[5]);
    for (int f = 0; f < 3; ++f) {
      if (inside[f]) emit(row + offset[f], -w[f]);
    }
    emit(row, diagonal);
    for (int f = 3; f < 6; ++f) {
      if (inside[f]) emit(row + offset[f], -w[f]);
    }
  }
};

/// Row of a constant 7-point stencil:
///   diagonal u + sum_d (lower[d] u(x - e_d) + upper[d] u(x + e_d)).
struct Stencil7Row {
  size_type nx, ny, nz;
  Stencil7 stencil;

  template <class Emit>
  STRATA_HD void operator()(size_type row, Emit& emit) const {
    const size_type i = row % nx, j = (row / nx) % ny, k = row / (nx * ny);
    const size_type plane = nx * ny;
    if (k > 0) emit(row - plane, stencil.lower[2]);
    if (j > 0) emit(row - nx, stencil.lower[1]);
    if (i > 0) emit(row - 1, stencil.lower[0]);
    emit(row, stencil.diagonal);
    if (i + 1 < nx) emit(row + 1, stencil.upper[0]);
    if (j + 1 < ny) emit(row + nx, stencil.upper[1]);
    if (k + 1 < nz) emit(row + plane, stencil.upper[2]);
  }
};

/// Row 3p + c of the clamped Q1 elasticity matrix (see elasticity3d in the
/// contract): for every free node q in the 3x3x3 box around p and d = 0..2,
///   A(3p+c, 3q+d) = sum_{e containing p and q} K_e[3 a_p(e) + c][3 a_q(e) + d].
/// The sum runs over the elements of the row's own node, so one process
/// generates its nodes' rows without any other process's elements.
struct ElasticityRow {
  size_type nex, ney, nez;  // elements per direction
  HexStiffness element;

  template <class Emit>
  STRATA_HD void operator()(size_type row, Emit& emit) const {
    const size_type p = row / 3, c = row % 3;
    const size_type ny1 = ney + 1;  // nodes in y
    const size_type i = p % nex + 1, j = (p / nex) % ny1, k = p / (nex * ny1);
    for (size_type qk = k - 1; qk <= k + 1; ++qk) {
      if (qk < 0 || qk > nez) continue;
      for (size_type qj = j - 1; qj <= j + 1; ++qj) {
        if (qj < 0 || qj > ney) continue;
        for (size_type qi = i - 1; qi <= i + 1; ++qi) {
          if (qi < 1 || qi > nex) continue;  // qi == 0 is clamped
          double block[3] = {0.0, 0.0, 0.0};
          // Elements (ex, ey, ez) containing both nodes: ex in [max(i,qi)-1, min(i,qi)]
          // and in [0, nex-1]; likewise in y and z.
          for (size_type ez = span_begin(k, qk); ez <= span_end(k, qk, nez); ++ez) {
            for (size_type ey = span_begin(j, qj); ey <= span_end(j, qj, ney); ++ey) {
              for (size_type ex = span_begin(i, qi); ex <= span_end(i, qi, nex); ++ex) {
                const size_type a = (i - ex) + 2 * (j - ey) + 4 * (k - ez);
                const size_type b = (qi - ex) + 2 * (qj - ey) + 4 * (qk - ez);
                for (int d = 0; d < 3; ++d) block[d] += element.entry[3 * a + c][3 * b + d];
              }
            }
          }
          const size_type q = (qi - 1) + nex * (qj + ny1 * qk);
          for (int d = 0; d < 3; ++d) emit(3 * q + d, block[d]);
        }
      }
    }
  }

  /// First and last element index (in one direction) that contains nodes m and n.
  STRATA_HD static size_type span_begin(size_type m, size_type n) {
    const size_type first = (m > n ? m : n) - 1;
    return first < 0 ? 0 : first;
  }
  /// (`elements`: the count in that direction.)
  STRATA_HD static size_type span_end(size_type m, size_type n, size_type elements) {
    const size_type last = m < n ? m : n;
    return last > elements - 1 ? elements - 1 : last;
  }
};

}  // namespace detail

template <class Exec>
CsrMatrix<double> poisson2d(const Exec& exec, size_type nx, size_type ny) {
  const size_type n = nx * ny;
  return detail::assemble_by_rows(exec, n, n, detail::Poisson2dRow{nx, ny});
}

template <class Exec>
CsrMatrix<double> poisson2d_9pt(const Exec& exec, size_type nx, size_type ny) {
  const size_type n = nx * ny;
  return detail::assemble_by_rows(exec, n, n, detail::Poisson2d9ptRow{nx, ny});
}

template <class Exec>
CsrMatrix<double> poisson3d(const Exec& exec, size_type nx, size_type ny, size_type nz) {
  const size_type n = nx * ny * nz;
  return detail::assemble_by_rows(exec, n, n, detail::Poisson3dRow{nx, ny, nz});
}

template <class Exec>
CsrMatrix<double> diffusion3d_27pt(const Exec& exec, size_type nx, size_type ny, size_type nz) {
  const size_type n = nx * ny * nz;
  return detail::assemble_by_rows(exec, n, n, detail::Diffusion27Row{nx, ny, nz});
}

template <class Exec>
CsrMatrix<double> anisotropic2d(const Exec& exec, size_type nx, size_type ny,
                                const Stencil2d& stencil) {
  const size_type n = nx * ny;
  return detail::assemble_by_rows(exec, n, n, detail::Stencil2dRow{nx, ny, stencil});
}

template <class Exec>
CsrMatrix<double> jumps3d(const Exec& exec, size_type nx, size_type ny, size_type nz,
                          double contrast, int inclusions_per_dim) {
  const size_type n = nx * ny * nz;
  const std::uint64_t pattern = 2 * static_cast<std::uint64_t>(inclusions_per_dim) + 1;
  return detail::assemble_by_rows(exec, n, n, detail::Jumps3dRow{nx, ny, nz, contrast, pattern});
}

template <class Exec>
CsrMatrix<double> convdiff3d(const Exec& exec, size_type nx, size_type ny, size_type nz,
                             const Stencil7& stencil) {
  const size_type n = nx * ny * nz;
  return detail::assemble_by_rows(exec, n, n, detail::Stencil7Row{nx, ny, nz, stencil});
}

template <class Exec>
CsrMatrix<double> elasticity3d(const Exec& exec, size_type nex, size_type ney, size_type nez,
                               const HexStiffness& element) {
  const size_type n = 3 * nex * (ney + 1) * (nez + 1);
  return detail::assemble_by_rows(exec, n, n, detail::ElasticityRow{nex, ney, nez, element});
}

template <class Exec>
RowRange elasticity3d_rows(const Exec& exec, size_type nex, size_type ney, size_type nez,
                           const HexStiffness& element, size_type first, size_type count) {
  return detail::row_range(exec, first, count, detail::ElasticityRow{nex, ney, nez, element});
}

template <class Exec>
RowRange poisson2d_rows(const Exec& exec, size_type nx, size_type ny, size_type first,
                        size_type count) {
  return detail::row_range(exec, first, count, detail::Poisson2dRow{nx, ny});
}

template <class Exec>
RowRange poisson3d_rows(const Exec& exec, size_type nx, size_type ny, size_type nz, size_type first,
                        size_type count) {
  return detail::row_range(exec, first, count, detail::Poisson3dRow{nx, ny, nz});
}

template <class Exec>
RowRange diffusion3d_27pt_rows(const Exec& exec, size_type nx, size_type ny, size_type nz,
                               size_type first, size_type count) {
  return detail::row_range(exec, first, count, detail::Diffusion27Row{nx, ny, nz});
}

template <class Exec>
RowRange anisotropic2d_rows(const Exec& exec, size_type nx, size_type ny, const Stencil2d& stencil,
                            size_type first, size_type count) {
  return detail::row_range(exec, first, count, detail::Stencil2dRow{nx, ny, stencil});
}

template <class Exec>
RowRange convdiff3d_rows(const Exec& exec, size_type nx, size_type ny, size_type nz,
                         const Stencil7& stencil, size_type first, size_type count) {
  return detail::row_range(exec, first, count, detail::Stencil7Row{nx, ny, nz, stencil});
}

template <class Exec>
void elasticity_coordinates(const Exec& exec, size_type nex, size_type ney, size_type per_unit,
                            size_type first_node, size_type nodes, double* coordinates) {
  parallel_for(exec, nodes, [=] STRATA_HD(size_type local) {
    const size_type p = first_node + local;
    const size_type ny1 = ney + 1;
    const size_type i = p % nex + 1, j = (p / nex) % ny1, k = p / (nex * ny1);
    const double scale = static_cast<double>(per_unit);
    coordinates[3 * local + 0] = static_cast<double>(i) / scale;
    coordinates[3 * local + 1] = static_cast<double>(j) / scale;
    coordinates[3 * local + 2] = static_cast<double>(k) / scale;
  });
}

template <class Exec>
void rigid_body_modes(const Exec& exec, size_type nodes, const double* coordinates,
                      ModePointers modes) {
  parallel_for(exec, nodes, [=] STRATA_HD(size_type p) {
    const double x = coordinates[3 * p], y = coordinates[3 * p + 1], z = coordinates[3 * p + 2];
    // mode[m][3p .. 3p+2] = the displacement of node p in mode m.
    const double value[6][3] = {{1.0, 0.0, 0.0}, {0.0, 1.0, 0.0}, {0.0, 0.0, 1.0},
                                {0.0, -z, y},    {z, 0.0, -x},    {-y, x, 0.0}};
    for (int m = 0; m < 6; ++m) {
      for (int c = 0; c < 3; ++c) modes.mode[m][3 * p + c] = value[m][c];
    }
  });
}

}  // namespace strata::kernels::gallery
