#pragma once
// STRATA_CUDA_CHECK: the one error macro. It turns a failed CUDA runtime call
// into strata::cuda_error (or out_of_memory) naming the call, the error and
// the place; a macro because the call's text is part of the message.

#include <cuda_runtime.h>

#include <string>

#include "strata/core/error.hpp"
#include "strata/core/source_location.hpp"

namespace strata::cuda_detail {

[[noreturn]] void throw_cuda_error(cudaError_t status, const char* call,
                                   strata::SourceLocation where);

inline void check(cudaError_t status, const char* call,
                  strata::SourceLocation where = strata::SourceLocation::current()) {
  if (status != cudaSuccess) throw_cuda_error(status, call, where);
}

}  // namespace strata::cuda_detail

#define STRATA_CUDA_CHECK(call) ::strata::cuda_detail::check((call), #call)
