// Assembly from (row, col, value) entries with set/add semantics: the hypre
// paper's Figures 4 and 5, randomized rounds against a plain sequential
// reference (exact: the same arrival-order sums), device against host (exact),
// re-assembly without a sort, off-process entries, blocked COO, vectors, and
// the errors bad input gets.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "strata/matrix/assembly.hpp"
#include "strata/matrix/bsr.hpp"
#include "test_util.hpp"

namespace strata {
namespace {

using Key = std::pair<size_type, size_type>;

/// The semantics of assembly.hpp, one entry at a time: within a round, a
/// set restarts the position's accumulator and an add adds to it (the first
/// entry starts it); at assemble(), a round with a set replaces the stored
/// value, a round of adds is added to it.
struct SequentialReference {
  struct Pending {
    double sum = 0;
    bool has_set = false;
  };
  std::map<Key, double> stored;
  std::map<Key, Pending> round;

  void insert(InsertMode mode, size_type r, size_type c, double v) {
    auto [it, fresh] = round.try_emplace(Key{r, c});
    if (mode == InsertMode::set) {
      it->second = {v, true};
    } else if (fresh) {
      it->second.sum = v;
    } else {
      it->second.sum += v;
    }
  }
  void assemble() {
    for (const auto& [key, p] : round) {
      auto found = stored.find(key);
      if (p.has_set || found == stored.end())
        stored[key] = p.sum;
      else
        found->second = found->second + p.sum;
    }
    round.clear();
  }
};

/// A host CSR matrix as (row, col) -> value, checking that columns ascend.
std::map<Key, double> entries_of(const CsrMatrix<double>& A_any) {
  const auto A = A_any.to(Executor::host());
  const auto rp = A.row_ptr().host_view();
  const auto ci = A.col_idx().host_view();
  const auto va = A.values().host_view();
  std::map<Key, double> result;
  for (size_type i = 0; i < A.rows(); ++i) {
    for (auto k = rp[i]; k < rp[i + 1]; ++k) {
      if (k > rp[i]) {
        EXPECT_LT(ci[k - 1], ci[k]) << "row " << i;
      }
      result[{i, ci[k]}] = va[k];
    }
  }
  return result;
}

void expect_same_csr(const CsrMatrix<double>& a, const CsrMatrix<double>& b, const char* what) {
  ASSERT_EQ(a.rows(), b.rows()) << what;
  ASSERT_EQ(a.cols(), b.cols()) << what;
  EXPECT_EQ(a.row_ptr().to_vector(), b.row_ptr().to_vector()) << what;
  EXPECT_EQ(a.col_idx().to_vector(), b.col_idx().to_vector()) << what;
  EXPECT_EQ(a.values().to_vector(), b.values().to_vector()) << what;  // bit for bit
}

class Assembly : public test::OnExecutor {
 protected:
  Array<size_type> idx(const std::vector<size_type>& v) const {
    return Array<size_type>(exec(), v);
  }
  Array<double> val(const std::vector<double>& v) const { return Array<double>(exec(), v); }
};

// Figure 4 of the hypre paper: the upper triangle of a 4x4 stiffness matrix
// from two element matrices (adds), then a Dirichlet condition on the edge
// (2, 3) set afterwards.
TEST_P(Assembly, PaperFigure4FemWithDirichletSetAfterAdds) {
  const std::vector<size_type> I = {0, 0, 0, 2, 2, 3, 0, 0, 0, 1, 1, 2, 0, 1, 2, 0, 2, 3};
  const std::vector<size_type> J = {0, 3, 2, 2, 3, 3, 0, 1, 2, 1, 2, 2, 2, 2, 2, 3, 3, 3};
  const std::vector<double> A = {.5, -.5, 0, .5, -.5, 1, .5, -.5, 0, 1, -.5, .5, 0, 0, 1, 0, 0, 1};
  // S: the first 12 entries are adds, the last 6 sets.
  const auto part = [](const auto& v, int from, int to) {
    return std::vector<typename std::decay_t<decltype(v)>::value_type>(v.begin() + from,
                                                                       v.begin() + to);
  };
  MatrixAssembler<double> ij(exec(), 4, 4);
  const auto insert_figure = [&] {
    ij.add_values(idx(part(I, 0, 12)), idx(part(J, 0, 12)), val(part(A, 0, 12)));
    ij.set_values(idx(part(I, 12, 18)), idx(part(J, 12, 18)), val(part(A, 12, 18)));
  };
  insert_figure();
  EXPECT_EQ(ij.pending(), 18);
  ij.assemble();
  EXPECT_EQ(ij.pending(), 0);
  EXPECT_EQ(ij.last_assembly().entries, 18);
  EXPECT_EQ(ij.last_assembly().positions, 9);
  EXPECT_TRUE(ij.last_assembly().pattern_changed);

  // Figure 4(d): I 0 0 0 0 1 1 2 2 3 / J 0 1 2 3 1 2 2 3 3 / A 1 -.5 0 0 1 0 1 0 1.
  const auto& M = ij.matrix();
  ASSERT_EQ(M.rows(), 4);
  EXPECT_EQ(M.row_ptr().to_vector(), (std::vector<offset_type>{0, 4, 6, 8, 9}));
  EXPECT_EQ(M.col_idx().to_vector(), (std::vector<index_type>{0, 1, 2, 3, 1, 2, 2, 3, 3}));
  EXPECT_EQ(M.values().to_vector(), (std::vector<double>{1, -.5, 0, 0, 1, 0, 1, 0, 1}));

  // Figure 4(d)'s S (0 0 1 1 0 1 1 1 1) says how a reduced entry modifies a
  // value already stored: S = 1 replaces it, S = 0 adds to it. Re-running
  // the same entries onto stored values of 10 shows exactly that, and the
  // unchanged keys let the assembly skip the sort.
  ij.fill_values(10.0);
  insert_figure();
  ij.assemble();
  EXPECT_TRUE(ij.last_assembly().reused_pattern);
  EXPECT_FALSE(ij.last_assembly().pattern_changed);
  EXPECT_EQ(ij.matrix().values().to_vector(), (std::vector<double>{11, 9.5, 0, 0, 11, 0, 1, 0, 1}));
  EXPECT_EQ(ij.matrix().col_idx().to_vector(),
            (std::vector<index_type>{0, 1, 2, 3, 1, 2, 2, 3, 3}));
}

// Figure 5: entry (2, 2) gets add .5, add .5, set 1, add .5: the adds before
// the set are discarded, the one after it is summed onto it.
TEST_P(Assembly, PaperFigure5AddAfterSet) {
  MatrixAssembler<double> ij(exec(), 4, 4);
  const auto insert_figure = [&] {
    ij.add_values(idx({2}), idx({2}), val({.5}));
    ij.add_values(idx({2}), idx({2}), val({.5}));
    ij.set_values(idx({2}), idx({2}), val({1}));
    ij.add_values(idx({2}), idx({2}), val({.5}));
  };
  insert_figure();
  ij.assemble();
  EXPECT_EQ(ij.matrix().row_ptr().to_vector(), (std::vector<offset_type>{0, 0, 0, 1, 1}));
  EXPECT_EQ(ij.matrix().col_idx().to_vector(), (std::vector<index_type>{2}));
  EXPECT_EQ(ij.matrix().values().to_vector(), (std::vector<double>{1.5}));
  // S = 1: onto a stored 10 the result is again 1.5, not 11.5.
  ij.fill_values(10.0);
  insert_figure();
  ij.assemble();
  EXPECT_TRUE(ij.last_assembly().reused_pattern);
  EXPECT_EQ(ij.matrix().values().to_vector(), (std::vector<double>{1.5}));
  // Adds only: added to what is stored.
  ij.add_values(idx({2, 2}), idx({2, 2}), val({.25, .25}));
  ij.assemble();
  EXPECT_EQ(ij.matrix().values().to_vector(), (std::vector<double>{2.0}));
}

TEST_P(Assembly, EmptyAssemblyAndEmptyRows) {
  MatrixAssembler<double> ij(exec(), 5, 3);
  ij.assemble();  // nothing stashed: an empty 5 x 3 matrix
  EXPECT_EQ(ij.matrix().rows(), 5);
  EXPECT_EQ(ij.matrix().nnz(), 0);
  EXPECT_EQ(ij.matrix().row_ptr().to_vector(), (std::vector<offset_type>(6, 0)));
  ij.add_values(idx({4, 1, 4}), idx({0, 2, 0}), val({1, 2, 3}));
  ij.add_values(idx({}), idx({}), val({}));  // an empty batch is fine
  ij.assemble();
  EXPECT_EQ(ij.matrix().row_ptr().to_vector(), (std::vector<offset_type>{0, 0, 1, 1, 1, 2}));
  EXPECT_EQ(ij.matrix().col_idx().to_vector(), (std::vector<index_type>{2, 0}));
  EXPECT_EQ(ij.matrix().values().to_vector(), (std::vector<double>{2, 4}));
  ij.matrix().validate();
}

/// Random rounds of batches on `exec`, checked exactly against the sequential
/// reference after every assemble(); returns the final matrix.
CsrMatrix<double> random_rounds(const Executor& exec, unsigned seed) {
  const size_type rows = 300, cols = 257;
  std::mt19937_64 gen(seed);
  // A pool of positions, so that entries repeat (finite-element style), with
  // whole rows left empty and one long row.
  std::vector<Key> pool;
  for (size_type i = 0; i < rows; ++i) {
    if (i % 7 == 3) continue;
    const int length = i == 100 ? 200 : 1 + static_cast<int>(gen() % 6);
    for (int k = 0; k < length; ++k) pool.push_back({i, static_cast<size_type>(gen() % cols)});
  }
  std::uniform_real_distribution<double> value(-1, 1);
  MatrixAssembler<double> ij(exec, rows, cols, {.initial_capacity = 64, .growth_factor = 1.5});
  SequentialReference ref;
  struct Batch {
    InsertMode mode;
    std::vector<size_type> r, c;
    std::vector<double> v;
  };
  std::vector<Batch> last_round;
  for (int round = 0; round < 6; ++round) {
    std::vector<Batch> batches;
    if (round == 2 || round == 3) {
      // The same keys in the same order as the previous round, new values
      // and modes: the analysis is reused.
      batches = last_round;
      for (auto& b : batches) {
        for (auto& v : b.v) v = value(gen);
        b.mode = gen() % 3 == 0 ? InsertMode::set : InsertMode::add;
      }
    } else {
      const int count = 3 + static_cast<int>(gen() % 5);
      // Round 4 draws from a quarter of the pool (the stored pattern holds
      // them all: an in-place update); round 5 adds new positions.
      const size_type pool_size = round == 4 ? static_cast<size_type>(pool.size() / 4)
                                             : static_cast<size_type>(pool.size());
      for (int b = 0; b < count; ++b) {
        Batch batch;
        batch.mode = gen() % 3 == 0 ? InsertMode::set : InsertMode::add;
        const int n = static_cast<int>(gen() % 900);
        for (int k = 0; k < n; ++k) {
          Key key = pool[gen() % pool_size];
          if (round == 5 && k % 10 == 0) key = {static_cast<size_type>(gen() % rows), 256};
          batch.r.push_back(key.first);
          batch.c.push_back(key.second);
          batch.v.push_back(value(gen));
        }
        batches.push_back(std::move(batch));
      }
    }
    for (const auto& b : batches) {
      ij.insert(b.mode, Array<size_type>(exec, b.r), Array<size_type>(exec, b.c),
                Array<double>(exec, b.v));
      for (std::size_t k = 0; k < b.r.size(); ++k) ref.insert(b.mode, b.r[k], b.c[k], b.v[k]);
    }
    ij.assemble();
    ref.assemble();
    EXPECT_EQ(ij.last_assembly().reused_pattern, round == 2 || round == 3) << "round " << round;
    EXPECT_EQ(entries_of(ij.matrix()), ref.stored) << "round " << round;  // exact
    last_round = std::move(batches);
  }
  ij.matrix().validate();
  return ij.matrix().clone();
}

TEST_P(Assembly, RandomRoundsMatchSequentialReferenceExactly) { random_rounds(exec(), 42); }

// Large enough for the host's radix sort (the small cases use a merge sort).
TEST_P(Assembly, LargeBatchesMatchSequentialReference) {
  const size_type rows = 40000, cols = 70000;
  std::mt19937_64 gen(11);
  std::uniform_real_distribution<double> value(-1, 1);
  MatrixAssembler<double> ij(exec(), rows, cols);
  SequentialReference ref;
  for (int batch = 0; batch < 3; ++batch) {
    const InsertMode mode = batch == 1 ? InsertMode::set : InsertMode::add;
    std::vector<size_type> r(150000), c(150000);
    std::vector<double> v(150000);
    for (std::size_t k = 0; k < r.size(); ++k) {
      r[k] = static_cast<size_type>(gen() % rows);
      c[k] = static_cast<size_type>(gen() % 8) * (cols / 8) + r[k] % 5;  // many repeats
      v[k] = value(gen);
      ref.insert(mode, r[k], c[k], v[k]);
    }
    ij.insert(mode, idx(r), idx(c), val(v));
  }
  ij.assemble();
  ref.assemble();
  EXPECT_EQ(entries_of(ij.matrix()), ref.stored);
}

TEST(AssemblyDevice, RandomRoundsDeviceEqualsHostBitForBit) {
  STRATA_REQUIRE_DEVICE();
  for (unsigned seed : {1u, 2u, 3u}) {
    const auto host = random_rounds(Executor::host(), seed);
    const auto device = random_rounds(Executor::cuda(), seed);
    expect_same_csr(host, device, "random rounds");
  }
}

TEST_P(Assembly, ChangedKeysWithTheSameCountAreNotReused) {
  MatrixAssembler<double> ij(exec(), 3, 3);
  ij.add_values(idx({0, 1, 2}), idx({0, 1, 2}), val({1, 2, 3}));
  ij.assemble();
  ij.add_values(idx({0, 2, 1}), idx({0, 2, 1}), val({1, 1, 1}));  // same keys, other order
  ij.assemble();
  EXPECT_FALSE(ij.last_assembly().reused_pattern);
  EXPECT_EQ(ij.matrix().values().to_vector(), (std::vector<double>{2, 3, 4}));
  ij.add_values(idx({0, 2, 1}), idx({0, 2, 1}), val({1, 1, 1}));  // now it repeats
  ij.assemble();
  EXPECT_TRUE(ij.last_assembly().reused_pattern);
  EXPECT_EQ(ij.matrix().values().to_vector(), (std::vector<double>{3, 4, 5}));
  ij.add_values(idx({0, 2, 0}), idx({1, 2, 1}), val({5, 1, 5}));  // a new position, same count
  ij.assemble();
  EXPECT_FALSE(ij.last_assembly().reused_pattern);
  EXPECT_TRUE(ij.last_assembly().pattern_changed);
  EXPECT_EQ(ij.matrix().col_idx().to_vector(), (std::vector<index_type>{0, 1, 1, 2}));
  EXPECT_EQ(ij.matrix().values().to_vector(), (std::vector<double>{3, 10, 4, 6}));
}

TEST_P(Assembly, ReleaseHandsOverTheMatrixAndStartsAfresh) {
  MatrixAssembler<double> ij(exec(), 2, 2);
  ij.add_values(idx({0, 1}), idx({1, 0}), val({1, 2}));
  ij.assemble();
  const auto A = ij.release();
  EXPECT_EQ(A.nnz(), 2);
  EXPECT_EQ(ij.matrix().nnz(), 0);
  ij.add_values(idx({0, 1}), idx({1, 0}), val({1, 2}));
  ij.assemble();
  EXPECT_FALSE(ij.last_assembly().reused_pattern);
  EXPECT_EQ(ij.matrix().values().to_vector(), (std::vector<double>{1, 2}));
}

// Rows [2, 5) of 8 are owned; the others are kept apart, in arrival order,
// with their global indices and modes.
TEST_P(Assembly, OffProcessEntriesAreKeptApart) {
  MatrixAssembler<double> ij(exec(), 8, 6, {.row_begin = 2, .row_end = 5});
  EXPECT_EQ(ij.row_begin(), 2);
  EXPECT_EQ(ij.row_end(), 5);
  ij.add_values(idx({0, 2, 7, 4, 2, 1}), idx({5, 1, 0, 3, 1, 1}), val({1, 2, 3, 4, 5, 6}));
  ij.set_values(idx({5, 3}), idx({2, 2}), val({7, 8}));
  EXPECT_EQ(ij.pending(), 4);
  EXPECT_EQ(ij.off_process_count(), 4);
  ij.assemble();
  EXPECT_EQ(ij.matrix().rows(), 3);
  EXPECT_EQ(ij.matrix().cols(), 6);
  EXPECT_EQ(ij.matrix().row_ptr().to_vector(), (std::vector<offset_type>{0, 1, 2, 3}));
  EXPECT_EQ(ij.matrix().col_idx().to_vector(), (std::vector<index_type>{1, 2, 3}));
  EXPECT_EQ(ij.matrix().values().to_vector(), (std::vector<double>{7, 8, 4}));
  EXPECT_EQ(ij.off_process_count(), 4);  // assemble() leaves them for the exchange
  const auto off = ij.take_off_process();
  EXPECT_EQ(off.size(), 4);
  EXPECT_EQ(off.rows.to_vector(), (std::vector<size_type>{0, 7, 1, 5}));
  EXPECT_EQ(off.cols.to_vector(), (std::vector<size_type>{5, 0, 1, 2}));
  EXPECT_EQ(off.values.to_vector(), (std::vector<double>{1, 3, 6, 7}));
  EXPECT_EQ(off.modes.to_vector(), (std::vector<std::uint8_t>{0, 0, 0, 1}));
  EXPECT_EQ(ij.off_process_count(), 0);
}

/// Checks that `f` throws invalid_argument whose message contains every
/// string of `parts`.
template <class F>
void expect_invalid(F&& f, std::vector<std::string> parts) {
  try {
    f();
    ADD_FAILURE() << "no exception; expected one mentioning " << parts.front();
  } catch (const invalid_argument& e) {
    for (const auto& p : parts) {
      EXPECT_NE(std::string(e.what()).find(p), std::string::npos)
          << "message '" << e.what() << "' lacks '" << p << "'";
    }
  }
}

TEST_P(Assembly, BadEntriesAreNamedByPositionAndValues) {
  MatrixAssembler<double> ij(exec(), 4, 3);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  expect_invalid(
      [&] {
        ij.add_values(idx({0, 1, 2, 4}), idx({0, 0, 0, 0}), val({1, 1, 1, 1}));
      },
      {"MatrixAssembler::add_values", "entry 3", "row 4", "[0, 4)"});
  expect_invalid(
      [&] {
        ij.set_values(idx({0, 1}), idx({0, -1}), val({1, 1}));
      },
      {"set_values", "entry 1", "col -1", "[0, 3)"});
  expect_invalid(
      [&] {
        ij.add_values(idx({0, 1, 2}), idx({0, 1, 2}), val({1, nan, 1}));
      },
      {"entry 1", "row 1, col 1, value nan", "NaN or infinite"});
  expect_invalid([&] { ij.add_values(idx({3}), idx({2}), val({-inf})); },
                 {"entry 0", "value -inf"});
  expect_invalid(
      [&] {
        ij.add_values(idx({0, 1}), idx({0}), val({1, 1}));
      },
      {"rows has 2", "cols has 1"});
  expect_invalid(
      [&] {
        ij.add_values(idx({0, 1}), idx({0, 1}), val({1}));
      },
      {"values must have 2", "it has 1"});
  EXPECT_EQ(ij.pending(), 0);  // nothing of a bad batch is stored
  ij.assemble();
  EXPECT_EQ(ij.matrix().nnz(), 0);
}

TEST(AssemblyHost, OptionsAreChecked) {
  const auto h = Executor::host();
  EXPECT_THROW(MatrixAssembler<double>(h, 4, 4, {.row_begin = 3, .row_end = 2}), invalid_argument);
  EXPECT_THROW(MatrixAssembler<double>(h, 4, 4, {.row_end = 5}), invalid_argument);
  EXPECT_THROW(MatrixAssembler<double>(h, 4, 4, {.growth_factor = 1.0}), invalid_argument);
  EXPECT_THROW(MatrixAssembler<double>(h, 4, size_type{1} << 32), invalid_argument);
  EXPECT_THROW(BlockMatrixAssembler<double>(h, 4, 4, 0, 3), invalid_argument);
}

TEST(AssemblyDevice, BatchMustLiveOnTheAssemblersExecutor) {
  STRATA_REQUIRE_DEVICE();
  MatrixAssembler<double> ij(Executor::cuda(), 4, 4);
  const auto h = Executor::host();
  EXPECT_THROW(
      ij.add_values(Array<size_type>(h, {0}), Array<size_type>(h, {0}), Array<double>(h, {1.0})),
      location_mismatch);
}

/// Q1 finite-element assembly on an nx x ny grid of square elements: every
/// element adds its 4x4 Laplace stiffness; the boundary rows are then set to
/// the identity (a set after the adds, as in Figure 4, on whole rows).
CsrMatrix<double> q1_laplace(const Executor& exec, size_type nx, size_type ny) {
  const size_type nodes = (nx + 1) * (ny + 1);
  const double K[4][4] = {{4, -1, -2, -1}, {-1, 4, -1, -2}, {-2, -1, 4, -1}, {-1, -2, -1, 4}};
  std::vector<size_type> r, c;
  std::vector<double> v;
  for (size_type ey = 0; ey < ny; ++ey) {
    for (size_type ex = 0; ex < nx; ++ex) {
      const size_type n0 = ex + (nx + 1) * ey;
      const size_type local[4] = {n0, n0 + 1, n0 + nx + 2, n0 + nx + 1};
      for (int a = 0; a < 4; ++a) {
        for (int b = 0; b < 4; ++b) {
          r.push_back(local[a]);
          c.push_back(local[b]);
          v.push_back(K[a][b] / 6.0);
        }
      }
    }
  }
  std::vector<size_type> br, bc;
  std::vector<double> bv;
  for (size_type p = 0; p < nodes; ++p) {
    const size_type i = p % (nx + 1), j = p / (nx + 1);
    if (i != 0 && j != 0 && i != nx && j != ny) continue;
    for (size_type q :
         {p - nx - 2, p - nx - 1, p - nx, p - 1, p, p + 1, p + nx, p + nx + 1, p + nx + 2}) {
      if (q < 0 || q >= nodes) continue;
      const size_type qi = q % (nx + 1);
      if (qi + 1 < i || qi > i + 1) continue;  // not a neighbour across the grid edge
      br.push_back(p);
      bc.push_back(q);
      bv.push_back(q == p ? 1.0 : 0.0);
    }
  }
  MatrixAssembler<double> ij(exec, nodes, nodes);
  ij.add_values(Array<size_type>(exec, r), Array<size_type>(exec, c), Array<double>(exec, v));
  ij.set_values(Array<size_type>(exec, br), Array<size_type>(exec, bc), Array<double>(exec, bv));
  ij.assemble();
  return ij.matrix().clone();
}

TEST_P(Assembly, FiniteElementLaplaceHasTheStencil) {
  const auto A = entries_of(q1_laplace(exec(), 9, 7));
  // An interior node: 8/3 on the diagonal, -1/3 to its eight neighbours.
  const size_type p = 4 + 10 * 3;
  EXPECT_NEAR(A.at({p, p}), 8.0 / 3.0, 1e-15);
  EXPECT_NEAR(A.at({p, p + 1}), -1.0 / 3.0, 1e-15);
  EXPECT_NEAR(A.at({p, p + 11}), -1.0 / 3.0, 1e-15);
  EXPECT_EQ(A.size(), static_cast<std::size_t>(9 * (3 * 10 - 2) * (3 * 8 - 2) / 9));
  // A boundary row is the identity row.
  EXPECT_EQ(A.at({0, 0}), 1.0);
  EXPECT_EQ(A.at({0, 1}), 0.0);
  EXPECT_EQ(A.at({0, 11}), 0.0);
}

TEST(AssemblyDevice, FiniteElementLaplaceDeviceEqualsHost) {
  STRATA_REQUIRE_DEVICE();
  expect_same_csr(q1_laplace(Executor::host(), 120, 70), q1_laplace(Executor::cuda(), 120, 70),
                  "Q1 Laplace");
  expect_same_csr(q1_laplace(Executor::host(), 1, 1), q1_laplace(Executor::cuda(), 1, 1),
                  "one element");
}

// ------------------------------------------------------------------ vectors

TEST_P(Assembly, VectorSetAndAddSemantics) {
  VectorAssembler<double> b(exec(), 6);
  EXPECT_EQ(b.vector().to_vector(), (std::vector<double>(6, 0.0)));
  b.add_values(idx({2, 2, 5, 0}), val({.5, .5, 1, 3}));
  b.set_values(idx({2}), val({1}));
  b.add_values(idx({2, 5}), val({.5, 1}));
  b.assemble();
  EXPECT_EQ(b.vector().to_vector(), (std::vector<double>{3, 0, 1.5, 0, 0, 2}));
  b.add_values(idx({0, 5}), val({1, 1}));  // adds onto stored values
  b.assemble();
  EXPECT_EQ(b.vector().to_vector(), (std::vector<double>{4, 0, 1.5, 0, 0, 3}));
  b.add_values(idx({0, 5}), val({1, 1}));
  b.assemble();
  EXPECT_TRUE(b.last_assembly().reused_pattern);
  EXPECT_EQ(b.vector().to_vector(), (std::vector<double>{5, 0, 1.5, 0, 0, 4}));
  b.fill_values(0.0);
  EXPECT_EQ(b.vector().to_vector(), (std::vector<double>(6, 0.0)));
  expect_invalid([&] { b.add_values(idx({6}), val({1})); },
                 {"VectorAssembler::add_values", "entry 0", "index 6", "[0, 6)"});
  const auto v = b.release();
  EXPECT_EQ(v.size(), 6);
}

TEST_P(Assembly, VectorOffProcess) {
  VectorAssembler<double> b(exec(), 10, {.row_begin = 4, .row_end = 8});
  b.add_values(idx({3, 4, 9, 7, 4}), val({1, 2, 3, 4, 5}));
  b.assemble();
  EXPECT_EQ(b.vector().to_vector(), (std::vector<double>{7, 0, 0, 4}));
  const auto off = b.take_off_process();
  EXPECT_EQ(off.rows.to_vector(), (std::vector<size_type>{3, 9}));
  EXPECT_EQ(off.cols.size(), 0);
  EXPECT_EQ(off.values.to_vector(), (std::vector<double>{1, 3}));
}

/// Random rounds into a vector with owned rows [100, 4900) of 5000, checked
/// exactly against the reference; returns the final owned values.
std::vector<double> random_vector_rounds(const Executor& exec, unsigned seed) {
  const size_type n = 5000, begin = 100, end = 4900;
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<double> value(-1, 1);
  VectorAssembler<double> b(exec, n, {.row_begin = begin, .row_end = end});
  SequentialReference ref;
  size_type off_process = 0;
  std::vector<std::pair<InsertMode, std::vector<size_type>>> previous;
  for (int round = 0; round < 4; ++round) {
    std::vector<std::pair<InsertMode, std::vector<size_type>>> batches;
    if (round == 2) {
      batches = previous;  // same indices again: reused
    } else {
      for (int k = 0; k < 5; ++k) {
        std::vector<size_type> indices(200 + gen() % 3000);
        for (auto& i : indices) i = static_cast<size_type>(gen() % (n / 4)) * 4 + round % 4;
        batches.push_back({gen() % 3 == 0 ? InsertMode::set : InsertMode::add, indices});
      }
    }
    for (const auto& [mode, indices] : batches) {
      std::vector<double> values(indices.size());
      for (auto& v : values) v = value(gen);
      b.insert(mode, Array<size_type>(exec, indices), Array<double>(exec, values));
      for (std::size_t k = 0; k < indices.size(); ++k) {
        if (indices[k] < begin || indices[k] >= end)
          ++off_process;
        else
          ref.insert(mode, indices[k] - begin, 0, values[k]);
      }
    }
    b.assemble();
    ref.assemble();
    EXPECT_EQ(b.last_assembly().reused_pattern, round == 2);
    std::vector<double> expected(end - begin, 0.0);
    for (const auto& [key, v] : ref.stored) expected[key.first] = v;
    EXPECT_EQ(b.vector().to_vector(), expected) << "round " << round;
    previous = std::move(batches);
  }
  EXPECT_EQ(b.off_process_count(), off_process);
  return b.vector().to_vector();
}

TEST_P(Assembly, VectorRandomRoundsMatchSequentialReference) { random_vector_rounds(exec(), 5); }

TEST(AssemblyDevice, VectorDeviceEqualsHost) {
  STRATA_REQUIRE_DEVICE();
  EXPECT_EQ(random_vector_rounds(Executor::host(), 6), random_vector_rounds(Executor::cuda(), 6));
}

// ------------------------------------------------------------------ blocks

/// Random 2x3 blocks assembled as blocks must equal the same entries
/// assembled one scalar at a time (a set block sets each of its entries),
/// converted to BSR.
void blocks_match_scalars(const Executor& exec, unsigned seed) {
  const size_type block_rows = 70, block_cols = 45;
  const int r = 2, c = 3;
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<double> value(-1, 1);
  BlockMatrixAssembler<double> blocks(exec, block_rows, block_cols, r, c);
  MatrixAssembler<double> scalars(exec, block_rows * r, block_cols * c);
  for (int round = 0; round < 3; ++round) {
    for (int batch = 0; batch < 4; ++batch) {
      const InsertMode mode = batch == 2 ? InsertMode::set : InsertMode::add;
      std::vector<size_type> bi, bj, si, sj;
      std::vector<double> bv, sv;
      const int n = 50 + static_cast<int>(gen() % 300);
      for (int k = 0; k < n; ++k) {
        const size_type I = static_cast<size_type>(gen() % block_rows) / (round + 1);
        const size_type J = static_cast<size_type>(gen() % 9) * 5;
        bi.push_back(I);
        bj.push_back(J);
        for (int a = 0; a < r; ++a) {
          for (int b = 0; b < c; ++b) {
            const double v = value(gen);
            bv.push_back(v);
            si.push_back(I * r + a);
            sj.push_back(J * c + b);
            sv.push_back(v);
          }
        }
      }
      blocks.insert(mode, Array<size_type>(exec, bi), Array<size_type>(exec, bj),
                    Array<double>(exec, bv));
      scalars.insert(mode, Array<size_type>(exec, si), Array<size_type>(exec, sj),
                     Array<double>(exec, sv));
    }
    blocks.assemble();
    scalars.assemble();
    const auto& B = blocks.matrix();
    B.validate();
    const auto expected = to_bsr(scalars.matrix(), r, c);
    EXPECT_EQ(B.row_block_size(), r);
    EXPECT_EQ(B.col_block_size(), c);
    EXPECT_EQ(B.row_ptr().to_vector(), expected.row_ptr().to_vector()) << "round " << round;
    EXPECT_EQ(B.col_idx().to_vector(), expected.col_idx().to_vector()) << "round " << round;
    EXPECT_EQ(B.values().to_vector(), expected.values().to_vector()) << "round " << round;
  }
}

TEST_P(Assembly, BlockedCooMatchesScalarAssembly) { blocks_match_scalars(exec(), 7); }

TEST_P(Assembly, BlockedCooErrorsNameTheBlock) {
  BlockMatrixAssembler<double> A(exec(), 3, 4, 2, 2);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  expect_invalid(
      [&] {
        A.add_blocks(idx({0, 1}), idx({0, 1}), val({1, 2, 3, 4, 5, 6, nan, 8}));
      },
      {"BlockMatrixAssembler::add_blocks", "entry 1", "block row 1, block col 1",
       "value 2 of the block (nan)"});
  expect_invalid(
      [&] {
        A.set_blocks(idx({0}), idx({4}), val({1, 2, 3, 4}));
      },
      {"set_blocks", "block col 4", "[0, 4)"});
  expect_invalid(
      [&] {
        A.add_blocks(idx({0}), idx({0}), val({1, 2, 3}));
      },
      {"values must have 1 x 4 = 4"});
}

TEST_P(Assembly, BlockedCooReassemblyAndOffProcess) {
  BlockMatrixAssembler<double> A(exec(), 4, 4, 1, 2, {.row_begin = 1, .row_end = 3});
  const auto insert = [&](double scale) {
    A.add_blocks(idx({1, 2, 1, 0}), idx({3, 0, 3, 1}),
                 val({1 * scale, 2 * scale, 3, 4, 5, 6, 7, 8}));
  };
  insert(1.0);
  A.assemble();
  EXPECT_EQ(A.matrix().row_ptr().to_vector(), (std::vector<offset_type>{0, 1, 2}));
  EXPECT_EQ(A.matrix().values().to_vector(), (std::vector<double>{6, 8, 3, 4}));
  EXPECT_EQ(A.off_process_count(), 1);
  A.fill_values(0.0);
  insert(2.0);
  A.assemble();
  EXPECT_TRUE(A.last_assembly().reused_pattern);
  EXPECT_EQ(A.matrix().values().to_vector(), (std::vector<double>{7, 10, 3, 4}));
  const auto off = A.take_off_process();
  EXPECT_EQ(off.rows.to_vector(), (std::vector<size_type>{0, 0}));
  EXPECT_EQ(off.values.to_vector(), (std::vector<double>{7, 8, 7, 8}));
}

TEST(AssemblyDevice, BlockedCooDeviceEqualsHost) {
  STRATA_REQUIRE_DEVICE();
  blocks_match_scalars(Executor::cuda(), 8);
  // And directly: the same random blocks on both.
  const auto build = [](const Executor& e) {
    BlockMatrixAssembler<double> A(e, 500, 500, 3, 6);
    std::mt19937_64 gen(9);
    std::uniform_real_distribution<double> value(-1, 1);
    for (int batch = 0; batch < 3; ++batch) {
      std::vector<size_type> bi, bj;
      std::vector<double> bv;
      for (int k = 0; k < 20000; ++k) {
        bi.push_back(static_cast<size_type>(gen() % 500));
        bj.push_back(static_cast<size_type>(gen() % 40));
        for (int t = 0; t < 18; ++t) bv.push_back(value(gen));
      }
      A.insert(batch == 1 ? InsertMode::set : InsertMode::add, Array<size_type>(e, bi),
               Array<size_type>(e, bj), Array<double>(e, bv));
    }
    A.assemble();
    return A.release();
  };
  const auto h = build(Executor::host());
  const auto d = build(Executor::cuda());
  EXPECT_EQ(h.row_ptr().to_vector(), d.row_ptr().to_vector());
  EXPECT_EQ(h.col_idx().to_vector(), d.col_idx().to_vector());
  EXPECT_EQ(h.values().to_vector(), d.values().to_vector());
}

STRATA_INSTANTIATE_ON_EXECUTORS(Assembly);

}  // namespace
}  // namespace strata
