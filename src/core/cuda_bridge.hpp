#pragma once
// What core code needs from the CUDA runtime, without CUDA headers.
// Defined in backend/cuda/base/executor.cu; only called when STRATA_WITH_CUDA.

#include <cstddef>
#include <functional>
#include <memory>

#include "strata/core/executor.hpp"

namespace strata::cuda_detail {

std::shared_ptr<detail::CudaContext> context_for(int device);
void* stream_handle(const detail::CudaContext& context) noexcept;
void* allocate(const CudaExec& exec, std::size_t bytes);
void deallocate(const CudaExec& exec, void* pointer) noexcept;
/// Copy where at least one side is device memory; `exec` orders it.
void copy(void* dst, const void* src, std::size_t bytes, const CudaExec& exec);
void synchronize(const CudaExec& exec);
MemoryStats memory_stats(const CudaExec& exec);
void reset_peak_memory(const CudaExec& exec);
/// Free device memory plus what the pool reserves and does not use.
std::size_t available_memory(const CudaExec& exec);
int device_count() noexcept;
/// Page-locked host memory (cudaMallocHost): the staging buffers of halo
/// exchanges when MPI cannot read device memory, so the copies to and
/// from the device run at full bus speed. Throws out_of_memory.
void* allocate_pinned(std::size_t bytes);
void free_pinned(void* pointer) noexcept;

/// Work recorded from an executor's stream as an executable CUDA graph.
struct RecordedWork;
/// Calls `work` while the executor's stream records (nothing it queues
/// runs), and returns the recording. `work` may only queue stream-ordered
/// work on that stream (kernels, copies between device arrays, fills): no
/// waits, no reads back. An exception from `work` ends the recording and
/// propagates.
std::shared_ptr<RecordedWork> record(const CudaExec& exec, const std::function<void()>& work);
/// Queues the recorded work on the executor's stream, as one launch.
void replay(const CudaExec& exec, const RecordedWork& work);

}  // namespace strata::cuda_detail
