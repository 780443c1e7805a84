// The device transport over NCCL (core/distributed/device_transport.hpp):
// grouped ncclSend/ncclRecv on a high-priority second stream of the device,
// ordered against the executor's stream by events, so that a halo exchange
// never blocks the host. Only this source includes nccl.h (CMake gives it
// NCCL's include path alone, as communicator_mpi.cpp has MPI's). No kernels
// here: nvcc compiles it only because the CUDA backend's sources are .cu.

#include <nccl.h>

#include <cstring>
#include <string>

#include "backend/cuda/base/context.cuh"
#include "backend/cuda/base/cuda_check.cuh"
#include "core/distributed/device_transport.hpp"

namespace strata::detail {

namespace {

void check_nccl(ncclResult_t status, const char* call) {
  if (status == ncclSuccess) return;
  throw error(std::string(call) + " failed: " + ncclGetErrorString(status));
}

const CudaExec& cuda_of(const Executor& exec) {
  const CudaExec* cuda = nullptr;
  exec.visit([&](const auto& e) {
    if constexpr (std::is_same_v<std::decay_t<decltype(e)>, CudaExec>) cuda = &e;
  });
  require(cuda != nullptr, "the NCCL transport needs a CUDA executor; got " + exec.name());
  return *cuda;
}

}  // namespace

/// One NCCL communicator over every process, for one device, and the
/// stream its messages are queued on.
class DeviceTransport {
 public:
  DeviceTransport(const Communicator& comm, const CudaExec& exec,
                  const std::vector<unsigned char>& id)
      : exec_(exec) {
    cuda_detail::activate(exec_);
    ncclUniqueId unique;
    static_assert(sizeof unique.internal == NCCL_UNIQUE_ID_BYTES);
    require(id.size() >= sizeof unique.internal, "NCCL unique id too short");
    std::memcpy(unique.internal, id.data(), sizeof unique.internal);
    check_nccl(ncclCommInitRank(&comm_, comm.size(), unique, comm.rank()), "ncclCommInitRank");
    // High priority: the messages' kernel is scheduled ahead of the blocks
    // of the diagonal product it overlaps with.
    int least = 0, greatest = 0;
    STRATA_CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    STRATA_CUDA_CHECK(cudaStreamCreateWithPriority(&stream_, cudaStreamNonBlocking, greatest));
  }
  ~DeviceTransport() {
    // At exit the CUDA runtime may already be gone: nothing to report then.
    if (comm_ != nullptr) ncclCommDestroy(comm_);
    if (stream_ != nullptr) cudaStreamDestroy(stream_);
  }
  DeviceTransport(const DeviceTransport&) = delete;
  DeviceTransport& operator=(const DeviceTransport&) = delete;

  const CudaExec& exec() const noexcept { return exec_; }
  ncclComm_t comm() const noexcept { return comm_; }
  cudaStream_t stream() const noexcept { return stream_; }

 private:
  CudaExec exec_;
  ncclComm_t comm_ = nullptr;
  cudaStream_t stream_ = nullptr;
};

namespace {

class NcclExchange final : public DeviceExchange {
 public:
  explicit NcclExchange(std::shared_ptr<DeviceTransport> transport)
      : transport_(std::move(transport)) {
    cuda_detail::activate(transport_->exec());
    STRATA_CUDA_CHECK(cudaEventCreateWithFlags(&packed_, cudaEventDisableTiming));
    STRATA_CUDA_CHECK(cudaEventCreateWithFlags(&done_, cudaEventDisableTiming));
  }
  ~NcclExchange() override {
    // Destroyed with messages in flight (an exception between begin and
    // finish): the buffers are freed in the main stream's order, so that
    // stream waits for the messages first.
    cudaStreamWaitEvent(cuda_detail::stream_of(transport_->exec()), done_, 0);
    cudaEventDestroy(packed_);
    cudaEventDestroy(done_);
  }
  NcclExchange(const NcclExchange&) = delete;
  NcclExchange& operator=(const NcclExchange&) = delete;

  void start(const std::vector<HaloNeighbour>& sends, const void* send_base,
             const std::vector<HaloNeighbour>& receives, void* receive_base,
             std::size_t element_bytes) override {
    const CudaExec& exec = transport_->exec();
    cuda_detail::activate(exec);
    const cudaStream_t main = cuda_detail::stream_of(exec);
    const cudaStream_t side = transport_->stream();
    // The send buffer was packed on the main stream, and the ghosts are
    // free to overwrite once everything queued there (the last product
    // that read them) is done: the messages wait for both.
    STRATA_CUDA_CHECK(cudaEventRecord(packed_, main));
    STRATA_CUDA_CHECK(cudaStreamWaitEvent(side, packed_, 0));
    check_nccl(ncclGroupStart(), "ncclGroupStart");
    for (const HaloNeighbour& r : receives) {
      if (r.count == 0) continue;
      check_nccl(ncclRecv(static_cast<char*>(receive_base) + r.offset * element_bytes,
                          static_cast<std::size_t>(r.count) * element_bytes, ncclUint8, r.rank,
                          transport_->comm(), side),
                 "ncclRecv");
    }
    for (const HaloNeighbour& s : sends) {
      if (s.count == 0) continue;
      check_nccl(ncclSend(static_cast<const char*>(send_base) + s.offset * element_bytes,
                          static_cast<std::size_t>(s.count) * element_bytes, ncclUint8, s.rank,
                          transport_->comm(), side),
                 "ncclSend");
    }
    check_nccl(ncclGroupEnd(), "ncclGroupEnd");
    STRATA_CUDA_CHECK(cudaEventRecord(done_, side));
  }

  void complete() override {
    cuda_detail::activate(transport_->exec());
    STRATA_CUDA_CHECK(cudaStreamWaitEvent(cuda_detail::stream_of(transport_->exec()), done_, 0));
  }

 private:
  std::shared_ptr<DeviceTransport> transport_;
  cudaEvent_t packed_ = nullptr;
  cudaEvent_t done_ = nullptr;
};

}  // namespace

bool nccl_compiled() noexcept { return true; }

std::vector<unsigned char> device_identity(const Executor& exec) {
  const CudaExec& cuda = cuda_of(exec);
  cudaDeviceProp properties{};
  STRATA_CUDA_CHECK(cudaGetDeviceProperties(&properties, cuda.device()));
  std::vector<unsigned char> identity(sizeof properties.uuid.bytes);
  std::memcpy(identity.data(), properties.uuid.bytes, identity.size());
  return identity;
}

std::vector<unsigned char> nccl_unique_id() {
  ncclUniqueId id;
  check_nccl(ncclGetUniqueId(&id), "ncclGetUniqueId");
  return std::vector<unsigned char>(id.internal, id.internal + sizeof id.internal);
}

std::shared_ptr<DeviceTransport> make_nccl_transport(const Communicator& comm,
                                                     const Executor& exec,
                                                     const std::vector<unsigned char>& id) {
  return std::make_shared<DeviceTransport>(comm, cuda_of(exec), id);
}

std::unique_ptr<DeviceExchange> make_device_exchange(std::shared_ptr<DeviceTransport> transport,
                                                     const Executor& exec) {
  require(transport != nullptr, "make_device_exchange: the transport is null");
  require(Executor(transport->exec()) == exec,
          "make_device_exchange: the exchange's executor " + exec.name() +
              " is not the transport's " + Executor(transport->exec()).name());
  return std::make_unique<NcclExchange>(std::move(transport));
}

}  // namespace strata::detail
