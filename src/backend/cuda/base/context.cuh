#pragma once
// The per-device state behind CudaExec.

#include <cuda_runtime.h>
#include <cusparse.h>

#include <mutex>

#include "strata/core/executor.hpp"

namespace strata::detail {

struct CudaContext {
  explicit CudaContext(int device);
  ~CudaContext();
  CudaContext(const CudaContext&) = delete;
  CudaContext& operator=(const CudaContext&) = delete;

  /// cuSPARSE handle bound to `stream`, created on first use.
  cusparseHandle_t cusparse();

  int device = 0;
  cudaStream_t stream = nullptr;
  /// The device's default memory pool, set to keep freed memory for reuse.
  cudaMemPool_t pool = nullptr;
  int multiprocessors = 0;

 private:
  std::mutex mutex_;
  cusparseHandle_t cusparse_ = nullptr;
};

}  // namespace strata::detail

namespace strata::cuda_detail {

inline cudaStream_t stream_of(const CudaExec& exec) { return exec.context().stream; }

/// Makes `exec`'s device current for the calling thread (kernels launch on
/// the current device). Cheap when it already is.
void activate(const CudaExec& exec);

/// Scratch memory from the executor's pool, freed (stream-ordered) on scope exit.
class ScratchBuffer {
 public:
  ScratchBuffer(const CudaExec& exec, std::size_t bytes)
      : exec_(exec), bytes_(bytes), data_(bytes ? Executor(exec).allocate(bytes) : nullptr) {}
  ~ScratchBuffer() {
    if (data_) Executor(exec_).deallocate(data_, bytes_);
  }
  ScratchBuffer(const ScratchBuffer&) = delete;
  ScratchBuffer& operator=(const ScratchBuffer&) = delete;
  void* data() const noexcept { return data_; }
  template <class T>
  T* as() const noexcept { return static_cast<T*>(data_); }
  std::size_t bytes() const noexcept { return bytes_; }

 private:
  CudaExec exec_;
  std::size_t bytes_;
  void* data_;
};

}  // namespace strata::cuda_detail
