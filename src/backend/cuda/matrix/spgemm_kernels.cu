// CUDA SpGEMM: C = A B with row-wise hash tables (hypre paper, section 4.2).
//
// Stages of multiply():
//   1. work w_i of each row (products a_ik b_kj; spgemm_kernels.ipp);
//   2. rows binned by class (one radix-sort pass on a 6-bit class key), so
//      each launch runs rows of one cost with a fitting thread group:
//        classes 0-5: a group of G = 1, 2, ..., 32 lanes per row, G the
//          largest of what the row's table needs, the mean length of the
//          B rows it reads (rounded up to a power of two) and, for products
//          of few rows, what fills the GPU (min_group_class);
//        count class 6: a block per row, table of 8192 keys in shared memory;
//        count class 7 / fill class 6: a block per row, table in global
//          memory, rows processed in batches of bounded scratch;
//        classes 8-13 (short rows: at most 32 products and 32 entries of
//          A): G = 1, ..., 32 lanes, the power of two >= both, one product
//          per lane, in registers (see "short rows" below);
//        fill classes 32-63 (medium rows: at most 256 products and 128
//          entries of A, not short): a warp per row, products sorted in
//          registers (see "medium rows" below); the class also records the
//          group size that numeric() gives the row; count classes 32-35:
//          the same rows, computed whole when counted (EscMode::stage);
//   3. count: the distinct columns of each row, by inserting them into an
//      open-addressing table in shared memory (atomicCAS on the key; each
//      lane walks the B row of its own A entry, so the lanes of a group need
//      no coordination), sized to 4/3 of min(w_i, B.cols()), which bounds
//      the row's nonzeros; row offsets by a 64-bit scan;
//   4. fill: the row's columns inserted again into a table of 2 n slots,
//      compacted in slot order (warp ballot), sorted by a bitonic network in
//      shared memory and written out; then the values (stage 5) in the same
//      kernel, while the sorted columns are still in shared memory;
//   5. values: for each a_ik in A's stored order, the lanes take the
//      entries b_kj of B's row k, find column j in the sorted row by binary
//      search and add a_ik b_kj into that entry. The columns of one B row are
//      distinct, so the lanes never add into the same entry within one a_ik;
//      a group barrier separates consecutive a_ik. Every c_ij is thus summed
//      in the order of A's row, with plain (non-atomic) fused multiply-adds:
//      the result repeats bit for bit and does not depend on scheduling.
//      (Accumulating values inside the hash table with atomicAdd, as in the
//      paper, would make the order of the floating-point sums depend on
//      timing.) numeric() is stage 5 alone, on the stored pattern and
//      schedule: the value-only recompute.
//   Short rows skip the tables in all three passes: their products are
//   sorted by (column, product number) across the lanes and each run of
//   equal columns is summed in that order, the same operations as stage 5;
//   their count needs no sort (lanes of equal column find each other with a
//   match instruction). (numeric() gives the 32-lane ones to the 4-lane
//   kernel of stage 5.) Medium rows skip the tables: a warp sorts their
//   products, K = 1..8 to a lane, the same way, once: in the count pass,
//   keeping the row for the fill to copy.
//
// Memory beyond C: the work per row and the two binnings (about 30 bytes a
// row, transient), the schedule kept for recompute (8 bytes a row), global
// hash tables only for the rare rows that do not fit shared memory, and
// while medium rows are computed, their staging buffer (at most
// min(products, staging_budget) entries) and an offset per row.
//
// What the H200 measurements (bench/spgemm.cpp) showed: the cost follows the
// number of rows times the steps a_ik per row more than the products, since
// every step of the ordered value pass costs each lane shuffles, a search
// and a barrier; hence the own-row inserts of the order-free passes. A
// thread per row for the values of short rows was tried and was slower
// (uncoalesced row accesses, little L1 left beside the shared memory).
// The fill of short rows (A P with P of 1-8 entries a row) cost 2.5-4 times
// its count pass and 5 times its values pass: clearing, compacting and
// sorting a table for a row of ~10 columns costs more than the products;
// in registers it costs about what the count does. Running the table
// fill's row-independent loops to a warp-wide bound (so that the groups of
// a warp stay converged) changed nothing on stencil products, whose rows
// are alike, but took A P at level 1 of classical AMG (rows of 4-32
// columns, 4 lanes each) from 44 to 25 ms.

#include <cooperative_groups.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_segmented_sort.cuh>
#include <optional>
#include <string>
#include <vector>

#include "backend/cuda/base/parallel.cuh"
#include "kernels/base/random.hpp"
#include "kernels/matrix/spgemm_kernels.hpp"
#include "kernels/matrix/spgemm_kernels.ipp"

namespace strata::kernels::spgemm {

namespace {

namespace cg = cooperative_groups;

constexpr index_type empty_key = INT_MAX;  // never a column: columns are < B.cols() <= INT_MAX
constexpr int block_size = 256;
constexpr int warp_size = 32;
constexpr int warps_per_block = block_size / warp_size;

// Classes. Group classes c = 0..5 run G = 1 << c lanes per row.
constexpr int group_classes = 6;
constexpr int count_shared_block_class = 6;
constexpr int count_global_class = 7;
constexpr int fill_long_class = 6;
// Short rows (at most 32 products and 32 entries of A), computed in
// registers: class short_class_base + c runs G = 1 << c lanes per row.
constexpr int short_class_base = 8;
constexpr int short_row_limit = 32;
constexpr int short_product_bits = 5;  // of a short row's sort key: m < 32
// numeric() of the 32-lane short rows: the table-free group kernel with 4
// lanes (a row per warp spent more time on the sort than the 4-lane
// kernel on its searches; the H200 measurements in bench/NOTES.md).
constexpr int short_values_by_table_class = 5;
// Medium rows (fill only: at most 32 K products, K = 1 << c for c = 0..3, and
// at most esc_max_a entries of A), a warp per row, products sorted in
// registers: class esc_class_base + esc_slots c + g, where g is the group
// class that numeric() gives the row to (the fill's sort costs more than
// the searches of the table-free kernel when the pattern is known).
constexpr int esc_class_base = 32;
// Count classes of medium rows (count_staged_base + c): see EscMode::stage.
constexpr int count_staged_base = 32;
constexpr int esc_classes = 4;
constexpr int esc_slots = 8;
constexpr int esc_max_a = 128;
constexpr int a_per_lane = esc_max_a / 32;
constexpr int no_work_class = 31;  // empty rows of C: nothing to launch
constexpr int class_bits = 6;
constexpr int class_slots = 1 << class_bits;

// Count: room for 32 G keys per group (33 KB per block of 256 threads for
// every G), for rows whose bound on distinct columns is at most 24 G; a row
// uses the power of two >= 4/3 of its bound (at most 3/4 full).
constexpr int count_keys_per_lane = 32;
constexpr int count_bound_per_lane = 24;
// Count, a block per row: 8192 keys (32 KB) for bounds up to 6144.
constexpr int block_table_bits = 13;
constexpr offset_type block_table_bound = 6144;
// Fill and values: rows of at most 8 G nonzeros, a table of 16 G keys
// (at most half full); 44 KB per block in double precision.
// Every group's arrays are padded by G elements: the groups of a warp touch
// the same relative positions at the same time (bisection steps, bitonic
// pairs, table clearing by lanes l, l + G, ...), and arrays of a power-of-
// two size would put all groups in the same banks (a 32-way conflict for
// G = 1); with the padding, group g starts g G banks further on.
constexpr int row_entries_per_lane = 8;
constexpr int fill_keys_per_lane = 16;
static_assert(short_row_limit <= row_entries_per_lane * 4,
              "numeric() gives the 32-lane short rows to 4 lanes");
// Global tables of one batch: at most this many keys (256 MB), unless a
// single row needs more.
constexpr offset_type global_table_budget = offset_type{1} << 26;

/// Opt-in stage timing for tuning (stage_timing set, by the benchmarks'
/// --spgemm-stages): events recorded on the stream between stages, printed
/// to stderr when the call ends. Off, it costs one atomic load per call.
class StageLog {
 public:
  StageLog(cudaStream_t stream, const char* what, size_type rows)
      : on_(stage_timing.load(std::memory_order_relaxed)),
        stream_(stream),
        what_(what),
        rows_(rows) {
    mark("start");
  }
  /// Marks the end of `stage`, labelled stage + group (when >= 0) + "x" +
  /// rows (when >= 0); the label is only formatted when timing is on.
  void mark(const char* stage, long long group = -1, long long rows = -1) {
    if (!on_) return;
    std::string label = stage;
    if (group >= 0) label += std::to_string(group);
    if (rows >= 0) label += "x" + std::to_string(rows);
    cudaEvent_t e;
    STRATA_CUDA_CHECK(cudaEventCreate(&e));
    STRATA_CUDA_CHECK(cudaEventRecord(e, stream_));
    marks_.push_back({std::move(label), e});
  }
  ~StageLog() {
    if (!on_) return;
    cudaEventSynchronize(marks_.back().event);
    std::string line = std::string("[spgemm ") + what_ + " rows " + std::to_string(rows_) + "]";
    float total = 0;
    for (std::size_t m = 1; m < marks_.size(); ++m) {
      float ms = 0;
      cudaEventElapsedTime(&ms, marks_[m - 1].event, marks_[m].event);
      total += ms;
      char buf[96];
      std::snprintf(buf, sizeof buf, " %s %.3f", marks_[m].label.c_str(), ms);
      line += buf;
    }
    char buf[48];
    std::snprintf(buf, sizeof buf, " | total %.3f ms\n", total);
    line += buf;
    std::fputs(line.c_str(), stderr);
    for (auto& m : marks_) cudaEventDestroy(m.event);
  }

 private:
  struct Mark {
    std::string label;
    cudaEvent_t event;
  };
  bool on_;
  cudaStream_t stream_;
  const char* what_;
  size_type rows_;
  std::vector<Mark> marks_;
};

inline unsigned grid_for(size_type items, int per_block) {
  const size_type blocks = (items + per_block - 1) / per_block;
  return static_cast<unsigned>(std::min<size_type>(std::max<size_type>(blocks, 1), 1 << 20));
}

// ---------------------------------------------------------------- classes

/// log2 of the smallest power of two >= the mean length of the B rows that
/// row i reads (at most 5): the lanes that take one B row in one round, so
/// that a row needs as few rounds (and barriers) as possible.
__device__ __forceinline__ int width_class(offset_type work, offset_type a_len) {
  const offset_type len = a_len > 0 ? a_len : 1;
  const offset_type mean = (work + len - 1) / len;
  int c = 0;
  while (c < group_classes - 1 && (offset_type{1} << c) < mean) ++c;
  return c;
}

/// The least group class the table kernels give a row of a product with
/// `rows` rows: with few rows (the coarse levels of AMG, where R (A P) has a
/// few thousand rows of hundreds of products each) the groups sized to each
/// row leave most of the GPU idle while each row's chain of ordered steps
/// runs; more lanes a row shorten that chain. Chosen so that rows x G
/// reaches about four times the threads an H200 holds (132 x 2048).
int min_group_class(size_type rows) {
  constexpr size_type lanes_wanted = size_type{1} << 20;
  int c = 0;
  while (c < group_classes - 1 && (rows << c) < lanes_wanted) ++c;
  return c;
}

/// The group class a table kernel gives a row: the largest of what its
/// table needs (`table_class`), width_class() and `min_class`
/// (min_group_class() of the product).
__device__ __forceinline__ int group_class(int table_class, offset_type work, offset_type a_len,
                                           int min_class) {
  return max(max(table_class, width_class(work, a_len)), min_class);
}

/// The short class of a row with `work` products and `a_len` entries of A,
/// or -1 when it is not short: G = the power of two >= both.
__device__ __forceinline__ int short_class(offset_type work, offset_type a_len) {
  if (work > short_row_limit || a_len > short_row_limit) return -1;
  int c = 0;
  while ((offset_type{1} << c) < work || (offset_type{1} << c) < a_len) ++c;
  return short_class_base + c;
}

/// The least c <= max_c with 32 << c >= work when the row is medium (not
/// short, at most esc_max_a entries of A), or -1.
__device__ __forceinline__ int esc_class(offset_type work, offset_type a_len, int max_c) {
  if (a_len > esc_max_a || short_class(work, a_len) >= 0) return -1;
  for (int c = 0; c <= max_c; ++c) {
    if (work <= (offset_type{warp_size} << c)) return c;
  }
  return -1;
}

/// `esc_max_c` as for classify_fill_kernel: medium rows (the same rows as
/// there) take class count_staged_base + c.
__global__ void classify_count_kernel(size_type rows, const offset_type* __restrict__ a_row_ptr,
                                      const offset_type* __restrict__ work, size_type b_cols,
                                      int esc_max_c, int min_class,
                                      std::uint8_t* __restrict__ key) {
  const size_type i = static_cast<size_type>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= rows) return;
  const offset_type w = work[i];
  const offset_type a_len = a_row_ptr[i + 1] - a_row_ptr[i];
  int c = no_work_class;
  const int sc = w > 0 ? short_class(w, a_len) : -1;
  const int mc = w > 0 ? esc_class(w, a_len, esc_max_c) : -1;
  if (sc >= 0) {
    c = sc;
  } else if (mc >= 0) {
    c = count_staged_base + mc;
  } else if (w > 0) {
    const offset_type bound = w < b_cols ? w : b_cols;
    int t = 0;
    while (t < group_classes && bound > (offset_type{count_bound_per_lane} << t)) ++t;
    if (t == group_classes) {
      c = bound <= block_table_bound ? count_shared_block_class : count_global_class;
    } else {
      c = group_class(t, w, a_len, min_class);
    }
  }
  key[i] = static_cast<std::uint8_t>(c);
}

/// `esc_max_c`: the largest medium class whose keys can hold B's columns
/// (-1: none). `min_class`: see min_group_class().
__global__ void classify_fill_kernel(size_type rows, const offset_type* __restrict__ a_row_ptr,
                                     const offset_type* __restrict__ work,
                                     const offset_type* __restrict__ c_row_ptr, int esc_max_c,
                                     int min_class, std::uint8_t* __restrict__ key) {
  const size_type i = static_cast<size_type>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= rows) return;
  const offset_type n = c_row_ptr[i + 1] - c_row_ptr[i];
  const offset_type a_len = a_row_ptr[i + 1] - a_row_ptr[i];
  int c = no_work_class;
  const int sc = n > 0 ? short_class(work[i], a_len) : -1;
  const int mc = n > 0 ? esc_class(work[i], a_len, esc_max_c) : -1;
  if (sc >= 0) {
    c = sc;
  } else if (n > 0) {
    int t = 0;
    while (t < group_classes && n > (offset_type{row_entries_per_lane} << t)) ++t;
    c = t == group_classes ? fill_long_class : group_class(t, work[i], a_len, min_class);
    // A medium row has n <= work <= 256 = 8 G for G = 32: never long.
    if (mc >= 0) c = esc_class_base + esc_slots * mc + c;
  }
  key[i] = static_cast<std::uint8_t>(c);
}

__global__ void iota_kernel(size_type n, size_type* __restrict__ out) {
  const size_type i = static_cast<size_type>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = i;
}

__global__ void class_begin_kernel(size_type n, const std::uint8_t* __restrict__ sorted,
                                   offset_type* __restrict__ begin) {
  const int c = threadIdx.x;
  if (c > class_slots) return;
  size_type lo = 0, len = n;  // first position with sorted[p] >= c
  while (len > 0) {
    const size_type half = len / 2;
    if (sorted[lo + half] < c) {
      lo += half + 1;
      len -= half + 1;
    } else {
      len = half;
    }
  }
  begin[c] = lo;
}

// ---------------------------------------------------------------- hashing

/// Slot of `key` in a table of 2^bits entries: Fibonacci hashing, the high
/// bits of key * 2^64/phi. (Low bits would keep the strides of stencil
/// columns, n and n^2, which are often multiples of the table size.)
__device__ __forceinline__ std::uint64_t hash_slot(index_type key, int bits) {
  return base::fibonacci_hash(static_cast<std::uint32_t>(key), 64 - bits);
}

/// Inserts `key` into the open-addressing table (linear probing, never
/// full by construction); returns 1 when it was not there yet. Keys only:
/// concurrent inserts of one key are resolved by atomicCAS.
template <bool GLOBAL>
__device__ __forceinline__ int insert_key(index_type* table, int bits, index_type key) {
  const std::uint64_t mask = (std::uint64_t{1} << bits) - 1;
  std::uint64_t s = hash_slot(key, bits);
  while (true) {
    // A stale read costs only the CAS below, which sees the truth.
    const index_type seen = GLOBAL ? __ldcg(table + s) : *(volatile index_type*)(table + s);
    if (seen == key) return 0;
    if (seen == empty_key) {
      const index_type before = atomicCAS(table + s, empty_key, key);
      if (before == empty_key) return 1;
      if (before == key) return 0;
    }
    s = (s + 1) & mask;
  }
}

// ------------------------------------------------------- walking products
//
// A group walks A's row i in chunks of G entries: lane l loads entry l's
// column k and B's row extent (one round of independent loads). Then:
//  - inserting columns (order free): each lane walks its own B row, loading
//    a few keys ahead; no coordination at all, unless a B row of the chunk
//    is long (> own_row_limit), when the lanes stride over the chunk's B
//    rows one after another instead;
//  - adding values (ordered): the chunk's B rows are taken one after another
//    (step t, the lanes striding over B's row, a barrier after each step);
//    the loads and searches of a few steps are done before their additions,
//    so a group has several loads in flight rather than one.

constexpr int own_row_limit = 64;

/// Calls f(j) for the column j of every entry of the B rows that A's row i
/// names (in no particular order).
template <int G, class Tile, class F>
__device__ __forceinline__ void for_each_product(const Tile& tile, const Pattern& A,
                                                 const Pattern& B, size_type i, F&& f) {
  constexpr int ahead = 4;
  const int lane = static_cast<int>(tile.thread_rank());
  const offset_type a0 = A.row_ptr[i], a1 = A.row_ptr[i + 1];
  for (offset_type base = a0; base < a1; base += G) {
    offset_type b0 = 0;
    int len = 0;
    if (base + lane < a1) {
      const index_type k = A.col_idx[base + lane];
      b0 = B.row_ptr[k];
      len = static_cast<int>(B.row_ptr[k + 1] - b0);
    }
    if (!tile.any(len > own_row_limit)) {
      const index_type* cols = B.col_idx + b0;
      for (int q = 0; q < len; q += ahead) {
        index_type key[ahead];
#pragma unroll
        for (int u = 0; u < ahead; ++u) key[u] = q + u < len ? cols[q + u] : empty_key;
#pragma unroll
        for (int u = 0; u < ahead; ++u) {
          if (key[u] != empty_key) f(key[u]);
        }
      }
    } else {
      const int m = static_cast<int>(a1 - base < G ? a1 - base : G);
      for (int t = 0; t < m; ++t) {
        const index_type* cols = B.col_idx + tile.shfl(b0, t);
        const int l = tile.shfl(len, t);
        for (int q = lane; q < l; q += G) f(cols[q]);
      }
    }
  }
}

/// Finds a column's entry in a sorted row by bisection.
template <class N>
struct SortedRow {
  const index_type* cols;
  N n;
  __device__ __forceinline__ N operator()(index_type key) const {
    return find_column(cols, n, key);
  }
};

/// Finds a column's entry through the fill's hash table, whose slot s holds
/// the column and pos[s] its place in the sorted row: one or two probes of a
/// table at most half full instead of a bisection of the row.
struct HashedRow {
  const index_type* table;
  const std::uint8_t* pos;
  int bits;
  /// The slot of a column that is in the table.
  __device__ __forceinline__ std::uint64_t slot_of(index_type key) const {
    const std::uint64_t mask = (std::uint64_t{1} << bits) - 1;
    std::uint64_t s = hash_slot(key, bits);
    while (table[s] != key) s = (s + 1) & mask;
    return s;
  }
  __device__ __forceinline__ int operator()(index_type key) const { return pos[slot_of(key)]; }
};

/// acc[p] += a_ik b_kj for the entries of A's row i, acc[p] the entry of
/// column j in the sorted row (p = locate(j)). For one a_ik the b_kj go
/// to distinct entries; the barrier after each a_ik fixes the order in which
/// each entry is summed: the order of A's row. The loads and searches of
/// `ahead` steps are done first (they do not depend on acc), then their
/// additions one step after another.
template <int G, class Tile, class T, class Locate>
__device__ __forceinline__ void accumulate_row(const Tile& tile, const Pattern& A,
                                               const T* __restrict__ a_val, const Pattern& B,
                                               const T* __restrict__ b_val, size_type i,
                                               const Locate& locate, T* acc) {
  using N = decltype(locate(index_type{0}));
  constexpr int ahead = G < 4 ? G : 4;
  const int lane = static_cast<int>(tile.thread_rank());
  const offset_type a0 = A.row_ptr[i], a1 = A.row_ptr[i + 1];
  for (offset_type base = a0; base < a1; base += G) {
    offset_type b0 = 0;
    int len = 0;
    T a{0};
    if (base + lane < a1) {
      const index_type k = A.col_idx[base + lane];
      a = a_val[base + lane];
      b0 = B.row_ptr[k];
      len = static_cast<int>(B.row_ptr[k + 1] - b0);
    }
    const int m = static_cast<int>(a1 - base < G ? a1 - base : G);
    const bool longer = tile.any(len > G);  // some B row needs more than one round
    for (int t0 = 0; t0 < m; t0 += ahead) {
      T at[ahead], b[ahead];
      index_type j[ahead];
      N p[ahead];
      bool has[ahead];
#pragma unroll
      for (int u = 0; u < ahead; ++u) {
        const int t = (t0 + u) & (G - 1);
        const offset_type s0 = tile.shfl(b0, t);
        const int l = tile.shfl(len, t);
        at[u] = tile.shfl(a, t);
        has[u] = t0 + u < m && lane < l;
        j[u] = has[u] ? B.col_idx[s0 + lane] : 0;
        b[u] = has[u] ? b_val[s0 + lane] : T{0};
      }
#pragma unroll
      for (int u = 0; u < ahead; ++u) p[u] = has[u] ? locate(j[u]) : N{0};
#pragma unroll
      for (int u = 0; u < ahead; ++u) {
        if (t0 + u < m) {  // uniform across the group
          if (has[u]) acc[p[u]] = fma(at[u], b[u], acc[p[u]]);
          if (longer) {
            const int t = t0 + u;
            const offset_type s0 = tile.shfl(b0, t);
            const int l = tile.shfl(len, t);
            for (int q = lane + G; q < l; q += G) {
              const N r = locate(B.col_idx[s0 + q]);
              acc[r] = fma(at[u], b_val[s0 + q], acc[r]);
            }
          }
          tile.sync();
        }
      }
    }
  }
}

/// Sorts keys[0 .. size) ascending (size a power of two) with the lanes of
/// `tile`: a bitonic network, each lane taking compare-exchange pairs.
template <int G, class Tile>
__device__ __forceinline__ void bitonic_sort(const Tile& tile, index_type* keys, int size) {
  const int lane = static_cast<int>(tile.thread_rank());
  const int pairs = size / 2;
  for (int k = 2; k <= size; k <<= 1) {
    for (int j = k >> 1; j > 0; j >>= 1) {
      for (int t = lane; t < pairs; t += G) {
        const int x = t + (t & ~(j - 1));  // pair t: x has bit j clear, its partner is x + j
        const int y = x + j;
        const index_type a = keys[x], b = keys[y];
        const bool ascending = (x & k) == 0;
        if ((a > b) == ascending) {
          keys[x] = b;
          keys[y] = a;
        }
      }
      tile.sync();
    }
  }
}

template <int G, class Tile>
__device__ __forceinline__ int group_sum(const Tile& tile, int value) {
  if constexpr (G > 1) {
    for (int offset = G / 2; offset > 0; offset /= 2) value += tile.shfl_down(value, offset);
  }
  return value;  // complete in lane 0
}

// ------------------------------------------------------- short rows
//
// A row with at most G products and at most G entries of A (G <= 32) needs
// no hash table: lane m of its group takes product m (products numbered in
// the order of A's row, then of B's), with the key (column j, m); a bitonic
// network across the group's lanes (shuffles) sorts the keys, so the
// products of each column become neighbours, in A's order; the first lane
// of each run sums it in that order, starting from zero with fused
// multiply-adds: exactly the operations of accumulate_row, so the values
// equal those of the group kernels and of numeric() bit for bit. No shared
// memory and, since G is fixed per class, no loop whose trip count differs
// between the groups of a warp (groups of one warp that diverge run one
// after another: what made the table-based fill slow for short rows).

enum class ShortMode { count, fill, values };

/// Sorts `key` ascending across the G lanes of each group (bitonic network;
/// every lane of the warp takes part).
template <int G, class Key>
__device__ __forceinline__ Key sort_across_lanes(Key key, int lane) {
  for (int k = 2; k <= G; k <<= 1) {
    for (int j = k >> 1; j > 0; j >>= 1) {
      const Key other = __shfl_xor_sync(0xffffffffu, key, j, G);
      const bool take_min = ((lane & j) == 0) == ((lane & k) == 0);
      key = take_min ? (other < key ? other : key) : (other > key ? other : key);
    }
  }
  return key;
}

/// Whether 32-bit sort keys (column, product number in the low
/// `product_bits` bits) hold every column of a B with `b_cols` columns below
/// the empty key (all ones). The short rows' keys have short_product_bits
/// (else they take 64 bits); the medium rows' ones, esc_product_bits(K).
constexpr bool keys_hold_columns(size_type b_cols, int product_bits) {
  return b_cols < (size_type{1} << (32 - product_bits)) - 1;
}

/// Count (c_out[i] = nonzeros), fill (columns and values at c_row_ptr[i])
/// or values only, G lanes per short row. The loop over rows advances a
/// whole warp at a time, so the shuffles and ballots always see all lanes.
/// The count needs no order: lanes of equal column find each other with
/// one match instruction. `narrow`: sort 32-bit keys (keys_hold_columns).
template <int G, ShortMode MODE, class T>
__global__ void __launch_bounds__(block_size)
    short_row_kernel(const size_type* __restrict__ rows, size_type count, Pattern A,
                     const T* __restrict__ a_val, Pattern B, const T* __restrict__ b_val,
                     offset_type* __restrict__ c_out, const offset_type* __restrict__ c_row_ptr,
                     index_type* __restrict__ c_col, T* __restrict__ c_val, int* status,
                     bool narrow) {
  constexpr unsigned full = 0xffffffffu;
  constexpr int groups_per_warp = warp_size / G;
  constexpr unsigned group_bits = G == warp_size ? full : (1u << G) - 1u;
  const int warp_lane = threadIdx.x % warp_size;
  const int lane = warp_lane % G;
  const int group_in_warp = warp_lane / G;
  const size_type warps_total = static_cast<size_type>(gridDim.x) * warps_per_block;
  const size_type warp =
      static_cast<size_type>(blockIdx.x) * warps_per_block + threadIdx.x / warp_size;
  for (size_type base = warp * groups_per_warp; base < count;
       base += warps_total * groups_per_warp) {
    const size_type slot = base + group_in_warp;
    const bool active = slot < count;
    const size_type i = active ? rows[slot] : 0;
    offset_type a0 = 0;
    int a_len = 0;
    if (active) {
      a0 = A.row_ptr[i];
      a_len = static_cast<int>(A.row_ptr[i + 1] - a0);
    }
    offset_type b0 = 0;
    int len = 0;
    T a{0};
    if (lane < a_len) {
      const index_type k = A.col_idx[a0 + lane];
      if constexpr (MODE != ShortMode::count) a = a_val[a0 + lane];
      b0 = B.row_ptr[k];
      len = static_cast<int>(B.row_ptr[k + 1] - b0);
    }
    // Products before entry `lane` of A's row (exclusive scan of len).
    int incl = len;
    for (int d = 1; d < G; d <<= 1) {
      const int v = __shfl_up_sync(full, incl, d, G);
      if (lane >= d) incl += v;
    }
    const int excl = incl - len;
    const int work = __shfl_sync(full, incl, G - 1, G);
    // Product m = lane belongs to the last entry t < a_len with excl_t <= m.
    int t = 0;
    for (int step = G / 2; step > 0; step >>= 1) {
      const int probe = t + step;
      const int start = __shfl_sync(full, excl, probe, G);
      if (probe < a_len && start <= lane) t = probe;
    }
    const offset_type q = __shfl_sync(full, b0, t, G) + (lane - __shfl_sync(full, excl, t, G));
    const T at = __shfl_sync(full, a, t, G);
    const index_type j = lane < work ? B.col_idx[q] : -1;
    if constexpr (MODE == ShortMode::count) {
      // The lowest lane of each column of the group counts it.
      const unsigned same = __match_any_sync(full, j) & (group_bits << (group_in_warp * G));
      const bool first = lane < work && __ffs(same) - 1 == warp_lane;
      const int n = __popc((__ballot_sync(full, first) >> (group_in_warp * G)) & group_bits);
      if (active && lane == 0) c_out[i] = n;
    } else {
      T bq{0};
      if (lane < work) bq = b_val[q];
      index_type col;
      int src;
      bool valid;
      if (narrow) {
        constexpr std::uint32_t none = ~std::uint32_t{0};
        std::uint32_t key = none;
        if (lane < work)
          key = (static_cast<std::uint32_t>(j) << 5) | static_cast<std::uint32_t>(lane);
        key = sort_across_lanes<G>(key, lane);
        valid = key != none;
        col = static_cast<index_type>(key >> 5);
        src = static_cast<int>(key & 31u);
      } else {
        constexpr std::uint64_t none = ~std::uint64_t{0};
        std::uint64_t key = none;
        if (lane < work) {
          key = (static_cast<std::uint64_t>(static_cast<std::uint32_t>(j)) << 5) |
                static_cast<std::uint64_t>(lane);
        }
        key = sort_across_lanes<G>(key, lane);
        valid = key != none;
        col = static_cast<index_type>(key >> 5);
        src = static_cast<int>(key & 31u);
      }
      const index_type before = __shfl_up_sync(full, col, 1, G);
      const bool head = valid && (lane == 0 || before != col);
      const unsigned heads = (__ballot_sync(full, head) >> (group_in_warp * G)) & group_bits;
      const int n = __popc(heads);
      // The run of a head ends at the next head (or at the row's end).
      const unsigned later = lane + 1 < G ? heads >> (lane + 1) : 0u;
      const int run = later ? __ffs(later) : work - lane;
      const T av = __shfl_sync(full, at, src, G);
      const T bv = __shfl_sync(full, bq, src, G);
      const int longest = __reduce_max_sync(full, head ? run : 0);
      T acc{0};
      for (int d = 0; d < longest; ++d) {
        const T ad = __shfl_down_sync(full, av, d, G);
        const T bd = __shfl_down_sync(full, bv, d, G);
        if (head && d < run) acc = fma(ad, bd, acc);
      }
      if (active) {
        const offset_type c0 = c_row_ptr[i];
        const int rank = __popc(heads & ((1u << lane) - 1u));
        if constexpr (MODE == ShortMode::fill) {
          if (n != static_cast<int>(c_row_ptr[i + 1] - c0)) {
            if (lane == 0) atomicExch(status, 1);
          } else if (head) {
            c_col[c0 + rank] = col;
            c_val[c0 + rank] = acc;
          }
        } else if (head) {
          c_val[c0 + rank] = acc;
        }
      }
    }
  }
}

// ------------------------------------------------------- medium rows
//
// A row of up to 32 K products (K = 1, 2, 4, 8) and at most 128 entries of A
// that is not short: a warp per row, expand-sort-compress in registers. The
// warp expands the row's products (product m = 32 r + lane in round r,
// numbered in the order of A's row, then of B's), keeps each product's b_kj
// and its entry of A in shared memory, and sorts 32-bit keys (column j,
// product m) held K to a lane with a bitonic network (shuffles between
// lanes, compare-exchanges within a lane's registers). A key whose column
// differs from its predecessor's heads a run; lane p sums run p (column p of
// the row), in order of m, which is the order of A's row, with fused
// multiply-adds from zero: the operations of accumulate_row, so the values
// equal those of the table kernels (and of numeric()) bit for bit. No hash table, no barrier per
// entry of A and no divergence between rows: the table fill of such rows
// (A P and R (A P) at the first two levels of classical AMG, 60-250
// products a row) spent its issue slots on divergent probes, a half-empty
// table's compaction and sort and a barrier per entry of A (bench/NOTES.md).

/// Bits of the product number in the key of a medium row of 32 K products.
constexpr int esc_product_bits(int k) {
  int b = 5;
  while ((1 << b) < warp_size * k) ++b;
  return b;
}

/// The largest medium class c (K = 1 << c) whose keys hold every column of
/// a B with `b_cols` columns, or -1.
int esc_max_class(size_type b_cols) {
  int best = -1;
  for (int c = 0; c < esc_classes; ++c) {
    if (keys_hold_columns(b_cols, esc_product_bits(1 << c))) best = c;
  }
  return best;
}

/// Blocks an SM should hold of the medium-row kernel for K keys a lane: as
/// many as its shared memory allows (registers capped to match) without
/// spilling.
constexpr int esc_blocks_per_sm(int k) { return k <= 4 ? 6 : 4; }

/// Sorts the warp's 32 K keys ascending; key r of lane l is element l K + r.
template <int K>
__device__ __forceinline__ void sort_warp_keys(std::uint32_t (&key)[K], int lane) {
  constexpr int n = warp_size * K;
#pragma unroll
  for (int k = 2; k <= n; k <<= 1) {
#pragma unroll
    for (int j = k >> 1; j > 0; j >>= 1) {
      if (j >= K) {  // partner in lane l ^ (j / K), same register
#pragma unroll
        for (int r = 0; r < K; ++r) {
          const int e = lane * K + r;
          const std::uint32_t other = __shfl_xor_sync(0xffffffffu, key[r], j / K);
          const bool take_min = ((e & j) == 0) == ((e & k) == 0);
          key[r] = take_min ? min(key[r], other) : max(key[r], other);
        }
      } else {  // partner in register r ^ j of the same lane
#pragma unroll
        for (int r = 0; r < K; ++r) {
          if ((r & j) == 0) {
            const bool ascending = ((lane * K + r) & k) == 0;
            const std::uint32_t lo = min(key[r], key[r | j]), hi = max(key[r], key[r | j]);
            key[r] = ascending ? lo : hi;
            key[r | j] = ascending ? hi : lo;
          }
        }
      }
    }
  }
}

/// Where the medium rows' count pass keeps the rows it computes (see
/// EscMode::stage): one buffer, reserved row by row with an atomic cursor;
/// offset[i] is row i's place in it, or -1 when the buffer was full.
template <class T>
struct Staging {
  index_type* col = nullptr;
  T* val = nullptr;
  unsigned long long* cursor = nullptr;
  unsigned long long capacity = 0;
  std::int64_t* offset = nullptr;  // per row of C
};

/// What the medium-row kernel does with a row:
///  - stage (the count pass): c_count[i] = its nonzeros; the row itself
///    goes to the staging buffer while the buffer has room (which rows fit
///    depends on timing; what each holds does not);
///  - fill: a row not found in the staging buffer is computed at
///    c_row_ptr[i] (`status` = 1 if its distinct columns disagree with the
///    count); copy_staged_kernel moves the others.
/// So most medium rows are expanded and sorted once, not counted by the hash
/// tables and then sorted again. (numeric() gives these rows to the
/// table-free group kernel: once the pattern is known, its searches cost
/// less than this sort.)
enum class EscMode { stage, fill };

/// A warp per medium row, in `MODE`.
template <int K, EscMode MODE, class T>
__global__ void __launch_bounds__(block_size, esc_blocks_per_sm(K))
    esc_row_kernel(const size_type* __restrict__ rows, size_type count, Pattern A,
                   const T* __restrict__ a_val, Pattern B, const T* __restrict__ b_val,
                   offset_type* __restrict__ c_count, const offset_type* __restrict__ c_row_ptr,
                   index_type* __restrict__ c_col, T* __restrict__ c_val, Staging<T> staging,
                   int* status) {
  constexpr unsigned full = 0xffffffffu;
  constexpr int n_max = warp_size * K;
  constexpr int m_bits = esc_product_bits(K);
  constexpr std::uint32_t m_mask = (1u << m_bits) - 1u;
  constexpr std::uint32_t none = 0xffffffffu;
  // Key e at e + e / 32: lane l reading its K keys l K .. l K + K - 1 then
  // hits 32 distinct banks.
  constexpr int key_stride = n_max + n_max / warp_size;
  __shared__ std::uint32_t keys_all[warps_per_block * key_stride];
  __shared__ T b_all[warps_per_block * n_max];
  __shared__ T a_all[warps_per_block * esc_max_a];
  __shared__ offset_type base_all[warps_per_block * esc_max_a];
  __shared__ std::uint8_t owner_all[warps_per_block * n_max];
  __shared__ std::uint16_t start_all[warps_per_block * (n_max + 1)];
  const int lane = threadIdx.x % warp_size;
  const int warp = threadIdx.x / warp_size;
  std::uint32_t* keys = keys_all + warp * key_stride;
  T* bs = b_all + warp * n_max;
  T* as = a_all + warp * esc_max_a;
  offset_type* base = base_all + warp * esc_max_a;
  std::uint8_t* owner = owner_all + warp * n_max;
  std::uint16_t* start = start_all + warp * (n_max + 1);  // of each column's run
  const auto at = [](int e) { return e + e / warp_size; };
  for (size_type slot = static_cast<size_type>(blockIdx.x) * warps_per_block + warp; slot < count;
       slot += static_cast<size_type>(gridDim.x) * warps_per_block) {
    const size_type i = rows[slot];
    if constexpr (MODE == EscMode::fill) {
      // Staged rows are copied by copy_staged_kernel.
      if (staging.offset && staging.offset[i] >= 0) continue;  // the same for the whole warp
    }
    const offset_type a0 = A.row_ptr[i];
    const int a_len = static_cast<int>(A.row_ptr[i + 1] - a0);
    // Entries t = lane + 32 h of A's row: the extent of their B rows, and
    // the products before them (an exclusive scan; the segments h past the
    // row's end, the same for the whole warp, are skipped).
    offset_type b0[a_per_lane];
    int len[a_per_lane], incl[a_per_lane];
    int work = 0;
#pragma unroll
    for (int h = 0; h < a_per_lane; ++h) {
      const int t = lane + h * warp_size;
      b0[h] = 0;
      len[h] = 0;
      incl[h] = 0;
      if (h * warp_size >= a_len) continue;
      if (t < a_len) {
        const index_type k = A.col_idx[a0 + t];
        b0[h] = B.row_ptr[k];
        len[h] = static_cast<int>(B.row_ptr[k + 1] - b0[h]);
        as[t] = a_val[a0 + t];
      }
      incl[h] = len[h];
      for (int d = 1; d < warp_size; d <<= 1) {
        const int v = __shfl_up_sync(full, incl[h], d);
        if (lane >= d) incl[h] += v;
      }
      incl[h] += work;
      work = __shfl_sync(full, incl[h], warp_size - 1);
    }
#pragma unroll
    for (int r = 0; r < K; ++r) owner[r * warp_size + lane] = 0;
    __syncwarp();
    // Entry t's products start at m = excl_t: mark the start (entries without
    // products mark nothing, so the marks are distinct); the owner of m is
    // then the largest mark at or before m.
#pragma unroll
    for (int h = 0; h < a_per_lane; ++h) {
      const int t = lane + h * warp_size;
      if (len[h] > 0) {
        const int excl = incl[h] - len[h];
        owner[excl] = static_cast<std::uint8_t>(t);
        base[t] = b0[h] - excl;  // product m of entry t is B's entry base[t] + m
      }
    }
    __syncwarp();
    int carry = 0;
#pragma unroll
    for (int r = 0; r < K; ++r) {
      const int m = r * warp_size + lane;
      int t = owner[m];
      for (int d = 1; d < warp_size; d <<= 1) {
        const int v = __shfl_up_sync(full, t, d);
        if (lane >= d) t = max(t, v);
      }
      t = max(t, carry);
      carry = __shfl_sync(full, t, warp_size - 1);
      std::uint32_t key = none;
      if (m < work) {
        const offset_type q = base[t] + m;
        key = (static_cast<std::uint32_t>(B.col_idx[q]) << m_bits) | static_cast<std::uint32_t>(m);
        bs[m] = b_val[q];
        owner[m] = static_cast<std::uint8_t>(t);  // only this lane reads owner[m]
      }
      keys[at(m)] = key;
    }
    __syncwarp();
    std::uint32_t key[K];
#pragma unroll
    for (int r = 0; r < K; ++r) key[r] = keys[at(lane * K + r)];
    sort_warp_keys<K>(key, lane);
    __syncwarp();  // every lane has read its keys before they are overwritten
    // Heads: the first key of each column.
    const std::uint32_t before_first = __shfl_up_sync(full, key[K - 1], 1);
    unsigned head_bits = 0;
#pragma unroll
    for (int r = 0; r < K; ++r) {
      const std::uint32_t prev = r > 0 ? key[r - 1] : before_first;
      const bool head =
          key[r] != none && ((lane == 0 && r == 0) || (prev >> m_bits) != (key[r] >> m_bits));
      head_bits |= static_cast<unsigned>(head) << r;
      keys[at(lane * K + r)] = key[r];
    }
    const int own = __popc(head_bits);
    int rank = own;
    for (int d = 1; d < warp_size; d <<= 1) {
      const int v = __shfl_up_sync(full, rank, d);
      if (lane >= d) rank += v;
    }
    const int n = __shfl_sync(full, rank, warp_size - 1);
    rank -= own;
#pragma unroll
    for (int r = 0; r < K; ++r) {
      if (head_bits & (1u << r)) start[rank++] = static_cast<std::uint16_t>(lane * K + r);
    }
    if (lane == 0) start[n] = static_cast<std::uint16_t>(work);
    __syncwarp();  // sorted keys and run starts in place
    // Where the row goes: C, or the staging buffer (if it has room).
    index_type* out_col = nullptr;
    T* out_val = nullptr;
    if constexpr (MODE == EscMode::stage) {
      unsigned long long from = 0;
      if (lane == 0) {
        c_count[i] = n;
        from = atomicAdd(staging.cursor, static_cast<unsigned long long>(n));
        const bool room = from + n <= staging.capacity;
        staging.offset[i] = room ? static_cast<std::int64_t>(from) : -1;
        if (!room) from = ~0ull;
      }
      from = __shfl_sync(full, from, 0);
      if (from != ~0ull) {
        out_col = staging.col + from;
        out_val = staging.val + from;
      }
    } else {
      const offset_type c0 = c_row_ptr[i];
      if (n != static_cast<int>(c_row_ptr[i + 1] - c0)) {
        if (lane == 0) atomicExch(status, 1);
      } else {
        out_col = c_col + c0;
        out_val = c_val + c0;
      }
    }
    // Run p (column p of the row) to lane p mod 32: the runs' sums proceed
    // side by side, and the writes are coalesced.
    if (out_col != nullptr) {
      for (int p = lane; p < n; p += warp_size) {
        const int e0 = start[p], e1 = start[p + 1];
        T acc{0};
        for (int e = e0; e < e1; ++e) {
          const int m = static_cast<int>(keys[at(e)] & m_mask);
          acc = fma(as[owner[m]], bs[m], acc);
        }
        out_col[p] = static_cast<index_type>(keys[at(e0)] >> m_bits);
        out_val[p] = acc;
      }
    }
    __syncwarp();  // before the next row reuses the warp's shared memory
  }
}

/// Copies the staged medium rows to their place in C, in C's order: a warp
/// takes 32 consecutive rows and strides over their entries, so its stores
/// are contiguous and each staged row is read in one piece. (Taking the rows
/// by their bins, G lanes a row, wrote C in scattered runs of 10-100 entries
/// and moved about 1.4 TB/s.) Rows with offset -1 (not staged, or not medium)
/// are left to the fill kernels.
template <class T>
__global__ void __launch_bounds__(block_size)
    copy_staged_kernel(size_type rows, const offset_type* __restrict__ c_row_ptr,
                       index_type* __restrict__ c_col, T* __restrict__ c_val, Staging<T> staging) {
  __shared__ offset_type start_all[warps_per_block * (warp_size + 1)];
  __shared__ std::int64_t from_all[warps_per_block * warp_size];
  const int lane = threadIdx.x % warp_size;
  const int warp = threadIdx.x / warp_size;
  offset_type* start = start_all + warp * (warp_size + 1);
  std::int64_t* from = from_all + warp * warp_size;
  const index_type* __restrict__ s_col = staging.col;
  const T* __restrict__ s_val = staging.val;
  for (size_type r0 = (static_cast<size_type>(blockIdx.x) * warps_per_block + warp) * warp_size;
       r0 < rows; r0 += static_cast<size_type>(gridDim.x) * warps_per_block * warp_size) {
    const size_type r = r0 + lane;
    const std::int64_t f = r < rows ? staging.offset[r] : -1;
    if (!__any_sync(0xffffffffu, f >= 0)) continue;  // nothing staged here
    start[lane] = c_row_ptr[r < rows ? r : rows];
    if (lane == 0) start[warp_size] = c_row_ptr[r0 + warp_size < rows ? r0 + warp_size : rows];
    from[lane] = f;
    __syncwarp();
    const offset_type p1 = start[warp_size];
    for (offset_type p = start[0] + lane; p < p1; p += warp_size) {
      // The last row t with start[t] <= p (empty rows before it share its start).
      int t = 0;
#pragma unroll
      for (int half = warp_size / 2; half > 0; half /= 2) {
        if (start[t + half] <= p) t += half;
      }
      const std::int64_t q = from[t];
      if (q >= 0) {
        const std::int64_t s = q + (p - start[t]);
        c_col[p] = s_col[s];
        c_val[p] = s_val[s];
      }
    }
    __syncwarp();  // before the next rows reuse the warp's shared memory
  }
}

/// Calls f(std::integral_constant<int, 1 << c>) for 0 <= c <= LOG_MAX (a
/// larger c takes 1 << LOG_MAX): the run-time class as the compile-time
/// size of a kernel.
template <int LOG_MAX, int C = 0, class F>
void with_power_of_two(int c, F&& f) {
  if constexpr (C == LOG_MAX) {
    f(std::integral_constant<int, 1 << C>{});
  } else if (c <= C) {
    f(std::integral_constant<int, 1 << C>{});
  } else {
    with_power_of_two<LOG_MAX, C + 1>(c, f);
  }
}

/// Group class c: G = 1 << c lanes (1..32).
template <class F>
void with_group_size(int c, F&& f) {
  with_power_of_two<5>(c, f);
}

/// Medium class c: K = 1 << c keys a lane (1..8).
template <class F>
void with_products_per_lane(int c, F&& f) {
  with_power_of_two<3>(c, f);
}

// ---------------------------------------------------------------- kernels

/// log2 of the smallest power of two >= max(keys, 4).
__device__ __forceinline__ int table_bits_for(offset_type keys) {
  int b = 2;
  while ((offset_type{1} << b) < keys) ++b;
  return b;
}

/// Count, G lanes per row; each group has room for 32 G keys in shared
/// memory and a row uses the power of two >= 4/3 of its bound on distinct
/// columns (so less to clear for short rows).
template <int G>
__global__ void __launch_bounds__(block_size)
    count_group_kernel(const size_type* __restrict__ rows, size_type count, Pattern A, Pattern B,
                       const offset_type* __restrict__ work, offset_type* __restrict__ c_count) {
  constexpr int groups = block_size / G;
  constexpr int stride = count_keys_per_lane * G + G;  // padded, see above
  __shared__ index_type tables[groups * stride];
  const auto tile = cg::tiled_partition<G>(cg::this_thread_block());
  const int lane = static_cast<int>(tile.thread_rank());
  const int group = threadIdx.x / G;
  index_type* table = tables + group * stride;
  for (size_type slot = static_cast<size_type>(blockIdx.x) * groups + group; slot < count;
       slot += static_cast<size_type>(gridDim.x) * groups) {
    const size_type i = rows[slot];
    const offset_type w = work[i];
    const offset_type bound = w < B.cols ? w : B.cols;
    const int bits = table_bits_for(bound + bound / 3);
    for (int s = lane; s < (1 << bits); s += G) table[s] = empty_key;
    tile.sync();
    int found = 0;
    for_each_product<G>(tile, A, B, i,
                        [&](index_type j) { found += insert_key<false>(table, bits, j); });
    found = group_sum<G>(tile, found);
    if (lane == 0) c_count[i] = found;
    tile.sync();  // before the table is cleared for the next row
  }
}

/// Count, a block per row: the warps take A's entries in turn, the lanes of
/// a warp stride over the B row. Table in shared memory (8192 keys) or, for
/// GLOBAL, at tables + table_begin[slot] with 2^table_bits[slot] keys.
template <bool GLOBAL>
__global__ void __launch_bounds__(block_size)
    count_block_kernel(const size_type* __restrict__ rows, size_type count, Pattern A, Pattern B,
                       offset_type* __restrict__ c_count, index_type* tables,
                       const offset_type* __restrict__ table_begin,
                       const int* __restrict__ table_bits) {
  __shared__ index_type shared_table[GLOBAL ? 1 : (1 << block_table_bits)];
  __shared__ int block_found;
  const int warp = threadIdx.x / warp_size, lane = threadIdx.x % warp_size;
  for (size_type slot = blockIdx.x; slot < count; slot += gridDim.x) {
    const size_type i = rows[slot];
    index_type* table = GLOBAL ? tables + table_begin[slot] : shared_table;
    const int bits = GLOBAL ? table_bits[slot] : block_table_bits;
    const offset_type size = offset_type{1} << bits;
    for (offset_type s = threadIdx.x; s < size; s += block_size) table[s] = empty_key;
    if (threadIdx.x == 0) block_found = 0;
    __syncthreads();
    int found = 0;
    for (offset_type e = A.row_ptr[i] + warp; e < A.row_ptr[i + 1]; e += warps_per_block) {
      const index_type k = A.col_idx[e];
      for (offset_type q = B.row_ptr[k] + lane; q < B.row_ptr[k + 1]; q += warp_size) {
        found += insert_key<GLOBAL>(table, bits, B.col_idx[q]);
      }
    }
    for (int offset = warp_size / 2; offset > 0; offset /= 2) {
      found += __shfl_down_sync(0xffffffffu, found, offset);
    }
    if (lane == 0) atomicAdd(&block_found, found);
    __syncthreads();
    if (threadIdx.x == 0) c_count[i] = block_found;
    __syncthreads();
  }
}

/// Fill and values, G lanes per row of at most 8 G nonzeros: columns into a
/// table of the power of two >= max(2 n, G) keys (at most 16 G), compacted
/// in slot order, sorted, written; then the values summed into shared
/// accumulators and written. `status` gets 1 if a row's distinct columns
/// disagree with the count pass (an internal error).
///
/// The rows advance a warp at a time, and the loops that do not depend on
/// the row's products (clearing, compaction, the bitonic network) run to
/// the largest bound among the warp's groups: groups of one warp whose trip
/// counts differ diverge, and diverged groups run one after another (rows
/// of uneven length, as in A P at the second level of classical AMG).
template <int G, class T>
__global__ void __launch_bounds__(block_size)
    fill_group_kernel(const size_type* __restrict__ rows, size_type count, Pattern A,
                      const T* __restrict__ a_val, Pattern B, const T* __restrict__ b_val,
                      const offset_type* __restrict__ c_row_ptr, index_type* __restrict__ c_col,
                      T* __restrict__ c_val, int* status) {
  constexpr int groups = block_size / G;
  constexpr int cap = row_entries_per_lane * G;
  constexpr int table_stride = fill_keys_per_lane * G + G;  // padded, see above
  static_assert(cap <= 256, "places in the row are kept in 8 bits");
  __shared__ index_type tables[groups * table_stride];
  // (Not padded: 48 KB of static shared memory leave no room for it.)
  __shared__ std::uint8_t places[groups * fill_keys_per_lane * G];
  __shared__ index_type lists[groups * (cap + G)];
  __shared__ T accs[groups * (cap + G)];
  const auto tile = cg::tiled_partition<G>(cg::this_thread_block());
  const int lane = static_cast<int>(tile.thread_rank());
  const int group = threadIdx.x / G;
  index_type* table = tables + group * table_stride;
  std::uint8_t* place = places + group * fill_keys_per_lane * G;
  index_type* list = lists + group * (cap + G);
  T* acc = accs + group * (cap + G);
  // The warp's first group decides whether the warp goes on.
  const int lead = (threadIdx.x % warp_size) / G;
  for (size_type slot = static_cast<size_type>(blockIdx.x) * groups + group; slot - lead < count;
       slot += static_cast<size_type>(gridDim.x) * groups) {
    const bool active = slot < count;
    const size_type i = active ? rows[slot] : 0;
    const offset_type c0 = active ? c_row_ptr[i] : 0;
    const int expected = active ? static_cast<int>(c_row_ptr[i + 1] - c0) : 0;
    const int bits = table_bits_for(2 * expected > G ? 2 * expected : G);
    const int own_table = 1 << bits;
    const int table_size = __reduce_max_sync(0xffffffffu, own_table);
    for (int s = lane; s < table_size; s += G) table[s] = empty_key;
    tile.sync();
    if (active) {
      for_each_product<G>(tile, A, B, i, [&](index_type j) { insert_key<false>(table, bits, j); });
    }
    tile.sync();
    // Compact in slot order: lane l of each round of G slots writes after
    // the keys of the lanes before it.
    int n = 0;
    for (int s0 = 0; s0 < table_size; s0 += G) {
      const index_type key = table[s0 + lane];
      const bool used = key != empty_key;
      const unsigned ballot = tile.ballot(used);
      const int at = n + __popc(ballot & ((1u << lane) - 1u));
      if (used && at < cap) list[at] = key;
      n += __popc(ballot);
    }
    const bool ok = n == expected;
    if (!ok && lane == 0) atomicExch(status, 1);
    const int m = ok ? n : 0;
    int own_size = 1;
    while (own_size < m) own_size <<= 1;
    const int size = __reduce_max_sync(0xffffffffu, own_size);
    for (int p = m + lane; p < size; p += G) list[p] = empty_key;
    tile.sync();
    bitonic_sort<G>(tile, list, size);
    const HashedRow locate{table, place, bits};
    for (int p = lane; p < m; p += G) {
      const index_type key = list[p];
      c_col[c0 + p] = key;
      acc[p] = T{0};
      place[locate.slot_of(key)] = static_cast<std::uint8_t>(p);
    }
    tile.sync();
    if (m > 0) accumulate_row<G>(tile, A, a_val, B, b_val, i, locate, acc);
    for (int p = lane; p < m; p += G) c_val[c0 + p] = acc[p];
    tile.sync();
  }
}

/// Values only (recompute), G lanes per row of at most 8 G nonzeros: the
/// row's sorted columns are staged in shared memory beside its accumulators.
template <int G, class T>
__global__ void __launch_bounds__(block_size)
    numeric_group_kernel(const size_type* __restrict__ rows, size_type count, Pattern A,
                         const T* __restrict__ a_val, Pattern B, const T* __restrict__ b_val,
                         const offset_type* __restrict__ c_row_ptr,
                         const index_type* __restrict__ c_col, T* __restrict__ c_val) {
  constexpr int groups = block_size / G;
  constexpr int cap = row_entries_per_lane * G;
  __shared__ index_type lists[groups * (cap + G)];
  __shared__ T accs[groups * (cap + G)];
  const auto tile = cg::tiled_partition<G>(cg::this_thread_block());
  const int lane = static_cast<int>(tile.thread_rank());
  const int group = threadIdx.x / G;
  index_type* list = lists + group * (cap + G);
  T* acc = accs + group * (cap + G);
  for (size_type slot = static_cast<size_type>(blockIdx.x) * groups + group; slot < count;
       slot += static_cast<size_type>(gridDim.x) * groups) {
    const size_type i = rows[slot];
    const offset_type c0 = c_row_ptr[i];
    const int n = static_cast<int>(c_row_ptr[i + 1] - c0);
    for (int p = lane; p < n; p += G) {
      list[p] = c_col[c0 + p];
      acc[p] = T{0};
    }
    tile.sync();
    accumulate_row<G>(tile, A, a_val, B, b_val, i, SortedRow<int>{list, n}, acc);
    for (int p = lane; p < n; p += G) c_val[c0 + p] = acc[p];
    tile.sync();
  }
}

/// Values of rows longer than shared memory allows: a warp per row, the
/// sorted columns read from C and the sums kept in C's values (global).
template <class T>
__global__ void __launch_bounds__(block_size)
    numeric_long_kernel(const size_type* __restrict__ rows, size_type count, Pattern A,
                        const T* __restrict__ a_val, Pattern B, const T* __restrict__ b_val,
                        const offset_type* __restrict__ c_row_ptr,
                        const index_type* __restrict__ c_col, T* c_val) {
  const auto tile = cg::tiled_partition<warp_size>(cg::this_thread_block());
  const int lane = static_cast<int>(tile.thread_rank());
  const int warp = threadIdx.x / warp_size;
  for (size_type slot = static_cast<size_type>(blockIdx.x) * warps_per_block + warp; slot < count;
       slot += static_cast<size_type>(gridDim.x) * warps_per_block) {
    const size_type i = rows[slot];
    const offset_type c0 = c_row_ptr[i];
    const offset_type n = c_row_ptr[i + 1] - c0;
    for (offset_type p = lane; p < n; p += warp_size) c_val[c0 + p] = T{0};
    tile.sync();
    accumulate_row<warp_size>(tile, A, a_val, B, b_val, i, SortedRow<offset_type>{c_col + c0, n},
                              c_val + c0);
  }
}

/// Columns of rows longer than shared memory allows: a block per row inserts
/// them into its global table, then writes them (unordered) to
/// out[out_begin[slot] ..); a segmented sort orders them afterwards.
__global__ void __launch_bounds__(block_size)
    fill_long_kernel(const size_type* __restrict__ rows, size_type count, Pattern A, Pattern B,
                     index_type* tables, const offset_type* __restrict__ table_begin,
                     const int* __restrict__ table_bits, const offset_type* __restrict__ out_begin,
                     index_type* __restrict__ out) {
  __shared__ unsigned long long filled;
  const int warp = threadIdx.x / warp_size, lane = threadIdx.x % warp_size;
  for (size_type slot = blockIdx.x; slot < count; slot += gridDim.x) {
    const size_type i = rows[slot];
    index_type* table = tables + table_begin[slot];
    const int bits = table_bits[slot];
    const offset_type size = offset_type{1} << bits;
    for (offset_type s = threadIdx.x; s < size; s += block_size) table[s] = empty_key;
    if (threadIdx.x == 0) filled = 0;
    __syncthreads();
    for (offset_type e = A.row_ptr[i] + warp; e < A.row_ptr[i + 1]; e += warps_per_block) {
      const index_type k = A.col_idx[e];
      for (offset_type q = B.row_ptr[k] + lane; q < B.row_ptr[k + 1]; q += warp_size) {
        insert_key<true>(table, bits, B.col_idx[q]);
      }
    }
    __syncthreads();
    index_type* row_out = out + out_begin[slot];
    for (offset_type s = threadIdx.x; s < size; s += block_size) {
      const index_type key = __ldcg(table + s);
      if (key != empty_key) row_out[atomicAdd(&filled, 1ull)] = key;
    }
    __syncthreads();
  }
}

/// c_col[c_row_ptr[rows[slot]] ..) = sorted[begin[slot] .. begin[slot + 1]).
__global__ void copy_rows_kernel(const size_type* __restrict__ rows, size_type count,
                                 const offset_type* __restrict__ begin,
                                 const index_type* __restrict__ sorted,
                                 const offset_type* __restrict__ c_row_ptr,
                                 index_type* __restrict__ c_col) {
  for (size_type slot = blockIdx.x; slot < count; slot += gridDim.x) {
    const offset_type n = begin[slot + 1] - begin[slot];
    index_type* dst = c_col + c_row_ptr[rows[slot]];
    for (offset_type p = threadIdx.x; p < n; p += blockDim.x) dst[p] = sorted[begin[slot] + p];
  }
}

/// sizes[s] = for a count row: min(work, b_cols); for a fill row: its nonzeros.
__global__ void row_sizes_kernel(const size_type* __restrict__ rows, size_type count,
                                 const offset_type* __restrict__ work, size_type b_cols,
                                 const offset_type* __restrict__ c_row_ptr,
                                 offset_type* __restrict__ sizes) {
  const size_type s = static_cast<size_type>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (s >= count) return;
  const size_type i = rows[s];
  if (c_row_ptr) {
    sizes[s] = c_row_ptr[i + 1] - c_row_ptr[i];
  } else {
    sizes[s] = work[i] < b_cols ? work[i] : b_cols;
  }
}

// ----------------------------------------------------------- host helpers

/// Rows grouped by class: class c owns rows[begin[c] .. begin[c + 1]).
struct Bins {
  Array<size_type> rows;
  std::vector<size_type> begin;
  size_type size(int c) const { return begin[c + 1] - begin[c]; }
  const size_type* of(int c) const { return rows.data() + begin[c]; }
};

/// Sorts the row indices by their class key (one radix pass over class_bits bits;
/// stable, so rows stay ascending within a class, which keeps neighbouring
/// rows, and the B rows they share, in the same block).
Bins sort_into_bins(const CudaExec& exec, Array<std::uint8_t>& keys, size_type rows) {
  cudaStream_t stream = cuda_detail::stream_of(exec);
  Bins bins;
  bins.begin.assign(class_slots + 1, 0);
  bins.rows = Array<size_type>(exec, rows);
  if (rows == 0) return bins;
  Array<size_type> ids(exec, rows);
  Array<std::uint8_t> sorted_keys(exec, rows);
  iota_kernel<<<grid_for(rows, block_size), block_size, 0, stream>>>(rows, ids.data());
  STRATA_CUDA_CHECK(cudaGetLastError());
  std::size_t bytes = 0;
  STRATA_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, bytes, keys.data(), sorted_keys.data(),
                                                    ids.data(), bins.rows.data(), rows, 0,
                                                    class_bits, stream));
  cuda_detail::ScratchBuffer scratch(exec, bytes);
  STRATA_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(scratch.data(), bytes, keys.data(),
                                                    sorted_keys.data(), ids.data(),
                                                    bins.rows.data(), rows, 0, class_bits, stream));
  Array<offset_type> begin(exec, class_slots + 1);
  class_begin_kernel<<<1, class_slots + 1, 0, stream>>>(rows, sorted_keys.data(), begin.data());
  STRATA_CUDA_CHECK(cudaGetLastError());
  const auto host_begin = begin.to_vector();
  std::copy(host_begin.begin(), host_begin.end(), bins.begin.begin());
  return bins;
}

/// The global-table rows of one class, in batches whose tables fit the
/// budget: calls run(first, count, table_begin, table_bits, tables, sizes)
/// with device arrays for slots [first, first + count) of the class.
/// `table_for(size)` gives log2 of a row's table size.
template <class TableBits, class Run>
void in_batches(const CudaExec& exec, const Bins& bins, int c, const offset_type* work,
                size_type b_cols, const offset_type* c_row_ptr, TableBits table_for, Run run) {
  const size_type m = bins.size(c);
  if (m == 0) return;
  cudaStream_t stream = cuda_detail::stream_of(exec);
  Array<offset_type> sizes(exec, m);
  row_sizes_kernel<<<grid_for(m, block_size), block_size, 0, stream>>>(bins.of(c), m, work, b_cols,
                                                                       c_row_ptr, sizes.data());
  STRATA_CUDA_CHECK(cudaGetLastError());
  const std::vector<offset_type> size = sizes.to_vector();
  size_type first = 0;
  while (first < m) {
    std::vector<offset_type> begin{0};
    std::vector<int> bits;
    std::vector<offset_type> out_begin{0};
    size_type last = first;
    while (last < m) {
      const int b = table_for(size[last]);
      const offset_type keys = offset_type{1} << b;
      if (last > first && begin.back() + keys > global_table_budget) break;
      bits.push_back(b);
      begin.push_back(begin.back() + keys);
      out_begin.push_back(out_begin.back() + size[last]);
      ++last;
    }
    Array<offset_type> d_begin(exec, begin), d_out_begin(exec, out_begin);
    Array<int> d_bits(exec, bits);
    Array<index_type> tables(exec, begin.back());
    run(first, last - first, d_begin.data(), d_bits.data(), tables.data(), d_out_begin.data(),
        out_begin.back());
    first = last;
  }
}

/// log2 of the smallest power of two >= x (at least 5).
int ceil_log2(offset_type x) {
  int b = 5;
  while ((offset_type{1} << b) < x) ++b;
  return b;
}

}  // namespace

template <class Exec, class T>
void numeric(const Exec& exec, const Pattern& A, const T* a_values, const Pattern& B,
             const T* b_values, const Pattern& C, const detail::ProductSchedule& schedule,
             T* c_values) {
  if (C.rows == 0 || C.nnz == 0) return;
  cuda_detail::activate(exec);
  cudaStream_t stream = cuda_detail::stream_of(exec);
  const auto& begin = schedule.class_begin;
  const size_type* rows = schedule.rows.data();
  StageLog log(stream, "numeric", C.rows);
  // The table-free kernel of group class g on the rows of class `slot`.
  const auto group_values = [&](int slot, int g, const char* label) {
    const size_type m = begin[slot + 1] - begin[slot];
    if (m == 0) return;
    with_group_size(g, [&](auto lanes) {
      constexpr int G = decltype(lanes)::value;
      numeric_group_kernel<G, T><<<grid_for(m, block_size / G), block_size, 0, stream>>>(
          rows + begin[slot], m, A, a_values, B, b_values, C.row_ptr, C.col_idx, c_values);
    });
    STRATA_CUDA_CHECK(cudaGetLastError());
    log.mark(label, 1 << g, m);
  };
  for (int c = 0; c < group_classes; ++c) group_values(c, c, "G");
  const size_type m = begin[fill_long_class + 1] - begin[fill_long_class];
  if (m > 0) {
    numeric_long_kernel<T><<<grid_for(m, warps_per_block), block_size, 0, stream>>>(
        rows + begin[fill_long_class], m, A, a_values, B, b_values, C.row_ptr, C.col_idx, c_values);
    STRATA_CUDA_CHECK(cudaGetLastError());
    log.mark("long", -1, m);
  }
  // Medium rows: the table-free kernel of their group class.
  for (int c = 0; c < esc_classes; ++c) {
    for (int g = 0; g < group_classes; ++g)
      group_values(esc_class_base + esc_slots * c + g, g, "mediumG");
  }
  for (int c = 0; c < group_classes; ++c) {
    const size_type m = begin[short_class_base + c + 1] - begin[short_class_base + c];
    if (m == 0) continue;
    const size_type* class_rows = rows + begin[short_class_base + c];
    if (c == short_values_by_table_class) {
      // At most 32 nonzeros: within the capacity of 4 lanes' accumulators.
      numeric_group_kernel<4, T><<<grid_for(m, block_size / 4), block_size, 0, stream>>>(
          class_rows, m, A, a_values, B, b_values, C.row_ptr, C.col_idx, c_values);
    } else {
      with_group_size(c, [&](auto g) {
        constexpr int G = decltype(g)::value;
        short_row_kernel<G, ShortMode::values, T>
            <<<grid_for(m, block_size / G), block_size, 0, stream>>>(
                class_rows, m, A, a_values, B, b_values, nullptr, C.row_ptr, nullptr, c_values,
                nullptr, keys_hold_columns(B.cols, short_product_bits));
      });
    }
    STRATA_CUDA_CHECK(cudaGetLastError());
    log.mark("shortG", 1 << c, m);
  }
}

template <class Exec, class T>
Product<T> multiply(const Exec& exec, const Pattern& A, const T* a_values, const Pattern& B,
                    const T* b_values) {
  cuda_detail::activate(exec);
  cudaStream_t stream = cuda_detail::stream_of(exec);
  const size_type rows = A.rows;
  Product<T> product;
  StageLog log(stream, "multiply", rows);

  // 1. Work per row.
  Array<offset_type> work(exec, rows);
  product.products = row_products(exec, rows, A.row_ptr, A.col_idx, B.row_ptr, work.data());
  log.mark("work");

  // 2-3. Count the nonzeros of each row; medium rows are computed whole and
  // kept in the staging buffer as far as it holds them.
  Array<offset_type> row_ptr(exec, rows + 1, offset_type{0});
  offset_type* rp = row_ptr.data();
  const int esc_max_c = esc_max_class(B.cols);
  const int min_class = min_group_class(rows);  // the same in both binnings
  Array<index_type> staged_col;
  Array<T> staged_val;
  Array<std::int64_t> staged_offset;
  std::optional<cuda_detail::ScratchBuffer> staging_cursor;
  Staging<T> staging;
  {
    Array<std::uint8_t> keys(exec, rows);
    if (rows > 0) {
      classify_count_kernel<<<grid_for(rows, block_size), block_size, 0, stream>>>(
          rows, A.row_ptr, work.data(), B.cols, esc_max_c, min_class, keys.data());
      STRATA_CUDA_CHECK(cudaGetLastError());
    }
    const Bins bins = sort_into_bins(exec, keys, rows);
    log.mark("count-bins");
    for (int c = 0; c < group_classes; ++c) {
      const size_type m = bins.size(c);
      if (m == 0) continue;
      with_group_size(c, [&](auto g) {
        constexpr int G = decltype(g)::value;
        count_group_kernel<G><<<grid_for(m, block_size / G), block_size, 0, stream>>>(
            bins.of(c), m, A, B, work.data(), rp);
      });
      STRATA_CUDA_CHECK(cudaGetLastError());
      log.mark("countG", 1 << c, m);
    }
    for (int c = 0; c < group_classes; ++c) {
      const size_type m = bins.size(short_class_base + c);
      if (m == 0) continue;
      with_group_size(c, [&](auto g) {
        constexpr int G = decltype(g)::value;
        short_row_kernel<G, ShortMode::count, T>
            <<<grid_for(m, block_size / G), block_size, 0, stream>>>(
                bins.of(short_class_base + c), m, A, a_values, B, b_values, rp, nullptr, nullptr,
                nullptr, nullptr, false);
      });
      STRATA_CUDA_CHECK(cudaGetLastError());
      log.mark("count-shortG", 1 << c, m);
    }
    size_type staged_rows = 0;
    for (int c = 0; c < esc_classes; ++c) staged_rows += bins.size(count_staged_base + c);
    if (staged_rows > 0) {
      // The multiplications bound C's nonzeros.
      unsigned long long capacity = std::min<unsigned long long>(
          product.products, staging_budget.load(std::memory_order_relaxed));
      try {
        staged_col = Array<index_type>(exec, capacity);
        staged_val = Array<T>(exec, capacity);
      } catch (const out_of_memory&) {
        // Staging only saves time: without room for it the fill computes
        // every medium row again.
        staged_col = Array<index_type>();
        staged_val = Array<T>();
        capacity = 0;
      }
      staged_offset = Array<std::int64_t>(exec, rows);
      // -1 (all bits set) for the rows that are not medium: the copy walks
      // every row of C.
      STRATA_CUDA_CHECK(cudaMemsetAsync(staged_offset.data(), 0xff,
                                        sizeof(std::int64_t) * static_cast<std::size_t>(rows),
                                        stream));
      staging_cursor.emplace(exec, sizeof(unsigned long long));
      STRATA_CUDA_CHECK(
          cudaMemsetAsync(staging_cursor->data(), 0, sizeof(unsigned long long), stream));
      staging =
          Staging<T>{staged_col.data(), staged_val.data(), staging_cursor->as<unsigned long long>(),
                     capacity, staged_offset.data()};
    }
    for (int c = 0; c < esc_classes; ++c) {
      const size_type m = bins.size(count_staged_base + c);
      if (m == 0) continue;
      with_products_per_lane(c, [&](auto k) {
        constexpr int K = decltype(k)::value;
        esc_row_kernel<K, EscMode::stage, T>
            <<<grid_for(m, warps_per_block), block_size, 0, stream>>>(
                bins.of(count_staged_base + c), m, A, a_values, B, b_values, rp, nullptr, nullptr,
                nullptr, staging, nullptr);
      });
      STRATA_CUDA_CHECK(cudaGetLastError());
      log.mark("count-mediumK", 1 << c, m);
    }
    if (const size_type m = bins.size(count_shared_block_class); m > 0) {
      count_block_kernel<false><<<grid_for(m, 1), block_size, 0, stream>>>(
          bins.of(count_shared_block_class), m, A, B, rp, nullptr, nullptr, nullptr);
      STRATA_CUDA_CHECK(cudaGetLastError());
    }
    in_batches(
        exec, bins, count_global_class, work.data(), B.cols, nullptr,
        [](offset_type bound) { return ceil_log2(bound + bound / 3 + 1); },
        [&](size_type first, size_type count, const offset_type* table_begin, const int* table_bits,
            index_type* tables, const offset_type*, offset_type) {
          count_block_kernel<true><<<grid_for(count, 1), block_size, 0, stream>>>(
              bins.of(count_global_class) + first, count, A, B, rp, tables, table_begin,
              table_bits);
          STRATA_CUDA_CHECK(cudaGetLastError());
        });
  }
  log.mark("count-long");
  unsigned long long staged = 0;  // entries the count pass reserved
  if (staging.cursor != nullptr) {
    STRATA_CUDA_CHECK(
        cudaMemcpyAsync(&staged, staging.cursor, sizeof staged, cudaMemcpyDeviceToHost, stream));
  }
  const size_type nnz = counts_to_offsets(exec, rp, rows, B.cols);  // waits for the stream
  const bool all_staged = staging.cursor != nullptr && staged <= staging.capacity;
  log.mark("offsets");

  // 4-5. Columns and values; the binning by nonzeros is the schedule kept
  // for recompute.
  Array<index_type> col_idx(exec, nnz);
  Array<T> values(exec, nnz);
  Bins bins;
  {
    Array<std::uint8_t> keys(exec, rows);
    if (rows > 0) {
      classify_fill_kernel<<<grid_for(rows, block_size), block_size, 0, stream>>>(
          rows, A.row_ptr, work.data(), rp, esc_max_c, min_class, keys.data());
      STRATA_CUDA_CHECK(cudaGetLastError());
    }
    bins = sort_into_bins(exec, keys, rows);
  }
  log.mark("fill-bins");
  cuda_detail::ScratchBuffer status(exec, sizeof(int));
  STRATA_CUDA_CHECK(cudaMemsetAsync(status.data(), 0, sizeof(int), stream));
  for (int c = 0; c < group_classes; ++c) {
    const size_type m = bins.size(c);
    if (m == 0) continue;
    with_group_size(c, [&](auto g) {
      constexpr int G = decltype(g)::value;
      fill_group_kernel<G, T><<<grid_for(m, block_size / G), block_size, 0, stream>>>(
          bins.of(c), m, A, a_values, B, b_values, rp, col_idx.data(), values.data(),
          status.as<int>());
    });
    STRATA_CUDA_CHECK(cudaGetLastError());
    log.mark("fillG", 1 << c, m);
  }
  for (int c = 0; c < group_classes; ++c) {
    const size_type m = bins.size(short_class_base + c);
    if (m == 0) continue;
    with_group_size(c, [&](auto g) {
      constexpr int G = decltype(g)::value;
      short_row_kernel<G, ShortMode::fill, T>
          <<<grid_for(m, block_size / G), block_size, 0, stream>>>(
              bins.of(short_class_base + c), m, A, a_values, B, b_values, nullptr, rp,
              col_idx.data(), values.data(), status.as<int>(),
              keys_hold_columns(B.cols, short_product_bits));
    });
    STRATA_CUDA_CHECK(cudaGetLastError());
    log.mark("fill-shortG", 1 << c, m);
  }
  if (staging.cursor != nullptr && rows > 0) {
    copy_staged_kernel<T>
        <<<grid_for((rows + warp_size - 1) / warp_size, warps_per_block), block_size, 0, stream>>>(
            rows, rp, col_idx.data(), values.data(), staging);
    STRATA_CUDA_CHECK(cudaGetLastError());
    log.mark("fill-staged-copy");
  }
  for (int c = 0; c < esc_classes; ++c) {
    // The group classes g of numeric() lie side by side within class c.
    const int first = esc_class_base + esc_slots * c;
    const size_type m = bins.begin[first + group_classes] - bins.begin[first];
    if (m == 0) continue;
    if (!all_staged) {
      with_products_per_lane(c, [&](auto k) {
        constexpr int K = decltype(k)::value;
        esc_row_kernel<K, EscMode::fill, T>
            <<<grid_for(m, warps_per_block), block_size, 0, stream>>>(
                bins.of(first), m, A, a_values, B, b_values, nullptr, rp, col_idx.data(),
                values.data(), staging, status.as<int>());
      });
    }
    STRATA_CUDA_CHECK(cudaGetLastError());
    log.mark("fill-mediumK", 1 << c, m);
  }
  in_batches(
      exec, bins, fill_long_class, work.data(), B.cols, rp,
      [](offset_type n) { return ceil_log2(2 * n); },
      [&](size_type first, size_type count, const offset_type* table_begin, const int* table_bits,
          index_type* tables, const offset_type* out_begin, offset_type out_total) {
        const size_type* batch_rows = bins.of(fill_long_class) + first;
        Array<index_type> unsorted(exec, out_total), sorted(exec, out_total);
        fill_long_kernel<<<grid_for(count, 1), block_size, 0, stream>>>(
            batch_rows, count, A, B, tables, table_begin, table_bits, out_begin, unsorted.data());
        STRATA_CUDA_CHECK(cudaGetLastError());
        std::size_t bytes = 0;
        STRATA_CUDA_CHECK(cub::DeviceSegmentedSort::SortKeys(nullptr, bytes, unsorted.data(),
                                                             sorted.data(), out_total, count,
                                                             out_begin, out_begin + 1, stream));
        cuda_detail::ScratchBuffer scratch(exec, bytes);
        STRATA_CUDA_CHECK(cub::DeviceSegmentedSort::SortKeys(scratch.data(), bytes, unsorted.data(),
                                                             sorted.data(), out_total, count,
                                                             out_begin, out_begin + 1, stream));
        copy_rows_kernel<<<grid_for(count, 1), block_size, 0, stream>>>(
            batch_rows, count, out_begin, sorted.data(), rp, col_idx.data());
        STRATA_CUDA_CHECK(cudaGetLastError());
      });
  if (const size_type m = bins.size(fill_long_class); m > 0) {
    numeric_long_kernel<T><<<grid_for(m, warps_per_block), block_size, 0, stream>>>(
        bins.of(fill_long_class), m, A, a_values, B, b_values, rp, col_idx.data(), values.data());
    STRATA_CUDA_CHECK(cudaGetLastError());
  }
  log.mark("fill-long");
  int failed = 0;
  STRATA_CUDA_CHECK(
      cudaMemcpyAsync(&failed, status.data(), sizeof(int), cudaMemcpyDeviceToHost, stream));
  STRATA_CUDA_CHECK(cudaStreamSynchronize(stream));
  if (failed) {
    throw error(
        "spgemm: internal error: a row's columns differ between the count and the fill "
        "pass (please report this with the matrices)");
  }
  product.schedule.rows = std::move(bins.rows);
  product.schedule.class_begin = std::move(bins.begin);
  product.C = CsrMatrix<T>(rows, B.cols, std::move(row_ptr), std::move(col_idx), std::move(values));
  return product;
}

}  // namespace strata::kernels::spgemm

#define STRATA_EXEC CudaExec
#include "kernels/matrix/spgemm_instantiate.inc"
#undef STRATA_EXEC
