// CUDA instantiation of the triangular-solve kernels, and the device's level
// computation: a dependency-count topological pass (Kahn's algorithm).

#include <cuda/atomic>
#include <memory>
#include <type_traits>
#include <utility>
#include <vector>

#include "backend/cuda/base/lane_groups.cuh"
#include "backend/cuda/base/parallel.cuh"
#include "kernels/matrix/transpose_kernels.hpp"
#include "kernels/matrix/triangular_kernels.ipp"

namespace strata::kernels::triangular {

namespace {

constexpr int block = 256;

unsigned blocks_for(size_type n) { return static_cast<unsigned>((n + block - 1) / block); }

/// remaining[i] = the dependencies of row i (its entries in S); the rows
/// without any form the first frontier.
__global__ void seed_frontier(size_type rows, const offset_type* s_ptr, index_type* remaining,
                              index_type* frontier, int* frontier_size) {
  const size_type i = static_cast<size_type>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= rows) return;
  const index_type dependencies = static_cast<index_type>(s_ptr[i + 1] - s_ptr[i]);
  remaining[i] = dependencies;
  if (dependencies == 0) frontier[atomicAdd(frontier_size, 1)] = static_cast<index_type>(i);
}

/// The rows of the frontier get level l; each of their dependents (row r of
/// S^T) loses one dependency, and the one that loses its last joins the next
/// frontier. Which thread appends it is a race, so the order inside a
/// frontier varies from run to run; the levels do not.
__global__ void advance_frontier(int count, index_type l, const index_type* frontier,
                                 const offset_type* t_ptr, const index_type* t_col,
                                 index_type* remaining, index_type* level, index_type* next,
                                 int* next_size) {
  const int q = blockIdx.x * blockDim.x + threadIdx.x;
  if (q >= count) return;
  const index_type r = frontier[q];
  level[r] = l;
  for (offset_type e = t_ptr[r]; e < t_ptr[r + 1]; ++e) {
    const index_type d = t_col[e];
    if (atomicSub(&remaining[d], 1) == 1) next[atomicAdd(next_size, 1)] = d;
  }
}

/// Waits on a flag at most this many times (with a short sleep between):
/// seconds, where the longest legitimate wait is the critical path of the
/// solve (levels times a few microseconds).
constexpr long long max_spins = 1ll << 24;

template <class T>
__global__ void __launch_bounds__(block)
    sync_free_solve(size_type rows, const index_type* order, const offset_type* ptr,
                    const index_type* col, const T* val, const T* inv_diag, const T* b, T* x,
                    int* ready, int epoch, unsigned long long* ticket, int* failed) {
  __shared__ unsigned long long base;
  if (threadIdx.x == 0) base = atomicAdd(ticket, static_cast<unsigned long long>(blockDim.x));
  __syncthreads();
  const size_type k = static_cast<size_type>(base) + threadIdx.x;
  if (k >= rows) return;
  const index_type i = order[k];
  T sum = b[i];
  for (offset_type e = ptr[k]; e < ptr[k + 1]; ++e) {
    const index_type j = col[e];
    cuda::atomic_ref<int, cuda::thread_scope_device> flag(ready[j]);
    cuda::atomic_ref<int, cuda::thread_scope_device> gave_up(*failed);
    long long spins = 0;
    while (flag.load(cuda::memory_order_acquire) != epoch) {
      // After one thread has given up, every waiting thread leaves at once
      // (row i stays unready), so a failure ends the kernel in one bound,
      // not one bound per level.
      if (++spins > max_spins || gave_up.load(cuda::memory_order_relaxed) != 0) {
        gave_up.store(1, cuda::memory_order_relaxed);
        return;
      }
      __nanosleep(64);
    }
    sum -= val[e] * x[j];
  }
  x[i] = inv_diag[k] * sum;
  cuda::atomic_ref<int, cuda::thread_scope_device>(ready[i]).store(epoch,
                                                                   cuda::memory_order_release);
}


// ------------------------------------------------ the recorded level schedule

/// b and x of the current solve, read by the recorded kernels: a graph's
/// kernel arguments are fixed when it is recorded, this slot is not.
template <class T>
struct Operands {
  const T* b;
  T* x;
};

/// Threads of the per-level kernels, and of the single-block kernel that
/// walks a run of small levels.
constexpr int level_block = 256;
constexpr int run_block = 1024;

using cuda_detail::group_mask;

/// Programmatic dependent launch (sm_90): a level's kernel may start while
/// the previous level's runs, and waits only before it reads x.
/// launch_dependents lets the next level's grid start once every block of
/// this grid has started (so a waiting grid never holds back the blocks of
/// the one it waits for); wait returns when the previous grid has finished
/// and its writes are visible. Both do nothing in a kernel launched without
/// the attribute.
__device__ __forceinline__ void let_next_level_start() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}
__device__ __forceinline__ void wait_for_previous_level() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

/// x[order[k]] for position k, by the G lanes of one group (lane < G),
/// each holding E of the row's entries in registers: lane t takes entries
/// t, t + G, ..., t + (E - 1) G (coalesced across the group), so all loads
/// of a row up to G E entries are in flight at once, and entries beyond
/// that are walked by the lanes in further rounds. Each lane sums its own
/// products; the lanes' sums are added by a butterfly of log2(G) shuffles.
/// The earlier form (every lane folding all products in stored order from
/// two shuffles per entry) spent most of a 27-point level in that chain of
/// shuffles: 4.3 against 1.55 us per level at 256^3 (bench/NOTES.md). The
/// order of the additions is fixed by (G, E), so every device solve of a
/// triangle gives the same result; it equals the host's sequential sum up
/// to rounding. Everything but x is loaded before wait() (nothing of the
/// solve writes it), so with an overlapped launch only the loads of x wait
/// for the previous level.
template <int G, int E, class T, class Wait>
__device__ __forceinline__ void solve_row(size_type k, int lane, unsigned mask,
                                          const index_type* order, const offset_type* ptr,
                                          const index_type* col, const T* val, const T* inv_diag,
                                          const T* b, T* x, Wait wait) {
  const offset_type first = ptr[k], last = ptr[k + 1];
  const index_type i = order[k];
  const T bi = b[i];
  const T d = inv_diag[k];
  T v[E];
  index_type c[E];
#pragma unroll
  for (int q = 0; q < E; ++q) {
    const offset_type e = first + lane + static_cast<offset_type>(q) * G;
    v[q] = T{0};
    c[q] = -1;
    if (e < last) {
      v[q] = val[e];
      c[q] = col[e];
    }
  }
  wait();
  T xv[E];
#pragma unroll
  for (int q = 0; q < E; ++q) xv[q] = c[q] >= 0 ? x[c[q]] : T{0};
  T partial{0};
#pragma unroll
  for (int q = 0; q < E; ++q) partial += v[q] * xv[q];
  for (offset_type e = first + lane + static_cast<offset_type>(E) * G; e < last; e += G) {
    partial += val[e] * x[col[e]];
  }
#pragma unroll
  for (int offset = G / 2; offset > 0; offset /= 2) {
    partial += __shfl_xor_sync(mask, partial, offset, G);
  }
  if (lane == 0) x[i] = d * (bi - partial);
}

/// One level: positions [begin, end), a group of G lanes per row.
template <int G, int E, class T>
__global__ void __launch_bounds__(level_block)
    solve_level_kernel(size_type begin, size_type end, const index_type* order,
                       const offset_type* ptr, const index_type* col, const T* val,
                       const T* inv_diag, const Operands<T>* operands) {
  let_next_level_start();
  const size_type thread = static_cast<size_type>(blockIdx.x) * level_block + threadIdx.x;
  const size_type k = begin + thread / G;
  if (k >= end) return;  // the whole group: end - begin rows, G lanes each
  solve_row<G, E>(k, static_cast<int>(threadIdx.x % G), group_mask<G>(), order, ptr, col, val,
                  inv_diag, operands->b, operands->x, [] { wait_for_previous_level(); });
}

/// Levels [first, last) in one block, one after the other: a run of small
/// levels costs one launch instead of one per level. __syncthreads() orders
/// each level's writes of x before the next level's reads (one block, one
/// SM: the barrier makes the block's global writes visible to it).
template <int G, int E, class T>
__global__ void __launch_bounds__(run_block)
    solve_run_kernel(const offset_type* level_ptr, size_type first, size_type last,
                     const index_type* order, const offset_type* ptr, const index_type* col,
                     const T* val, const T* inv_diag, const Operands<T>* operands) {
  let_next_level_start();
  wait_for_previous_level();
  const T* b = operands->b;
  T* x = operands->x;
  const int lane = static_cast<int>(threadIdx.x % G);
  const unsigned mask = group_mask<G>();
  for (size_type l = first; l < last; ++l) {
    const offset_type end = level_ptr[l + 1];
    for (offset_type k = level_ptr[l] + threadIdx.x / G; k < end; k += run_block / G) {
      solve_row<G, E>(k, lane, mask, order, ptr, col, val, inv_diag, b, x, [] {});
    }
    __syncthreads();
  }
}

template <class T>
__global__ void store_operands(Operands<T>* slot, const T* b, T* x) {
  slot->b = b;
  slot->x = x;
}

/// The entries of a row held at once: the average strict row length
/// rounded up to a power of two, at most 32. Longer rows take further
/// rounds. From 8 on, the row is held by half as many lanes with two
/// entries each (G = slots / 2, E = 2): fewer threads per level and a
/// shorter butterfly, the fastest measured on 27-point factors (8 x 2
/// against 16 x 1: 2.76 against 3.14 ms at 256^3, H200); 7-point factors
/// (3 entries) take 4 x 1.
int entry_slots(size_type rows, size_type nnz) {
  int g = 1;
  while (g < 32 && static_cast<size_type>(g) * rows < nnz) g *= 2;
  return g;
}

/// A private stream capturing into a graph; an exception between begin and
/// instantiate() ends the capture and drops what was recorded.
class Capture {
 public:
  Capture() {
    STRATA_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    // Thread-local: other threads' CUDA calls are not disturbed by it.
    const cudaError_t status = cudaStreamBeginCapture(stream_, cudaStreamCaptureModeThreadLocal);
    if (status != cudaSuccess) cudaStreamDestroy(stream_);
    STRATA_CUDA_CHECK(status);
  }
  ~Capture() {
    if (capturing_) {
      cudaGraph_t graph = nullptr;
      cudaStreamEndCapture(stream_, &graph);
      if (graph) cudaGraphDestroy(graph);
      cudaGetLastError();
    }
    cudaStreamDestroy(stream_);
  }
  Capture(const Capture&) = delete;
  Capture& operator=(const Capture&) = delete;
  cudaStream_t stream() const noexcept { return stream_; }
  cudaGraphExec_t instantiate() {
    capturing_ = false;
    cudaGraph_t graph = nullptr;
    STRATA_CUDA_CHECK(cudaStreamEndCapture(stream_, &graph));
    cudaGraphExec_t exec = nullptr;
    const cudaError_t status = cudaGraphInstantiate(&exec, graph, 0);
    cudaGraphDestroy(graph);  // the executable graph does not need it
    STRATA_CUDA_CHECK(status);
    return exec;
  }

 private:
  cudaStream_t stream_ = nullptr;
  bool capturing_ = true;
};

/// Records the levels into an executable graph: runs of levels of at most
/// run_block / G rows as one single-block kernel each (one round of the
/// block per level), every other level as its own kernel. With `overlap`,
/// every kernel after the first is launched programmatically dependent on
/// the one before (see let_next_level_start).
template <int G, int E, class T>
cudaGraphExec_t record_levels(bool overlap, const std::vector<offset_type>& lp,
                              const offset_type* device_lp, const index_type* order,
                              const offset_type* ptr, const index_type* col, const T* val,
                              const T* inv_diag, const Operands<T>* operands) {
  // Loaded before the capture: a kernel's first use may load its module,
  // not a call to make while capturing.
  cudaFuncAttributes level_attributes, run_attributes;
  STRATA_CUDA_CHECK(cudaFuncGetAttributes(&level_attributes, solve_level_kernel<G, E, T>));
  STRATA_CUDA_CHECK(cudaFuncGetAttributes(&run_attributes, solve_run_kernel<G, E, T>));
  // The early start is safe only where the kernels hold the wait: their
  // code for an architecture below sm_90 (a PTX JIT-compiled on a newer
  // GPU included) has no griddepcontrol, and a level launched early would
  // then read x before the previous level wrote it.
  overlap = overlap && level_attributes.ptxVersion >= 90 && run_attributes.ptxVersion >= 90;
  Capture capture;
  cudaStream_t stream = capture.stream();
  cudaLaunchAttribute programmatic[1] = {};
  programmatic[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
  programmatic[0].val.programmaticStreamSerializationAllowed = 1;
  const auto config = [&](unsigned blocks, int threads, bool first) {
    cudaLaunchConfig_t c = {};
    c.gridDim = dim3(blocks);
    c.blockDim = dim3(static_cast<unsigned>(threads));
    c.dynamicSmemBytes = 0;
    c.stream = stream;
    c.attrs = programmatic;
    c.numAttrs = overlap && !first ? 1 : 0;
    return c;
  };
  const auto small = [&](size_type l) {
    return (lp[l + 1] - lp[l]) * G <= static_cast<offset_type>(run_block);
  };
  const size_type levels = static_cast<size_type>(lp.size()) - 1;
  for (size_type l = 0; l < levels;) {
    if (small(l)) {
      size_type last = l + 1;
      while (last < levels && small(last)) ++last;
      const cudaLaunchConfig_t c = config(1, run_block, l == 0);
      STRATA_CUDA_CHECK(cudaLaunchKernelEx(&c, solve_run_kernel<G, E, T>, device_lp, l, last, order,
                                           ptr, col, val, inv_diag, operands));
      l = last;
    } else {
      const size_type threads = (lp[l + 1] - lp[l]) * G;
      const auto blocks = static_cast<unsigned>((threads + level_block - 1) / level_block);
      const cudaLaunchConfig_t c = config(blocks, level_block, l == 0);
      STRATA_CUDA_CHECK(cudaLaunchKernelEx(&c, solve_level_kernel<G, E, T>, lp[l], lp[l + 1], order,
                                           ptr, col, val, inv_diag, operands));
      ++l;
    }
  }
  return capture.instantiate();
}

}  // namespace

template <class T>
bool solve_sync_free(const CudaExec& exec, size_type rows, const index_type* order,
                     const offset_type* ptr, const index_type* col, const T* val,
                     const T* inv_diag, const T* b, T* x, int* ready, int epoch) {
  if (rows == 0) return true;
  cuda_detail::activate(exec);
  cudaStream_t stream = cuda_detail::stream_of(exec);
  // The ticket (8 bytes) and the failure flag, zeroed for this solve.
  cuda_detail::ScratchBuffer state(exec, 2 * sizeof(unsigned long long));
  STRATA_CUDA_CHECK(cudaMemsetAsync(state.data(), 0, state.bytes(), stream));
  unsigned long long* ticket = state.as<unsigned long long>();
  int* failed = reinterpret_cast<int*>(ticket + 1);
  sync_free_solve<T><<<blocks_for(rows), block, 0, stream>>>(rows, order, ptr, col, val, inv_diag,
                                                             b, x, ready, epoch, ticket, failed);
  STRATA_CUDA_CHECK(cudaGetLastError());
  int status = 0;
  STRATA_CUDA_CHECK(cudaMemcpyAsync(&status, failed, sizeof(int), cudaMemcpyDeviceToHost, stream));
  STRATA_CUDA_CHECK(cudaStreamSynchronize(stream));
  return status == 0;
}

template <class T>
size_type levels(const CudaExec& exec, size_type rows, size_type nnz, const offset_type* s_ptr,
                 const index_type* s_col, const T* s_val, bool /*lower: Kahn needs no order*/,
                 index_type* level) {
  if (rows == 0) return 0;
  cuda_detail::activate(exec);
  cudaStream_t stream = cuda_detail::stream_of(exec);
  // Row r of S^T lists the rows that depend on row r.
  const CsrMatrix<T> St = transpose::transpose_csr(exec, rows, rows, nnz, s_ptr, s_col, s_val);
  const std::size_t bytes = sizeof(index_type) * static_cast<std::size_t>(rows);
  cuda_detail::ScratchBuffer remaining(exec, bytes), current(exec, bytes), next(exec, bytes),
      sizes(exec, 2 * sizeof(int));
  index_type* frontier = current.as<index_type>();
  index_type* following = next.as<index_type>();
  int* size = sizes.as<int>();
  STRATA_CUDA_CHECK(cudaMemsetAsync(size, 0, sizeof(int), stream));
  seed_frontier<<<blocks_for(rows), block, 0, stream>>>(rows, s_ptr, remaining.as<index_type>(),
                                                        frontier, size);
  STRATA_CUDA_CHECK(cudaGetLastError());
  int count = 0;
  STRATA_CUDA_CHECK(cudaMemcpyAsync(&count, size, sizeof(int), cudaMemcpyDeviceToHost, stream));
  STRATA_CUDA_CHECK(cudaStreamSynchronize(stream));
  size_type l = 0;
  size_type placed = 0;
  // One kernel and one read-back per level: the host needs the size of the
  // next frontier to launch it.
  while (count > 0) {
    placed += count;
    STRATA_CUDA_CHECK(cudaMemsetAsync(size + 1, 0, sizeof(int), stream));
    advance_frontier<<<blocks_for(count), block, 0, stream>>>(
        count, static_cast<index_type>(l), frontier, St.row_ptr().data(), St.col_idx().data(),
        remaining.as<index_type>(), level, following, size + 1);
    STRATA_CUDA_CHECK(cudaGetLastError());
    STRATA_CUDA_CHECK(
        cudaMemcpyAsync(&count, size + 1, sizeof(int), cudaMemcpyDeviceToHost, stream));
    STRATA_CUDA_CHECK(cudaStreamSynchronize(stream));
    std::swap(frontier, following);
    ++l;
  }
  // A strict triangle has no cycle, so every row is placed; anything else
  // is a bug here, not bad input.
  if (placed != rows) {
    throw error("triangular levels: the topological pass placed " + std::to_string(placed) +
                " of " + std::to_string(rows) + " rows");
  }
  return l;
}

}  // namespace strata::kernels::triangular

namespace strata::detail {

/// A recorded level-scheduled solve and what it was recorded for: the
/// arrays it reads (by address), the device and the stream. Held by the
/// solver through a shared_ptr; the graph, the operand slot and the device
/// copy of the level pointers are released with it (stream-ordered, after
/// any replay already queued).
struct TriangularGraphState {
  TriangularGraphState(const CudaExec& exec, const std::vector<offset_type>& lp)
      : device(exec.device()),
        stream(cuda_detail::stream_of(exec)),
        levels(lp.size()),
        operands(exec, sizeof(kernels::triangular::Operands<double>)),
        level_ptr(exec, sizeof(offset_type) * lp.size()) {}
  ~TriangularGraphState() {
    if (graph) cudaGraphExecDestroy(graph);  // deferred by CUDA while a replay runs
  }
  TriangularGraphState(const TriangularGraphState&) = delete;
  TriangularGraphState& operator=(const TriangularGraphState&) = delete;

  bool made_for(const CudaExec& exec, bool overlapped, std::size_t level_count,
                size_type entries, const void* o, const void* p, const void* c, const void* v,
                const void* d) const {
    return overlap == overlapped && device == exec.device() &&
           stream == cuda_detail::stream_of(exec) &&
           levels == level_count && nnz == entries && order == o && ptr == p && col == c &&
           val == v && inv_diag == d;
  }

  int device;
  cudaStream_t stream;
  std::size_t levels;
  bool overlap = false;
  size_type nnz = 0;
  const void* order = nullptr;
  const void* ptr = nullptr;
  const void* col = nullptr;
  const void* val = nullptr;
  const void* inv_diag = nullptr;
  cuda_detail::ScratchBuffer operands;   // Operands<T>: b and x of the current solve
  cuda_detail::ScratchBuffer level_ptr;  // for the runs of small levels
  cudaGraphExec_t graph = nullptr;
};

}  // namespace strata::detail

namespace strata::kernels::triangular {

template <class T>
void solve_levels(const CudaExec& exec, bool overlap,
                  std::shared_ptr<detail::TriangularGraphState>& graph,
                  const std::vector<offset_type>& level_ptr, size_type nnz,
                  const index_type* order, const offset_type* ptr, const index_type* col,
                  const T* val, const T* inv_diag, const T* b, T* x) {
  static_assert(sizeof(Operands<T>) <= sizeof(Operands<double>));
  if (level_ptr.size() < 2) return;
  cuda_detail::activate(exec);
  cudaStream_t stream = cuda_detail::stream_of(exec);
  if (!graph ||
      !graph->made_for(exec, overlap, level_ptr.size(), nnz, order, ptr, col, val, inv_diag)) {
    graph.reset();
    auto state = std::make_shared<detail::TriangularGraphState>(exec, level_ptr);
    state->overlap = overlap;
    state->nnz = nnz;
    state->order = order;
    state->ptr = ptr;
    state->col = col;
    state->val = val;
    state->inv_diag = inv_diag;
    STRATA_CUDA_CHECK(cudaMemcpyAsync(state->level_ptr.data(), level_ptr.data(),
                                      state->level_ptr.bytes(), cudaMemcpyHostToDevice, stream));
    // The slot and the level pointers are ready before any replay.
    STRATA_CUDA_CHECK(cudaStreamSynchronize(stream));
    const size_type rows = level_ptr.back();
    const auto* operands = state->operands.as<Operands<T>>();
    const auto* device_lp = state->level_ptr.as<offset_type>();
    const auto record = [&](auto lanes, auto entries) {
      state->graph = record_levels<decltype(lanes)::value, decltype(entries)::value>(
          overlap, level_ptr, device_lp, order, ptr, col, val, inv_diag, operands);
    };
    using one = std::integral_constant<int, 1>;
    using two = std::integral_constant<int, 2>;
    switch (entry_slots(rows, nnz)) {
      case 1: record(one{}, one{}); break;
      case 2: record(two{}, one{}); break;
      case 4: record(std::integral_constant<int, 4>{}, one{}); break;
      case 8: record(std::integral_constant<int, 4>{}, two{}); break;
      case 16: record(std::integral_constant<int, 8>{}, two{}); break;
      default: record(std::integral_constant<int, 16>{}, two{}); break;
    }
    graph = std::move(state);
  }
  store_operands<T><<<1, 1, 0, stream>>>(graph->operands.as<Operands<T>>(), b, x);
  STRATA_CUDA_CHECK(cudaGetLastError());
  STRATA_CUDA_CHECK(cudaGraphLaunch(graph->graph, stream));
}

template void solve_levels<double>(const CudaExec&, bool,
                                   std::shared_ptr<detail::TriangularGraphState>&,
                                   const std::vector<offset_type>&, size_type, const index_type*,
                                   const offset_type*, const index_type*, const double*,
                                   const double*, const double*, double*);

template bool solve_sync_free<double>(const CudaExec&, size_type, const index_type*,
                                      const offset_type*, const index_type*, const double*,
                                      const double*, const double*, double*, int*, int);

}  // namespace strata::kernels::triangular

#define STRATA_EXEC CudaExec
#include "kernels/matrix/triangular_instantiate.inc"
#undef STRATA_EXEC
