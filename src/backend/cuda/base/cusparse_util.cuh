#pragma once
// What the cuSPARSE reference paths (SpMV and SpSV, the benchmarks' and
// device tests' yardsticks) share: the status check that turns a failed call
// into strata::cusparse_error naming the call, and the narrowing of 64-bit
// row offsets to the 32-bit ones the reference descriptors are set up with.

#include <cusparse.h>

#include <cstdint>
#include <string>

#include "backend/cuda/base/parallel.cuh"

namespace strata::cuda_detail {

inline void check_cusparse(cusparseStatus_t status, const char* call) {
  if (status != CUSPARSE_STATUS_SUCCESS) {
    throw cusparse_error(std::string("cuSPARSE call ") + call + " failed: " +
                         cusparseGetErrorString(status));
  }
}

/// rp32[i] = rp[i] for i < n, on the device. Out of line (in
/// cusparse_reference.cu) because an extended device lambda may not live in
/// a constructor, where the reference paths set their descriptors up.
void narrow_offsets(const CudaExec& exec, const offset_type* rp, std::int32_t* rp32, size_type n);

}  // namespace strata::cuda_detail

#define STRATA_CUSPARSE_CHECK(call) ::strata::cuda_detail::check_cusparse((call), #call)
