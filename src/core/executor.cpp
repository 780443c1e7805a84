#include "strata/core/executor.hpp"

#include <atomic>
#include <cstdio>
#include <cstring>
#include <new>
#include <string>

#include "core/cuda_bridge.hpp"

namespace strata {

const char* to_string(Location location) noexcept {
  switch (location) {
    case Location::host: return "host";
    case Location::cuda: return "cuda";
  }
  return "unknown";
}

HostExec::HostExec(int threads) : threads_(threads) {
  if (threads < 0) {
    throw invalid_argument("HostExec: threads must be >= 0 (0 = OpenMP default), got " +
                           std::to_string(threads));
  }
}

CudaExec::CudaExec(int device) : device_(device) {
#if STRATA_WITH_CUDA
  const int count = cuda_detail::device_count();
  if (device < 0 || device >= count) {
    throw cuda_error("CudaExec: device " + std::to_string(device) + " does not exist (" +
                     std::to_string(count) + " CUDA device(s) visible)");
  }
  context_ = cuda_detail::context_for(device);
#else
  throw not_compiled("CudaExec: this build of Strata has no CUDA backend "
                     "(configure with -DSTRATA_WITH_CUDA=ON, e.g. the 'cuda' preset)");
#endif
}

void* CudaExec::stream() const noexcept {
#if STRATA_WITH_CUDA
  return cuda_detail::stream_handle(*context_);
#else
  return nullptr;
#endif
}

std::string Executor::name() const {
  return visit([](const auto& e) -> std::string {
    if constexpr (std::is_same_v<std::decay_t<decltype(e)>, HostExec>) {
      return "host";
    } else {
      return "cuda:" + std::to_string(e.device());
    }
  });
}

namespace {
// Host allocations are counted so that benchmarks can report peak memory on
// both backends the same way.
std::atomic<std::size_t> host_in_use{0};
std::atomic<std::size_t> host_peak{0};
constexpr std::align_val_t host_alignment{64};

void note_host_allocation(std::size_t bytes) {
  const std::size_t now = host_in_use.fetch_add(bytes) + bytes;
  std::size_t peak = host_peak.load();
  while (now > peak && !host_peak.compare_exchange_weak(peak, now)) {
  }
}
}  // namespace

void Executor::synchronize() const {
#if STRATA_WITH_CUDA
  if (const auto* cuda = std::get_if<CudaExec>(&exec_)) cuda_detail::synchronize(*cuda);
#endif
}

void* Executor::allocate(std::size_t bytes) const {
#if STRATA_WITH_CUDA
  if (const auto* cuda = std::get_if<CudaExec>(&exec_)) return cuda_detail::allocate(*cuda, bytes);
#endif
  void* p = ::operator new(bytes, host_alignment, std::nothrow);
  if (p == nullptr && bytes > 0) {
    throw out_of_memory("cannot allocate " + std::to_string(bytes) + " bytes of host memory",
                        bytes);
  }
  note_host_allocation(bytes);
  return p;
}

void Executor::deallocate(void* pointer, std::size_t bytes) const noexcept {
  if (pointer == nullptr) return;
#if STRATA_WITH_CUDA
  if (const auto* cuda = std::get_if<CudaExec>(&exec_)) {
    cuda_detail::deallocate(*cuda, pointer);
    return;
  }
#endif
  host_in_use.fetch_sub(bytes);
  ::operator delete(pointer, host_alignment);
}

MemoryStats Executor::memory_stats() const {
#if STRATA_WITH_CUDA
  if (const auto* cuda = std::get_if<CudaExec>(&exec_)) return cuda_detail::memory_stats(*cuda);
#endif
  const std::size_t in_use = host_in_use.load();
  return {in_use, host_peak.load(), in_use};
}

std::size_t Executor::available_memory() const {
#if STRATA_WITH_CUDA
  if (const auto* cuda = std::get_if<CudaExec>(&exec_)) {
    return cuda_detail::available_memory(*cuda);
  }
#endif
  // "MemAvailable:   123456 kB": what Linux can give without swapping.
  std::FILE* file = std::fopen("/proc/meminfo", "r");
  if (file == nullptr) return 0;
  char line[256];
  unsigned long long kib = 0;
  bool found = false;
  while (!found && std::fgets(line, sizeof line, file) != nullptr) {
    found = std::sscanf(line, "MemAvailable: %llu kB", &kib) == 1;
  }
  std::fclose(file);
  return found ? static_cast<std::size_t>(kib) * 1024 : 0;
}

void Executor::reset_peak_memory() const {
#if STRATA_WITH_CUDA
  if (const auto* cuda = std::get_if<CudaExec>(&exec_)) {
    cuda_detail::reset_peak_memory(*cuda);
    return;
  }
#endif
  host_peak.store(host_in_use.load());
}

void copy_bytes(void* dst, const Executor& dst_exec, const void* src, const Executor& src_exec,
                std::size_t bytes) {
  if (bytes == 0) return;
  if (dst_exec.is_host() && src_exec.is_host()) {
    std::memcpy(dst, src, bytes);
    return;
  }
#if STRATA_WITH_CUDA
  // The copy is ordered on the device side's stream, after its queued work.
  const Executor& device_side = dst_exec.is_cuda() ? dst_exec : src_exec;
  device_side.visit([&](const auto& e) {
    if constexpr (std::is_same_v<std::decay_t<decltype(e)>, CudaExec>) {
      if (dst_exec.is_cuda() && src_exec.is_cuda()) src_exec.synchronize();
      cuda_detail::copy(dst, src, bytes, e);
    }
  });
#else
  (void)dst;
  (void)src;
  throw not_compiled("copy_bytes: device memory in a build without CUDA");
#endif
}

bool cuda_available() noexcept { return cuda_device_count() > 0; }

Executor Executor::default_executor() {
  return cuda_available() ? Executor::cuda(0) : Executor::host();
}

int cuda_device_count() noexcept {
#if STRATA_WITH_CUDA
  return cuda_detail::device_count();
#else
  return 0;
#endif
}

void check_location(const Executor& expected, const Executor& actual, const char* what,
                    const char* reference, SourceLocation where) {
  if (!(expected == actual)) {
    throw location_mismatch(std::string(what) + " lives on " + actual.name() + " but " +
                                reference + " is on " + expected.name() +
                                "; Strata does not copy implicitly: move it with .to(executor)",
                            where);
  }
}

}  // namespace strata
