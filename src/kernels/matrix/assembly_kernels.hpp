#pragma once
// Kernel contract of assembly from (row, col, value) entries with set/add
// semantics (strata/matrix/assembly.hpp), after section 4.1 of the hypre
// paper: entries are stashed in flat 1-D buffers, then compressed by a
// stable sort on (row, col), a reverse exclusive segmented max-scan over the
// set flags, and a segmented reduction.
//
// An entry carries a 64-bit key (local_row << col_bits) | col, a block of
// `block` values (1 for scalar entries, r*c for blocked COO) and a mode byte
// (0 add, 1 set). After the sort, a *segment* is a maximal run of equal keys:
// one stored (row, col) position. The sort, the segment boundaries and the
// position each segment maps to make up the *analysis* of a stash; when the
// next stash has the same keys in the same order, the analysis is reused and
// no sort runs.
//
// The same building blocks (sort_entries, find_segments, build_pattern)
// convert CSR to BSR (bsr_kernels.ipp). Arguments are raw pointers in the
// executor's memory; the public entry points (src/core/assembly.cpp) have
// checked locations, sizes and index ranges.

#include <cstdint>

#include "strata/core/executor.hpp"
#include "strata/core/types.hpp"

namespace strata::kernels::assembly {

using key_type = std::uint64_t;

/// What check_batch finds in a batch of entries.
struct BatchCheck {
  /// Position in the batch of the first entry with an index out of range or
  /// a value that is NaN or infinite; -1 when every entry is good.
  size_type first_bad = -1;
  /// Entries whose row lies outside [row_begin, row_end) (but inside
  /// [0, global_rows)): they belong to another process.
  size_type off_process = 0;
};

/// Scans n entries: rows[i] in [0, global_rows), cols[i] in [0, global_cols)
/// (cols may be null: vector entries), values[i*block .. i*block+block)
/// finite. Counts rows outside [row_begin, row_end).
template <class Exec, class T>
BatchCheck check_batch(const Exec& exec, size_type n, const size_type* rows, const size_type* cols,
                       const T* values, int block, size_type global_rows, size_type global_cols,
                       size_type row_begin, size_type row_end);

/// Where stash_batch writes: the local stash (keys, values, modes) and the
/// off-process stash (global rows, cols, values, modes), each already offset
/// to its first free slot. Off-process pointers may be null when the batch
/// has no off-process entry; off_cols is null for vectors.
template <class T>
struct StashTarget {
  key_type* keys;
  T* values;
  std::uint8_t* modes;
  size_type* off_rows;
  size_type* off_cols;
  T* off_values;
  std::uint8_t* off_modes;
};

/// Appends a checked batch, in order, with `mode` (0 add, 1 set): an entry
/// with row in [row_begin, row_end) goes to the local stash with key
/// ((row - row_begin) << col_bits) | col (col = 0 for vectors); the others
/// go, unchanged, to the off-process stash. `off_process` is the count from
/// check_batch (0 skips the compaction).
template <class Exec, class T>
void stash_batch(const Exec& exec, size_type n, const size_type* rows, const size_type* cols,
                 const T* values, int block, size_type row_begin, size_type row_end, int col_bits,
                 std::uint8_t mode, size_type off_process, StashTarget<T> target);

/// perm[i] = i, then sorts keys[0..n) ascending, applying the same
/// permutation to perm; stable, so entries with equal keys keep their
/// arrival order (which the set/add semantics depend on). Only the low
/// `key_bits` bits of a key may be nonzero (the CUDA radix sort skips the
/// others).
template <class Exec>
void sort_entries(const Exec& exec, size_type n, key_type* keys, size_type* perm, int key_bits);

/// Counts the segments (runs of equal keys) of sorted keys[0..n): writes
/// starts_before[i] = the number of segments that start before position i
/// (an exclusive scan of the segment starts) and returns the number of
/// segments. Position i lies in segment starts_before[i] when a segment
/// starts at i, in starts_before[i] - 1 otherwise.
template <class Exec>
size_type number_segments(const Exec& exec, size_type n, const key_type* keys,
                          size_type* starts_before);

/// With starts_before from number_segments: seg_ptr[s] = first position of
/// segment s, seg_ptr[segments] = n, seg_key[s] = its key.
template <class Exec>
void find_segments(const Exec& exec, size_type n, const key_type* keys,
                   const size_type* starts_before, size_type segments, size_type* seg_ptr,
                   key_type* seg_key);

/// The compressed pattern of ascending segment keys: row_ptr[0..rows] with
/// row_ptr[r] = number of keys whose row (key >> col_bits) is < r, and
/// col_idx[s] = seg_key[s] & (2^col_bits - 1).
template <class Exec>
void build_pattern(const Exec& exec, size_type rows, size_type segments, const key_type* seg_key,
                   int col_bits, offset_type* row_ptr, index_type* col_idx);

/// keys[k] = (row << col_bits) | col_idx[k] for every stored entry of a
/// compressed pattern (the inverse of build_pattern).
template <class Exec>
void pattern_keys(const Exec& exec, size_type rows, const offset_type* row_ptr,
                  const index_type* col_idx, int col_bits, key_type* keys);

/// target[s] = position of seg_key[s] in the compressed pattern (row_ptr,
/// col_idx with ascending columns in each row), or -1 when the pattern does
/// not hold it; returns the number of keys not found. With col_bits == -1
/// the pattern is dense (a vector): target[s] = seg_key[s].
template <class Exec>
size_type locate_segments(const Exec& exec, size_type segments, const key_type* seg_key,
                          int col_bits, const offset_type* row_ptr, const index_type* col_idx,
                          size_type* target);

/// Where compress reads and writes.
template <class T>
struct CompressArgs {
  size_type segments;
  /// Values per entry.
  int block;
  const size_type* seg_ptr;
  const key_type* seg_key;
  /// Sorted position -> stash position.
  const size_type* perm;
  /// Stash keys in arrival order, compared with the segment keys to prove
  /// that a reused analysis still fits the stash; null skips the check.
  const key_type* verify_keys;
  /// Stash values (block per entry) and modes, in arrival order.
  const T* values;
  const std::uint8_t* modes;
  /// Segment -> stored position; null means position s.
  const size_type* target;
  /// Values stored before this assembly (block per position); null for a
  /// new pattern.
  const T* old_values;
  /// Output (block per position); may not alias old_values.
  T* out;
  /// Optional: out_modes[s] = 1 when segment s contains a set.
  std::uint8_t* out_modes;
};

/// The set/add compression of every segment s, for each of its `block`
/// values b:
///   1. reverse exclusive segmented max-scan over the modes: an entry is
///      discarded when a set follows it in its segment, so what is left is
///      the last set and the adds after it (or all adds when there is no set);
///   2. segmented reduction: the kept values summed in arrival order, the
///      first one being the initial value;
///   3. out[t*block + b] = sum when the segment has a set or there is no old
///      value, old[t*block + b] + sum otherwise (t = target[s]).
/// Positions not named by any target are not written. Returns the number of
/// stash entries whose key differs from their segment's key (0 when
/// verify_keys is null); when it is not 0, `out` is garbage.
///
/// Each (segment, b) is one fixed-order loop, so host and device produce
/// identical bits.
template <class Exec, class T>
size_type compress(const Exec& exec, const CompressArgs<T>& args);

}  // namespace strata::kernels::assembly
