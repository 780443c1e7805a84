// Main of the MPI test program (run by CTest under mpirun with 1 to 4
// processes). Only rank 0 prints: the other ranks drop GoogleTest's
// printer, and the failures they see are sent to rank 0 after each test
// and printed there with their rank, so a failure on any rank is reported
// once, in one place. The exit status is the worst of all ranks.

#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdio>
#include <string>
#include <vector>

namespace {

/// Collects this rank's failed assertions during a test and gathers every
/// rank's on rank 0 when it ends (a collective: every rank runs the same
/// tests in the same order).
class RankFailures : public ::testing::EmptyTestEventListener {
 public:
  explicit RankFailures(int rank) : rank_(rank) {}

  void OnTestPartResult(const ::testing::TestPartResult& result) override {
    if (!result.failed() || rank_ == 0) return;  // rank 0's printer reports its own
    text_ += std::string(result.file_name() ? result.file_name() : "?") + ":" +
             std::to_string(result.line_number()) + ": " + result.message() + "\n";
  }

  void OnTestEnd(const ::testing::TestInfo& info) override {
    int size = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const int length = static_cast<int>(text_.size());
    std::vector<int> lengths(static_cast<std::size_t>(size));
    MPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
    std::vector<int> displacements(static_cast<std::size_t>(size), 0);
    int total = 0;
    for (int r = 0; r < size; ++r) {
      displacements[static_cast<std::size_t>(r)] = total;
      total += lengths[static_cast<std::size_t>(r)];
    }
    std::string all(static_cast<std::size_t>(total), '\0');
    MPI_Gatherv(text_.data(), length, MPI_CHAR, all.data(), lengths.data(), displacements.data(),
                MPI_CHAR, 0, MPI_COMM_WORLD);
    if (rank_ == 0) {
      for (int r = 1; r < size; ++r) {
        const int n = lengths[static_cast<std::size_t>(r)];
        if (n == 0) continue;
        std::printf("[  FAILED  ] %s.%s on rank %d:\n%s", info.test_suite_name(), info.name(), r,
                    all.substr(static_cast<std::size_t>(displacements[static_cast<std::size_t>(r)]),
                               static_cast<std::size_t>(n))
                        .c_str());
      }
      std::fflush(stdout);
    }
    text_.clear();
  }

 private:
  int rank_;
  std::string text_;
};

}  // namespace

int main(int argc, char** argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  ::testing::InitGoogleTest(&argc, argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
  if (rank != 0) delete listeners.Release(listeners.default_result_printer());
  listeners.Append(new RankFailures(rank));
  if (rank == 0) std::printf("[strata] MPI tests on %d process(es)\n", size);
  const int result = RUN_ALL_TESTS();
  int worst = 0;
  MPI_Allreduce(&result, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (rank == 0 && worst != 0 && result == 0) {
    std::printf("[strata] rank 0 passed, but another rank failed (see above)\n");
  }
  MPI_Finalize();
  return worst;
}
