// The transport of a build without MPI: the one-process communicator, where
// every collective is a copy and there is nobody to send a message to.

#include <cstring>
#include <stdexcept>

#include "core/distributed/communication.hpp"

namespace strata {

namespace detail {
struct CommunicatorState {};
}  // namespace detail

Communicator Communicator::world() {
  throw not_compiled(
      "Communicator::world: this build of Strata has no MPI (configure with "
      "-DSTRATA_WITH_MPI=ON or AUTO; the cpu and cuda presets do); Communicator::self() is the "
      "one-process communicator");
}

Communicator Communicator::from_mpi_comm_address(const void* /*mpi_comm*/) {
  throw not_compiled(
      "Communicator::from_mpi_comm_address: this build of Strata has no MPI (configure with "
      "-DSTRATA_WITH_MPI=ON or AUTO)");
}

void Communicator::barrier() const {}

bool mpi_compiled() noexcept { return false; }

namespace detail {

void allgather(const Communicator& /*comm*/, const void* send, std::size_t bytes, void* recv) {
  if (bytes > 0) std::memmove(recv, send, bytes);
}

void allgatherv(const Communicator& /*comm*/, const void* send, std::size_t bytes, void* recv,
                const std::vector<std::size_t>& /*counts*/) {
  if (bytes > 0) std::memmove(recv, send, bytes);
}

std::vector<size_type> alltoall_counts(const Communicator& /*comm*/,
                                       const std::vector<size_type>& send) {
  return send;
}

struct RequestSet::Impl {};

RequestSet::RequestSet() = default;
RequestSet::~RequestSet() = default;
RequestSet::RequestSet(RequestSet&&) noexcept = default;
RequestSet& RequestSet::operator=(RequestSet&&) noexcept = default;

// One process has no one to message: the callers handle their own part
// locally, so reaching these is a bug in Strata, not a user error.
void RequestSet::receive(const Communicator&, void*, std::size_t, int source, Tag) {
  throw std::logic_error("RequestSet::receive from process " + std::to_string(source) +
                         " on the one-process communicator");
}
void RequestSet::send(const Communicator&, const void*, std::size_t, int destination, Tag) {
  throw std::logic_error("RequestSet::send to process " + std::to_string(destination) +
                         " on the one-process communicator");
}
void RequestSet::wait_all() {}
bool RequestSet::pending() const noexcept { return false; }

}  // namespace detail

}  // namespace strata
