#pragma once
// Kernel contract for the Array-level primitives of strata/core/primitives.hpp.
// One declaration per kernel; the bodies (primitives_kernels.ipp) are
// instantiated once per backend. Arguments are raw pointers in the
// executor's memory; the public entry points have checked locations.

#include <utility>

#include "strata/core/executor.hpp"
#include "strata/core/types.hpp"

namespace strata::kernels::base {

/// data[i] = value
template <class Exec, class T>
void fill(const Exec& exec, T* data, size_type n, T value);
/// sum_i data[i]
template <class Exec, class T>
T sum(const Exec& exec, const T* data, size_type n);
/// {min_i data[i], max_i data[i]}; n > 0
template <class Exec, class T>
std::pair<T, T> min_max(const Exec& exec, const T* data, size_type n);
template <class Exec, class T>
T exclusive_scan(const Exec& exec, const T* in, T* out, size_type n);
template <class Exec, class T>
void inclusive_scan(const Exec& exec, const T* in, T* out, size_type n);
template <class Exec, class K, class V>
void stable_sort_by_key(const Exec& exec, K* keys, V* values, size_type n);
template <class Exec, class K, class V>
size_type reduce_by_key(const Exec& exec, const K* keys, const V* values, size_type n,
                        K* unique_keys, V* sums);
/// dst[i] = src[map[i]], i < n
template <class Exec, class T, class I>
void gather(const Exec& exec, const T* src, const I* map, T* dst, size_type n);
/// dst[map[i]] = src[i], i < n
template <class Exec, class T, class I>
void scatter(const Exec& exec, const T* src, const I* map, T* dst, size_type n);

/// out[i] = To(in[i] * 2^exponent) (scaled exactly in double), i < n;
/// *beyond (exec's memory) = how many finite in[i] gave an infinite out[i]
/// (beyond To's range), written in stream order without waiting: a caller
/// converting many arrays reads all the counts back at once. A null
/// `beyond`: no count (a plain pass over the values).
template <class Exec, class From, class To>
void convert(const Exec& exec, const From* in, To* out, size_type n, int exponent,
             size_type* beyond);

}  // namespace strata::kernels::base
