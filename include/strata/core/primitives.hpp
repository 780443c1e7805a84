#pragma once
/// \file
/// Parallel primitives over Arrays. Each runs on the executor where its
/// arrays live (OpenMP on the host, CUB/Thrust on CUDA) and throws
/// location_mismatch when its arrays live in different places.
///
/// Element types: std::int32_t, std::uint32_t, std::int64_t, std::uint64_t,
/// float, double (and std::uint8_t for fill/gather/scatter).
///
/// Reductions combine in a fixed order that depends only on the input size,
/// so a run repeats bit for bit, whatever the thread count. Host and device
/// may differ from each other by rounding.

#include "strata/core/array.hpp"

namespace strata {

/// Sum of all elements (0 for an empty array).
template <class T>
T reduce_sum(const Array<T>& values);
/// Largest element; throws invalid_argument for an empty array.
template <class T>
T reduce_max(const Array<T>& values);
/// Smallest element; throws invalid_argument for an empty array.
template <class T>
T reduce_min(const Array<T>& values);

/// out[i] = in[0] + ... + in[i-1], out[0] = 0; returns the total. `out` may be
/// `in` (in place). Sizes must match.
template <class T>
T exclusive_scan(const Array<T>& in, Array<T>& out);
/// out[i] = in[0] + ... + in[i]. `out` may be `in`.
template <class T>
void inclusive_scan(const Array<T>& in, Array<T>& out);

/// Sorts `keys` ascending and applies the same permutation to `values`;
/// equal keys keep their order (stable). Keys are integers.
template <class K, class V>
void stable_sort_by_key(Array<K>& keys, Array<V>& values);

/// Segmented reduction over runs of equal consecutive keys (reduce_by_key):
/// for every maximal run keys[a..b) of one key k, appends k to `unique_keys`
/// and the sum of values[a..b) to `sums`. The output arrays are resized to
/// the number of runs, which is returned.
template <class K, class V>
size_type reduce_by_key(const Array<K>& keys, const Array<V>& values, Array<K>& unique_keys,
                        Array<V>& sums);

/// dst[i] = src[map[i]] for i < map.size(); dst.size() must equal map.size()
/// and every map[i] must lie in [0, src.size()).
template <class T, class I>
void gather(const Array<T>& src, const Array<I>& map, Array<T>& dst);
/// dst[map[i]] = src[i] for i < src.size(); map entries must be distinct and
/// lie in [0, dst.size()).
template <class T, class I>
void scatter(const Array<T>& src, const Array<I>& map, Array<T>& dst);

/// out[i] = To(in[i] * 2^exponent), scaled exactly (in double) before
/// rounding: values from one floating-point type to another (double <->
/// float), for the single-precision copies of an AMG cycle and the vectors
/// that enter and leave it (scaled by a power of two so that they fit
/// float's range, however large or small, subnormal included). Sizes must
/// match. Returns how many finite entries of `in` gave a value beyond To's
/// range (infinite in `out`), so that a caller can say so rather than
/// compute with them.
template <class To, class From>
size_type convert(const Array<From>& in, Array<To>& out, int exponent = 0);

/// convert() without the count, for values known to fit (a vector scaled
/// into float's range, or float values going to double): nothing waits
/// for the device, where convert() waits to read its count back.
template <class To, class From>
void convert_unchecked(const Array<From>& in, Array<To>& out, int exponent = 0);

}  // namespace strata
