// The transport over MPI: the only source of the library that includes
// mpi.h (CMake gives MPI's include path to this file alone, which is what
// keeps MPI out of every other translation unit by construction).

#include <mpi.h>

#include <climits>
#include <cstring>
#include <string>
#include <vector>

#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h>  // Open MPI's extensions: MPIX_Query_cuda_support
#endif

#include "core/distributed/communication.hpp"
#include "core/distributed/device_transport.hpp"

namespace strata {

namespace detail {

/// Strata's duplicate of the program's communicator.
struct CommunicatorState {
  MPI_Comm comm = MPI_COMM_NULL;
  CommunicatorState() = default;
  CommunicatorState(const CommunicatorState&) = delete;
  CommunicatorState& operator=(const CommunicatorState&) = delete;
  ~CommunicatorState() {
    int finalized = 0;
    MPI_Finalized(&finalized);
    // After MPI_Finalize there is nothing to free (and no call is allowed).
    if (!finalized && comm != MPI_COMM_NULL) MPI_Comm_free(&comm);
  }
};

namespace {

/// Turns an MPI error code into an exception naming the call. Under MPI's
/// default handler (errors are fatal) a failing call never returns; this
/// is for programs that installed MPI_ERRORS_RETURN on their communicator,
/// which the duplicate inherits.
void check(int code, const char* call) {
  if (code == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(code, text, &length);
  throw error(std::string(call) +
              " failed: " + std::string(text, static_cast<std::size_t>(length)));
}

MPI_Comm handle(const Communicator& comm) {
  const CommunicatorState* state = comm.state();
  return state ? state->comm : MPI_COMM_SELF;
}

/// A byte count as MPI's int count; larger messages are refused, not cut.
int count_of(std::size_t bytes, const char* what) {
  if (bytes > static_cast<std::size_t>(INT_MAX)) {
    throw invalid_argument(std::string(what) + ": a message of " + std::to_string(bytes) +
                           " bytes exceeds MPI's largest count (" + std::to_string(INT_MAX) +
                           " bytes)");
  }
  return static_cast<int>(bytes);
}

/// Whether this MPI moves CUDA device memory itself, asked at run time
/// (Open MPI built with CUDA may still have it switched off).
bool query_cuda_aware() {
#if defined(MPIX_CUDA_AWARE_SUPPORT) && MPIX_CUDA_AWARE_SUPPORT
  return MPIX_Query_cuda_support() == 1;
#else
  return false;
#endif
}

}  // namespace
}  // namespace detail

Communicator Communicator::from_mpi_comm_address(const void* mpi_comm) {
  if (mpi_comm == nullptr) {
    throw invalid_argument("Communicator::from_mpi_comm_address: the address is null");
  }
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  if (!initialized || finalized) {
    throw invalid_argument(std::string("Communicator: MPI is ") +
                           (finalized ? "finalized" : "not initialized") +
                           "; call MPI_Init before making a Communicator");
  }
  const MPI_Comm user = *static_cast<const MPI_Comm*>(mpi_comm);
  if (user == MPI_COMM_NULL)
    throw invalid_argument("Communicator: the communicator is MPI_COMM_NULL");
  auto state = std::make_shared<detail::CommunicatorState>();
  detail::check(MPI_Comm_dup(user, &state->comm), "MPI_Comm_dup");
  Communicator result;
  detail::check(MPI_Comm_rank(state->comm, &result.rank_), "MPI_Comm_rank");
  detail::check(MPI_Comm_size(state->comm, &result.size_), "MPI_Comm_size");
  result.cuda_aware_ = detail::query_cuda_aware();
  result.state_ = std::move(state);
  result.links_ = std::make_shared<detail::DeviceLinks>();
  return result;
}

Communicator Communicator::world() {
  const MPI_Comm world = MPI_COMM_WORLD;
  return from_mpi_comm_address(&world);
}

void Communicator::barrier() const {
  if (state_) detail::check(MPI_Barrier(state_->comm), "MPI_Barrier");
}

bool mpi_compiled() noexcept { return true; }

namespace detail {

void allgather(const Communicator& comm, const void* send, std::size_t bytes, void* recv) {
  if (comm.size() == 1) {
    if (bytes > 0) std::memmove(recv, send, bytes);
    return;
  }
  const int count = count_of(bytes, "allgather");
  check(MPI_Allgather(send, count, MPI_BYTE, recv, count, MPI_BYTE, handle(comm)), "MPI_Allgather");
}

void allgatherv(const Communicator& comm, const void* send, std::size_t bytes, void* recv,
                const std::vector<std::size_t>& counts) {
  if (comm.size() == 1) {
    if (bytes > 0) std::memmove(recv, send, bytes);
    return;
  }
  std::vector<int> sizes(counts.size()), displacements(counts.size());
  std::size_t at = 0;
  for (std::size_t r = 0; r < counts.size(); ++r) {
    sizes[r] = count_of(counts[r], "allgatherv");
    displacements[r] = count_of(at, "allgatherv");
    at += counts[r];
  }
  check(MPI_Allgatherv(send, count_of(bytes, "allgatherv"), MPI_BYTE, recv, sizes.data(),
                       displacements.data(), MPI_BYTE, handle(comm)),
        "MPI_Allgatherv");
}

std::vector<size_type> alltoall_counts(const Communicator& comm,
                                       const std::vector<size_type>& send) {
  std::vector<size_type> recv(send.size());
  if (comm.size() == 1) return send;
  static_assert(sizeof(size_type) == sizeof(std::int64_t));
  check(MPI_Alltoall(send.data(), 1, MPI_INT64_T, recv.data(), 1, MPI_INT64_T, handle(comm)),
        "MPI_Alltoall");
  return recv;
}

struct RequestSet::Impl {
  std::vector<MPI_Request> requests;
};

RequestSet::RequestSet() : impl_(std::make_unique<Impl>()) {}
RequestSet::~RequestSet() {
  // Destroyed with messages in flight (an exception between begin and
  // finish): wait, so MPI never writes into freed buffers.
  if (impl_ && !impl_->requests.empty()) {
    MPI_Waitall(static_cast<int>(impl_->requests.size()), impl_->requests.data(),
                MPI_STATUSES_IGNORE);
  }
}
RequestSet::RequestSet(RequestSet&&) noexcept = default;
RequestSet& RequestSet::operator=(RequestSet&&) noexcept = default;

void RequestSet::receive(const Communicator& comm, void* data, std::size_t bytes, int source,
                         Tag tag) {
  MPI_Request request;
  check(MPI_Irecv(data, count_of(bytes, "receive"), MPI_BYTE, source, static_cast<int>(tag),
                  handle(comm), &request),
        "MPI_Irecv");
  impl_->requests.push_back(request);
}

void RequestSet::send(const Communicator& comm, const void* data, std::size_t bytes,
                      int destination, Tag tag) {
  MPI_Request request;
  check(MPI_Isend(data, count_of(bytes, "send"), MPI_BYTE, destination, static_cast<int>(tag),
                  handle(comm), &request),
        "MPI_Isend");
  impl_->requests.push_back(request);
}

void RequestSet::wait_all() {
  if (impl_->requests.empty()) return;
  std::vector<MPI_Request> requests = std::move(impl_->requests);
  impl_->requests.clear();
  check(MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE),
        "MPI_Waitall");
}

bool RequestSet::pending() const noexcept { return impl_ && !impl_->requests.empty(); }

}  // namespace detail

}  // namespace strata
