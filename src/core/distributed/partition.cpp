// RowPartition: contiguous row blocks per process.

#include "strata/distributed/partition.hpp"

#include <algorithm>
#include <string>

#include "core/distributed/communication.hpp"

namespace strata {

RowPartition::RowPartition(size_type global_rows)
    : RowPartition(Communicator::self(), {0, global_rows}) {}

RowPartition::RowPartition(Communicator comm, std::vector<global_index> offsets)
    : comm_(std::move(comm)), rank_(comm_.rank()) {
  const std::size_t expected = static_cast<std::size_t>(comm_.size()) + 1;
  if (offsets.size() != expected) {
    throw invalid_argument("RowPartition: offsets has " + std::to_string(offsets.size()) +
                           " entries; expected one per process plus one, " +
                           std::to_string(expected));
  }
  if (offsets[0] != 0) {
    throw invalid_argument("RowPartition: offsets[0] is " + std::to_string(offsets[0]) +
                           "; expected 0 (the first process's block starts at row 0)");
  }
  for (std::size_t r = 0; r + 1 < offsets.size(); ++r) {
    if (offsets[r + 1] < offsets[r]) {
      throw invalid_argument("RowPartition: offsets[" + std::to_string(r + 1) +
                             "] = " + std::to_string(offsets[r + 1]) + " is below offsets[" +
                             std::to_string(r) + "] = " + std::to_string(offsets[r]) +
                             "; expected a non-decreasing table");
    }
  }
  offsets_ = std::make_shared<const std::vector<global_index>>(std::move(offsets));
}

RowPartition RowPartition::from_local_rows(Communicator comm, size_type local_rows) {
  const int size = comm.size();
  std::vector<size_type> counts(static_cast<std::size_t>(size));
  detail::allgather(comm, &local_rows, sizeof local_rows, counts.data());
  std::vector<global_index> offsets(static_cast<std::size_t>(size) + 1, 0);
  for (int r = 0; r < size; ++r) {
    const size_type count = counts[static_cast<std::size_t>(r)];
    if (count < 0) {  // every process sees it, so every process throws
      throw invalid_argument("RowPartition::from_local_rows: process " + std::to_string(r) +
                             " passed local_rows = " + std::to_string(count) +
                             "; expected a count >= 0");
    }
    offsets[static_cast<std::size_t>(r) + 1] = offsets[static_cast<std::size_t>(r)] + count;
  }
  return RowPartition(std::move(comm), std::move(offsets));
}

RowPartition RowPartition::uniform(Communicator comm, size_type global_rows) {
  if (global_rows < 0) {
    throw invalid_argument("RowPartition::uniform: global_rows = " + std::to_string(global_rows) +
                           "; expected a count >= 0");
  }
  const size_type size = comm.size();
  const size_type base = global_rows / size, extra = global_rows % size;
  std::vector<global_index> offsets(static_cast<std::size_t>(size) + 1, 0);
  for (size_type r = 0; r < size; ++r) {
    offsets[static_cast<std::size_t>(r) + 1] =
        offsets[static_cast<std::size_t>(r)] + base + (r < extra ? 1 : 0);
  }
  return RowPartition(std::move(comm), std::move(offsets));
}

RowPartition RowPartition::uniform_nodes(Communicator comm, size_type global_rows, int block_size) {
  if (block_size < 1 || global_rows < 0 || global_rows % block_size != 0) {
    throw invalid_argument(
        "RowPartition::uniform_nodes: global_rows = " + std::to_string(global_rows) +
        ", block_size = " + std::to_string(block_size) +
        "; expected block_size >= 1 dividing global_rows >= 0");
  }
  RowPartition nodes = uniform(std::move(comm), global_rows / block_size);
  std::vector<global_index> offsets = nodes.offsets();
  for (global_index& o : offsets) o *= block_size;
  return RowPartition(nodes.communicator(), std::move(offsets));
}

global_index RowPartition::offset(int rank) const {
  if (rank < 0 || rank > processes()) {
    throw invalid_argument("RowPartition::offset: rank = " + std::to_string(rank) +
                           "; expected 0 <= rank <= " + std::to_string(processes()));
  }
  return (*offsets_)[static_cast<std::size_t>(rank)];
}

int RowPartition::owner(global_index row) const {
  if (row < 0 || row >= global_size()) {
    throw invalid_argument("RowPartition::owner: row = " + std::to_string(row) +
                           "; expected 0 <= row < " + std::to_string(global_size()));
  }
  // The last offset <= row: upper_bound skips the empty blocks that start there too.
  const auto& o = *offsets_;
  return static_cast<int>(std::upper_bound(o.begin(), o.end(), row) - o.begin()) - 1;
}

}  // namespace strata
