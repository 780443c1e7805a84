// Classical coarsening of a distributed level under MPI (1 to 4 processes):
// the C/F splitting and P (gathered) against the serial coarsening of the
// whole matrix, for a 3D Poisson problem, a 2D rotated anisotropy and a
// nonsymmetric MatrixMarket matrix, on even partitions and on uneven ones
// with a process that owns no rows; every interpolation kind, with and
// without truncation; aggressive coarsening (both passes, two-stage
// interpolation) on one and two levels; R = P^T; value-only refresh against
// the serial refresh; a whole hierarchy's levels and iterations; and the
// refusal of a refresh with another pattern. The
// serial matrices are small and built on every process for comparison only.

#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <numbers>
#include <string>
#include <utility>
#include <vector>

#include "distributed/mpi_test_util.hpp"
#include "strata/amg/classical.hpp"
#include "strata/distributed/gallery.hpp"
#include "strata/distributed/mpi.hpp"
#include "strata/distributed/operator.hpp"
#include "strata/distributed/reduction.hpp"
#include "strata/distributed/rows.hpp"
#include "strata/io/matrix_market.hpp"
#include "strata/matrix/transpose.hpp"
#include "strata/solver/krylov.hpp"

namespace strata {
namespace {

using test::Entries;
using test::entries_of;
using test::gathered;
using test::uneven;
using test::world;

/// The whole splitting from every process's part, on every process.
std::vector<std::int32_t> gathered(const Array<std::int32_t>& part) {
  const std::vector<std::int32_t> mine = part.to_vector();
  int size = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int count = static_cast<int>(mine.size());
  std::vector<int> counts(size), displacements(size, 0);
  MPI_Allgather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, MPI_COMM_WORLD);
  for (int r = 1; r < size; ++r) displacements[r] = displacements[r - 1] + counts[r - 1];
  std::vector<std::int32_t> all(static_cast<std::size_t>(displacements.back() + counts.back()));
  MPI_Allgatherv(mine.data(), count, MPI_INT32_T, all.data(), counts.data(), displacements.data(),
                 MPI_INT32_T, MPI_COMM_WORLD);
  return all;
}

/// The same pattern, and values equal to `tolerance` relative to
/// max(1, |serial value|) (the entries of P and R are O(1)).
void expect_same_entries(const Entries& distributed, const Entries& serial, const char* what,
                         double tolerance = 1e-12) {
  ASSERT_EQ(distributed.size(), serial.size()) << what << ": number of entries";
  auto d = distributed.begin();
  for (auto s = serial.begin(); s != serial.end(); ++s, ++d) {
    ASSERT_EQ(d->first, s->first) << what << ": pattern";
    EXPECT_NEAR(d->second, s->second, tolerance * std::max(1.0, std::abs(s->second)))
        << what << " entry (" << s->first.first << ", " << s->first.second << ")";
  }
}

/// Coarsens the whole matrix serially and its distributed form (level
/// `level`, so that the level's seed is used), and checks that the splitting
/// and P agree, and that R = P^T. Returns the number of C points.
size_type check_coarsening(const CsrMatrix<double>& serial, const DistributedCsrMatrix<double>& A,
                           const amg::ClassicalParams& params, const std::string& what,
                           int level = 0) {
  SCOPED_TRACE(what + ", interpolation " + amg::to_string(params.interpolation) + ", Pmax " +
               std::to_string(params.max_elements_per_row) + ", truncation " +
               std::to_string(params.truncation_factor) + ", level " + std::to_string(level));
  amg::StageTimes times;
  const auto serial_coarsening = amg::make_classical_coarsening<double>(params);
  const auto serial_transfer =
      serial_coarsening->coarsen(CsrOperator<double>(serial.clone()), level, times);
  const auto coarsening = amg::make_classical_coarsening<double>(params);
  const auto transfer = coarsening->coarsen(
      DistributedOperator<double>(std::make_shared<const DistributedCsrMatrix<double>>(A.clone())),
      level, times);

  const std::vector<std::int32_t> expected =
      amg::classical_splitting(*serial_coarsening, level).to_vector();
  const std::vector<std::int32_t> splitting =
      gathered(amg::classical_splitting(*coarsening, level));
  EXPECT_EQ(splitting, expected) << "splitting";
  size_type coarse = 0;
  for (const std::int32_t c : expected) coarse += c == 1 ? 1 : 0;

  EXPECT_EQ(transfer.has_value(), serial_transfer.has_value());
  if (!transfer || !serial_transfer) return coarse;
  const auto* P = dynamic_cast<const DistributedOperator<double>*>(transfer->P.get());
  const auto* R = dynamic_cast<const DistributedOperator<double>*>(transfer->R.get());
  EXPECT_TRUE(P != nullptr && R != nullptr) << "P and R must be distributed operators";
  if (P == nullptr || R == nullptr) return coarse;
  const auto& serial_P = dynamic_cast<const CsrOperator<double>&>(*serial_transfer->P).matrix();
  EXPECT_EQ(P->matrix().row_partition(), A.row_partition());
  EXPECT_EQ(P->matrix().global_cols(), coarse);
  EXPECT_EQ(R->matrix().row_partition(), P->matrix().col_partition());
  expect_same_entries(gathered(P->matrix()), entries_of(serial_P), "P");
  expect_same_entries(gathered(R->matrix()), entries_of(transpose(serial_P)), "R");
  return coarse;
}

/// Every interpolation kind, truncated as by default, by a relative factor,
/// and not at all; and the row-sum test of strength.
std::vector<amg::ClassicalParams> parameter_sets() {
  std::vector<amg::ClassicalParams> sets;
  for (const amg::Interpolation kind : {amg::Interpolation::mm_ext_i, amg::Interpolation::mm_ext,
                                        amg::Interpolation::mm_ext_e, amg::Interpolation::direct}) {
    amg::ClassicalParams p;
    p.interpolation = kind;
    sets.push_back(p);
  }
  amg::ClassicalParams factor;
  factor.truncation_factor = 0.3;
  factor.max_elements_per_row = 3;
  sets.push_back(factor);
  amg::ClassicalParams untruncated;
  untruncated.max_elements_per_row = 0;
  sets.push_back(untruncated);
  // The row-sum test sums a row in the distributed matrix's order (its
  // diagonal block, then its off-diagonal block) and the serial one in the
  // serial order: equal here, where the sums are exact or far from the
  // threshold.
  amg::ClassicalParams row_sum;
  row_sum.max_row_sum = 0.9;
  sets.push_back(row_sum);
  return sets;
}

TEST(DistributedClassical, Poisson3dMatchesTheSerialCoarsening) {
  const Communicator comm = world();
  const Executor host = Executor::host();
  const CsrMatrix<double> serial = gallery::poisson3d(host, 7, 6, 5);
  for (const RowPartition& part :
       {RowPartition::uniform(comm, serial.rows()), uneven(comm, serial.rows())}) {
    const DistributedCsrMatrix<double> A = gallery::poisson3d(part, host, 7, 6, 5);
    for (const amg::ClassicalParams& params : parameter_sets()) {
      const size_type coarse = check_coarsening(serial, A, params, "poisson3d 7x6x5");
      EXPECT_GT(coarse, 0);
      EXPECT_LT(coarse, serial.rows());
    }
    // A later level hashes with its own seed.
    check_coarsening(serial, A, amg::ClassicalParams{}, "poisson3d 7x6x5", 3);
  }
}

TEST(DistributedClassical, RotatedAnisotropyMatchesTheSerialCoarsening) {
  const Communicator comm = world();
  const Executor host = Executor::host();
  const double epsilon = 0.01, theta = std::numbers::pi / 6;
  const CsrMatrix<double> serial = gallery::anisotropic2d(host, 17, 15, epsilon, theta);
  for (const RowPartition& part :
       {RowPartition::uniform(comm, serial.rows()), uneven(comm, serial.rows())}) {
    const DistributedCsrMatrix<double> A =
        gallery::anisotropic2d(part, host, 17, 15, epsilon, theta);
    for (const amg::ClassicalParams& params : parameter_sets()) {
      check_coarsening(serial, A, params, "anisotropic2d 17x15, rotated");
    }
    amg::ClassicalParams strong_only;
    strong_only.strength_threshold = 0.5;
    check_coarsening(serial, A, strong_only, "anisotropic2d 17x15, theta 0.5");
  }
}

/// recirc_flow: nonsymmetric convection-diffusion on an unstructured mesh,
/// read on rank 0 and scattered.
TEST(DistributedClassical, NonsymmetricMatrixMarketMatrixMatchesTheSerialCoarsening) {
  const std::string dir = STRATA_TEST_DATA_DIR;
  if (dir.empty()) GTEST_SKIP() << "no test matrices (STRATA_TEST_DATA_DIR)";
  const Communicator comm = world();
  const Executor host = Executor::host();
  const CsrMatrix<double> serial = io::read_matrix_market(dir + "/pyamg/recirc_flow_A.mtx");
  const CsrMatrix<double> nothing;
  for (const RowPartition& part :
       {RowPartition::uniform(comm, serial.rows()), uneven(comm, serial.rows())}) {
    const DistributedCsrMatrix<double> A =
        scatter_rows(comm.rank() == 0 ? serial : nothing, part, host);
    for (const amg::ClassicalParams& params : parameter_sets()) {
      const size_type coarse = check_coarsening(serial, A, params, "recirc_flow");
      EXPECT_GT(coarse, 0);
    }
    // A directed strength graph in both passes of aggressive coarsening.
    for (const int paths : {1, 2}) {
      amg::ClassicalParams aggressive;
      aggressive.aggressive_levels = 1;
      aggressive.aggressive_num_paths = paths;
      check_coarsening(serial, A, aggressive, "recirc_flow, aggressive A" + std::to_string(paths));
    }
  }
}

/// The check above is not vacuous: another seed gives another splitting of
/// the same matrix, so equal splittings are not an accident of the problem.
TEST(DistributedClassical, TheSplittingDependsOnTheSeed) {
  const Communicator comm = world();
  const Executor host = Executor::host();
  const RowPartition part = RowPartition::uniform(comm, 7 * 6 * 5);
  const DistributedCsrMatrix<double> A = gallery::poisson3d(part, host, 7, 6, 5);
  std::vector<std::vector<std::int32_t>> splittings;
  for (const std::uint64_t seed : {1u, 2u}) {
    amg::ClassicalParams params;
    params.seed = seed;
    amg::StageTimes times;
    const auto coarsening = amg::make_classical_coarsening<double>(params);
    coarsening->coarsen(DistributedOperator<double>(A.clone()), 0, times);
    splittings.push_back(gathered(amg::classical_splitting(*coarsening, 0)));
  }
  EXPECT_NE(splittings[0], splittings[1]);
}

/// New values on the same pattern: entry (i, j) times a factor that varies
/// with both, so that strength, weights and P all change.
double change(global_index i, global_index j) {
  return 1.0 + 0.3 * std::sin(0.7 * double(i) + 1.3 * double(j));
}

void change_values(CsrMatrix<double>& A) {
  const auto ptr = A.row_ptr().to_vector();
  const auto col = A.col_idx().to_vector();
  auto val = A.values().to_vector();
  for (size_type i = 0; i < A.rows(); ++i) {
    for (offset_type k = ptr[i]; k < ptr[i + 1]; ++k) val[k] *= change(i, col[k]);
  }
  copy(Array<double>(Executor::host(), val), A.values());
}

void change_values(DistributedCsrMatrix<double>& A) {
  const global_index begin = A.row_partition().begin();
  const auto map = A.column_map().to_vector();
  for (const bool diag : {true, false}) {
    const CsrMatrix<double>& block = diag ? A.diag() : A.offd();
    const auto ptr = block.row_ptr().to_vector();
    const auto col = block.col_idx().to_vector();
    auto val = block.values().to_vector();
    for (size_type i = 0; i < block.rows(); ++i) {
      for (offset_type k = ptr[i]; k < ptr[i + 1]; ++k) {
        val[k] *= change(begin + i, diag ? begin + col[k] : map[col[k]]);
      }
    }
    copy(Array<double>(Executor::host(), val), diag ? A.diag_values() : A.offd_values());
  }
}

/// Value-only refresh (a Newton step's resetup): the distributed P and R
/// take the values the serial refresh gives, in the objects handed out.
/// Coarsens `serial` and `changed` (its distributed form) with `params`,
/// changes the values of both alike, refreshes both coarsenings and checks
/// the refreshed P and R against the serial ones, and that the values did
/// change (so the comparison is not of setup's P).
void check_refresh(const CsrMatrix<double>& serial, DistributedCsrMatrix<double> changed,
                   const amg::ClassicalParams& params) {
  amg::StageTimes times;
  const auto serial_coarsening = amg::make_classical_coarsening<double>(params);
  const auto coarsening = amg::make_classical_coarsening<double>(params);
  CsrMatrix<double> serial_changed = serial.clone();
  auto serial_transfer = serial_coarsening->coarsen(CsrOperator<double>(serial.clone()), 0, times);
  auto transfer = coarsening->coarsen(DistributedOperator<double>(changed.clone()), 0, times);
  ASSERT_TRUE(serial_transfer && transfer);
  const auto& P = dynamic_cast<const DistributedOperator<double>&>(*transfer->P).matrix();
  const auto& R = dynamic_cast<const DistributedOperator<double>&>(*transfer->R).matrix();
  const Entries before = gathered(P);

  change_values(serial_changed);
  change_values(changed);
  serial_coarsening->refresh(CsrOperator<double>(std::move(serial_changed)), 0, *serial_transfer,
                             times);
  coarsening->refresh(DistributedOperator<double>(std::move(changed)), 0, *transfer, times);
  const auto& serial_P = dynamic_cast<const CsrOperator<double>&>(*serial_transfer->P).matrix();
  const Entries after = gathered(P);
  expect_same_entries(after, entries_of(serial_P), "refreshed P");
  expect_same_entries(gathered(R), entries_of(transpose(serial_P)), "refreshed R");
  double largest_change = 0;
  for (const auto& [key, value] : after) {
    largest_change = std::max(largest_change, std::abs(value - before.at(key)));
  }
  EXPECT_GT(largest_change, 1e-3);
}

TEST(DistributedClassical, RefreshMatchesTheSerialRefresh) {
  const Communicator comm = world();
  const Executor host = Executor::host();
  const double epsilon = 0.01, theta = std::numbers::pi / 6;
  CsrMatrix<double> serial = gallery::anisotropic2d(host, 13, 11, epsilon, theta);
  for (const RowPartition& part :
       {RowPartition::uniform(comm, serial.rows()), uneven(comm, serial.rows())}) {
    for (const amg::Interpolation kind :
         {amg::Interpolation::mm_ext_i, amg::Interpolation::direct}) {
      SCOPED_TRACE(std::string("interpolation ") + amg::to_string(kind));
      amg::ClassicalParams params;
      params.interpolation = kind;
      check_refresh(serial, gallery::anisotropic2d(part, host, 13, 11, epsilon, theta), params);
    }
  }
}

TEST(DistributedClassical, RefreshOfAnotherPatternIsRefusedOnEveryProcess) {
  const Communicator comm = world();
  const Executor host = Executor::host();
  const RowPartition part = RowPartition::uniform(comm, 6 * 6 * 6);
  const DistributedOperator<double> A(gallery::poisson3d(part, host, 6, 6, 6));
  const DistributedOperator<double> B(gallery::diffusion3d_27pt(part, host, 6, 6, 6));
  amg::StageTimes times;
  const auto coarsening = amg::make_classical_coarsening<double>(amg::ClassicalParams{});
  auto transfer = coarsening->coarsen(A, 0, times);
  ASSERT_TRUE(transfer.has_value());
  EXPECT_THROW(coarsening->refresh(B, 0, *transfer, times), invalid_argument);
}

/// FCG to 1e-8 with a classical V-cycle (l1-Jacobi, which runs on
/// distributed levels) on the level operator A, b from the global index.
struct ClassicalSolve {
  SolveInfo info;
  amg::HierarchySummary summary;
  SolveInfo after_resetup;
};

ClassicalSolve solve_with_classical(std::shared_ptr<const LevelOperator<double>> A,
                                    std::shared_ptr<const Reduction<double>> reduction,
                                    global_index first_row, const std::function<void()>& scale,
                                    const amg::ClassicalParams& params = {}, bool cg = false) {
  std::vector<double> values(static_cast<std::size_t>(A->rows()));
  for (std::size_t i = 0; i < values.size(); ++i) {
    values[i] = 1.0 + std::sin(0.37 * double(first_row + static_cast<global_index>(i)));
  }
  const Vector<double> b(Array<double>(Executor::host(), values));
  amg::HierarchyParams h;
  h.smoother = L1JacobiParams{};
  h.coarse_size = 30;
  amg::Hierarchy<double> H(A, amg::make_classical_coarsening<double>(params), h, reduction);
  KrylovParams krylov;
  krylov.relative_tolerance = 1e-8;
  const KrylovMethod method =
      cg ? KrylovMethod{Cg{.params = krylov}} : KrylovMethod{Fcg{.params = krylov}};
  ClassicalSolve out;
  Vector<double> x(Executor::host(), b.size(), 0.0);
  out.info = solve(method, *A, b, x, &H, *reduction);
  out.summary = H.summary();
  scale();
  H.resetup();
  x.fill(0.0);
  out.after_resetup = solve(method, *A, b, x, &H, *reduction);
  return out;
}

/// The classical hierarchy of poisson3d n^3 with `params`, serial and on an
/// uneven partition (an empty process): the same levels, and FCG (CG when
/// `cg`) takes the serial iterations within one, before and after a
/// value-only resetup that scales the values by 1.5.
void compare_with_serial_hierarchy(size_type n, const amg::ClassicalParams& params, bool cg) {
  const Communicator comm = world();
  const Executor host = Executor::host();
  auto serial_matrix = std::make_shared<CsrMatrix<double>>(gallery::poisson3d(host, n, n, n));
  const auto serial_scale = [&] {
    std::vector<double> v = serial_matrix->values().to_vector();
    for (double& x : v) x *= 1.5;
    copy(Array<double>(host, v), serial_matrix->values());
  };
  const ClassicalSolve serial = solve_with_classical(
      std::make_shared<const CsrOperator<double>>(serial_matrix),
      std::make_shared<const Reduction<double>>(), 0, serial_scale, params, cg);
  const RowPartition part = uneven(comm, n * n * n);
  auto matrix =
      std::make_shared<DistributedCsrMatrix<double>>(gallery::poisson3d(part, host, n, n, n));
  const ClassicalSolve dist = solve_with_classical(
      std::make_shared<const DistributedOperator<double>>(matrix),
      std::make_shared<const DistributedReduction<double>>(comm), part.begin(),
      [&] { test::scale_values(*matrix, 1.5); }, params, cg);
  ASSERT_GE(serial.summary.levels.size(), 3u);
  ASSERT_EQ(dist.summary.levels.size(), serial.summary.levels.size());
  for (std::size_t l = 0; l < serial.summary.levels.size(); ++l) {
    EXPECT_EQ(dist.summary.levels[l].rows, serial.summary.levels[l].rows) << "level " << l;
    EXPECT_EQ(dist.summary.levels[l].nnz, serial.summary.levels[l].nnz) << "level " << l;
  }
  EXPECT_TRUE(serial.info.converged()) << to_string(serial.info.status);
  EXPECT_TRUE(dist.info.converged()) << to_string(dist.info.status);
  EXPECT_NEAR(double(dist.info.iterations), double(serial.info.iterations), 1.0);
  EXPECT_TRUE(dist.after_resetup.converged()) << to_string(dist.after_resetup.status);
  EXPECT_NEAR(double(dist.after_resetup.iterations), double(serial.after_resetup.iterations), 1.0);
}

/// The whole hierarchy (every level coarsened across processes, R A P by the
/// distributed products) has the serial levels, and FCG takes the serial
/// iterations, before and after a value-only resetup (which refreshes P and
/// R of every distributed level).
TEST(DistributedClassical, HierarchyHasTheSerialLevelsAndIterations) {
  compare_with_serial_hierarchy(11, amg::ClassicalParams{}, false);
}

/// Aggressive coarsening: A1 and A2 second-pass strength, both two-stage
/// interpolations, with and without the stages' truncation; each should
/// give the serial final splitting and P.
std::vector<amg::ClassicalParams> aggressive_parameter_sets() {
  std::vector<amg::ClassicalParams> sets;
  for (const int paths : {1, 2}) {
    for (const amg::Interpolation kind :
         {amg::Interpolation::mm_ext_e, amg::Interpolation::mm_ext}) {
      amg::ClassicalParams p;
      p.aggressive_levels = 1;
      p.aggressive_num_paths = paths;
      p.aggressive_interpolation = kind;
      sets.push_back(p);
    }
  }
  amg::ClassicalParams untruncated_stages;
  untruncated_stages.aggressive_levels = 1;
  untruncated_stages.aggressive_stage_max_elements = 0;
  untruncated_stages.max_elements_per_row = 0;
  sets.push_back(untruncated_stages);
  amg::ClassicalParams factor;
  factor.aggressive_levels = 1;
  factor.aggressive_stage_truncation_factor = 0.2;
  factor.truncation_factor = 0.1;
  sets.push_back(factor);
  return sets;
}

std::string aggressive_name(const amg::ClassicalParams& p) {
  return "aggressive A" + std::to_string(p.aggressive_num_paths) + " " +
         amg::to_string(p.aggressive_interpolation) + ", stage Pmax " +
         std::to_string(p.aggressive_stage_max_elements) + ", stage truncation " +
         std::to_string(p.aggressive_stage_truncation_factor);
}

/// The number of C points of the first pass alone (the splitting without
/// aggressive coarsening), to check that the second pass removed some.
size_type first_pass_coarse(const CsrMatrix<double>& serial, int level) {
  amg::StageTimes times;
  const auto coarsening = amg::make_classical_coarsening<double>(amg::ClassicalParams{});
  coarsening->coarsen(CsrOperator<double>(serial.clone()), level, times);
  size_type coarse = 0;
  for (const std::int32_t c : amg::classical_splitting(*coarsening, level).to_vector()) {
    coarse += c == 1 ? 1 : 0;
  }
  return coarse;
}

TEST(DistributedClassical, AggressivePoisson3dMatchesTheSerialCoarsening) {
  const Communicator comm = world();
  const Executor host = Executor::host();
  const CsrMatrix<double> serial = gallery::poisson3d(host, 9, 8, 7);
  const size_type one_pass = first_pass_coarse(serial, 0);
  for (const RowPartition& part :
       {RowPartition::uniform(comm, serial.rows()), uneven(comm, serial.rows())}) {
    const DistributedCsrMatrix<double> A = gallery::poisson3d(part, host, 9, 8, 7);
    for (const amg::ClassicalParams& params : aggressive_parameter_sets()) {
      const size_type coarse =
          check_coarsening(serial, A, params, "poisson3d 9x8x7, " + aggressive_name(params));
      EXPECT_GT(coarse, 0);
      EXPECT_LT(coarse, one_pass) << "the second pass removed no C point";
    }
    // Level 1 of aggressive_levels = 2 hashes with that level's seeds.
    amg::ClassicalParams two_levels;
    two_levels.aggressive_levels = 2;
    check_coarsening(serial, A, two_levels, "poisson3d 9x8x7, aggressive level 1", 1);
  }
}

TEST(DistributedClassical, AggressiveAnisotropyMatchesTheSerialCoarsening) {
  const Communicator comm = world();
  const Executor host = Executor::host();
  const double epsilon = 0.01, theta = std::numbers::pi / 6;
  const CsrMatrix<double> serial = gallery::anisotropic2d(host, 19, 17, epsilon, theta);
  const CsrMatrix<double> aligned = gallery::anisotropic2d(host, 19, 17, epsilon, 0.0);
  for (const RowPartition& part :
       {RowPartition::uniform(comm, serial.rows()), uneven(comm, serial.rows())}) {
    const DistributedCsrMatrix<double> A =
        gallery::anisotropic2d(part, host, 19, 17, epsilon, theta);
    const DistributedCsrMatrix<double> B = gallery::anisotropic2d(part, host, 19, 17, epsilon, 0.0);
    for (const amg::ClassicalParams& params : aggressive_parameter_sets()) {
      check_coarsening(serial, A, params,
                       "anisotropic2d 19x17 rotated, " + aggressive_name(params));
      check_coarsening(aligned, B, params,
                       "anisotropic2d 19x17 aligned, " + aggressive_name(params));
    }
  }
}

/// Value-only refresh of an aggressive level: both stages, the product and
/// its truncation take the serial refresh's values.
TEST(DistributedClassical, AggressiveRefreshMatchesTheSerialRefresh) {
  const Communicator comm = world();
  const Executor host = Executor::host();
  const double epsilon = 0.01, theta = std::numbers::pi / 6;
  CsrMatrix<double> serial = gallery::anisotropic2d(host, 15, 13, epsilon, theta);
  for (const RowPartition& part :
       {RowPartition::uniform(comm, serial.rows()), uneven(comm, serial.rows())}) {
    for (const int paths : {1, 2}) {
      SCOPED_TRACE("aggressive A" + std::to_string(paths));
      amg::ClassicalParams params;
      params.aggressive_levels = 1;
      params.aggressive_num_paths = paths;
      check_refresh(serial, gallery::anisotropic2d(part, host, 15, 13, epsilon, theta), params);
    }
  }
}

/// A classical hierarchy with aggressive coarsening on its first one or two
/// levels (l1-Jacobi, CG): the distributed levels are the serial ones and
/// CG takes the serial iterations, also after a value-only resetup.
TEST(DistributedClassical, AggressiveHierarchyHasTheSerialLevelsAndIterations) {
  for (const int aggressive_levels : {1, 2}) {
    SCOPED_TRACE("aggressive_levels " + std::to_string(aggressive_levels));
    amg::ClassicalParams params;
    params.aggressive_levels = aggressive_levels;
    compare_with_serial_hierarchy(12, params, true);
  }
}

}  // namespace
}  // namespace strata
