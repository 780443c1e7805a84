// CUDA side of the memory model: per-device contexts, the stream-ordered
// memory pool, copies, and CUDA error translation.

#include <cstdint>
#include <limits>
#include <map>
#include <mutex>
#include <string>

#include "backend/cuda/base/context.cuh"
#include "backend/cuda/base/cuda_check.cuh"
#include "core/cuda_bridge.hpp"

namespace strata::cuda_detail {

void throw_cuda_error(cudaError_t status, const char* call, strata::SourceLocation where) {
  std::string message = std::string("CUDA call ") + call + " failed: " + cudaGetErrorName(status) +
                        " (" + cudaGetErrorString(status) + ")";
  if (status == cudaErrorMemoryAllocation) {
    cudaGetLastError();  // not sticky; clear it so later calls are unaffected
    throw out_of_memory(message, 0, where);
  }
  throw cuda_error(message, where);
}

void activate(const CudaExec& exec) { STRATA_CUDA_CHECK(cudaSetDevice(exec.device())); }

std::shared_ptr<detail::CudaContext> context_for(int device) {
  // One context per device for the whole process. Deliberately never
  // destroyed: tearing down streams after the CUDA runtime has shut down at
  // exit fails, and the driver reclaims everything then anyway.
  static std::mutex mutex;
  static auto* contexts = new std::map<int, std::shared_ptr<detail::CudaContext>>();
  std::lock_guard lock(mutex);
  auto& slot = (*contexts)[device];
  if (!slot) slot = std::make_shared<detail::CudaContext>(device);
  return slot;
}

void* stream_handle(const detail::CudaContext& context) noexcept { return context.stream; }

struct RecordedWork {
  cudaGraphExec_t graph = nullptr;
  RecordedWork() = default;
  RecordedWork(const RecordedWork&) = delete;
  RecordedWork& operator=(const RecordedWork&) = delete;
  // Deferred by CUDA while a replay is still queued.
  ~RecordedWork() {
    if (graph) cudaGraphExecDestroy(graph);
  }
};

std::shared_ptr<RecordedWork> record(const CudaExec& exec, const std::function<void()>& work) {
  activate(exec);
  const cudaStream_t stream = exec.context().stream;
  // Thread-local: other threads' CUDA calls are not disturbed by it.
  STRATA_CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
  try {
    work();
  } catch (...) {
    cudaGraph_t partial = nullptr;
    cudaStreamEndCapture(stream, &partial);
    if (partial) cudaGraphDestroy(partial);
    cudaGetLastError();
    throw;
  }
  cudaGraph_t graph = nullptr;
  STRATA_CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
  auto recorded = std::make_shared<RecordedWork>();
  const cudaError_t status = cudaGraphInstantiate(&recorded->graph, graph, 0);
  cudaGraphDestroy(graph);  // the executable graph does not need it
  STRATA_CUDA_CHECK(status);
  return recorded;
}

void replay(const CudaExec& exec, const RecordedWork& work) {
  activate(exec);
  STRATA_CUDA_CHECK(cudaGraphLaunch(work.graph, exec.context().stream));
}

void* allocate(const CudaExec& exec, std::size_t bytes) {
  if (bytes == 0) return nullptr;
  activate(exec);
  auto& ctx = exec.context();
  void* p = nullptr;
  cudaError_t status = cudaMallocFromPoolAsync(&p, bytes, ctx.pool, ctx.stream);
  if (status == cudaErrorMemoryAllocation) {
    // The pool keeps freed blocks; give them back to the driver and try once more.
    cudaGetLastError();
    cudaStreamSynchronize(ctx.stream);
    cudaMemPoolTrimTo(ctx.pool, 0);
    status = cudaMallocFromPoolAsync(&p, bytes, ctx.pool, ctx.stream);
  }
  if (status == cudaErrorMemoryAllocation) {
    cudaGetLastError();
    std::size_t free_bytes = 0, total_bytes = 0;
    cudaMemGetInfo(&free_bytes, &total_bytes);
    throw out_of_memory("cannot allocate " + std::to_string(bytes) + " bytes on cuda:" +
                            std::to_string(exec.device()) + " (" + std::to_string(free_bytes) +
                            " of " + std::to_string(total_bytes) + " bytes free)",
                        bytes);
  }
  STRATA_CUDA_CHECK(status);
  return p;
}

void deallocate(const CudaExec& exec, void* pointer) noexcept {
  cudaFreeAsync(pointer, exec.context().stream);
}

void copy(void* dst, const void* src, std::size_t bytes, const CudaExec& exec) {
  cudaStream_t stream = exec.context().stream;
  STRATA_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, stream));
  STRATA_CUDA_CHECK(cudaStreamSynchronize(stream));
}

void synchronize(const CudaExec& exec) {
  STRATA_CUDA_CHECK(cudaStreamSynchronize(exec.context().stream));
}

MemoryStats memory_stats(const CudaExec& exec) {
  synchronize(exec);  // stream-ordered frees count only once they have run
  auto pool = exec.context().pool;
  std::uint64_t used = 0, high = 0, reserved = 0;
  STRATA_CUDA_CHECK(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, &used));
  STRATA_CUDA_CHECK(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemHigh, &high));
  STRATA_CUDA_CHECK(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReservedMemCurrent, &reserved));
  return {static_cast<std::size_t>(used), static_cast<std::size_t>(high),
          static_cast<std::size_t>(reserved)};
}

void reset_peak_memory(const CudaExec& exec) {
  synchronize(exec);
  std::uint64_t zero = 0;
  STRATA_CUDA_CHECK(
      cudaMemPoolSetAttribute(exec.context().pool, cudaMemPoolAttrUsedMemHigh, &zero));
}

std::size_t available_memory(const CudaExec& exec) {
  activate(exec);
  const MemoryStats stats = memory_stats(exec);
  std::size_t free_bytes = 0, total_bytes = 0;
  STRATA_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  return free_bytes + (stats.reserved > stats.in_use ? stats.reserved - stats.in_use : 0);
}

int device_count() noexcept {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return count;
}

void* allocate_pinned(std::size_t bytes) {
  if (bytes == 0) return nullptr;
  void* p = nullptr;
  STRATA_CUDA_CHECK(cudaMallocHost(&p, bytes));
  return p;
}

void free_pinned(void* pointer) noexcept {
  if (pointer != nullptr) cudaFreeHost(pointer);
}

}  // namespace strata::cuda_detail

namespace strata::detail {

CudaContext::CudaContext(int dev) : device(dev) {
  STRATA_CUDA_CHECK(cudaSetDevice(device));
  STRATA_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  STRATA_CUDA_CHECK(cudaDeviceGetDefaultMemPool(&pool, device));
  // Keep freed memory in the pool: AMG setup allocates and frees the same
  // sizes over and over, and returning memory to the driver each time is
  // what makes setup slow without a pool (hypre paper, section 2).
  std::uint64_t keep_all = std::numeric_limits<std::uint64_t>::max();
  STRATA_CUDA_CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep_all));
  STRATA_CUDA_CHECK(
      cudaDeviceGetAttribute(&multiprocessors, cudaDevAttrMultiProcessorCount, device));
}

CudaContext::~CudaContext() {
  if (cusparse_) cusparseDestroy(cusparse_);
  if (stream) cudaStreamDestroy(stream);
}

cusparseHandle_t CudaContext::cusparse() {
  std::lock_guard lock(mutex_);
  if (!cusparse_) {
    if (cusparseCreate(&cusparse_) != CUSPARSE_STATUS_SUCCESS) {
      throw cusparse_error("cusparseCreate failed on cuda:" + std::to_string(device));
    }
    cusparseSetStream(cusparse_, stream);
  }
  return cusparse_;
}

}  // namespace strata::detail
