#pragma once
// Stream-ordered exchanges of device buffers between processes, one GPU
// each: the halo exchange's fast path where MPI cannot read device memory
// (Open MPI without CUDA support, as on the GPU machines this project is
// measured on). Through NCCL's grouped point-to-point sends and receives,
// queued on a second stream of the device, an exchange needs no host
// synchronization at all: packing, the messages and the off-diagonal
// product follow each other in stream order, and the diagonal block's
// product runs on the main stream while the messages fly. The staged
// alternative (pinned host copies around MPI) waits for the device twice
// per exchange, which on the coarse levels of an AMG cycle costs more than
// the product itself.
//
// A transport is made once per communicator and device, collectively (the
// first HaloPlan built on a device does it), and shared by every exchange
// on that device. It is used only when every process has a GPU of its own
// (NCCL refuses two ranks on one GPU; tests that share one fall back to
// staging) and the environment does not say otherwise:
//   STRATA_DEVICE_TRANSPORT=auto (default): NCCL where it can be used;
//   STRATA_DEVICE_TRANSPORT=nccl: NCCL or an error that says why not;
//   STRATA_DEVICE_TRANSPORT=mpi: never NCCL (what benchmarks compare with).

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "strata/core/executor.hpp"
#include "strata/distributed/communicator.hpp"
#include "strata/distributed/halo.hpp"

namespace strata::detail {

/// A device communicator over all processes of a Communicator (NCCL's);
/// defined by the NCCL source, opaque everywhere else.
class DeviceTransport;

/// The transports made on one Communicator, shared by its copies: one
/// entry per device asked for, with the transport or the reason there is
/// none.
struct DeviceLinks {
  struct Entry {
    int device = 0;
    std::shared_ptr<DeviceTransport> transport;
    std::string reason;
  };
  std::mutex mutex;
  std::vector<Entry> entries;
};

/// Collective over comm (every process, each with its own CUDA executor):
/// the transport for exec's device, made on first call and cached; null
/// (on every process alike) when it cannot or must not be used, with
/// device_transport_reason() saying why. Throws invalid_argument for a bad
/// STRATA_DEVICE_TRANSPORT, or when it asks for NCCL that cannot be used.
std::shared_ptr<DeviceTransport> device_transport(const Communicator& comm, const Executor& exec);

/// Not collective: the transport already made for exec's device, or null.
std::shared_ptr<DeviceTransport> cached_device_transport(const Communicator& comm,
                                                         const Executor& exec);

/// Why the first device asked for has no transport ("" when it has one or
/// none was asked for).
std::string device_transport_reason(const Communicator& comm);

/// Whether a transport was made on comm for some device.
bool has_device_transport(const Communicator& comm);

/// One HaloExchange's messages on a transport: start() queues, after the
/// work already queued on the executor's stream, the receives and sends of
/// one exchange (byte counts: neighbours' counts times element_bytes);
/// complete() makes the executor's stream wait for them. Neither blocks the
/// host. Every process starts its exchanges in the same order.
class DeviceExchange {
 public:
  virtual ~DeviceExchange() = default;
  virtual void start(const std::vector<HaloNeighbour>& sends, const void* send_base,
                     const std::vector<HaloNeighbour>& receives, void* receive_base,
                     std::size_t element_bytes) = 0;
  virtual void complete() = 0;
};

std::unique_ptr<DeviceExchange> make_device_exchange(std::shared_ptr<DeviceTransport> transport,
                                                     const Executor& exec);

// The backend's part (nccl_transport.cpp, or device_transport_none.cpp in a
// build without NCCL); device_transport() is written once over these.

/// Whether this build has the NCCL transport.
bool nccl_compiled() noexcept;
/// Bytes naming exec's GPU (its UUID), so that processes sharing one are
/// found; 16 bytes, zero without NCCL.
std::vector<unsigned char> device_identity(const Executor& exec);
/// A fresh NCCL unique id (made on one process, handed to all).
std::vector<unsigned char> nccl_unique_id();
/// Collective: the NCCL communicator of comm's processes from `id`.
std::shared_ptr<DeviceTransport> make_nccl_transport(const Communicator& comm,
                                                     const Executor& exec,
                                                     const std::vector<unsigned char>& id);

}  // namespace strata::detail
