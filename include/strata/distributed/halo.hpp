#pragma once
/// \file
/// Halo exchange: the values of a distributed vector that this process
/// needs from others (its "ghosts"), fetched with nonblocking messages.
///
/// A HaloPlan is built once per matrix (hypre's communication package): for
/// each neighbour process, the local indices whose values this process
/// sends it, and how many ghost values it receives from it. Building it is
/// the only step that needs the global picture. The ghosts are the
/// off-diagonal block's column map (sorted global ids); since rows are
/// split in contiguous blocks, the ghosts of one owner are a contiguous run
/// of that map, so each process knows whom it receives from without asking.
/// The owners learn what to send from one all-to-all of counts (every
/// process tells every other how many ids it wants: O(processes) numbers
/// each, fine at the process counts of GPU clusters; the sparse NBX
/// consensus of Hoefler et al. is the step up from there) and one
/// point-to-point message of ids per neighbour.
///
/// A HaloExchange carries out a plan for one vector at a time, split so
/// that work overlaps the messages: begin() packs the values to send (a
/// gather on the vector's executor) and posts the receives and sends;
/// finish() waits and returns the ghosts. SpMV computes the diagonal block's
/// product in between. Device data goes through NCCL when every process has
/// a GPU of its own (stream-ordered on a second stream: neither begin() nor
/// finish() blocks the host, and the diagonal product overlaps the
/// messages; device_transfer() in strata/distributed/communicator.hpp), to
/// MPI directly when the library is CUDA-aware (Communicator::cuda_aware(),
/// asked at run time), else through pinned host buffers (a copy each way
/// around the messages); transfer() says which.

#include <memory>
#include <vector>

#include "strata/core/array.hpp"
#include "strata/distributed/partition.hpp"
#include "strata/matrix/vector.hpp"

namespace strata {

namespace detail {
class RequestSet;
class PinnedBuffer;
class DeviceTransport;
class DeviceExchange;
}  // namespace detail

/// One neighbour of a halo exchange: `count` values for (or from) process
/// `rank`, at `offset` in the packed send buffer (or in the ghosts).
struct HaloNeighbour {
  int rank = 0;
  size_type offset = 0;
  size_type count = 0;
};

class HaloPlan {
 public:
  /// A plan without neighbours (no ghosts, nothing to send), on `exec`.
  explicit HaloPlan(const Executor& exec = Executor::host());

  /// Collective: the plan for fetching the global ids `ghosts` (sorted,
  /// distinct, none owned here, each < columns.global_size()) from their
  /// owners under `columns`, with the send indices on `exec` (every process
  /// passes a host executor, or every one a CUDA executor: the first plan
  /// on a device also sets up the device transport). Throws
  /// invalid_argument naming the first id that breaks this (on the process
  /// that has it; a process asked for an id it does not own says so too).
  HaloPlan(const RowPartition& columns, const std::vector<global_index>& ghosts,
           const Executor& exec);

  const Communicator& communicator() const noexcept { return columns_.communicator(); }
  /// The partition of the vectors the plan reads from (a matrix's columns).
  const RowPartition& partition() const noexcept { return columns_; }
  /// Processes this one receives ghosts from, in rank order.
  const std::vector<HaloNeighbour>& receives() const noexcept { return receives_; }
  /// Processes this one sends values to, in rank order.
  const std::vector<HaloNeighbour>& sends() const noexcept { return sends_; }
  /// Local indices (in this process's block) of the values sent, neighbour
  /// after neighbour (sends()[k] uses [offset, offset + count)); on executor().
  const Array<index_type>& send_indices() const noexcept { return send_indices_; }
  size_type ghost_count() const noexcept { return ghost_count_; }
  size_type send_count() const noexcept { return send_indices_.size(); }
  const Executor& executor() const noexcept { return send_indices_.executor(); }

  /// The same plan with its send indices on `target`. Not collective: on a
  /// device it uses the device transport only when a plan built there
  /// (collectively) has set one up, and stages through the host otherwise.
  HaloPlan to(const Executor& target) const;

  /// The NCCL transport of this plan's device (null on the host, or when
  /// device data is staged); for HaloExchange.
  const std::shared_ptr<detail::DeviceTransport>& device_transport() const noexcept {
    return transport_;
  }

 private:
  RowPartition columns_;
  std::vector<HaloNeighbour> receives_, sends_;
  Array<index_type> send_indices_;
  size_type ghost_count_ = 0;
  std::shared_ptr<detail::DeviceTransport> transport_;
};

/// Carries out a HaloPlan for vectors on one executor (see the file
/// comment). Holds the send buffer and the ghosts, so one exchange at a
/// time: a second begin() before finish() throws invalid_argument, as does
/// finish() without begin(). Not for concurrent use from several threads.
template <class T>
class HaloExchange {
 public:
  /// For vectors on `exec` (the plan's send indices must live there too).
  HaloExchange(std::shared_ptr<const HaloPlan> plan, const Executor& exec);
  ~HaloExchange();
  HaloExchange(HaloExchange&&) noexcept;
  HaloExchange& operator=(HaloExchange&&) noexcept;

  /// Packs x's values for the neighbours and posts the messages. x is this
  /// process's block of a vector under plan().partition(): its size must be
  /// the local size and it must live on the exchange's executor
  /// (dimension_mismatch, location_mismatch otherwise). x is packed at
  /// once, so it may change as soon as begin() returns.
  void begin(const Vector<T>& x);
  /// Waits for the messages; returns the ghosts, ghost_count() values in
  /// the order of the plan's ghost ids, on the exchange's executor. Valid
  /// until the next begin().
  const Vector<T>& finish();

  const HaloPlan& plan() const noexcept { return *plan_; }
  const Executor& executor() const noexcept { return ghosts_.executor(); }
  /// "host memory" (host vectors), "nccl" (device buffers through NCCL),
  /// "cuda-aware" (device buffers handed to MPI), "staged through host"
  /// (pinned host copies), or "single process" (no neighbours on a
  /// one-process communicator).
  const char* transfer() const noexcept;

 private:
  std::shared_ptr<const HaloPlan> plan_;
  Array<T> send_;
  Vector<T> ghosts_;
  /// Pinned host copies of send_ and ghosts_ when device data is staged.
  std::unique_ptr<detail::PinnedBuffer> send_stage_, receive_stage_;
  std::unique_ptr<detail::RequestSet> requests_;
  /// The messages' events when they go through the device transport.
  std::unique_ptr<detail::DeviceExchange> device_;
  bool staged_ = false;
  bool in_flight_ = false;
};

}  // namespace strata
