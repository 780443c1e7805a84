#pragma once
// Kernel contract of the model-problem gallery (strata/gallery/gallery.hpp).
// Each generator builds its matrix directly on the executor `exec`, row by
// row in parallel: every row is a pure function of its grid position, so the
// host and the device produce the same matrix, bit for bit (all coefficients
// that need sin, cos or a quadrature are computed once on the host and passed
// in by value). Column indices within a row are ascending.
//
// The arguments have been checked by the public entry points (src/core/
// gallery.cpp): sizes >= 1, the number of rows fits index_type, and the
// coefficients are valid. The bodies are in gallery_kernels.ipp.

#include <cstdint>

#include "strata/core/executor.hpp"
#include "strata/core/types.hpp"
#include "strata/matrix/csr.hpp"

namespace strata::kernels::gallery {

/// 5-point Laplacian on nx x ny points, row i + nx j:
///   4 u(i,j) - u(i-1,j) - u(i+1,j) - u(i,j-1) - u(i,j+1)
/// (neighbours outside the grid are Dirichlet zero and dropped).
template <class Exec>
CsrMatrix<double> poisson2d(const Exec& exec, size_type nx, size_type ny);

/// 9-point Laplacian: 8 u(i,j) - sum of the 8 neighbours with |di|,|dj| <= 1.
template <class Exec>
CsrMatrix<double> poisson2d_9pt(const Exec& exec, size_type nx, size_type ny);

/// 7-point Laplacian, row i + nx (j + ny k): 6 u - sum of the 6 face neighbours.
template <class Exec>
CsrMatrix<double> poisson3d(const Exec& exec, size_type nx, size_type ny, size_type nz);

/// 27-point operator: 26 u - sum of the 26 neighbours of the 3x3x3 box.
template <class Exec>
CsrMatrix<double> diffusion3d_27pt(const Exec& exec, size_type nx, size_type ny, size_type nz);

/// A constant 3x3 stencil: entry[dx+1][dy+1] couples (i,j) to (i+dx, j+dy).
struct Stencil2d {
  double entry[3][3];
};

/// The rotated anisotropic diffusion matrix: `stencil` (computed on the host
/// from epsilon and theta, see src/core/gallery.cpp) applied on nx x ny
/// points, neighbours outside the grid dropped. Entries that are exactly
/// zero are not stored, so theta = 0 (zero corners) gives a 5-point matrix.
template <class Exec>
CsrMatrix<double> anisotropic2d(const Exec& exec, size_type nx, size_type ny,
                                const Stencil2d& stencil);

/// Cell-centred finite volumes for -div(kappa grad u) on the nx x ny x nz
/// cells of the unit cube. kappa of cell (i,j,k) is `contrast` when its
/// centre lies in an inclusion (see gallery.hpp), 1 otherwise. The face
/// between cells P and Q has coefficient 2 kP kQ / (kP + kQ) (kP when equal);
/// a boundary face has coefficient kP. Row P: sum of its six face
/// coefficients on the diagonal, minus the face coefficient to each
/// neighbouring cell.
template <class Exec>
CsrMatrix<double> jumps3d(const Exec& exec, size_type nx, size_type ny, size_type nz,
                          double contrast, int inclusions_per_dim);

/// A constant 7-point stencil: for direction d (x, y, z) the neighbour at
/// -1 gets lower[d], the one at +1 gets upper[d]; the diagonal is `diagonal`.
struct Stencil7 {
  double lower[3];
  double upper[3];
  double diagonal;
};

/// The upwind convection-diffusion matrix: `stencil` (computed on the host
/// from the velocity and diffusion, see src/core/gallery.cpp) applied on
/// nx x ny x nz points, neighbours outside the grid dropped and the diagonal
/// kept whole.
template <class Exec>
CsrMatrix<double> convdiff3d(const Exec& exec, size_type nx, size_type ny, size_type nz,
                             const Stencil7& stencil);

/// Rows [first, first + count) of a problem with 64-bit global column ids:
/// what one process of a distributed matrix generates (each row is a
/// function of its global index, so the rows equal those of the whole
/// matrix). row_ptr has count + 1 entries starting at 0.
struct RowRange {
  Array<offset_type> row_ptr;
  Array<std::int64_t> cols;
  Array<double> values;
};

/// The row ranges of poisson2d, poisson3d, diffusion3d_27pt, anisotropic2d
/// and convdiff3d (same arguments, then the range).
template <class Exec>
RowRange poisson2d_rows(const Exec& exec, size_type nx, size_type ny, size_type first,
                        size_type count);
template <class Exec>
RowRange poisson3d_rows(const Exec& exec, size_type nx, size_type ny, size_type nz, size_type first,
                        size_type count);
template <class Exec>
RowRange diffusion3d_27pt_rows(const Exec& exec, size_type nx, size_type ny, size_type nz,
                               size_type first, size_type count);
template <class Exec>
RowRange anisotropic2d_rows(const Exec& exec, size_type nx, size_type ny, const Stencil2d& stencil,
                            size_type first, size_type count);
template <class Exec>
RowRange convdiff3d_rows(const Exec& exec, size_type nx, size_type ny, size_type nz,
                         const Stencil7& stencil, size_type first, size_type count);

/// Stiffness matrix of one Q1 hexahedron, entry [3a + c][3b + d] for local
/// nodes a, b (a = ax + 2 ay + 4 az, ax, ay, az in {0, 1}) and displacement
/// components c, d. Exactly symmetric. Computed on the host.
struct HexStiffness {
  double entry[24][24];
};

/// Assembles the Q1 elasticity matrix of a box of nex x ney x nez identical
/// elements with stiffness `element`, the nodes on x = 0 clamped
/// (eliminated). Free node p = (i-1) + nex (j + (ney+1) k), i = 1..nex,
/// j = 0..ney, k = 0..nez; unknown 3p + c. Entry (3p + c, 3q + d) = sum over
/// the elements e containing both p and q, in ascending element order, of
/// element.entry[3 a_p + c][3 a_q + d], a_p the local number of p in e. Every
/// pair of free nodes at distance <= 1 in each index has its full 3x3 block
/// stored. Each row is a function of its global index alone, so
/// elasticity3d_rows gives the same rows bit for bit.
template <class Exec>
CsrMatrix<double> elasticity3d(const Exec& exec, size_type nex, size_type ney, size_type nez,
                               const HexStiffness& element);

/// Rows [first, first + count) of elasticity3d (same arguments, then the
/// range), with global column ids.
template <class Exec>
RowRange elasticity3d_rows(const Exec& exec, size_type nex, size_type ney, size_type nez,
                           const HexStiffness& element, size_type first, size_type count);

/// coordinates[3 (p - first_node) + c] = (c-th index of free node p) /
/// per_unit for the nodes p = first_node .. first_node + nodes - 1 of the
/// numbering of elasticity3d (per_unit: elements per unit length, so the
/// elements are cubes of side 1 / per_unit); 3 nodes entries.
template <class Exec>
void elasticity_coordinates(const Exec& exec, size_type nex, size_type ney, size_type per_unit,
                            size_type first_node, size_type nodes, double* coordinates);

/// Where rigid_body_modes writes its six vectors.
struct ModePointers {
  double* mode[6];
};

/// For each node p with coordinates (x, y, z) = coordinates[3p .. 3p+2]:
///   mode 0..2: translations e_x, e_y, e_z;
///   mode 3: (0, -z, y), mode 4: (z, 0, -x), mode 5: (-y, x, 0)
/// (rotations about the x, y and z axes through the origin).
template <class Exec>
void rigid_body_modes(const Exec& exec, size_type nodes, const double* coordinates,
                      ModePointers modes);

}  // namespace strata::kernels::gallery
