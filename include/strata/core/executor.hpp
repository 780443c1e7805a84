#pragma once
/// \file
/// Where data lives and therefore where work runs.
///
/// Every array and matrix carries an Executor. An operation runs on the
/// executor of its operands; operands in different places are an error
/// (location_mismatch), never a silent copy. Moving data is always an
/// explicit call (Array::to, copy). This is hypre's memory-location rule
/// without Ginkgo's hidden temporary clones.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <variant>

#include "strata/config.hpp"
#include "strata/core/error.hpp"
#include "strata/core/source_location.hpp"

namespace strata {

/// The two places data can live.
enum class Location : std::uint8_t { host, cuda };

/// "host" or "cuda".
const char* to_string(Location location) noexcept;

/// Host memory; work runs on OpenMP threads.
class HostExec {
 public:
  HostExec() = default;
  /// \param threads number of OpenMP threads, 0 for the OpenMP default.
  explicit HostExec(int threads);
  /// The thread count asked for; 0 means the OpenMP default.
  int threads() const noexcept { return threads_; }
  static constexpr Location location() noexcept { return Location::host; }
  /// All host executors share one memory, whatever their thread count.
  friend bool operator==(const HostExec&, const HostExec&) noexcept { return true; }

 private:
  int threads_ = 0;
};

namespace detail {
/// Per-device state (stream, memory pool, library handles). Defined by the
/// CUDA backend; opaque here so that this header needs no CUDA headers.
struct CudaContext;
}  // namespace detail

/// Memory of one CUDA device; work is ordered on that device's Strata stream
/// and device memory comes from a stream-ordered pool (cudaMallocAsync) that
/// keeps freed blocks for reuse, which is what makes repeated setup fast.
class CudaExec {
 public:
  /// Throws not_compiled in a build without CUDA, cuda_error when `device`
  /// does not exist.
  explicit CudaExec(int device = 0);
  int device() const noexcept { return device_; }
  /// The stream all work of this executor is ordered on (a cudaStream_t).
  void* stream() const noexcept;
  /// Backend state; only the CUDA backend can use it.
  detail::CudaContext& context() const noexcept { return *context_; }
  static constexpr Location location() noexcept { return Location::cuda; }
  friend bool operator==(const CudaExec& a, const CudaExec& b) noexcept {
    return a.device_ == b.device_;
  }

 private:
  std::shared_ptr<detail::CudaContext> context_;
  int device_ = 0;
};

/// Memory use of one executor, in bytes.
struct MemoryStats {
  /// Bytes handed out by allocate() and not yet released.
  std::size_t in_use = 0;
  /// Largest in_use since the last reset_peak_memory().
  std::size_t peak_in_use = 0;
  /// Bytes the allocator holds from the system (the CUDA pool keeps freed
  /// blocks for reuse); equals in_use on the host.
  std::size_t reserved = 0;
};

/// A value type naming one of the places above. Cheap to copy.
class Executor {
 public:
  /// The host executor with the OpenMP default thread count.
  Executor() = default;
  Executor(HostExec host) : exec_(host) {}  // NOLINT: implicit on purpose
  Executor(CudaExec cuda) : exec_(std::move(cuda)) {}  // NOLINT: implicit on purpose

  static Executor host(int threads = 0) { return Executor(HostExec(threads)); }
  /// Throws not_compiled in a build without CUDA.
  static Executor cuda(int device = 0) { return Executor(CudaExec(device)); }
  /// The first CUDA device when this build has CUDA and a device can be
  /// used, the host otherwise: what a program that runs anywhere starts with.
  static Executor default_executor();

  Location location() const noexcept {
    return exec_.index() == 0 ? Location::host : Location::cuda;
  }
  bool is_host() const noexcept { return location() == Location::host; }
  bool is_cuda() const noexcept { return location() == Location::cuda; }
  /// "host" or "cuda:N".
  std::string name() const;

  /// Calls f(HostExec) or f(CudaExec). In a build without CUDA the CUDA branch
  /// is not instantiated, so f's CUDA overloads need not exist.
  template <class F>
  decltype(auto) visit(F&& f) const {
#if STRATA_WITH_CUDA
    if (const auto* cuda = std::get_if<CudaExec>(&exec_)) return f(*cuda);
#endif
    return f(std::get<HostExec>(exec_));
  }

  /// Waits until all work queued on this executor has finished.
  void synchronize() const;

  /// Raw allocation; throws out_of_memory (catchable, nothing leaks).
  void* allocate(std::size_t bytes) const;
  /// Releases memory from allocate(); `bytes` must match.
  void deallocate(void* pointer, std::size_t bytes) const noexcept;

  /// Memory in use through this executor's allocator (all executors of one
  /// location share an allocator).
  MemoryStats memory_stats() const;
  /// Starts a new peak measurement at the current use.
  void reset_peak_memory() const;
  /// Bytes that could still be allocated here, for checks made before a
  /// large allocation: MemAvailable of /proc/meminfo on the host, free
  /// device memory plus the pool's unused reserve on a device. 0 when the
  /// system does not say (no /proc/meminfo): callers then skip the check.
  std::size_t available_memory() const;

  friend bool operator==(const Executor& a, const Executor& b) noexcept {
    return a.exec_ == b.exec_;
  }

 private:
  std::variant<HostExec, CudaExec> exec_;
};

/// Copies `bytes` from `src` (living on `src_exec`) to `dst` (on `dst_exec`);
/// the copy has finished when the call returns.
void copy_bytes(void* dst, const Executor& dst_exec, const void* src, const Executor& src_exec,
                std::size_t bytes);

/// True when this build has CUDA and at least one device can be used.
bool cuda_available() noexcept;

/// Number of usable CUDA devices (0 without CUDA).
int cuda_device_count() noexcept;

/// Throws location_mismatch unless `actual` is `expected`. `what` names the
/// operand ("x", "y"), `reference` names where `expected` came from ("A").
void check_location(const Executor& expected, const Executor& actual, const char* what,
                    const char* reference,
                    SourceLocation where = SourceLocation::current());

}  // namespace strata
