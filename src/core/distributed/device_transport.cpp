// Choosing the device transport (core/distributed/device_transport.hpp):
// written once over the backend's hooks, so that a build without NCCL makes
// the same collective decision and reports why it stages.

#include "core/distributed/device_transport.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>

#include "core/distributed/communication.hpp"

namespace strata::detail {

namespace {

enum class Mode : std::int32_t { automatic = 0, nccl = 1, mpi = 2 };

constexpr std::size_t identity_bytes = 16;
constexpr std::size_t id_bytes = 128;  // NCCL_UNIQUE_ID_BYTES

Mode mode_from_environment() {
  const char* value = std::getenv("STRATA_DEVICE_TRANSPORT");
  if (value == nullptr || *value == '\0' || std::strcmp(value, "auto") == 0) return Mode::automatic;
  if (std::strcmp(value, "nccl") == 0) return Mode::nccl;
  if (std::strcmp(value, "mpi") == 0) return Mode::mpi;
  throw invalid_argument(std::string("STRATA_DEVICE_TRANSPORT is '") + value +
                         "'; expected auto, nccl or mpi");
}

/// What each process tells the others before a transport is made.
struct Vote {
  unsigned char identity[identity_bytes] = {};
  std::int32_t mode = 0;
  std::int32_t compiled = 0;
};

/// The CUDA device number of exec (-1 on the host).
int device_of(const Executor& exec) {
  return exec.visit([](const auto& e) {
    if constexpr (requires { e.device(); }) {
      return e.device();
    } else {
      return -1;
    }
  });
}

DeviceLinks::Entry* find(DeviceLinks& links, int device) {
  for (DeviceLinks::Entry& e : links.entries) {
    if (e.device == device) return &e;
  }
  return nullptr;
}

/// The reason no transport can be used, agreed from every process's vote
/// ("" when NCCL can be used).
std::string refusal(const std::vector<Vote>& votes) {
  for (std::size_t r = 0; r < votes.size(); ++r) {
    if (votes[r].mode == static_cast<std::int32_t>(Mode::mpi)) {
      return "STRATA_DEVICE_TRANSPORT=mpi on process " + std::to_string(r);
    }
  }
  for (std::size_t r = 0; r < votes.size(); ++r) {
    if (!votes[r].compiled) return "this build of Strata has no NCCL";
  }
  for (std::size_t r = 0; r < votes.size(); ++r) {
    for (std::size_t s = r + 1; s < votes.size(); ++s) {
      if (std::memcmp(votes[r].identity, votes[s].identity, identity_bytes) == 0) {
        return "processes " + std::to_string(r) + " and " + std::to_string(s) +
               " share one GPU (NCCL needs a GPU per process)";
      }
    }
  }
  return "";
}

}  // namespace

std::shared_ptr<DeviceTransport> device_transport(const Communicator& comm, const Executor& exec) {
  DeviceLinks* links = comm.device_links();
  if (links == nullptr || comm.size() == 1 || !exec.is_cuda()) return nullptr;
  const int device = device_of(exec);
  std::lock_guard<std::mutex> lock(links->mutex);
  if (const DeviceLinks::Entry* e = find(*links, device)) return e->transport;

  Vote mine;
  std::exception_ptr failure;
  try {
    mine.mode = static_cast<std::int32_t>(mode_from_environment());
    mine.compiled = nccl_compiled() ? 1 : 0;
    if (mine.compiled) {
      const std::vector<unsigned char> identity = device_identity(exec);
      std::memcpy(mine.identity, identity.data(), std::min(identity.size(), identity_bytes));
    }
  } catch (...) {
    failure = std::current_exception();
  }
  agree_on_failure(comm, failure, "device transport");
  std::vector<Vote> votes(static_cast<std::size_t>(comm.size()));
  allgather(comm, &mine, sizeof mine, votes.data());

  DeviceLinks::Entry entry;
  entry.device = device;
  entry.reason = refusal(votes);
  if (!entry.reason.empty()) {
    for (const Vote& v : votes) {
      if (v.mode == static_cast<std::int32_t>(Mode::nccl)) {
        throw invalid_argument("STRATA_DEVICE_TRANSPORT=nccl, but NCCL cannot be used: " +
                               entry.reason);
      }
    }
    links->entries.push_back(entry);
    return nullptr;
  }
  // One process makes the id; everyone takes process 0's from the gather.
  std::vector<unsigned char> id(id_bytes, 0);
  try {
    if (comm.rank() == 0) {
      const std::vector<unsigned char> made = nccl_unique_id();
      std::memcpy(id.data(), made.data(), std::min(made.size(), id_bytes));
    }
  } catch (...) {
    failure = std::current_exception();
  }
  agree_on_failure(comm, failure, "device transport (NCCL unique id)");
  std::vector<unsigned char> ids(id_bytes * static_cast<std::size_t>(comm.size()));
  allgather(comm, id.data(), id_bytes, ids.data());
  id.assign(ids.begin(), ids.begin() + static_cast<std::ptrdiff_t>(id_bytes));
  try {
    entry.transport = make_nccl_transport(comm, exec, id);
  } catch (...) {
    failure = std::current_exception();
  }
  agree_on_failure(comm, failure, "device transport (NCCL communicator)");
  links->entries.push_back(entry);
  return entry.transport;
}

std::shared_ptr<DeviceTransport> cached_device_transport(const Communicator& comm,
                                                         const Executor& exec) {
  DeviceLinks* links = comm.device_links();
  if (links == nullptr || !exec.is_cuda()) return nullptr;
  const int device = device_of(exec);
  std::lock_guard<std::mutex> lock(links->mutex);
  const DeviceLinks::Entry* e = find(*links, device);
  return e ? e->transport : nullptr;
}

bool has_device_transport(const Communicator& comm) {
  DeviceLinks* links = comm.device_links();
  if (links == nullptr) return false;
  std::lock_guard<std::mutex> lock(links->mutex);
  for (const DeviceLinks::Entry& e : links->entries) {
    if (e.transport) return true;
  }
  return false;
}

std::string device_transport_reason(const Communicator& comm) {
  DeviceLinks* links = comm.device_links();
  if (links == nullptr) return "";
  std::lock_guard<std::mutex> lock(links->mutex);
  return links->entries.empty() ? "" : links->entries.front().reason;
}

}  // namespace strata::detail
