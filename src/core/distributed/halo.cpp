// Halo plans and exchanges (strata/distributed/halo.hpp).

#include "strata/distributed/halo.hpp"

#include <cstdint>
#include <exception>
#include <string>

#include "core/cuda_bridge.hpp"
#include "core/distributed/communication.hpp"
#include "core/distributed/device_transport.hpp"
#include "strata/core/primitives.hpp"

namespace strata {

namespace detail {

/// Page-locked host memory for staging device data around MPI messages
/// (plain host memory in a build without CUDA, where nothing is staged).
class PinnedBuffer {
 public:
  explicit PinnedBuffer(std::size_t bytes) : bytes_(bytes) {
#if STRATA_WITH_CUDA
    data_ = cuda_detail::allocate_pinned(bytes);
#else
    data_ = bytes > 0 ? ::operator new(bytes) : nullptr;
#endif
  }
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;
  ~PinnedBuffer() {
#if STRATA_WITH_CUDA
    cuda_detail::free_pinned(data_);
#else
    ::operator delete(data_);
#endif
  }
  void* data() const noexcept { return data_; }
  std::size_t bytes() const noexcept { return bytes_; }

 private:
  void* data_ = nullptr;
  std::size_t bytes_ = 0;
};

}  // namespace detail

// ---------------------------------------------------------------- HaloPlan

HaloPlan::HaloPlan(const Executor& exec) : send_indices_(exec, 0) {}

HaloPlan::HaloPlan(const RowPartition& columns, const std::vector<global_index>& ghosts,
                   const Executor& exec)
    : columns_(columns),
      send_indices_(exec, 0),
      ghost_count_(static_cast<size_type>(ghosts.size())) {
  const Communicator& comm = columns.communicator();
  const int processes = comm.size();
  std::vector<size_type> wanted(static_cast<std::size_t>(processes), 0);
  std::exception_ptr failure;
  try {
    for (std::size_t i = 0; i < ghosts.size(); ++i) {
      const global_index g = ghosts[i];
      if (g < 0 || g >= columns.global_size() || (g >= columns.begin() && g < columns.end()) ||
          (i > 0 && g <= ghosts[i - 1])) {
        throw invalid_argument(
            "HaloPlan: ghost id " + std::to_string(i) + " is " + std::to_string(g) +
            "; expected sorted, distinct global ids in [0, " +
            std::to_string(columns.global_size()) + ") outside this process's block [" +
            std::to_string(columns.begin()) + ", " + std::to_string(columns.end()) + ")");
      }
      // Sorted ids of contiguous blocks: one owner's ghosts are one run.
      const int owner = columns.owner(g);
      if (receives_.empty() || receives_.back().rank != owner) {
        receives_.push_back({owner, static_cast<size_type>(i), 0});
      }
      ++receives_.back().count;
      ++wanted[static_cast<std::size_t>(owner)];
    }
  } catch (...) {
    failure = std::current_exception();
  }
  detail::agree_on_failure(comm, failure, "HaloPlan");

  // Every owner learns how many of its ids each process wants, then which.
  const std::vector<size_type> asked = detail::alltoall_counts(comm, wanted);
  std::vector<global_index> requested;
  size_type total = 0;
  for (int r = 0; r < processes; ++r) {
    const size_type count = asked[static_cast<std::size_t>(r)];
    if (count > 0) sends_.push_back({r, total, count});
    total += count;
  }
  requested.resize(static_cast<std::size_t>(total));
  {
    detail::RequestSet messages;
    for (const HaloNeighbour& s : sends_) {
      messages.receive(comm, requested.data() + s.offset,
                       static_cast<std::size_t>(s.count) * sizeof(global_index), s.rank,
                       detail::Tag::column_request);
    }
    for (const HaloNeighbour& r : receives_) {
      messages.send(comm, ghosts.data() + r.offset,
                    static_cast<std::size_t>(r.count) * sizeof(global_index), r.rank,
                    detail::Tag::column_request);
    }
    messages.wait_all();
  }
  std::vector<index_type> local(requested.size());
  try {
    for (std::size_t k = 0; k < requested.size(); ++k) {
      const global_index g = requested[k];
      if (g < columns.begin() || g >= columns.end()) {
        throw invalid_argument(
            "HaloPlan: another process asked this one (rank " + std::to_string(comm.rank()) +
            ") for global id " + std::to_string(g) + ", outside its block [" +
            std::to_string(columns.begin()) + ", " + std::to_string(columns.end()) +
            "); expected every process to pass the same partition");
      }
      local[k] = static_cast<index_type>(g - columns.begin());
    }
  } catch (...) {
    failure = std::current_exception();
  }
  detail::agree_on_failure(comm, failure, "HaloPlan");
  send_indices_ = Array<index_type>(exec, local);
  transport_ = detail::device_transport(comm, exec);
}

HaloPlan HaloPlan::to(const Executor& target) const {
  HaloPlan copy(target);
  copy.columns_ = columns_;
  copy.receives_ = receives_;
  copy.sends_ = sends_;
  copy.send_indices_ = send_indices_.to(target);
  copy.ghost_count_ = ghost_count_;
  copy.transport_ = detail::cached_device_transport(communicator(), target);
  return copy;
}

// ---------------------------------------------------------------- HaloExchange

template <class T>
HaloExchange<T>::HaloExchange(std::shared_ptr<const HaloPlan> plan, const Executor& exec)
    : plan_(std::move(plan)), requests_(std::make_unique<detail::RequestSet>()) {
  require(plan_ != nullptr, "HaloExchange: the plan is null");
  check_location(exec, plan_->executor(), "the plan's send indices", "the exchange");
  send_ = Array<T>(exec, plan_->send_count());
  ghosts_ = Vector<T>(exec, plan_->ghost_count());
  const Communicator& comm = plan_->communicator();
  if (exec.is_cuda() && plan_->device_transport()) {
    device_ = detail::make_device_exchange(plan_->device_transport(), exec);
  }
  staged_ = exec.is_cuda() && comm.size() > 1 && !device_ && !comm.cuda_aware();
  if (staged_) {
    send_stage_ = std::make_unique<detail::PinnedBuffer>(send_.bytes());
    receive_stage_ = std::make_unique<detail::PinnedBuffer>(ghosts_.values().bytes());
  }
}

template <class T>
HaloExchange<T>::~HaloExchange() = default;
template <class T>
HaloExchange<T>::HaloExchange(HaloExchange&&) noexcept = default;
template <class T>
HaloExchange<T>& HaloExchange<T>::operator=(HaloExchange&&) noexcept = default;

template <class T>
const char* HaloExchange<T>::transfer() const noexcept {
  if (plan_->communicator().size() == 1) return "single process";
  if (executor().is_host()) return "host memory";
  if (device_) return "nccl";
  return staged_ ? "staged through host" : "cuda-aware";
}

template <class T>
void HaloExchange<T>::begin(const Vector<T>& x) {
  require(!in_flight_, "HaloExchange::begin: the previous exchange has not been finished");
  check_location(executor(), x.executor(), "x", "the halo exchange");
  if (x.size() != plan_->partition().local_size()) {
    throw dimension_mismatch("HaloExchange::begin: x has " + std::to_string(x.size()) +
                             " entries; expected this process's block of " +
                             std::to_string(plan_->partition().local_size()));
  }
  if (device_) {
    // Stream-ordered: pack, then the messages on the transport's stream.
    if (plan_->send_count() > 0) gather(x.values(), plan_->send_indices(), send_);
    device_->start(plan_->sends(), send_.data(), plan_->receives(), ghosts_.data(), sizeof(T));
    in_flight_ = true;
    return;
  }
  const Communicator& comm = plan_->communicator();
  // Receives first, so that a message arriving early lands in place.
  char* receive_base = staged_ ? static_cast<char*>(receive_stage_->data())
                               : reinterpret_cast<char*>(ghosts_.data());
  for (const HaloNeighbour& r : plan_->receives()) {
    requests_->receive(comm, receive_base + r.offset * sizeof(T),
                       static_cast<std::size_t>(r.count) * sizeof(T), r.rank, detail::Tag::halo);
  }
  in_flight_ = true;
  if (plan_->send_count() == 0) return;
  gather(x.values(), plan_->send_indices(), send_);
  const char* send_base;
  if (staged_) {
    copy_bytes(send_stage_->data(), Executor::host(), send_.data(), executor(), send_.bytes());
    send_base = static_cast<const char*>(send_stage_->data());
  } else {
    executor().synchronize();  // MPI reads send_ itself: the gather must be done
    send_base = reinterpret_cast<const char*>(send_.data());
  }
  for (const HaloNeighbour& s : plan_->sends()) {
    requests_->send(comm, send_base + s.offset * sizeof(T),
                    static_cast<std::size_t>(s.count) * sizeof(T), s.rank, detail::Tag::halo);
  }
}

template <class T>
const Vector<T>& HaloExchange<T>::finish() {
  require(in_flight_, "HaloExchange::finish: no exchange has begun");
  in_flight_ = false;
  if (device_) {
    device_->complete();  // the executor's stream waits; the host does not
    return ghosts_;
  }
  requests_->wait_all();
  if (staged_ && ghosts_.size() > 0) {
    copy_bytes(ghosts_.data(), executor(), receive_stage_->data(), Executor::host(),
               ghosts_.values().bytes());
  }
  return ghosts_;
}

template class HaloExchange<double>;
// Distributed classical coarsening exchanges PMIS candidate flags and the
// global coarse ids of C points (-1 for F points).
template class HaloExchange<std::int32_t>;
template class HaloExchange<std::int64_t>;

}  // namespace strata
