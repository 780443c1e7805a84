// Host assembly kernels: the shared bodies of assembly_kernels.ipp and the
// host sort of the stash.
//
// The sort is a parallel LSD radix sort on 8-bit digits over the key bits in
// use (a key is (row << col_bits) | col, so about 2 log2(n) bits): each pass
// is a per-thread histogram of the thread's contiguous share, an exclusive
// scan over (digit, thread), and a scatter in which every thread walks its
// share in order, which keeps it stable. Passes whose digit is the same for
// every key are skipped. It is several times faster than the comparison
// merge sort of the primitives on the tens of millions of entries of a
// finite-element assembly; short inputs still use that one.

#include "kernels/matrix/assembly_kernels.ipp"

#include <algorithm>
#include <array>
#include <memory>
#include <utility>
#include <vector>

#include "backend/host/base/parallel.hpp"

namespace strata::kernels::assembly {

namespace {

constexpr int digit_bits = 8;
constexpr int buckets = 1 << digit_bits;
// Below this many entries the comparison sort is as fast.
constexpr size_type radix_threshold = 1 << 16;

void radix_sort(const HostExec& exec, size_type n, key_type* keys, size_type* perm, int key_bits) {
  const size_type tasks = std::max<size_type>(
      1, std::min<size_type>(host_detail::thread_count(exec), n / radix_threshold));
  const auto share_begin = [&](size_type t) { return n / tasks * t + std::min(t, n % tasks); };
  std::unique_ptr<key_type[]> key_buffer(new key_type[static_cast<std::size_t>(n)]);
  std::unique_ptr<size_type[]> perm_buffer(new size_type[static_cast<std::size_t>(n)]);
  key_type* src_key = keys;
  size_type* src_perm = perm;
  key_type* dst_key = key_buffer.get();
  size_type* dst_perm = perm_buffer.get();
  std::vector<std::array<size_type, buckets>> offset(static_cast<std::size_t>(tasks));

  for (int shift = 0; shift < key_bits; shift += digit_bits) {
    host_detail::for_each_task(exec, tasks, [&](size_type t) {
      auto& count = offset[static_cast<std::size_t>(t)];
      count.fill(0);
      for (size_type i = share_begin(t); i < share_begin(t + 1); ++i) {
        ++count[(src_key[i] >> shift) & (buckets - 1)];
      }
    });
    // Digit-major, then thread order: thread t's keys of digit d follow those
    // of threads < t, which follow all keys of smaller digits.
    size_type total = 0;
    bool one_digit = false;
    for (int d = 0; d < buckets; ++d) {
      size_type digit_total = 0;
      for (size_type t = 0; t < tasks; ++t) {
        const size_type c = offset[t][d];
        offset[t][d] = total;
        total += c;
        digit_total += c;
      }
      if (digit_total == n) one_digit = true;
    }
    if (one_digit) continue;  // every key has this digit: the pass changes nothing
    host_detail::for_each_task(exec, tasks, [&](size_type t) {
      auto& next = offset[static_cast<std::size_t>(t)];
      for (size_type i = share_begin(t); i < share_begin(t + 1); ++i) {
        const size_type slot = next[(src_key[i] >> shift) & (buckets - 1)]++;
        dst_key[slot] = src_key[i];
        dst_perm[slot] = src_perm[i];
      }
    });
    std::swap(src_key, dst_key);
    std::swap(src_perm, dst_perm);
  }
  if (src_key != keys) {
    parallel_for(exec, n, [=](size_type i) {
      keys[i] = src_key[i];
      perm[i] = src_perm[i];
    });
  }
}

}  // namespace

template <class Exec>
void sort_entries(const Exec& exec, size_type n, key_type* keys, size_type* perm, int key_bits) {
  parallel_for(exec, n, [=](size_type i) { perm[i] = i; });
  if (n < radix_threshold) {
    stable_sort_by_key(exec, keys, perm, n);
  } else {
    radix_sort(exec, n, keys, perm, key_bits);
  }
}

}  // namespace strata::kernels::assembly

#define STRATA_EXEC HostExec
#include "kernels/matrix/assembly_instantiate.inc"
#undef STRATA_EXEC
