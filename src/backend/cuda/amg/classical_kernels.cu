// CUDA instantiation of the classical-coarsening kernels, and tuned kernels
// that give each row of A a group of G lanes (G from the mean row length, 4
// to 32) instead of one thread, so that a row's entries are read together:
// the strength (the hypre paper's Algorithm 2 with the group sized to the
// row) and the factors of the MM interpolations. Each computes what
// the single-source body in classical_kernels.ipp computes (the same
// patterns and splittings; sums within a row may round differently).

#include <type_traits>

#include "backend/cuda/base/parallel.cuh"
#include "kernels/amg/classical_kernels.ipp"

namespace strata::kernels::classical {

namespace {

template <int G, class T>
__global__ void __launch_bounds__(256)
    strength_group_kernel(size_type n, const offset_type* __restrict__ row_ptr,
                          const index_type* __restrict__ col_idx, const T* __restrict__ values,
                          T theta_scaled, T max_row_sum, bool use_row_sum,
                          std::uint8_t* __restrict__ strong) {
  const size_type thread = static_cast<size_type>(blockIdx.x) * blockDim.x + threadIdx.x;
  const size_type row = thread / G;
  const int lane = static_cast<int>(threadIdx.x % G);
  // Groups are aligned inside a warp, so a whole group leaves together.
  if (row >= n) return;
  const unsigned mask = G == 32 ? 0xFFFFFFFFu : (((1u << G) - 1u) << ((threadIdx.x % 32) / G * G));
  const offset_type begin = row_ptr[row], end = row_ptr[row + 1];
  T diag{0}, lo{0}, hi{0};
  for (offset_type k = begin + lane; k < end; k += G) {
    const T v = values[k];
    if (col_idx[k] == row) {
      diag += v;
    } else {
      lo = v < lo ? v : lo;
      hi = v > hi ? v : hi;
    }
  }
#pragma unroll
  for (int offset = G / 2; offset > 0; offset /= 2) {
    diag += __shfl_xor_sync(mask, diag, offset, G);
    const T l = __shfl_xor_sync(mask, lo, offset, G);
    const T h = __shfl_xor_sync(mask, hi, offset, G);
    lo = l < lo ? l : lo;
    hi = h > hi ? h : hi;
  }
  bool none = false;
  if (use_row_sum) {
    // Summed by one lane in the stored order, as the host does, so both
    // backends take the same decision.
    T sum{0};
    if (lane == 0) {
      for (offset_type k = begin; k < end; ++k) sum += values[k];
    }
    sum = __shfl_sync(mask, sum, 0, G);
    const T abs_sum = sum < T{0} ? -sum : sum;
    const T abs_diag = diag < T{0} ? -diag : diag;
    none = abs_sum > max_row_sum * abs_diag;
  }
  const bool negative_diag = diag < T{0};
  const T threshold = theta_scaled * (negative_diag ? hi : lo);
  for (offset_type k = begin + lane; k < end; k += G) {
    const T v = values[k];
    const bool s = !none && col_idx[k] != row && (negative_diag ? v > threshold : v < threshold);
    strong[k] = s ? 1 : 0;
  }
}

template <int G, class T>
void launch_strength(const CudaExec& exec, size_type n, const offset_type* row_ptr,
                     const index_type* col_idx, const T* values, T theta_scaled, T max_row_sum,
                     bool use_row_sum, std::uint8_t* strong) {
  constexpr int block = 256;
  const size_type threads = n * G;
  const auto blocks = static_cast<unsigned>((threads + block - 1) / block);
  strength_group_kernel<G, T><<<blocks, block, 0, cuda_detail::stream_of(exec)>>>(
      n, row_ptr, col_idx, values, theta_scaled, max_row_sum, use_row_sum, strong);
  STRATA_CUDA_CHECK(cudaGetLastError());
}

constexpr int kGroupBlock = 256;

/// The G lanes of the calling thread's group (aligned inside its warp).
template <int G>
struct Group {
  int lane;
  unsigned offset;
  unsigned mask;

  __device__ Group() : lane(static_cast<int>(threadIdx.x % G)), offset((threadIdx.x % 32) / G * G) {
    if constexpr (G == 32) {
      mask = 0xFFFFFFFFu;
    } else {
      mask = ((1u << G) - 1u) << offset;
    }
  }
  /// Bit l set when lane l of the group has `p`.
  __device__ unsigned ballot(bool p) const {
    const unsigned bits = __ballot_sync(mask, p) >> offset;
    if constexpr (G == 32) {
      return bits;
    } else {
      return bits & ((1u << G) - 1u);
    }
  }
  /// Number of lanes before this one with their bit set in `bits`.
  __device__ int rank(unsigned bits) const { return __popc(bits & ((1u << lane) - 1u)); }
  /// The group's sum, lane 0's result handed to every lane.
  template <class V>
  __device__ V sum(V v) const {
#pragma unroll
    for (int o = G / 2; o > 0; o /= 2) v += __shfl_xor_sync(mask, v, o, G);
    return __shfl_sync(mask, v, 0, G);
  }
};

template <int G>
__device__ size_type group_row() {
  return (static_cast<size_type>(blockIdx.x) * blockDim.x + threadIdx.x) / G;
}

template <int G>
unsigned group_grid(size_type rows) {
  return static_cast<unsigned>((rows * G + kGroupBlock - 1) / kGroupBlock);
}

/// f(std::integral_constant<int, G>) with G the group size for rows of
/// `mean` entries.
template <class F>
void with_group_size(double mean, F&& f) {
  if (mean <= 4) {
    f(std::integral_constant<int, 4>{});
  } else if (mean <= 8) {
    f(std::integral_constant<int, 8>{});
  } else if (mean <= 16) {
    f(std::integral_constant<int, 16>{});
  } else {
    f(std::integral_constant<int, 32>{});
  }
}

double mean_row_length(size_type n, size_type nnz) { return n > 0 ? double(nnz) / double(n) : 0.0; }

// ---- MM interpolation factors ----

template <int G>
__global__ void __launch_bounds__(kGroupBlock)
    mm_count_kernel(size_type n, size_type nd, const offset_type* __restrict__ row_ptr,
                    const index_type* __restrict__ col_idx, const std::uint8_t* __restrict__ strong,
                    const std::int32_t* __restrict__ role, const index_type* __restrict__ dmap,
                    offset_type* fc, offset_type* ff) {
  const Group<G> g;
  const size_type i = group_row<G>();
  if (i > n) return;
  if (i == n) {
    if (g.lane == 0) {
      fc[n] = 0;
      ff[nd] = 0;
    }
    return;
  }
  const std::int32_t r = role[i];
  offset_type to_target = 0, to_others = 0;
  if (r != kTarget) {
    for (offset_type k = row_ptr[i] + g.lane; k < row_ptr[i + 1]; k += G) {
      const index_type j = col_idx[k];
      if (j == i || !strong[k]) continue;
      if (role[j] == kTarget) {
        ++to_target;
      } else {
        ++to_others;
      }
    }
  }
  to_target = g.sum(to_target);
  to_others = g.sum(to_others);
  if (g.lane == 0) {
    fc[i] = r == kTarget ? 1 : to_target;
    if (r >= 0) ff[dmap[i]] = r == kTarget ? 1 : 1 + to_others;
  }
}

template <int G, class T>
__global__ void __launch_bounds__(kGroupBlock)
    afc_fill_kernel(size_type n, const offset_type* __restrict__ row_ptr,
                    const index_type* __restrict__ col_idx, const T* __restrict__ values,
                    const std::uint8_t* __restrict__ strong, const std::int32_t* __restrict__ role,
                    const index_type* __restrict__ cmap, const offset_type* __restrict__ afc_ptr,
                    index_type* afc_col, T* afc_val, T* beta, T* mu) {
  const Group<G> g;
  const size_type i = group_row<G>();
  if (i >= n) return;
  offset_type p = afc_ptr[i];
  if (role[i] == kTarget) {
    if (g.lane == 0) {
      if (afc_col) afc_col[p] = cmap[i];
      afc_val[p] = T{1};
      beta[i] = T{0};
      mu[i] = T{0};
    }
    return;
  }
  T b{0}, m{0};
  int count = 0;
  const offset_type begin = row_ptr[i], end = row_ptr[i + 1];
  for (offset_type c = begin; c < end; c += G) {
    const offset_type k = c + g.lane;
    bool to_target = false;
    index_type j = 0;
    T v{0};
    if (k < end) {
      j = col_idx[k];
      v = values[k];
      if (j != i && strong[k]) {
        if (role[j] == kTarget) {
          to_target = true;
        } else {
          m += v;
          ++count;
        }
      }
    }
    const unsigned bits = g.ballot(to_target);
    if (to_target) {
      const offset_type q = p + g.rank(bits);
      if (afc_col) afc_col[q] = cmap[j];
      afc_val[q] = v;
      b += v;
    }
    p += __popc(bits);
  }
  b = g.sum(b);
  m = g.sum(m);
  count = g.sum(count);
  if (g.lane == 0) {
    beta[i] = b;
    mu[i] = count > 0 ? m / T(count) : T{0};
  }
}

template <int G, class T>
__global__ void __launch_bounds__(kGroupBlock, 6)
    aff_fill_kernel(size_type n, const offset_type* __restrict__ row_ptr,
                    const index_type* __restrict__ col_idx, const T* __restrict__ values,
                    const std::uint8_t* __restrict__ strong, const std::int32_t* __restrict__ role,
                    const index_type* __restrict__ dmap, bool sorted, MmVariant variant,
                    const T* __restrict__ beta, const T* __restrict__ mu,
                    const offset_type* __restrict__ aff_ptr, index_type* aff_col, T* aff_val) {
  const Group<G> g;
  const size_type i = group_row<G>();
  if (i >= n) return;
  const std::int32_t r = role[i];
  if (r < 0) return;
  const offset_type p = aff_ptr[dmap[i]];
  if (r == kTarget) {
    if (g.lane == 0) {
      if (aff_col) aff_col[p] = static_cast<index_type>(i);
      aff_val[p] = T{1};
    }
    return;
  }
  // First pass: the denominators d_k, parked in the row's value slots.
  T weak_sum{0}, lumped{0}, theta{0};
  const offset_type begin = row_ptr[i], end = row_ptr[i + 1];
  offset_type q0 = p + 1;
  for (offset_type c = begin; c < end; c += G) {
    const offset_type k = c + g.lane;
    bool relay = false;
    index_type j = 0;
    T d{0};
    if (k < end) {
      j = col_idx[k];
      const T v = values[k];
      if (j == i || !strong[k]) {
        weak_sum += v;
      } else if (role[j] != kTarget) {
        relay = true;
        T reverse;
        d = detail::mm_denominator(variant, row_ptr, col_idx, values, strong, sorted, beta, mu, j,
                                   i, reverse);
        if (d == T{0}) {
          lumped += v;
        } else if (variant == MmVariant::ext_i) {
          theta += reverse * (v / d);
        } else if (variant == MmVariant::ext_e) {
          theta += v * (mu[j] / d);
        }
      }
    }
    const unsigned bits = g.ballot(relay);
    if (relay) {
      const offset_type q = q0 + g.rank(bits);
      if (aff_col) aff_col[q] = j;
      aff_val[q] = d;
    }
    q0 += __popc(bits);
  }
  const T denominator = g.sum(weak_sum) + g.sum(lumped) + g.sum(theta);
  const T s = denominator != T{0} ? T{-1} / denominator : T{0};
  if (g.lane == 0) {
    if (aff_col) aff_col[p] = static_cast<index_type>(i);
    aff_val[p] = s;
  }
  // Second pass: the scaled values.
  q0 = p + 1;
  for (offset_type c = begin; c < end; c += G) {
    const offset_type k = c + g.lane;
    bool relay = false;
    T v{0};
    if (k < end) {
      const index_type j = col_idx[k];
      if (j != i && strong[k] && role[j] != kTarget) {
        relay = true;
        v = values[k];
      }
    }
    const unsigned bits = g.ballot(relay);
    if (relay) {
      const offset_type q = q0 + g.rank(bits);
      const T d = aff_val[q];
      aff_val[q] = d != T{0} ? s * (v / d) : T{0};
    }
    q0 += __popc(bits);
  }
}

template <class T>
void fill_mm(const CudaExec& exec, const InterpolationInput<T>& in, MmVariant variant,
             const offset_type* afc_ptr, index_type* afc_col, T* afc_val,
             const offset_type* aff_ptr, index_type* aff_col, T* aff_val) {
  const size_type n = in.n;
  if (n == 0) return;
  Array<T> beta(exec, n), mu(exec, n);
  cudaStream_t stream = cuda_detail::stream_of(exec);
  with_group_size(mean_row_length(n, in.nnz), [&](auto group) {
    constexpr int G = decltype(group)::value;
    afc_fill_kernel<G, T><<<group_grid<G>(n), kGroupBlock, 0, stream>>>(
        n, in.row_ptr, in.col_idx, in.values, in.strong, in.role, in.cmap, afc_ptr, afc_col,
        afc_val, beta.data(), mu.data());
    STRATA_CUDA_CHECK(cudaGetLastError());
    aff_fill_kernel<G, T><<<group_grid<G>(n), kGroupBlock, 0, stream>>>(
        n, in.row_ptr, in.col_idx, in.values, in.strong, in.role, in.dmap, in.sorted_rows, variant,
        beta.data(), mu.data(), aff_ptr, aff_col, aff_val);
    STRATA_CUDA_CHECK(cudaGetLastError());
  });
}

}  // namespace

template <class T>
MmOperands<T> mm_operands(const CudaExec& exec, const InterpolationInput<T>& in,
                          MmVariant variant) {
  cuda_detail::activate(exec);
  const size_type n = in.n, nd = in.nd;
  Array<offset_type> afc_ptr(exec, n + 1), aff_ptr(exec, nd + 1);
  cudaStream_t stream = cuda_detail::stream_of(exec);
  with_group_size(mean_row_length(n, in.nnz), [&](auto group) {
    constexpr int G = decltype(group)::value;
    mm_count_kernel<G><<<group_grid<G>(n + 1), kGroupBlock, 0, stream>>>(
        n, nd, in.row_ptr, in.col_idx, in.strong, in.role, in.dmap, afc_ptr.data(), aff_ptr.data());
    STRATA_CUDA_CHECK(cudaGetLastError());
  });
  const size_type fc_nnz = detail::counts_to_offsets(exec, afc_ptr.data(), n);
  const size_type ff_nnz = detail::counts_to_offsets(exec, aff_ptr.data(), nd);
  Array<index_type> afc_col(exec, fc_nnz), aff_col(exec, ff_nnz);
  Array<T> afc_val(exec, fc_nnz), aff_val(exec, ff_nnz);
  fill_mm(exec, in, variant, afc_ptr.data(), afc_col.data(), afc_val.data(), aff_ptr.data(),
          aff_col.data(), aff_val.data());
  return MmOperands<T>{
      CsrMatrix<T>(nd, n, std::move(aff_ptr), std::move(aff_col), std::move(aff_val)),
      CsrMatrix<T>(n, in.nc, std::move(afc_ptr), std::move(afc_col), std::move(afc_val))};
}

template <class T>
void mm_operand_values(const CudaExec& exec, const InterpolationInput<T>& in, MmVariant variant,
                       MmOperands<T>& operands) {
  cuda_detail::activate(exec);
  fill_mm(exec, in, variant, operands.AFC.row_ptr().data(), nullptr, operands.AFC.values().data(),
          operands.AFF.row_ptr().data(), nullptr, operands.AFF.values().data());
}

template <class T>
void strength(const CudaExec& exec, size_type n, size_type nnz, const offset_type* row_ptr,
              const index_type* col_idx, const T* values, double theta, double max_row_sum,
              std::uint8_t* strong) {
  if (n <= 0) return;
  cuda_detail::activate(exec);
  const double mean = double(nnz) / double(n);
  // Same threshold expression as the host body: T(theta * (1 + tol)).
  const T theta_scaled = T(theta * (1.0 + strength_tie_tolerance));
  const bool use_row_sum = max_row_sum < 1.0;
  const T mrs = T(max_row_sum);
  if (mean <= 4) {
    launch_strength<4>(exec, n, row_ptr, col_idx, values, theta_scaled, mrs, use_row_sum, strong);
  } else if (mean <= 8) {
    launch_strength<8>(exec, n, row_ptr, col_idx, values, theta_scaled, mrs, use_row_sum, strong);
  } else if (mean <= 16) {
    launch_strength<16>(exec, n, row_ptr, col_idx, values, theta_scaled, mrs, use_row_sum, strong);
  } else {
    launch_strength<32>(exec, n, row_ptr, col_idx, values, theta_scaled, mrs, use_row_sum, strong);
  }
}

}  // namespace strata::kernels::classical

#define STRATA_EXEC CudaExec
#include "kernels/amg/classical_instantiate.inc"
#undef STRATA_EXEC
