// The distributed layer on the one-process communicator: what an MPI-free
// build offers (and what the sanitizer build checks), and what every build
// has without MPI_Init. The MPI tests under mpirun are tests/distributed/.

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "strata/config.hpp"
#include "strata/distributed/assembly.hpp"
#include "strata/distributed/gallery.hpp"
#include "strata/distributed/operator.hpp"
#include "strata/distributed/reduction.hpp"
#include "strata/smoother/smoother.hpp"
#include "strata/solver/krylov.hpp"

namespace strata {
namespace {

TEST(DistributedSelf, CommunicatorWithoutMpi) {
  const Communicator self = Communicator::self();
  EXPECT_EQ(self.rank(), 0);
  EXPECT_EQ(self.size(), 1);
  EXPECT_FALSE(self.is_mpi());
  EXPECT_STREQ(device_transfer(self), "single process");
  EXPECT_EQ(mpi_compiled(), STRATA_WITH_MPI == 1);
  // No MPI_Init in this program: world() explains what is missing.
  if (mpi_compiled()) {
    EXPECT_THROW((void)Communicator::world(), invalid_argument);
  } else {
    EXPECT_THROW((void)Communicator::world(), not_compiled);
  }
}

TEST(DistributedSelf, OneProcessMatrixIsTheSerialMatrix) {
  const Executor host = Executor::host();
  const RowPartition part(6 * 5 * 4);
  const DistributedCsrMatrix<double> A = gallery::poisson3d(part, host, 6, 5, 4);
  const CsrMatrix<double> serial = gallery::poisson3d(host, 6, 5, 4);
  EXPECT_EQ(A.offd().nnz(), 0);
  EXPECT_EQ(A.halo_plan().ghost_count(), 0);
  EXPECT_STREQ(A.halo_transfer(), "single process");
  EXPECT_EQ(A.diag().values().to_vector(), serial.values().to_vector());
  EXPECT_EQ(A.diag().col_idx().to_vector(), serial.col_idx().to_vector());
  EXPECT_EQ(A.global_nnz(), serial.nnz());

  Vector<double> x(host, serial.cols(), 1.5), y(host, serial.rows()), y_serial(host, serial.rows());
  A.apply(1.0, x, 0.0, y, y);
  spmv(serial, x, y_serial);
  EXPECT_EQ(y.to_vector(), y_serial.to_vector());
}

TEST(DistributedSelf, CgMatchesTheSerialSolveBitForBit) {
  const Executor host = Executor::host();
  const RowPartition part(8 * 8 * 8);
  KrylovParams params;
  params.relative_tolerance = 1e-8;
  const DistributedReduction<double> reduction(part.communicator());
  auto A =
      std::make_shared<const DistributedOperator<double>>(gallery::poisson3d(part, host, 8, 8, 8));
  auto S = std::make_shared<const CsrOperator<double>>(gallery::poisson3d(host, 8, 8, 8));
  for (const SmootherParams& smoother :
       {SmootherParams{L1JacobiParams{}}, SmootherParams{ChebyshevParams{}}}) {
    const auto M = make_smoother<double>(A, smoother, reduction);
    const auto M_serial = make_smoother<double>(S, smoother);
    const Vector<double> b(host, A->rows(), 1.0);
    Vector<double> x(host, A->rows(), 0.0), x_serial(host, A->rows(), 0.0);
    const SolveInfo info = solve(Cg{params}, *A, b, x, M.get(), reduction);
    const SolveInfo serial = solve(Cg{params}, *S, b, x_serial, M_serial.get());
    EXPECT_TRUE(info.converged());
    EXPECT_EQ(info.iterations, serial.iterations) << smoother_name(smoother);
    EXPECT_EQ(x.to_vector(), x_serial.to_vector()) << smoother_name(smoother);
  }
}

TEST(DistributedSelf, AssemblyAndBadInput) {
  const Executor host = Executor::host();
  const RowPartition part(3);
  DistributedMatrixAssembler<double> assembler(part, host);
  assembler.add_values(Array<size_type>(host, {0, 1, 2, 0}), Array<size_type>(host, {0, 1, 2, 0}),
                       Array<double>(host, {1.0, 2.0, 3.0, 1.0}));
  assembler.set_values(Array<size_type>(host, {1}), Array<size_type>(host, {1}),
                       Array<double>(host, {5.0}));
  assembler.assemble();
  EXPECT_EQ(assembler.off_process_count(), 0);
  const DistributedCsrMatrix<double> A = assembler.matrix();
  EXPECT_EQ(A.diag().values().to_vector(), (std::vector<double>{2.0, 5.0, 3.0}));

  RowBlock<double> bad{Array<offset_type>(host, {0, 1, 2, 3}), Array<global_index>(host, {0, 1, 3}),
                       Array<double>(host, {1.0, 1.0, 1.0})};
  try {
    DistributedCsrMatrix<double> B(part, bad);
    FAIL() << "column 3 of a 3-column matrix was accepted";
  } catch (const invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("local.cols[2] = 3 is not a global column id"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW(DistributedVector<double>(part, Vector<double>(host, 2)), dimension_mismatch);
}

}  // namespace
}  // namespace strata
