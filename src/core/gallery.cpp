// Model problems: argument checks and the host-side coefficients (stencils,
// element stiffness) here; the matrices are generated where they will live,
// by the kernels of kernels/gallery/gallery_kernels.hpp.

#include "strata/gallery/gallery.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <initializer_list>
#include <limits>
#include <string>
#include <utility>

#include "kernels/gallery/gallery_kernels.hpp"
#include "strata/distributed/gallery.hpp"

namespace strata::gallery {

namespace {

/// Defaults of generate("aniso2d", n): strong coupling in x, theta = 0.
constexpr double aniso2d_epsilon = 0.001;
constexpr double aniso2d_theta = 0.0;

std::string number(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%g", value);
  return buffer;
}

/// Throws unless `value` >= 1.
void require_size(const char* function, const char* name, size_type value) {
  if (value < 1) {
    throw invalid_argument(std::string("gallery::") + function + ": " + name +
                           " must be >= 1, got " + std::to_string(value));
  }
}

/// Throws unless `value` is finite and > 0.
void require_positive(const char* function, const char* name, double value) {
  if (!(std::isfinite(value) && value > 0.0)) {
    throw invalid_argument(std::string("gallery::") + function + ": " + name +
                           " must be finite and > 0, got " + number(value));
  }
}

void require_finite(const char* function, const char* name, double value) {
  if (!std::isfinite(value)) {
    throw invalid_argument(std::string("gallery::") + function + ": " + name +
                           " must be finite, got " + number(value));
  }
}

/// The product of `factors` (each >= 1): the number of rows of a matrix.
/// `formula` says what the factors are ("nx*ny*nz"). A serial matrix's rows
/// must fit a 32-bit column index; a distributed one's (`global`) only 64
/// bits, its local columns being indices into the process's own rows.
size_type row_count(const char* function, const char* formula,
                    std::initializer_list<size_type> factors, bool global = false) {
  const std::string what = std::string("gallery::") + function + ": number of rows " + formula;
  size_type product = 1;
  for (const size_type f : factors) {
    if (f > std::numeric_limits<size_type>::max() / product) {
      throw invalid_argument(what + (global ? " overflows 64 bits"
                                            : " overflows 64 bits, so it does not fit a 32-bit "
                                              "column index"));
    }
    product *= f;
  }
  return global ? product : checked_index(product, what.c_str());
}

size_type grid_rows_2d(const char* function, size_type nx, size_type ny, bool global = false) {
  require_size(function, "nx", nx);
  require_size(function, "ny", ny);
  return row_count(function, "nx*ny", {nx, ny}, global);
}

size_type grid_rows_3d(const char* function, size_type nx, size_type ny, size_type nz,
                       bool global = false) {
  require_size(function, "nx", nx);
  require_size(function, "ny", ny);
  require_size(function, "nz", nz);
  return row_count(function, "nx*ny*nz", {nx, ny, nz}, global);
}

/// The 9-point finite-difference stencil of -div(K grad u), K = Q diag(1, eps) Q^T,
/// Q the rotation by theta, C = cos(theta), S = sin(theta), h = 1:
///   K = [k11 k12; k12 k22], k11 = C^2 + eps S^2, k22 = S^2 + eps C^2,
///   k12 = (1 - eps) C S;
///   -(k11 u_xx + 2 k12 u_xy + k22 u_yy) with u_xx ~ u(-1,0) - 2u + u(1,0) and
///   u_xy ~ (u(1,1) - u(1,-1) - u(-1,1) + u(-1,-1)) / 4 gives, as entry[dx+1][dy+1],
///     [ -k12/2   -k22     +k12/2 ]      (dx = -1, dy = -1..1)
///     [ -k11    2(1+eps)  -k11   ]      (dx =  0)
///     [ +k12/2   -k22     -k12/2 ]      (dx = +1)
/// which is pyamg.gallery.diffusion_stencil_2d(eps, theta, type='FD') with its
/// first axis read as x (a = 0.5 (eps - 1) CS = -k12/2, b = -(eps SS + CC) = -k11,
/// d = -(eps CC + SS) = -k22, e = 2 (eps + 1)).
kernels::gallery::Stencil2d anisotropic_stencil(double epsilon, double theta) {
  const double C = std::cos(theta), S = std::sin(theta);
  const double CC = C * C, SS = S * S, CS = C * S;
  const double corner = 0.5 * (epsilon - 1.0) * CS;  // at (-1,-1) and (1,1)
  const double x_neighbour = -(epsilon * SS + CC);
  const double y_neighbour = -(epsilon * CC + SS);
  const double centre = 2.0 * (epsilon + 1.0);
  kernels::gallery::Stencil2d s{};
  s.entry[0][0] = corner, s.entry[0][1] = x_neighbour, s.entry[0][2] = -corner;
  s.entry[1][0] = y_neighbour, s.entry[1][1] = centre, s.entry[1][2] = y_neighbour;
  s.entry[2][0] = -corner, s.entry[2][1] = x_neighbour, s.entry[2][2] = corner;
  return s;
}

/// The upwind stencil of -nu Laplace(u) + b . grad u, multiplied by h^2:
/// with h_d = 1/(n_d + 1), h = min_d h_d and r_d = h / h_d (1 on a cube),
///   lower[d] = -(nu r_d^2 + h r_d max(b_d, 0))      (neighbour at -e_d)
///   upper[d] = -(nu r_d^2 + h r_d max(-b_d, 0))     (neighbour at +e_d)
///   diagonal = -sum_d (lower[d] + upper[d]) = sum_d (2 nu r_d^2 + h r_d |b_d|).
kernels::gallery::Stencil7 convdiff_stencil(size_type nx, size_type ny, size_type nz,
                                            const ConvDiffOptions& options) {
  const size_type n[3] = {nx, ny, nz};
  const size_type finest = std::max({nx, ny, nz});
  const double h = 1.0 / static_cast<double>(finest + 1);
  const double nu = options.diffusion;
  kernels::gallery::Stencil7 s{};
  s.diagonal = 0.0;
  for (int d = 0; d < 3; ++d) {
    const double r = static_cast<double>(n[d] + 1) / static_cast<double>(finest + 1);
    const double b = options.velocity[static_cast<std::size_t>(d)];
    const double diffusion = nu * r * r;
    s.lower[d] = -(diffusion + h * r * std::max(b, 0.0));
    s.upper[d] = -(diffusion + h * r * std::max(-b, 0.0));
    s.diagonal -= s.lower[d] + s.upper[d];
  }
  return s;
}

/// Stiffness of the cube [0,h]^3 as a trilinear (Q1) element for isotropic
/// linear elasticity, by 2x2x2 Gauss quadrature (exact for this element):
///   K[3a+c][3b+d] = sum_g det(J) ( lambda dN_a/dx_c dN_b/dx_d
///                                + mu dN_a/dx_d dN_b/dx_c
///                                + mu delta_cd grad N_a . grad N_b ),
/// the bilinear form int lambda div u div v + 2 mu eps(u) : eps(v) for
/// u = N_b e_d, v = N_a e_c; lambda = E nu / ((1 + nu)(1 - 2 nu)),
/// mu = E / (2 (1 + nu)). Local node a = ax + 2 ay + 4 az sits at h (ax, ay, az)
/// and N_a(xi) = prod_t (1 + s_t xi_t) / 2 on [-1,1]^3, s_t = 2 a_t - 1; the
/// Gauss points are xi_t = +-1/sqrt(3) with weight 1, J = (h/2) I. Only the
/// upper triangle is computed; the lower one is its mirror, so K is exactly
/// symmetric.
kernels::gallery::HexStiffness hex8_stiffness(double youngs_modulus, double poisson_ratio,
                                              double h) {
  const double E = youngs_modulus, nu = poisson_ratio;
  const double lambda = E * nu / ((1.0 + nu) * (1.0 - 2.0 * nu));
  const double mu = E / (2.0 * (1.0 + nu));
  const double g = 1.0 / std::sqrt(3.0);
  const double det_j = (h / 2.0) * (h / 2.0) * (h / 2.0);
  kernels::gallery::HexStiffness K{};
  for (int gp = 0; gp < 8; ++gp) {
    const double xi[3] = {(gp & 1) ? g : -g, (gp & 2) ? g : -g, (gp & 4) ? g : -g};
    double grad[8][3];  // grad N_a in physical coordinates at this Gauss point
    for (int a = 0; a < 8; ++a) {
      const double s[3] = {(a & 1) ? 1.0 : -1.0, (a & 2) ? 1.0 : -1.0, (a & 4) ? 1.0 : -1.0};
      const double f[3] = {(1.0 + s[0] * xi[0]) / 2.0, (1.0 + s[1] * xi[1]) / 2.0,
                           (1.0 + s[2] * xi[2]) / 2.0};
      // dN/dxi_t = s_t / 2 * (product of the other two factors); dx/dxi = h/2.
      grad[a][0] = (s[0] / 2.0) * f[1] * f[2] * (2.0 / h);
      grad[a][1] = f[0] * (s[1] / 2.0) * f[2] * (2.0 / h);
      grad[a][2] = f[0] * f[1] * (s[2] / 2.0) * (2.0 / h);
    }
    for (int r = 0; r < 24; ++r) {
      const int a = r / 3, c = r % 3;
      for (int t = r; t < 24; ++t) {
        const int b = t / 3, d = t % 3;
        const double dot =
            grad[a][0] * grad[b][0] + grad[a][1] * grad[b][1] + grad[a][2] * grad[b][2];
        double value = lambda * grad[a][c] * grad[b][d] + mu * grad[a][d] * grad[b][c];
        if (c == d) value += mu * dot;
        K.entry[r][t] += det_j * value;
      }
    }
  }
  for (int r = 0; r < 24; ++r) {
    for (int t = 0; t < r; ++t) K.entry[r][t] = K.entry[t][r];
  }
  return K;
}

}  // namespace

CsrMatrix<double> poisson2d(const Executor& exec, size_type nx, size_type ny) {
  grid_rows_2d("poisson2d", nx, ny);
  return exec.visit([&](const auto& e) { return kernels::gallery::poisson2d(e, nx, ny); });
}

CsrMatrix<double> poisson2d_9pt(const Executor& exec, size_type nx, size_type ny) {
  grid_rows_2d("poisson2d_9pt", nx, ny);
  return exec.visit([&](const auto& e) { return kernels::gallery::poisson2d_9pt(e, nx, ny); });
}

CsrMatrix<double> poisson3d(const Executor& exec, size_type nx, size_type ny, size_type nz) {
  grid_rows_3d("poisson3d", nx, ny, nz);
  return exec.visit([&](const auto& e) { return kernels::gallery::poisson3d(e, nx, ny, nz); });
}

CsrMatrix<double> diffusion3d_27pt(const Executor& exec, size_type nx, size_type ny, size_type nz) {
  grid_rows_3d("diffusion3d_27pt", nx, ny, nz);
  return exec.visit(
      [&](const auto& e) { return kernels::gallery::diffusion3d_27pt(e, nx, ny, nz); });
}

CsrMatrix<double> anisotropic2d(const Executor& exec, size_type nx, size_type ny, double epsilon,
                                double theta) {
  grid_rows_2d("anisotropic2d", nx, ny);
  require_positive("anisotropic2d", "epsilon", epsilon);
  require_finite("anisotropic2d", "theta", theta);
  const kernels::gallery::Stencil2d stencil = anisotropic_stencil(epsilon, theta);
  return exec.visit(
      [&](const auto& e) { return kernels::gallery::anisotropic2d(e, nx, ny, stencil); });
}

CsrMatrix<double> jumps3d(const Executor& exec, size_type nx, size_type ny, size_type nz,
                          const JumpsOptions& options) {
  grid_rows_3d("jumps3d", nx, ny, nz);
  require_positive("jumps3d", "options.contrast", options.contrast);
  if (options.inclusions_per_dim < 1) {
    throw invalid_argument("gallery::jumps3d: options.inclusions_per_dim must be >= 1, got " +
                           std::to_string(options.inclusions_per_dim));
  }
  return exec.visit([&](const auto& e) {
    return kernels::gallery::jumps3d(e, nx, ny, nz, options.contrast, options.inclusions_per_dim);
  });
}

CsrMatrix<double> convdiff3d(const Executor& exec, size_type nx, size_type ny, size_type nz,
                             const ConvDiffOptions& options) {
  grid_rows_3d("convdiff3d", nx, ny, nz);
  require_positive("convdiff3d", "options.diffusion", options.diffusion);
  require_finite("convdiff3d", "options.velocity[0]", options.velocity[0]);
  require_finite("convdiff3d", "options.velocity[1]", options.velocity[1]);
  require_finite("convdiff3d", "options.velocity[2]", options.velocity[2]);
  const kernels::gallery::Stencil7 stencil = convdiff_stencil(nx, ny, nz, options);
  return exec.visit(
      [&](const auto& e) { return kernels::gallery::convdiff3d(e, nx, ny, nz, stencil); });
}

namespace {

/// What the elasticity generators share once their box and options are
/// checked: the unknowns, the element stiffness (cubes of side
/// 1 / per_unit) and per_unit = min(nex, ney, nez).
struct ElasticityBox {
  size_type rows;
  size_type per_unit;
  kernels::gallery::HexStiffness element;
};

/// Checks the box and options of `function` (invalid_argument naming the
/// size, the option or the row count that overflows: a serial matrix's
/// rows must fit a 32-bit index, a distributed one's, `global`, 64 bits).
ElasticityBox elasticity_box(const char* function, size_type nex, size_type ney, size_type nez,
                             const ElasticityOptions& options, bool global) {
  const std::string prefix = std::string("gallery::") + function + ": ";
  require_size(function, "nex", nex);
  require_size(function, "ney", ney);
  require_size(function, "nez", nez);
  // So that ney + 1 and nez + 1 below cannot overflow.
  checked_index(ney, (prefix + "ney").c_str());
  checked_index(nez, (prefix + "nez").c_str());
  const size_type rows =
      row_count(function, "3*nex*(ney+1)*(nez+1)", {3, nex, ney + 1, nez + 1}, global);
  require_positive(function, "options.youngs_modulus", options.youngs_modulus);
  const double nu = options.poisson_ratio;
  if (!(nu > -1.0 && nu < 0.5)) {
    throw invalid_argument(prefix + "options.poisson_ratio must lie in (-1, 0.5), got " +
                           number(nu));
  }
  const size_type per_unit = std::min({nex, ney, nez});
  return {rows, per_unit,
          hex8_stiffness(options.youngs_modulus, nu, 1.0 / static_cast<double>(per_unit))};
}

/// Coordinates of the free nodes [first_node, first_node + nodes) of the
/// box, on exec.
Vector<double> elasticity_coordinates(const Executor& exec, size_type nex, size_type ney,
                                      size_type per_unit, size_type first_node, size_type nodes) {
  Vector<double> coordinates(exec, 3 * nodes);
  double* xyz = coordinates.data();
  exec.visit([&](const auto& e) {
    kernels::gallery::elasticity_coordinates(e, nex, ney, per_unit, first_node, nodes, xyz);
  });
  return coordinates;
}

}  // namespace

ElasticityProblem elasticity3d(const Executor& exec, size_type ne,
                               const ElasticityOptions& options) {
  require_size("elasticity3d", "ne", ne);
  return elasticity3d(exec, ne, ne, ne, options);
}

ElasticityProblem elasticity3d(const Executor& exec, size_type nex, size_type ney, size_type nez,
                               const ElasticityOptions& options) {
  const ElasticityBox box = elasticity_box("elasticity3d", nex, ney, nez, options, false);
  ElasticityProblem problem;
  problem.A = exec.visit(
      [&](const auto& e) { return kernels::gallery::elasticity3d(e, nex, ney, nez, box.element); });
  problem.coordinates = elasticity_coordinates(exec, nex, ney, box.per_unit, 0, box.rows / 3);
  problem.rigid_body_modes = rigid_body_modes(problem.coordinates);
  return problem;
}

std::vector<Vector<double>> rigid_body_modes(const Vector<double>& coordinates) {
  const size_type n = coordinates.size();
  if (n % 3 != 0) {
    throw invalid_argument(
        "gallery::rigid_body_modes: coordinates.size() must be a multiple of 3 (x, y, z per "
        "node), got " +
        std::to_string(n));
  }
  std::vector<Vector<double>> modes;
  modes.reserve(6);
  kernels::gallery::ModePointers pointers{};
  for (int m = 0; m < 6; ++m) {
    modes.emplace_back(coordinates.executor(), n);
    pointers.mode[m] = modes.back().data();
  }
  const double* xyz = coordinates.data();
  coordinates.executor().visit(
      [&](const auto& e) { kernels::gallery::rigid_body_modes(e, n / 3, xyz, pointers); });
  return modes;
}

const std::vector<std::string>& problem_names() {
  static const std::vector<std::string> names = {"poisson2d",   "poisson2d9",  "poisson3d",
                                                 "diffusion27", "aniso2d",     "jumps3d",
                                                 "convdiff3d",  "elasticity3d"};
  return names;
}

namespace {

/// Refuses a size whose matrix would not fit the memory available on
/// `exec` (checked before anything is allocated; the row count's own
/// 32-bit limit is checked by each generator). Rows and stored entries per
/// row come from each problem's stencil.
void check_generate_memory(const std::string& name, size_type n, const Executor& exec) {
  const double m = static_cast<double>(n);
  double rows = 0, per_row = 0;
  if (name == "poisson2d" || name == "aniso2d") {
    rows = m * m, per_row = name == "aniso2d" ? 9 : 5;
  } else if (name == "poisson2d9") {
    rows = m * m, per_row = 9;
  } else if (name == "poisson3d" || name == "jumps3d" || name == "convdiff3d") {
    rows = m * m * m, per_row = 7;
  } else if (name == "diffusion27") {
    rows = m * m * m, per_row = 27;
  } else if (name == "elasticity3d") {
    rows = 3 * (m + 1) * (m + 1) * (m + 1), per_row = 81;
  } else {
    return;  // an unknown name is refused by generate()
  }
  // CSR: 8-byte row offsets, 4-byte columns and 8-byte values.
  const double bytes = 8 * (rows + 1) + 12 * rows * per_row;
  const std::size_t available = exec.available_memory();
  if (available > 0 && bytes > static_cast<double>(available)) {
    throw out_of_memory("gallery::generate: problem '" + name + "' with n = " + std::to_string(n) +
                            " has about " + number(rows) + " rows and needs about " +
                            number(bytes / 1e9) + " GB for its matrix alone, but " +
                            number(static_cast<double>(available) / 1e9) + " GB is available on " +
                            exec.name() + "; choose a smaller n",
                        static_cast<std::size_t>(bytes));
  }
}

}  // namespace

CsrMatrix<double> generate(const std::string& name, size_type n, const Executor& exec) {
  if (n < 1) {
    throw invalid_argument("gallery::generate: n must be >= 1, got " + std::to_string(n) +
                           " (problem '" + name + "')");
  }
  check_generate_memory(name, n, exec);
  if (name == "poisson2d") return poisson2d(exec, n, n);
  if (name == "poisson2d9") return poisson2d_9pt(exec, n, n);
  if (name == "poisson3d") return poisson3d(exec, n, n, n);
  if (name == "diffusion27") return diffusion3d_27pt(exec, n, n, n);
  if (name == "aniso2d") return anisotropic2d(exec, n, n, aniso2d_epsilon, aniso2d_theta);
  if (name == "jumps3d") return jumps3d(exec, n, n, n);
  if (name == "convdiff3d") return convdiff3d(exec, n, n, n);
  if (name == "elasticity3d") return elasticity3d(exec, n).A;
  std::string valid;
  for (const std::string& known : problem_names()) valid += (valid.empty() ? "" : ", ") + known;
  throw invalid_argument("gallery::generate: unknown problem name '" + name +
                         "'; valid names: " + valid);
}

// ---------------------------------------------------------------- row ranges

namespace {

size_type global_rows_2d(const char* function, size_type nx, size_type ny) {
  return grid_rows_2d(function, nx, ny, true);
}

size_type global_rows_3d(const char* function, size_type nx, size_type ny, size_type nz) {
  return grid_rows_3d(function, nx, ny, nz, true);
}

/// Throws unless 0 <= row_begin <= row_end <= rows.
void require_range(const char* function, size_type rows, size_type row_begin, size_type row_end) {
  if (row_begin < 0 || row_begin > row_end || row_end > rows) {
    throw invalid_argument(std::string("gallery::") + function +
                           ": the rows [row_begin, row_end) = [" + std::to_string(row_begin) +
                           ", " + std::to_string(row_end) + ") must lie in [0, " +
                           std::to_string(rows) + "]");
  }
}

RowBlock<double> row_block(kernels::gallery::RowRange&& range) {
  return RowBlock<double>{std::move(range.row_ptr), std::move(range.cols), std::move(range.values)};
}

/// Throws unless the partition splits exactly the problem's rows.
void require_partition(const char* function, const RowPartition& partition, size_type rows) {
  if (partition.global_size() != rows) {
    throw invalid_argument(std::string("gallery::") + function + ": the partition splits " +
                           std::to_string(partition.global_size()) +
                           " rows; expected the problem's " + std::to_string(rows));
  }
}

}  // namespace

RowBlock<double> poisson2d_rows(const Executor& exec, size_type nx, size_type ny,
                                size_type row_begin, size_type row_end) {
  require_range("poisson2d_rows", global_rows_2d("poisson2d_rows", nx, ny), row_begin, row_end);
  return row_block(exec.visit([&](const auto& e) {
    return kernels::gallery::poisson2d_rows(e, nx, ny, row_begin, row_end - row_begin);
  }));
}

RowBlock<double> poisson3d_rows(const Executor& exec, size_type nx, size_type ny, size_type nz,
                                size_type row_begin, size_type row_end) {
  require_range("poisson3d_rows", global_rows_3d("poisson3d_rows", nx, ny, nz), row_begin, row_end);
  return row_block(exec.visit([&](const auto& e) {
    return kernels::gallery::poisson3d_rows(e, nx, ny, nz, row_begin, row_end - row_begin);
  }));
}

RowBlock<double> diffusion3d_27pt_rows(const Executor& exec, size_type nx, size_type ny,
                                       size_type nz, size_type row_begin, size_type row_end) {
  require_range("diffusion3d_27pt_rows", global_rows_3d("diffusion3d_27pt_rows", nx, ny, nz),
                row_begin, row_end);
  return row_block(exec.visit([&](const auto& e) {
    return kernels::gallery::diffusion3d_27pt_rows(e, nx, ny, nz, row_begin, row_end - row_begin);
  }));
}

RowBlock<double> anisotropic2d_rows(const Executor& exec, size_type nx, size_type ny,
                                    double epsilon, double theta, size_type row_begin,
                                    size_type row_end) {
  require_range("anisotropic2d_rows", global_rows_2d("anisotropic2d_rows", nx, ny), row_begin,
                row_end);
  require_positive("anisotropic2d_rows", "epsilon", epsilon);
  require_finite("anisotropic2d_rows", "theta", theta);
  const kernels::gallery::Stencil2d stencil = anisotropic_stencil(epsilon, theta);
  return row_block(exec.visit([&](const auto& e) {
    return kernels::gallery::anisotropic2d_rows(e, nx, ny, stencil, row_begin, row_end - row_begin);
  }));
}

RowBlock<double> convdiff3d_rows(const Executor& exec, size_type nx, size_type ny, size_type nz,
                                 const ConvDiffOptions& options, size_type row_begin,
                                 size_type row_end) {
  require_range("convdiff3d_rows", global_rows_3d("convdiff3d_rows", nx, ny, nz), row_begin,
                row_end);
  require_positive("convdiff3d_rows", "options.diffusion", options.diffusion);
  require_finite("convdiff3d_rows", "options.velocity[0]", options.velocity[0]);
  require_finite("convdiff3d_rows", "options.velocity[1]", options.velocity[1]);
  require_finite("convdiff3d_rows", "options.velocity[2]", options.velocity[2]);
  const kernels::gallery::Stencil7 stencil = convdiff_stencil(nx, ny, nz, options);
  return row_block(exec.visit([&](const auto& e) {
    return kernels::gallery::convdiff3d_rows(e, nx, ny, nz, stencil, row_begin,
                                             row_end - row_begin);
  }));
}

DistributedCsrMatrix<double> poisson2d(const RowPartition& partition, const Executor& exec,
                                       size_type nx, size_type ny) {
  require_partition("poisson2d", partition, global_rows_2d("poisson2d", nx, ny));
  return DistributedCsrMatrix<double>(
      partition, poisson2d_rows(exec, nx, ny, partition.begin(), partition.end()));
}

DistributedCsrMatrix<double> poisson3d(const RowPartition& partition, const Executor& exec,
                                       size_type nx, size_type ny, size_type nz) {
  require_partition("poisson3d", partition, global_rows_3d("poisson3d", nx, ny, nz));
  return DistributedCsrMatrix<double>(
      partition, poisson3d_rows(exec, nx, ny, nz, partition.begin(), partition.end()));
}

DistributedCsrMatrix<double> diffusion3d_27pt(const RowPartition& partition, const Executor& exec,
                                              size_type nx, size_type ny, size_type nz) {
  require_partition("diffusion3d_27pt", partition, global_rows_3d("diffusion3d_27pt", nx, ny, nz));
  return DistributedCsrMatrix<double>(
      partition, diffusion3d_27pt_rows(exec, nx, ny, nz, partition.begin(), partition.end()));
}

DistributedCsrMatrix<double> anisotropic2d(const RowPartition& partition, const Executor& exec,
                                           size_type nx, size_type ny, double epsilon,
                                           double theta) {
  require_partition("anisotropic2d", partition, global_rows_2d("anisotropic2d", nx, ny));
  return DistributedCsrMatrix<double>(
      partition,
      anisotropic2d_rows(exec, nx, ny, epsilon, theta, partition.begin(), partition.end()));
}

DistributedCsrMatrix<double> convdiff3d(const RowPartition& partition, const Executor& exec,
                                        size_type nx, size_type ny, size_type nz,
                                        const ConvDiffOptions& options) {
  require_partition("convdiff3d", partition, global_rows_3d("convdiff3d", nx, ny, nz));
  return DistributedCsrMatrix<double>(
      partition, convdiff3d_rows(exec, nx, ny, nz, options, partition.begin(), partition.end()));
}

RowBlock<double> elasticity3d_rows(const Executor& exec, size_type nex, size_type ney,
                                   size_type nez, const ElasticityOptions& options,
                                   size_type row_begin, size_type row_end) {
  const ElasticityBox box = elasticity_box("elasticity3d_rows", nex, ney, nez, options, true);
  require_range("elasticity3d_rows", box.rows, row_begin, row_end);
  return row_block(exec.visit([&](const auto& e) {
    return kernels::gallery::elasticity3d_rows(e, nex, ney, nez, box.element, row_begin,
                                               row_end - row_begin);
  }));
}

DistributedElasticityProblem elasticity3d(const RowPartition& partition, const Executor& exec,
                                          size_type nex, size_type ney, size_type nez,
                                          const ElasticityOptions& options) {
  const ElasticityBox box = elasticity_box("elasticity3d", nex, ney, nez, options, true);
  require_partition("elasticity3d", partition, box.rows);
  // The table is the same on every process, so all of them throw alike
  // (none is left waiting in the matrix's collective construction).
  for (int r = 0; r < partition.processes(); ++r) {
    const global_index begin = partition.offset(r), end = partition.offset(r + 1);
    if (begin % 3 != 0 || end % 3 != 0) {
      throw invalid_argument(
          "gallery::elasticity3d: process " + std::to_string(r) + " owns global rows [" +
          std::to_string(begin) + ", " + std::to_string(end) +
          "), which splits a node's 3 unknowns between two processes; expected every process "
          "to own whole nodes (a first row and a row count that are multiples of 3, e.g. "
          "RowPartition::uniform_nodes(comm, rows, 3))");
    }
  }
  const size_type first_node = partition.begin() / 3, nodes = partition.local_size() / 3;
  Vector<double> coordinates =
      elasticity_coordinates(exec, nex, ney, box.per_unit, first_node, nodes);
  std::vector<Vector<double>> modes = rigid_body_modes(coordinates);
  return {DistributedCsrMatrix<double>(
              partition,
              elasticity3d_rows(exec, nex, ney, nez, options, partition.begin(), partition.end())),
          std::move(coordinates), std::move(modes)};
}

bool has_distributed_generator(const std::string& name) {
  return name == "poisson2d" || name == "poisson3d" || name == "diffusion27" || name == "aniso2d" ||
         name == "convdiff3d" || name == "elasticity3d";
}

DistributedCsrMatrix<double> generate(const std::string& name, size_type n,
                                      const Communicator& comm, const Executor& exec) {
  if (n < 1) {
    throw invalid_argument("gallery::generate: n must be >= 1, got " + std::to_string(n) +
                           " (problem '" + name + "')");
  }
  // The names and parameters of the serial generate() above, so that a
  // distributed solve of a named problem is the serial one split up.
  const auto rows_2d = [&] { return RowPartition::uniform(comm, global_rows_2d(name.c_str(), n, n)); };
  const auto rows_3d = [&] {
    return RowPartition::uniform(comm, global_rows_3d(name.c_str(), n, n, n));
  };
  if (name == "poisson2d") return poisson2d(rows_2d(), exec, n, n);
  if (name == "poisson3d") return poisson3d(rows_3d(), exec, n, n, n);
  if (name == "diffusion27") return diffusion3d_27pt(rows_3d(), exec, n, n, n);
  if (name == "aniso2d") {
    return anisotropic2d(rows_2d(), exec, n, n, aniso2d_epsilon, aniso2d_theta);
  }
  if (name == "convdiff3d") return convdiff3d(rows_3d(), exec, n, n, n);
  if (name == "elasticity3d") {
    // Split by whole nodes, as the generator and blocked smoothed
    // aggregation need.
    const size_type rows = elasticity_box("elasticity3d", n, n, n, {}, true).rows;
    return std::move(elasticity3d(RowPartition::uniform_nodes(comm, rows, 3), exec, n, n, n).A);
  }
  throw invalid_argument("gallery::generate: problem '" + name +
                         "' has no distributed generator; expected poisson2d, poisson3d, "
                         "diffusion27, aniso2d, convdiff3d or elasticity3d");
}

}  // namespace strata::gallery
