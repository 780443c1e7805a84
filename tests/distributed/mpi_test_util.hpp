#pragma once
// What the MPI test files share: the world communicator, partitions with an
// empty process, vectors defined by the global index (the same however they
// are split), every entry of a distributed matrix gathered on all
// processes for comparison with a serial one, and in-place value changes
// for resetup tests.

#include <gtest/gtest.h>
#include <mpi.h>

#include <cmath>
#include <cstdlib>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "strata/distributed/mpi.hpp"
#include "strata/distributed/rows.hpp"
#include "strata/solver/krylov.hpp"

namespace strata::test {

inline Communicator world() { return make_communicator(MPI_COMM_WORLD); }

/// This process's GPU: one each while there are enough (so that the device
/// halo goes through NCCL where it is built), shared round-robin otherwise.
inline Executor rank_device(const Communicator& comm) {
  return Executor::cuda(comm.rank() % cuda_device_count());
}

/// The transfer a device halo must use on `comm`: NCCL when this build has
/// it, every process has a GPU of its own and the environment does not
/// say STRATA_DEVICE_TRANSPORT=mpi; else staging (or CUDA-aware MPI).
inline std::string expected_device_transfer(const Communicator& comm) {
  if (comm.size() == 1) return "single process";
  const char* mode = std::getenv("STRATA_DEVICE_TRANSPORT");
  const bool mpi_asked = mode != nullptr && std::string(mode) == "mpi";
  if (nccl_compiled() && !mpi_asked && cuda_device_count() >= comm.size()) return "nccl";
  return comm.cuda_aware() ? "cuda-aware" : "staged through host";
}

/// A smooth, nonzero value for global index i.
inline double value_at(global_index i) { return 1.0 + std::sin(0.37 * static_cast<double>(i)); }

/// This process's block of the vector value_at(i), on the host.
inline Vector<double> block_of(const RowPartition& part) {
  std::vector<double> v(static_cast<std::size_t>(part.local_size()));
  for (size_type i = 0; i < part.local_size(); ++i) {
    v[static_cast<std::size_t>(i)] = value_at(part.begin() + i);
  }
  return Vector<double>(Array<double>(Executor::host(), v));
}

/// The whole vector value_at(i), i < n, on the host (what every process's
/// block_of(part) is a part of).
inline Vector<double> serial_vector(size_type n) {
  std::vector<double> v(static_cast<std::size_t>(n));
  for (size_type i = 0; i < n; ++i) v[static_cast<std::size_t>(i)] = value_at(i);
  return Vector<double>(Array<double>(Executor::host(), v));
}

/// The rows [rows.begin(), rows.end()) of a serial matrix as a process's
/// RowBlock (global columns), on the host.
inline RowBlock<double> rows_of(const CsrMatrix<double>& A, const RowPartition& rows) {
  const auto ptr = A.row_ptr().to_vector();
  const auto col = A.col_idx().to_vector();
  const auto val = A.values().to_vector();
  std::vector<offset_type> p{0};
  std::vector<global_index> c;
  std::vector<double> v;
  for (global_index i = rows.begin(); i < rows.end(); ++i) {
    for (offset_type k = ptr[i]; k < ptr[i + 1]; ++k) {
      c.push_back(col[k]);
      v.push_back(val[k]);
    }
    p.push_back(static_cast<offset_type>(c.size()));
  }
  const Executor host = Executor::host();
  return {Array<offset_type>(host, p), Array<global_index>(host, c), Array<double>(host, v)};
}

/// Uneven blocks: process r owns a share growing with r, so process 0 owns
/// none when there are several (a process with no rows).
inline RowPartition uneven(const Communicator& comm, size_type global_rows) {
  const int p = comm.size();
  if (p == 1) return RowPartition::uniform(comm, global_rows);
  std::vector<global_index> offsets(static_cast<std::size_t>(p) + 1, 0);
  const size_type weights = static_cast<size_type>(p) * (p - 1) / 2;  // 0 + 1 + ... + p-1
  for (int r = 1; r < p; ++r) {
    offsets[static_cast<std::size_t>(r) + 1] =
        offsets[static_cast<std::size_t>(r)] + global_rows * r / weights;
  }
  offsets.back() = global_rows;
  return RowPartition(comm, offsets);
}

inline KrylovParams relative_tolerance(double tolerance) {
  KrylovParams p;
  p.relative_tolerance = tolerance;
  return p;
}

/// Entries by (global row, global column).
using Entries = std::map<std::pair<global_index, global_index>, double>;

/// Every entry of a distributed matrix, on every process (collective); an
/// entry stored twice fails the test.
inline Entries gathered(const DistributedCsrMatrix<double>& M) {
  const RowBlock<double> own = owned_rows(M);
  const auto ptr = own.row_ptr.to_vector();
  const auto col = own.cols.to_vector();
  const auto val = own.values.to_vector();
  std::vector<global_index> keys;
  std::vector<double> values;
  for (size_type i = 0; i < own.rows(); ++i) {
    for (offset_type k = ptr[i]; k < ptr[i + 1]; ++k) {
      keys.push_back(M.row_partition().begin() + i);
      keys.push_back(col[k]);
      values.push_back(val[k]);
    }
  }
  int size = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int mine = static_cast<int>(values.size());
  std::vector<int> counts(size), displacements(size, 0);
  MPI_Allgather(&mine, 1, MPI_INT, counts.data(), 1, MPI_INT, MPI_COMM_WORLD);
  for (int r = 1; r < size; ++r) displacements[r] = displacements[r - 1] + counts[r - 1];
  const int total = displacements.back() + counts.back();
  std::vector<double> all_values(static_cast<std::size_t>(total));
  MPI_Allgatherv(values.data(), mine, MPI_DOUBLE, all_values.data(), counts.data(),
                 displacements.data(), MPI_DOUBLE, MPI_COMM_WORLD);
  for (int r = 0; r < size; ++r) {
    counts[r] *= 2;
    displacements[r] *= 2;
  }
  std::vector<global_index> all_keys(static_cast<std::size_t>(2 * total));
  MPI_Allgatherv(keys.data(), 2 * mine, MPI_INT64_T, all_keys.data(), counts.data(),
                 displacements.data(), MPI_INT64_T, MPI_COMM_WORLD);
  Entries out;
  for (int k = 0; k < total; ++k) {
    const auto key = std::make_pair(all_keys[2 * k], all_keys[2 * k + 1]);
    EXPECT_EQ(out.count(key), 0u) << "entry (" << key.first << ", " << key.second << ") twice";
    out[key] = all_values[static_cast<std::size_t>(k)];
  }
  return out;
}

/// Every entry of a serial matrix.
inline Entries entries_of(const CsrMatrix<double>& A) {
  const auto ptr = A.row_ptr().to_vector();
  const auto col = A.col_idx().to_vector();
  const auto val = A.values().to_vector();
  Entries out;
  for (size_type i = 0; i < A.rows(); ++i) {
    for (offset_type k = ptr[i]; k < ptr[i + 1]; ++k) out[{i, col[k]}] = val[k];
  }
  return out;
}

/// Every stored value of M (both blocks) times `factor`, in place: new
/// values on the same pattern, for a value-only resetup.
inline void scale_values(DistributedCsrMatrix<double>& M, double factor) {
  for (Array<double>* values : {&M.diag_values(), &M.offd_values()}) {
    std::vector<double> v = values->to_vector();
    for (double& x : v) x *= factor;
    *values = Array<double>(values->executor(), v);
  }
}

}  // namespace strata::test
