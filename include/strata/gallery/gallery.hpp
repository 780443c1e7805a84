#pragma once
/// \file
/// Model problems, generated in parallel directly where they will be used
/// (each row is computed from its grid position, so a device matrix never
/// passes through host memory).
///
/// Grids are lexicographic with x fastest: the unknown of grid point
/// (i, j, k) on an nx x ny x nz grid (0 <= i < nx, ...) is i + nx * (j + ny * k).
/// Dirichlet boundaries are eliminated (the boundary nodes are not unknowns;
/// a neighbour outside the grid is simply dropped from the row), so every
/// matrix here is nonsingular; the stencils are not scaled by h^2, as with
/// hypre's `ij` driver. Column indices within a row are ascending. The
/// executor decides where the matrix is built; host and device builds give
/// the same matrix, bit for bit.
///
/// Every function throws invalid_argument naming the bad argument and its
/// value: a size < 1, a coefficient out of range, or a number of rows that
/// does not fit a 32-bit column index (nonzero counts are 64-bit).

#include <array>
#include <string>
#include <vector>

#include "strata/matrix/csr.hpp"
#include "strata/matrix/vector.hpp"

namespace strata::gallery {

/// 2D 5-point Laplacian on nx x ny interior points: row (i, j) is
///   4 u(i,j) - u(i-1,j) - u(i+1,j) - u(i,j-1) - u(i,j+1),
/// 5 nx ny - 2 nx - 2 ny nonzeros. Symmetric positive definite; eigenvalues
/// 4 - 2cos(pi a/(nx+1)) - 2cos(pi b/(ny+1)), a = 1..nx, b = 1..ny.
CsrMatrix<double> poisson2d(const Executor& exec, size_type nx, size_type ny);

/// 2D 9-point Laplacian (hypre `ij -9pt`): 8 on the diagonal, -1 to each of
/// the eight neighbours (faces and corners), (3 nx - 2)(3 ny - 2) nonzeros. SPD.
CsrMatrix<double> poisson2d_9pt(const Executor& exec, size_type nx, size_type ny);

/// 3D 7-point Laplacian on nx x ny x nz interior points (hypre `ij
/// -laplacian`): 6 on the diagonal, -1 to the six face neighbours
/// (7 n^3 - 6 n^2 nonzeros for n = nx = ny = nz). SPD; eigenvalues
/// sum_d (2 - 2cos(pi a_d/(n_d+1))), a_d = 1..n_d.
CsrMatrix<double> poisson3d(const Executor& exec, size_type nx, size_type ny, size_type nz);

/// 3D 27-point operator (hypre `ij -27pt`): 26 on the diagonal, -1 to each
/// of the 26 neighbours of the 3x3x3 box, (3 nx - 2)(3 ny - 2)(3 nz - 2)
/// nonzeros. SPD, weakly diagonally dominant.
CsrMatrix<double> diffusion3d_27pt(const Executor& exec, size_type nx, size_type ny,
                                   size_type nz);

/// 2D anisotropic diffusion -div(K grad u) with K = Q diag(1, epsilon) Q^T,
/// Q the rotation by `theta` radians, discretised by the standard 9-point
/// finite-difference stencil for a rotated anisotropic operator (the one of
/// pyamg.gallery.diffusion_stencil_2d, type "FD", its first axis read as x),
/// with h = 1. With C = cos(theta), S = sin(theta) and
///   k11 = C^2 + epsilon S^2,  k22 = S^2 + epsilon C^2,  k12 = (1 - epsilon) C S,
/// the coefficient of u(i+dx, j+dy) in row (i, j) is
///   (0, 0): 2 (1 + epsilon)     (+-1, 0): -k11     (0, +-1): -k22
///   (1, 1) and (-1, -1): -k12 / 2     (1, -1) and (-1, 1): +k12 / 2
/// (central differences for -(k11 u_xx + 2 k12 u_xy + k22 u_yy)). Entries
/// that are exactly zero are not stored: theta = 0 gives the 5-point matrix
/// of -u_xx - epsilon u_yy (2 + 2 epsilon on the diagonal, -1 to the x
/// neighbours, -epsilon to the y neighbours). SPD for every theta; an
/// M-matrix only when k12 = 0. Needs epsilon > 0 and theta finite.
CsrMatrix<double> anisotropic2d(const Executor& exec, size_type nx, size_type ny,
                                double epsilon, double theta);

/// Parameters of jumps3d.
struct JumpsOptions {
  /// Conductivity inside the inclusions; 1 outside. Must be > 0.
  double contrast = 1.0e6;
  /// Inclusions per direction, p >= 1: the unit cube is cut into m^3 equal
  /// coefficient cells, m = 2p + 1, and the cell (c_x, c_y, c_z),
  /// 0 <= c_d < m, is an inclusion when every c_d is odd (p^3 cubes of side
  /// 1/m that do not touch each other or the boundary).
  int inclusions_per_dim = 2;
};

/// 3D diffusion -div(kappa grad u) with a piecewise-constant coefficient
/// that jumps by `contrast` across inclusion boundaries, by cell-centred
/// finite volumes: the unknowns are the nx x ny x nz cells of the unit cube,
/// cell (i, j, k) has centre ((i + 1/2)/nx, (j + 1/2)/ny, (k + 1/2)/nz) and
/// kappa_P = `contrast` when its centre lies in an inclusion, 1 otherwise.
/// Each of the six faces of cell P has a coefficient w_F: the harmonic
/// average 2 kappa_P kappa_Q / (kappa_P + kappa_Q) for a face shared with
/// cell Q, and kappa_P for a face on the boundary (Dirichlet zero). Row P is
///   (sum of the six w_F) u_P - sum over interior faces of w_F u_Q,
/// not scaled by h. SPD, an M-matrix; rows away from the boundary sum to
/// zero; contrast = 1 gives poisson3d.
CsrMatrix<double> jumps3d(const Executor& exec, size_type nx, size_type ny, size_type nz,
                          const JumpsOptions& options = {});

/// Parameters of convdiff3d.
struct ConvDiffOptions {
  /// Constant velocity (b_x, b_y, b_z); finite.
  std::array<double, 3> velocity = {1.0, 0.5, 0.25};
  /// Diffusion coefficient nu; must be > 0.
  double diffusion = 1.0;
};

/// 3D convection-diffusion -nu Laplace(u) + b . grad u on the interior
/// points of the unit cube, spacing h_d = 1/(n_d + 1) in direction d,
/// central second differences, first-order upwind convection, 7 points,
/// every row multiplied by h^2 with h = min_d h_d. With r_d = h / h_d (1 on
/// a cube, nx = ny = nz = n, h = 1/(n+1)) the coefficients are
///   neighbour at -e_d: -(nu r_d^2 + h r_d max(b_d, 0))
///   neighbour at +e_d: -(nu r_d^2 + h r_d max(-b_d, 0))
///   diagonal:          sum_d (2 nu r_d^2 + h r_d |b_d|)
/// (on a cube 6 nu + h sum_d |b_d|). Nonsymmetric unless b = 0; an M-matrix;
/// rows away from the boundary sum to zero.
CsrMatrix<double> convdiff3d(const Executor& exec, size_type nx, size_type ny, size_type nz,
                             const ConvDiffOptions& options = {});

/// Parameters of elasticity3d.
struct ElasticityOptions {
  /// E, > 0.
  double youngs_modulus = 1.0;
  /// nu, in (-1, 0.5).
  double poisson_ratio = 0.3;
};

/// What elasticity3d returns.
struct ElasticityProblem {
  CsrMatrix<double> A;
  /// Node coordinates, 3 per node interleaved (x, y, z), on the same executor.
  Vector<double> coordinates;
  /// The six rigid-body modes (3 translations, then rotations about x, y,
  /// z), each a vector of A.rows() entries, on the same executor.
  std::vector<Vector<double>> rigid_body_modes;
};

/// 3D linear elasticity on the unit cube cut into ne x ne x ne trilinear (Q1)
/// hexahedra of side h = 1/ne, 3 unknowns per node interleaved (u_x, u_y,
/// u_z of node p are rows 3p, 3p+1, 3p+2). The face x = 0 is clamped: its
/// nodes are not unknowns, so there are ne (ne+1)^2 nodes and 3 ne (ne+1)^2
/// unknowns. Node (i, j, k) at (i h, j h, k h), i = 1..ne, j, k = 0..ne, is
/// node p = (i-1) + ne (j + (ne+1) k) (x fastest); the other faces are free
/// (no load is part of the matrix).
///
/// The element stiffness, the same for every element, is
///   K_e[3a+c][3b+d] = int_e lambda dN_a/dx_c dN_b/dx_d + mu dN_a/dx_d dN_b/dx_c
///                           + mu delta_cd grad N_a . grad N_b
/// (isotropic: lambda = E nu/((1+nu)(1-2nu)), mu = E/(2(1+nu))) by 2x2x2
/// Gauss quadrature, exact here. The row of (p, c) sums the contributions
/// of the (up to 8) elements containing p; its columns are the three
/// unknowns of each free node q with |i_p - i_q|, |j_p - j_q|, |k_p - k_q| <= 1,
/// stored as full 3x3 blocks even where an entry is zero, so there are
/// 9 (3 ne - 2)(3 ne + 1)^2 nonzeros. SPD. A times a rigid-body mode
/// vanishes at every row whose node has no clamped neighbour (i >= 2).
ElasticityProblem elasticity3d(const Executor& exec, size_type ne,
                               const ElasticityOptions& options = {});

/// The same on a box of nex x ney x nez elements, cubes of side
/// h = 1 / min(nex, ney, nez) (so the shortest side has length 1 and
/// elasticity3d(exec, ne) is the case nex = ney = nez = ne): node (i, j, k)
/// at (i h, j h, k h), i = 1..nex, j = 0..ney, k = 0..nez, is node
/// p = (i-1) + nex (j + (ney+1) k), the face x = 0 clamped as above;
/// 3 nex (ney+1) (nez+1) unknowns. A box long in z (nez = ney P) is what a
/// weak-scaling run over P processes uses (strata/distributed/gallery.hpp).
/// Throws invalid_argument naming the size below 1, the row count that
/// overflows a 32-bit index, or the option out of range.
ElasticityProblem elasticity3d(const Executor& exec, size_type nex, size_type ney, size_type nez,
                               const ElasticityOptions& options = {});

/// The six rigid-body modes of the nodes at `coordinates` (3 per node,
/// interleaved): for node p at (x, y, z), entries 3p..3p+2 of
///   mode 0, 1, 2: the translations (1,0,0), (0,1,0), (0,0,1);
///   mode 3, 4, 5: the rotations about the x, y and z axes through the
///   origin, (0,-z,y), (z,0,-x), (-y,x,0).
/// Each mode has coordinates.size() entries, on the coordinates' executor.
/// Throws invalid_argument when coordinates.size() is not a multiple of 3.
std::vector<Vector<double>> rigid_body_modes(const Vector<double>& coordinates);

/// The names `strata gen` accepts, in order.
const std::vector<std::string>& problem_names();

/// Generates a named problem (one of problem_names()) with its natural size
/// parameter n: n^2 unknowns in 2D, n^3 in 3D, n elements per side for
/// elasticity3d. The names map to
///   poisson2d    poisson2d(exec, n, n)
///   poisson2d9   poisson2d_9pt(exec, n, n)
///   poisson3d    poisson3d(exec, n, n, n)
///   diffusion27  diffusion3d_27pt(exec, n, n, n)
///   aniso2d      anisotropic2d(exec, n, n, epsilon = 0.001, theta = 0)
///   jumps3d      jumps3d(exec, n, n, n) with default JumpsOptions
///   convdiff3d   convdiff3d(exec, n, n, n) with default ConvDiffOptions
///   elasticity3d elasticity3d(exec, n).A with default ElasticityOptions
/// Throws invalid_argument naming the bad size, or the unknown name with
/// the list of valid ones.
CsrMatrix<double> generate(const std::string& name, size_type n, const Executor& exec);

}  // namespace strata::gallery
