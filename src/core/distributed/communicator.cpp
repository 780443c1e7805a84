// What Communicator does the same with and without MPI: the one-process
// communicator and the reductions built on allgather.

#include "strata/distributed/communicator.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include "core/distributed/communication.hpp"
#include "core/distributed/device_transport.hpp"

namespace strata {

Communicator::Communicator() = default;

Communicator Communicator::self() { return Communicator(); }

const char* device_transfer(const Communicator& comm) noexcept {
  if (comm.size() == 1) return "single process";
  if (detail::has_device_transport(comm)) return "nccl";
  return comm.cuda_aware() ? "cuda-aware" : "staged through host";
}

bool nccl_compiled() noexcept { return detail::nccl_compiled(); }

std::string device_transfer_reason(const Communicator& comm) {
  return detail::device_transport_reason(comm);
}

namespace detail {

void agree_on_failure(const Communicator& comm, const std::exception_ptr& failure,
                      const char* who) {
  const size_type first = min_over_processes(comm, failure ? comm.rank() : comm.size());
  if (first == comm.size()) return;
  if (failure) std::rethrow_exception(failure);
  throw invalid_argument(std::string(who) + ": process " + std::to_string(first) +
                         " rejected its input (its exception says why); no process goes on");
}

size_type min_over_processes(const Communicator& comm, size_type value) {
  std::vector<size_type> all(static_cast<std::size_t>(comm.size()));
  allgather(comm, &value, sizeof value, all.data());
  return *std::min_element(all.begin(), all.end());
}

size_type sum_over_processes(const Communicator& comm, size_type value) {
  std::vector<size_type> all(static_cast<std::size_t>(comm.size()));
  allgather(comm, &value, sizeof value, all.data());
  size_type sum = 0;
  for (const size_type v : all) sum += v;
  return sum;
}

}  // namespace detail

}  // namespace strata
