#pragma once
// The distributed layer's transport: the few collective and point-to-point
// operations the distributed code needs, over a Communicator. Two
// implementations: communicator_mpi.cpp (MPI, the only source that includes
// mpi.h) and communicator_self.cpp (the one-process communicator of an
// MPI-free build). Everything above them is written once.
//
// Messages are raw bytes; a count that does not fit MPI's int is refused
// with invalid_argument (never truncated). No process ever sends a message
// to itself: callers handle their own part locally.

#include <cstddef>
#include <exception>
#include <memory>
#include <vector>

#include "strata/core/types.hpp"
#include "strata/distributed/communicator.hpp"

namespace strata::detail {

/// Message tags: one per kind of exchange, so that exchanges of different
/// kinds in flight at once cannot match each other's messages. Exchanges of
/// one kind are matched in order (MPI's non-overtaking rule).
enum class Tag : int {
  halo = 101,
  column_request = 102,
  assembly = 103,
  scatter = 104,
  row_lengths = 105,
  row_columns = 106,
  row_values = 107,
  /// Ghost values sent back to their owners (distributed PMIS's influence
  /// counts and candidate flags).
  halo_reverse = 108,
};

/// recv[r * bytes .. (r + 1) * bytes) = the `bytes` bytes that process r
/// passed as `send`, for every r (recv has size() * bytes bytes).
void allgather(const Communicator& comm, const void* send, std::size_t bytes, void* recv);

/// recv = every process's `send` in rank order, process r's `counts[r]`
/// bytes at the sum of the counts before it (counts has size() entries, the
/// same on every process; `bytes` is this process's count).
void allgatherv(const Communicator& comm, const void* send, std::size_t bytes, void* recv,
                const std::vector<std::size_t>& counts);

/// What every process sends to every other, told to the receivers:
/// send[r] is what this process sends to r; returns recv with recv[r] what
/// r sends here (send.size() == recv.size() == comm.size()).
std::vector<size_type> alltoall_counts(const Communicator& comm,
                                       const std::vector<size_type>& send);

/// Nonblocking messages posted one by one and completed together: the
/// halo exchange posts its receives and sends in begin() and waits in
/// finish(); the other exchanges post everything and wait at once.
class RequestSet {
 public:
  RequestSet();
  ~RequestSet();
  RequestSet(RequestSet&&) noexcept;
  RequestSet& operator=(RequestSet&&) noexcept;

  /// Posts a receive of `bytes` bytes from `source` into `data` (which must
  /// stay valid until wait_all()).
  void receive(const Communicator& comm, void* data, std::size_t bytes, int source, Tag tag);
  /// Posts a send of `bytes` bytes from `data` to `destination`.
  void send(const Communicator& comm, const void* data, std::size_t bytes, int destination,
            Tag tag);
  /// Waits for every posted message; the set is empty afterwards.
  void wait_all();
  /// Whether messages are posted and not yet waited for.
  bool pending() const noexcept;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// Error agreement for collective setup: every process passes what it
/// caught (null when it succeeded). When any process failed, every failing
/// process rethrows its own exception and every other throws
/// invalid_argument naming `who` and the first failing process, so that no
/// process goes on into a collective that the failed ones will never join.
/// Costs one allgather.
void agree_on_failure(const Communicator& comm, const std::exception_ptr& failure, const char* who);

/// The smallest of every process's `value`.
size_type min_over_processes(const Communicator& comm, size_type value);
/// The sum of every process's `value` (exact: integers).
size_type sum_over_processes(const Communicator& comm, size_type value);

}  // namespace strata::detail
