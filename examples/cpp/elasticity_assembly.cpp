// Blocked assembly to a blocked solve, with no scalar matrix in between
// (the blocked GAMG paper's path, issue 23 item 8): a 3D linear-elasticity
// problem is assembled element by element as 3x3 node blocks with
// BlockMatrixAssembler (blocked COO, add mode) straight into BSR, and
// solved with smoothed aggregation + CG, the near-null space being the
// rigid-body modes of the node coordinates.
//
// The mesh is gallery::elasticity3d's (unit cube, ne^3 trilinear hexahedra,
// the face x = 0 clamped), so the program also checks that what it
// assembled equals that matrix: the element stiffness here is formed
// another way (B^T D B from the strain-displacement matrix), so equality
// to rounding checks both. Exit status 0 when the solve converged and the
// matrices agree.
#include <strata/strata.hpp>
#include <strata/amg/smoothed_aggregation.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <vector>

namespace {

using strata::size_type;

/// 24 x 24 stiffness of the cube [0,h]^3 as a Q1 element: K = sum over the
/// 2x2x2 Gauss points of B^T D B det(J), with B the 6 x 24
/// strain-displacement matrix (Voigt order xx, yy, zz, yz, xz, xy) and D
/// the isotropic elasticity matrix. Local node a = ax + 2 ay + 4 az sits at
/// h (ax, ay, az); unknown 3a + c is its displacement along axis c.
std::array<std::array<double, 24>, 24> element_stiffness(double E, double nu, double h) {
  const double lambda = E * nu / ((1 + nu) * (1 - 2 * nu));
  const double mu = E / (2 * (1 + nu));
  double D[6][6] = {};
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) D[i][j] = lambda + (i == j ? 2 * mu : 0.0);
    D[3 + i][3 + i] = mu;
  }
  std::array<std::array<double, 24>, 24> K{};
  const double g = 1 / std::sqrt(3.0);
  for (int q = 0; q < 8; ++q) {
    const double xi[3] = {q & 1 ? g : -g, q & 2 ? g : -g, q & 4 ? g : -g};
    double B[6][24] = {};
    for (int a = 0; a < 8; ++a) {
      double dN[3];  // physical derivatives of N_a = prod (1 + s_t xi_t) / 2
      for (int t = 0; t < 3; ++t) {
        dN[t] = 2 / h;  // d xi / dx
        for (int u = 0; u < 3; ++u) {
          const double s = (a >> u) & 1 ? 1.0 : -1.0;
          dN[t] *= u == t ? s / 2 : (1 + s * xi[u]) / 2;
        }
      }
      B[0][3 * a] = dN[0];
      B[1][3 * a + 1] = dN[1];
      B[2][3 * a + 2] = dN[2];
      B[3][3 * a + 1] = dN[2], B[3][3 * a + 2] = dN[1];
      B[4][3 * a] = dN[2], B[4][3 * a + 2] = dN[0];
      B[5][3 * a] = dN[1], B[5][3 * a + 1] = dN[0];
    }
    const double det_j = h * h * h / 8;
    for (int r = 0; r < 24; ++r) {
      for (int c = 0; c < 24; ++c) {
        double sum = 0;
        for (int i = 0; i < 6; ++i) {
          for (int j = 0; j < 6; ++j) sum += B[i][r] * D[i][j] * B[j][c];
        }
        K[r][c] += sum * det_j;
      }
    }
  }
  return K;
}

/// Largest |a - b| over the two matrices' stored values, or -1 when their
/// block patterns differ.
double difference(const strata::BsrMatrix<double>& A, const strata::BsrMatrix<double>& B) {
  const auto host = strata::Executor::host();
  if (A.block_rows() != B.block_rows() || A.num_blocks() != B.num_blocks() ||
      A.row_ptr().to(host).to_vector() != B.row_ptr().to(host).to_vector() ||
      A.col_idx().to(host).to_vector() != B.col_idx().to(host).to_vector()) {
    return -1;
  }
  const auto a = A.values().to(host).to_vector(), b = B.values().to(host).to_vector();
  double most = 0;
  for (std::size_t i = 0; i < a.size(); ++i) most = std::max(most, std::abs(a[i] - b[i]));
  return most;
}

}  // namespace

int main() {
  using namespace strata;
  const Executor exec = Executor::default_executor();
  const size_type ne = exec.is_cuda() ? 32 : 8;  // elements per side
  const double h = 1.0 / static_cast<double>(ne);
  const auto K = element_stiffness(1.0, 0.3, h);

  // Free nodes: (i, j, k), i = 1..ne (i = 0 is clamped), j, k = 0..ne.
  const auto node = [ne](size_type i, size_type j, size_type k) {
    return (i - 1) + ne * (j + (ne + 1) * k);
  };
  const size_type nodes = ne * (ne + 1) * (ne + 1);
  std::vector<double> xyz(3 * nodes);
  for (size_type k = 0; k <= ne; ++k) {
    for (size_type j = 0; j <= ne; ++j) {
      for (size_type i = 1; i <= ne; ++i) {
        const size_type p = node(i, j, k);
        xyz[3 * p] = i * h, xyz[3 * p + 1] = j * h, xyz[3 * p + 2] = k * h;
      }
    }
  }

  // Every element adds its 3x3 node-pair blocks; the assembler sorts the
  // block indices and sums duplicates, on the executor.
  std::vector<size_type> block_row, block_col;
  std::vector<double> values;
  for (size_type ez = 0; ez < ne; ++ez) {
    for (size_type ey = 0; ey < ne; ++ey) {
      for (size_type ex = 0; ex < ne; ++ex) {
        for (int a = 0; a < 8; ++a) {
          const size_type ia = ex + (a & 1);
          if (ia == 0) continue;  // clamped: not an unknown
          const size_type pa = node(ia, ey + (a >> 1 & 1), ez + (a >> 2 & 1));
          for (int b = 0; b < 8; ++b) {
            const size_type ib = ex + (b & 1);
            if (ib == 0) continue;
            block_row.push_back(pa);
            block_col.push_back(node(ib, ey + (b >> 1 & 1), ez + (b >> 2 & 1)));
            for (int c = 0; c < 3; ++c) {
              for (int d = 0; d < 3; ++d) values.push_back(K[3 * a + c][3 * b + d]);
            }
          }
        }
      }
    }
  }
  BlockMatrixAssembler<double> assembler(exec, nodes, nodes, 3, 3);
  assembler.add_blocks(Array<size_type>(exec, block_row), Array<size_type>(exec, block_col),
                       Array<double>(exec, values));
  assembler.assemble();
  auto A = std::make_shared<const BsrMatrix<double>>(assembler.release());

  // Smoothed aggregation on the BSR operator, with the six rigid-body modes.
  const Vector<double> coordinates(Array<double>(exec, xyz));
  auto op = std::make_shared<const BsrOperator<double>>(A);
  amg::HierarchyParams params;
  params.smoother = ChebyshevParams{};
  amg::Hierarchy<double> M(
      op,
      amg::make_smoothed_aggregation_coarsening<double>({}, amg::rigid_body_modes(coordinates, 3)),
      params);
  Vector<double> b(exec, A->rows(), 1.0), x(exec, A->rows(), 0.0);
  const SolveInfo info = solve(KrylovMethod{Cg{}}, *op, b, x, &M);
  std::printf("elasticity %lld^3 elements, %lld unknowns (%s) on %s: %s in %d iterations, "
              "relative residual %.2e\n",
              (long long)ne, (long long)A->rows(), op->kind().c_str(), exec.name().c_str(),
              to_string(info.status), info.iterations, info.true_relative_residual);
  std::printf("%s", amg::format_summary(M.summary()).c_str());

  // The same problem from the gallery, in the same blocks.
  const BsrMatrix<double> reference = to_bsr(gallery::elasticity3d(exec, ne).A, 3);
  const double gap = difference(*A, reference);
  double largest = 0;
  for (double v : values) largest = std::max(largest, std::abs(v));
  const bool same = gap >= 0 && gap <= 1e-12 * largest;
  if (gap < 0) {
    std::printf("the assembled block pattern differs from gallery::elasticity3d's\n");
  } else {
    std::printf("largest difference from gallery::elasticity3d: %.2e (%s)\n", gap,
                same ? "equal to rounding" : "NOT equal");
  }
  return info.converged() && same ? 0 : 1;
}
