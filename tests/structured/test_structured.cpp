// The structured interface: grids, stencils, set/add by box, ghosts,
// periodicity, the stencil product against a product written out here
// from the definition, and the bridge to CSR against the CSR gallery.
// Every test runs on the host and (when there is one) on the device.

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "strata/gallery/gallery.hpp"
#include "strata/structured/matrix.hpp"
#include "test_util.hpp"

namespace strata::structured {
namespace {

using test::OnExecutor;

template <class E, class F>
std::string message_of(F&& f) {
  try {
    f();
  } catch (const E& e) {
    return e.what();
  }
  return "<no exception>";
}

TEST(StructuredGrid, RejectsBadInputNamingIt) {
  EXPECT_NE(message_of<invalid_argument>([] { StructGrid(4, {Box{{0, 0, 0}, {1, 1, 1}}}); })
                .find("ndim must be 2 or 3, got 4"),
            std::string::npos);
  EXPECT_NE(message_of<invalid_argument>([] { StructGrid(3, {Box{{0, 0, 0}, {3, -1, 2}}}); })
                .find("empty in direction 1"),
            std::string::npos);
  EXPECT_NE(message_of<invalid_argument>([] { StructGrid(2, {Box{{0, 0, 0}, {3, 3, 1}}}); })
                .find("lower[2] == upper[2] == 0"),
            std::string::npos);
  EXPECT_NE(message_of<not_implemented>([] {
              StructGrid(3, {Box{{0, 0, 0}, {1, 1, 1}}, Box{{2, 0, 0}, {3, 1, 1}}});
            }).find("got 2"),
            std::string::npos);
  EXPECT_NE(message_of<invalid_argument>([] {
              StructGrid::from_extents(3, {4, 0, 4});
            }).find("extents[1] must be >= 1, got 0"),
            std::string::npos);
  EXPECT_THROW(StructGrid(2, {Box{{0, 0, 0}, {3, 3, 0}}}, {false, false, true}), invalid_argument);
}

TEST(StructuredStencil, RejectsBadOffsetsNamingThem) {
  EXPECT_NE(message_of<invalid_argument>([] { Stencil(3, {{0, 0, 0}, {3, 0, 0}}); })
                .find("offsets[1] = (3, 0, 0) reaches 3 cells in direction 0"),
            std::string::npos);
  EXPECT_NE(message_of<invalid_argument>([] { Stencil(3, {{0, 0, 0}, {1, 0, 0}, {1, 0, 0}}); })
                .find("offsets[2] = (1, 0, 0) repeats offsets[1]"),
            std::string::npos);
  EXPECT_NE(message_of<invalid_argument>([] { Stencil(2, {{0, 0, 0}, {0, 0, 1}}); })
                .find("2D stencil has no z offset"),
            std::string::npos);
  const auto s = Stencil::seven_point();
  EXPECT_EQ(s.size(), 7);
  EXPECT_EQ(s.find({0, 0, -1}), 5);
  EXPECT_EQ(s.find({1, 1, 0}), -1);
  EXPECT_EQ(s.reach(), 1);
}

class StructuredVector : public OnExecutor {};

TEST_P(StructuredVector, SetAddGetByBoxKeepsGhostsZero) {
  const auto e = exec();
  // A box that does not start at 0, so box-relative indexing is exercised.
  const StructGrid grid(3, {Box{{1, 2, 3}, {4, 4, 4}}});  // 4 x 3 x 2
  StructVector<double> v(e, grid);
  // Set the whole grid to 1, then set a sub-box to its cell numbers, then
  // add 10 on another sub-box overlapping it.
  v.fill(1.0);
  const Box sub{{2, 3, 3}, {3, 4, 4}};  // 2 x 2 x 2
  std::vector<double> values(8);
  for (int q = 0; q < 8; ++q) values[q] = 100 + q;
  v.set_box_values(sub, Array<double>(e, values));
  const Box other{{3, 2, 4}, {4, 2, 4}};  // 2 x 1 x 1
  v.set_box_values(other, Array<double>(e, {10.0, 20.0}), Mode::add);

  std::vector<double> expected(24, 1.0);
  auto at = [](std::int64_t i, std::int64_t j, std::int64_t k) {
    return (i - 1) + 4 * ((j - 2) + 3 * (k - 3));
  };
  int q = 0;
  for (int k = 3; k <= 4; ++k)
    for (int j = 3; j <= 4; ++j)
      for (int i = 2; i <= 3; ++i) expected[at(i, j, k)] = 100 + q++;
  expected[at(3, 2, 4)] += 10;
  expected[at(4, 2, 4)] += 20;

  Array<double> got(e, 24);
  v.get_box_values(grid.box(), got);
  EXPECT_EQ(got.to_vector(), expected);

  // Ghosts (everything outside the box in the data) stay zero.
  const auto data = v.data().to_vector();
  const Box& db = v.data_box();
  double ghost_sum = 0;
  std::size_t index = 0;
  for (auto k = db.lower[2]; k <= db.upper[2]; ++k)
    for (auto j = db.lower[1]; j <= db.upper[1]; ++j)
      for (auto i = db.lower[0]; i <= db.upper[0]; ++i, ++index)
        if (!grid.box().contains(Index{i, j, k})) ghost_sum += std::abs(data[index]);
  EXPECT_EQ(ghost_sum, 0.0);
  EXPECT_EQ(db.volume(), 6 * 5 * 4);
}

TEST_P(StructuredVector, RejectsBoxOutsideGridAndWrongLengths) {
  const auto e = exec();
  StructVector<double> v(e, StructGrid::from_extents(3, {4, 4, 4}));
  EXPECT_NE(message_of<invalid_argument>([&] {
              v.set_box_values(Box{{2, 2, 2}, {4, 3, 3}}, Array<double>(e, 12, 0.0));
            }).find("is not inside the grid's box [(0, 0, 0), (3, 3, 3)]"),
            std::string::npos);
  EXPECT_NE(message_of<dimension_mismatch>([&] {
              v.set_box_values(Box{{0, 0, 0}, {1, 1, 1}}, Array<double>(e, 7, 0.0));
            }).find("values has 7 entries, expected 8"),
            std::string::npos);
  if (e.is_cuda()) {
    EXPECT_THROW(v.set_box_values(Box{{0, 0, 0}, {1, 1, 1}}, Array<double>(Executor::host(), 8, 0.0)),
                 location_mismatch);
  }
  EXPECT_THROW(StructVector<double>(e, StructGrid::from_extents(3, {4, 4, 4}), 3), invalid_argument);
}

TEST_P(StructuredVector, PeriodicGhostsHoldTheImages) {
  const auto e = exec();
  const auto grid = StructGrid::from_extents(2, {5, 3, 1}, {true, false, false});
  StructVector<double> v(e, grid);
  std::vector<double> values(15);
  for (int q = 0; q < 15; ++q) values[q] = q + 1;
  v.set_box_values(grid.box(), Array<double>(e, values));
  const auto data = v.data().to_vector();  // 7 x 5 x 1, ghost width 1 in x and y
  const auto idx = [](int i, int j) { return (i + 1) + 7 * (j + 1); };
  for (int j = 0; j < 3; ++j) {
    EXPECT_EQ(data[idx(-1, j)], values[4 + 5 * j]) << "left ghost of row " << j;
    EXPECT_EQ(data[idx(5, j)], values[0 + 5 * j]) << "right ghost of row " << j;
  }
  // Not periodic in y: those ghosts are zero (corners too).
  for (int i = -1; i <= 5; ++i) {
    EXPECT_EQ(data[idx(i, -1)], 0.0);
    EXPECT_EQ(data[idx(i, 3)], 0.0);
  }
}

/// y = A x from the definition: sum over entries of coefficient times the
/// neighbour, neighbours outside a non-periodic boundary being zero.
std::vector<double> product_by_definition(const StructGrid& grid, const Stencil& st,
                                          const std::vector<double>& coef,
                                          const std::vector<double>& x) {
  const Box& b = grid.box();
  const std::int64_t n[3] = {b.extent(0), b.extent(1), b.extent(2)};
  const std::int64_t points = n[0] * n[1] * n[2];
  std::vector<double> y(points, 0.0);
  for (std::int64_t k = 0; k < n[2]; ++k)
    for (std::int64_t j = 0; j < n[1]; ++j)
      for (std::int64_t i = 0; i < n[0]; ++i) {
        const std::int64_t p = i + n[0] * (j + n[1] * k);
        double acc = 0;
        for (int s = 0; s < st.size(); ++s) {
          std::int64_t c[3] = {i + st.offset(s)[0], j + st.offset(s)[1], k + st.offset(s)[2]};
          bool inside = true;
          for (int d = 0; d < 3; ++d) {
            if (grid.periodic(d)) c[d] = ((c[d] % n[d]) + n[d]) % n[d];
            inside = inside && c[d] >= 0 && c[d] < n[d];
          }
          if (inside) acc += coef[s * points + p] * x[c[0] + n[0] * (c[1] + n[1] * c[2])];
        }
        y[p] = acc;
      }
  return y;
}

Stencil box27() {
  std::vector<Index> offsets;
  for (int k = -1; k <= 1; ++k)
    for (int j = -1; j <= 1; ++j)
      for (int i = -1; i <= 1; ++i) offsets.push_back({i, j, k});
  return Stencil(3, offsets);
}

class StructuredMatrix : public OnExecutor {};

TEST_P(StructuredMatrix, SetBoxValuesUsesHypreOrder) {
  const auto e = exec();
  StructMatrix<double> A(e, StructGrid::from_extents(2, {3, 2, 1}), Stencil::five_point());
  // Entries 2 and 0 on the cells (1..2, 1): values cell-major, entries fastest.
  const int entries[] = {2, 0};
  A.set_box_values(Box{{1, 1, 0}, {2, 1, 0}}, entries, Array<double>(e, {1.0, 2.0, 3.0, 4.0}));
  A.set_box_values(Box{{2, 1, 0}, {2, 1, 0}}, std::vector<int>{0}, Array<double>(e, {0.5}),
                   Mode::add);
  const auto c = A.coefficients().to_vector();  // entry-major, 6 cells each
  EXPECT_EQ(c[0 * 6 + 4], 2.0);
  EXPECT_EQ(c[2 * 6 + 4], 1.0);
  EXPECT_EQ(c[0 * 6 + 5], 4.5);
  EXPECT_EQ(c[2 * 6 + 5], 3.0);
  double rest = 0;
  for (double v : c) rest += v;
  EXPECT_EQ(rest, 10.5);
  EXPECT_NE(message_of<invalid_argument>([&] {
              A.set_box_values(Box{{0, 0, 0}, {0, 0, 0}}, std::vector<int>{5},
                               Array<double>(e, {1.0}));
            }).find("entries[0] = 5 is not a stencil entry"),
            std::string::npos);
  EXPECT_NE(message_of<invalid_argument>([&] {
              A.set_box_values(Box{{0, 0, 0}, {0, 0, 0}}, std::vector<int>{1, 1},
                               Array<double>(e, {1.0, 2.0}));
            }).find("repeats entries[0]"),
            std::string::npos);
}

TEST_P(StructuredMatrix, ProductMatchesDefinitionAndCsr) {
  const auto e = exec();
  struct Case {
    StructGrid grid;
    Stencil stencil;
  };
  const std::vector<Case> cases = {
      {StructGrid::from_extents(3, {7, 5, 4}), Stencil::seven_point()},
      {StructGrid::from_extents(3, {6, 5, 4}, {true, false, true}), box27()},
      {StructGrid::from_extents(2, {9, 7, 1}, {false, true, false}), Stencil::five_point()},
      {StructGrid::from_extents(3, {40, 3, 3}), box27()},  // more cells than a warp per row
  };
  unsigned seed = 1;
  for (const auto& c : cases) {
    const size_type n = c.grid.points();
    const auto coef = test::random_values(n * c.stencil.size(), seed++);
    const auto xv = test::random_values(n, seed++);
    const auto yv = test::random_values(n, seed++);
    auto A = std::make_shared<StructMatrix<double>>(e, c.grid, c.stencil);
    std::vector<int> all(c.stencil.size());
    for (int s = 0; s < c.stencil.size(); ++s) all[s] = s;
    // The same coefficients given cell-major through set_box_values.
    std::vector<double> cell_major(coef.size());
    for (size_type p = 0; p < n; ++p)
      for (int s = 0; s < c.stencil.size(); ++s) cell_major[p * c.stencil.size() + s] = coef[s * n + p];
    A->set_box_values(c.grid.box(), all, Array<double>(e, cell_major));
    EXPECT_EQ(A->coefficients().to_vector(), coef);

    const auto expected = product_by_definition(c.grid, c.stencil, coef, xv);
    StructVector<double> x(e, c.grid), y(e, c.grid);
    x.set_box_values(c.grid.box(), Array<double>(e, xv));
    y.set_box_values(c.grid.box(), Array<double>(e, yv));
    matvec(2.0, *A, x, -1.0, y);
    Array<double> got(e, n);
    y.get_box_values(c.grid.box(), got);
    const auto g = got.to_vector();
    for (size_type p = 0; p < n; ++p) {
      ASSERT_NEAR(g[p], 2.0 * expected[p] - yv[p], 1e-13) << "cell " << p;
    }
    // The operator on plain vectors and the CSR bridge give the same product.
    const StructOperator<double> op(A);
    Vector<double> xp(Array<double>(e, xv)), yp(e, n), yc(e, n);
    op.apply(xp, yp);
    const auto csr = A->to_csr();
    csr.validate();
    spmv(csr, xp, yc);
    const auto a = yp.to_vector(), b = yc.to_vector();
    for (size_type p = 0; p < n; ++p) {
      ASSERT_NEAR(a[p], expected[p], 1e-13) << "operator, cell " << p;
      ASSERT_NEAR(b[p], expected[p], 1e-13) << "CSR, cell " << p;
    }
    // Residual in place: r = b - A x with r == b.
    StructVector<double> r(e, c.grid);
    r.set_box_values(c.grid.box(), Array<double>(e, yv));
    residual(*A, r, x, r);
    r.get_box_values(c.grid.box(), got);
    const auto rr = got.to_vector();
    for (size_type p = 0; p < n; ++p) ASSERT_NEAR(rr[p], yv[p] - expected[p], 1e-13);
  }
}

TEST_P(StructuredMatrix, ApplyDotIsTheProductAndItsDot) {
  // The fused product and dot against apply() and dot(), on boxes that take
  // each shape of the box reduction: narrow and wide rows (300 x 70 x 30:
  // two blocks per row), a deep box whose threads take several planes each
  // (5 x 3 x 9000: more planes than the device launches), 2D, periodic (the
  // wrapping row); and symmetric storage, its own fused kernel, on the
  // masked path (not periodic: small and wide boxes) and the wrapping one.
  const auto e = exec();
  std::vector<Index> half27{{0, 0, 0}};
  for (int k = -1; k <= 1; ++k)
    for (int j = -1; j <= 1; ++j)
      for (int i = -1; i <= 1; ++i) {
        const Index o{i, j, k};
        if (Index{0, 0, 0} < o) half27.push_back(o);
      }
  struct Case {
    StructGrid grid;
    Stencil stencil;
    Storage storage = Storage::full;
  };
  const std::vector<Case> cases = {
      {StructGrid::from_extents(3, {7, 5, 4}), Stencil::seven_point()},
      {StructGrid::from_extents(3, {300, 70, 30}), Stencil::seven_point()},
      {StructGrid::from_extents(3, {5, 3, 9000}), Stencil::seven_point()},
      {StructGrid::from_extents(3, {6, 5, 4}, {true, false, true}), box27()},
      {StructGrid::from_extents(2, {9, 7, 1}), Stencil::five_point()},
      {StructGrid::from_extents(3, {6, 5, 4}), Stencil(3, {{0, 0, 0}, {1, 0, 0}, {0, 0, 1}}),
       Storage::symmetric},
      {StructGrid::from_extents(3, {300, 70, 30}),
       Stencil(3, {{0, 0, 0}, {-1, 0, 0}, {0, -1, 0}, {0, 0, -1}}), Storage::symmetric},
      {StructGrid::from_extents(3, {6, 5, 4}, {true, false, true}), Stencil(3, half27),
       Storage::symmetric},
      {StructGrid::from_extents(2, {9, 7, 1}), Stencil(2, {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}}),
       Storage::symmetric},
  };
  unsigned seed = 11;
  for (const auto& c : cases) {
    const size_type n = c.grid.points();
    auto A = std::make_shared<StructMatrix<double>>(e, c.grid, c.stencil, c.storage);
    A->coefficients() = Array<double>(e, test::random_values(n * c.stencil.size(), seed++));
    const StructOperator<double> op(A);
    const Vector<double> x(Array<double>(e, test::random_values(n, seed++)));
    Vector<double> y(e, n), z(e, n);
    const double fused = op.apply_dot(x, y);
    op.apply(x, z);
    EXPECT_EQ(y.to_vector(), z.to_vector()) << to_string(c.grid.box());
    const double expected = dot(x, z);
    EXPECT_NEAR(fused, expected, 1e-12 * std::abs(expected) + 1e-12) << to_string(c.grid.box());
  }
}

TEST_P(StructuredMatrix, ToSymmetricKeepsTheOperatorAndRefusesAsymmetry) {
  const auto e = exec();
  // Gallery matrices (symmetric exactly) in both storages: the same CSR,
  // the centre and the lower offsets kept, in the stencil's order.
  for (const auto& periodic :
       {std::array<bool, 3>{false, false, false}, std::array<bool, 3>{true, false, true}}) {
    const auto A = gallery::anisotropic3d(e, 6, 5, 4, {1.0, 0.5, 2.0}, periodic);
    const auto S = A.to_symmetric();
    EXPECT_EQ(S.storage(), Storage::symmetric);
    EXPECT_EQ(S.stencil().offsets(),
              (std::vector<Index>{{0, 0, 0}, {-1, 0, 0}, {0, -1, 0}, {0, 0, -1}}));
    const auto a = A.to_csr(), s = S.to_csr();
    EXPECT_EQ(a.row_ptr().to_vector(), s.row_ptr().to_vector());
    EXPECT_EQ(a.col_idx().to_vector(), s.col_idx().to_vector());
    EXPECT_EQ(a.values().to_vector(), s.values().to_vector());
    // A copy of a symmetric one.
    EXPECT_EQ(S.to_symmetric().coefficients().to_vector(), S.coefficients().to_vector());
  }
  // A random symmetric matrix through to_full and back: the same entries.
  const StructGrid grid = StructGrid::from_extents(3, {5, 4, 3}, {false, true, false});
  StructMatrix<double> R(e, grid, Stencil(3, {{0, 0, 0}, {1, 0, 0}, {0, -1, 0}, {1, 1, 0}}),
                         Storage::symmetric);
  R.coefficients() = Array<double>(e, test::random_values(4 * grid.points(), 3));
  const auto back = R.to_full().to_symmetric();
  EXPECT_EQ(back.to_csr().values().to_vector(), R.to_csr().values().to_vector());

  // One coefficient off: refused with the size of the asymmetry, accepted
  // within a tolerance above it, and unchecked with an infinite one.
  auto A = gallery::poisson3d(e, 4, 4, 4);
  Array<double> value(e, {-1.001});
  const int plus_x[] = {2};
  A.set_box_values(Box{{1, 1, 1}, {1, 1, 1}}, plus_x, value);
  try {
    (void)A.to_symmetric();
    FAIL() << "no exception";
  } catch (const invalid_argument& ex) {
    EXPECT_NE(std::string(ex.what()).find("not symmetric"), std::string::npos) << ex.what();
    EXPECT_NE(std::string(ex.what()).find("0.000167"), std::string::npos) << ex.what();
  }
  EXPECT_NO_THROW((void)A.to_symmetric(2e-4));
  EXPECT_NO_THROW((void)A.to_symmetric(std::numeric_limits<double>::infinity()));
  EXPECT_THROW((void)A.to_symmetric(-1.0), invalid_argument);
  // A stencil without the mirror of an offset cannot be stored symmetrically.
  const StructMatrix<double> one_sided(e, grid, Stencil(3, {{0, 0, 0}, {1, 0, 0}}));
  try {
    (void)one_sided.to_symmetric();
    FAIL() << "no exception";
  } catch (const invalid_argument& ex) {
    EXPECT_NE(std::string(ex.what()).find("has no mirror"), std::string::npos) << ex.what();
  }
  const StructMatrix<double> no_centre(e, grid, Stencil(3, {{-1, 0, 0}, {1, 0, 0}}));
  EXPECT_THROW((void)no_centre.to_symmetric(), invalid_argument);
}

TEST_P(StructuredMatrix, CsrBridgeEqualsTheCsrGallery) {
  const auto e = exec();
  auto same = [](const CsrMatrix<double>& a, const CsrMatrix<double>& b, const char* what) {
    ASSERT_EQ(a.rows(), b.rows()) << what;
    EXPECT_EQ(a.row_ptr().to_vector(), b.row_ptr().to_vector()) << what;
    EXPECT_EQ(a.col_idx().to_vector(), b.col_idx().to_vector()) << what;
    EXPECT_EQ(a.values().to_vector(), b.values().to_vector()) << what;
  };
  same(gallery::poisson3d(e, 6, 5, 4).to_csr(), strata::gallery::poisson3d(e, 6, 5, 4),
       "poisson3d");
  same(gallery::poisson3d(e, 1, 1, 3).to_csr(), strata::gallery::poisson3d(e, 1, 1, 3),
       "poisson3d 1x1x3");
  same(gallery::anisotropic2d(e, 7, 4).to_csr(), strata::gallery::poisson2d(e, 7, 4), "poisson2d");
  same(gallery::jumps3d(e, 10, 9, 8, 1e6, 2).to_csr(),
       strata::gallery::jumps3d(e, 10, 9, 8, {1e6, 2}), "jumps3d");
  // anisotropic2d: the CSR gallery writes the diagonal 2 (1 + epsilon) as
  // the sum of the rotated terms; equal up to rounding.
  const auto a = gallery::anisotropic2d(e, 6, 5, {1.0, 1e-3}).to_csr();
  const auto b = strata::gallery::anisotropic2d(e, 6, 5, 1e-3, 0.0);
  EXPECT_EQ(a.row_ptr().to_vector(), b.row_ptr().to_vector());
  EXPECT_EQ(a.col_idx().to_vector(), b.col_idx().to_vector());
  const auto av = a.values().to_vector(), bv = b.values().to_vector();
  for (std::size_t k = 0; k < av.size(); ++k) ASSERT_NEAR(av[k], bv[k], 1e-15) << k;
  EXPECT_THROW(gallery::anisotropic3d(e, 4, 4, 4, {1.0, -1.0, 1.0}), invalid_argument);
  EXPECT_THROW(gallery::poisson3d(e, 0, 4, 4), invalid_argument);
}

TEST_P(StructuredMatrix, PeriodicCsrWrapsAndRejectsFolding) {
  const auto e = exec();
  StructMatrix<double> A(e, StructGrid::from_extents(2, {4, 3, 1}, {true, false, false}),
                         Stencil::five_point());
  for (int s = 0; s < 5; ++s) A.fill_entry(s, s == 0 ? 4.0 : -1.0);
  const auto csr = A.to_csr();
  csr.validate();
  // Row 0 (cell (0, 0)): itself, its periodic left neighbour (3, 0), right
  // (1, 0) and up (0, 1); the down neighbour is outside.
  const auto rp = csr.row_ptr().to_vector();
  const auto ci = csr.col_idx().to_vector();
  std::vector<index_type> row0(ci.begin() + rp[0], ci.begin() + rp[1]);
  std::sort(row0.begin(), row0.end());
  EXPECT_EQ(row0, (std::vector<index_type>{0, 1, 3, 4}));
  StructMatrix<double> B(e, StructGrid::from_extents(2, {2, 3, 1}, {true, false, false}),
                         Stencil::five_point());
  EXPECT_NE(message_of<invalid_argument>([&] { B.to_csr(); }).find("periodic direction 0 has 2 cells"),
            std::string::npos);
  // A periodic direction that no offset moves in folds nothing: a 3D grid
  // of one periodic z layer with an x-y stencil converts (reach counted per
  // direction).
  StructMatrix<double> C(e, StructGrid::from_extents(3, {4, 3, 1}, {true, false, true}),
                         Stencil(3, {{0, 0, 0}, {-1, 0, 0}, {1, 0, 0}, {0, -1, 0}, {0, 1, 0}}));
  for (int s = 0; s < 5; ++s) C.fill_entry(s, s == 0 ? 4.0 : -1.0);
  const auto c = C.to_csr();
  EXPECT_EQ(c.row_ptr().to_vector(), csr.row_ptr().to_vector());
  EXPECT_EQ(c.col_idx().to_vector(), csr.col_idx().to_vector());
}

TEST_P(StructuredMatrix, RejectsMismatchedOperandsNamingThem) {
  const auto e = exec();
  const auto grid = StructGrid::from_extents(3, {6, 5, 4});
  // A reach-2 stencil needs two ghost layers in x.
  StructMatrix<double> wide(e, grid, Stencil(3, {{0, 0, 0}, {2, 0, 0}, {-2, 0, 0}}));
  StructVector<double> x1(e, grid, 1), x2(e, grid, 2), y(e, grid);
  EXPECT_NE(message_of<invalid_argument>([&] { matvec(1.0, wide, x1, 0.0, y); })
                .find("x has 1 ghost layers, the stencil reaches 2"),
            std::string::npos);
  EXPECT_NO_THROW(matvec(1.0, wide, x2, 0.0, y));
  // Vectors on another grid, plain vectors of the wrong length.
  StructVector<double> other(e, StructGrid::from_extents(3, {6, 5, 3}));
  EXPECT_NE(message_of<invalid_argument>([&] { matvec(1.0, wide, x2, 0.0, other); })
                .find("y is on the grid [(0, 0, 0), (5, 4, 2)]"),
            std::string::npos);
  Vector<double> short_v(e, 119);
  EXPECT_NE(message_of<dimension_mismatch>([&] { y.copy_from(short_v); })
                .find("v has 119 entries, expected 120"),
            std::string::npos);
  EXPECT_THROW(StructMatrix<double>(e, grid, Stencil::five_point()), invalid_argument);
}

TEST_P(StructuredMatrix, SymmetricStorageMatchesItsDefinition) {
  const auto e = exec();
  // Half stencils: the centre and one offset of each pair.
  std::vector<Index> half27;
  for (int k = -1; k <= 1; ++k)
    for (int j = -1; j <= 1; ++j)
      for (int i = -1; i <= 1; ++i) {
        const Index o{i, j, k};
        if (o > Index{0, 0, 0} || o == Index{0, 0, 0}) half27.push_back(o);
      }
  struct Case {
    StructGrid grid;
    Stencil stencil;
  };
  const std::vector<Case> cases = {
      {StructGrid::from_extents(3, {6, 5, 4}), Stencil(3, {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}})},
      {StructGrid::from_extents(3, {5, 4, 6}, {true, false, true}), Stencil(3, half27)},
      {StructGrid::from_extents(2, {7, 6, 1}, {false, true, false}),
       Stencil(2, {{0, 0, 0}, {1, 0, 0}, {-1, 1, 0}, {0, 1, 0}, {1, 1, 0}})},
  };
  unsigned seed = 70;
  for (const auto& c : cases) {
    const size_type n = c.grid.points();
    const int m = c.stencil.size();
    const auto coef = test::random_values(n * m, seed++);
    auto A = std::make_shared<StructMatrix<double>>(e, c.grid, c.stencil, Storage::symmetric);
    A->coefficients() = Array<double>(e, coef);
    // The dense matrix from the definition: entry o at p is a(p, p + o)
    // and a(p + o, p).
    const Box& b = c.grid.box();
    const std::int64_t ext[3] = {b.extent(0), b.extent(1), b.extent(2)};
    std::vector<double> dense(n * n, 0.0);
    for (size_type p = 0; p < n; ++p) {
      const std::int64_t i = p % ext[0], j = (p / ext[0]) % ext[1], k = p / (ext[0] * ext[1]);
      for (int s = 0; s < m; ++s) {
        std::int64_t q[3] = {i + c.stencil.offset(s)[0], j + c.stencil.offset(s)[1],
                             k + c.stencil.offset(s)[2]};
        bool inside = true;
        for (int d = 0; d < 3; ++d) {
          if (c.grid.periodic(d)) q[d] = ((q[d] % ext[d]) + ext[d]) % ext[d];
          inside = inside && q[d] >= 0 && q[d] < ext[d];
        }
        if (!inside) continue;
        const size_type col = q[0] + ext[0] * (q[1] + ext[1] * q[2]);
        dense[p * n + col] += coef[s * n + p];
        if (c.stencil.offset(s) != Index{0, 0, 0}) dense[col * n + p] += coef[s * n + p];
      }
    }
    const auto xv = test::random_values(n, seed++);
    std::vector<double> expected(n, 0.0);
    for (size_type p = 0; p < n; ++p)
      for (size_type q = 0; q < n; ++q) expected[p] += dense[p * n + q] * xv[q];

    StructVector<double> x(e, c.grid), y(e, c.grid);
    x.set_box_values(b, Array<double>(e, xv));
    matvec(1.0, *A, x, 0.0, y);
    Array<double> got(e, n);
    y.get_box_values(b, got);
    const StructOperator<double> op(A);
    Vector<double> xp(Array<double>(e, xv)), yp(e, n), yc(e, n);
    op.apply(xp, yp);
    const auto csr = A->to_csr();
    csr.validate();
    spmv(csr, xp, yc);
    const auto g = got.to_vector(), a = yp.to_vector(), cc = yc.to_vector();
    for (size_type p = 0; p < n; ++p) {
      ASSERT_NEAR(g[p], expected[p], 1e-13) << "matvec, cell " << p;
      ASSERT_NEAR(a[p], expected[p], 1e-13) << "operator, cell " << p;
      ASSERT_NEAR(cc[p], expected[p], 1e-13) << "CSR, cell " << p;
    }
    EXPECT_EQ(A->to_full().stencil().size(), 2 * m - 1);
  }
  EXPECT_NE(message_of<invalid_argument>([&] {
              StructMatrix<double>(e, StructGrid::from_extents(3, {3, 3, 3}),
                                   Stencil::seven_point(), Storage::symmetric);
            }).find("has offsets[1] = (-1, 0, 0) and offsets[2] = (1, 0, 0)"),
            std::string::npos);
  EXPECT_THROW(StructMatrix<double>(e, StructGrid::from_extents(3, {3, 3, 3}),
                                    Stencil(3, {{1, 0, 0}}), Storage::symmetric),
               invalid_argument);
}

STRATA_INSTANTIATE_ON_EXECUTORS(StructuredVector);
STRATA_INSTANTIATE_ON_EXECUTORS(StructuredMatrix);

}  // namespace
}  // namespace strata::structured
