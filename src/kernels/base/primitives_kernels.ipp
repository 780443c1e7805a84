// Single-source bodies of primitives_kernels.hpp. Included by one backend
// file after that backend's parallel header, so the unqualified primitives
// below resolve (by argument-dependent lookup on Exec) to that backend.

#include <cmath>
#include <limits>

#include "kernels/base/hd.hpp"
#include "kernels/base/primitives_kernels.hpp"

namespace strata::kernels::base {

template <class Exec, class T>
void fill(const Exec& exec, T* data, size_type n, T value) {
  parallel_for(exec, n, [=] STRATA_HD(size_type i) { data[i] = value; });
}

template <class Exec, class T>
T sum(const Exec& exec, const T* data, size_type n) {
  return transform_reduce(exec, n, T{0}, [=] STRATA_HD(size_type i) { return data[i]; },
                          ops::Plus{});
}

template <class T>
struct MinMax {
  T lo, hi;
};

struct MinMaxOp {
  template <class T>
  STRATA_HD MinMax<T> operator()(const MinMax<T>& a, const MinMax<T>& b) const {
    return {b.lo < a.lo ? b.lo : a.lo, a.hi < b.hi ? b.hi : a.hi};
  }
};

template <class Exec, class T>
std::pair<T, T> min_max(const Exec& exec, const T* data, size_type n) {
  const MinMax<T> identity{std::numeric_limits<T>::max(), std::numeric_limits<T>::lowest()};
  const MinMax<T> r = transform_reduce(
      exec, n, identity, [=] STRATA_HD(size_type i) { return MinMax<T>{data[i], data[i]}; },
      MinMaxOp{});
  return {r.lo, r.hi};
}

template <class Exec, class T>
T exclusive_scan(const Exec& exec, const T* in, T* out, size_type n) {
  return ::strata::exclusive_scan(exec, in, out, n);
}

template <class Exec, class T>
void inclusive_scan(const Exec& exec, const T* in, T* out, size_type n) {
  ::strata::inclusive_scan(exec, in, out, n);
}

template <class Exec, class K, class V>
void stable_sort_by_key(const Exec& exec, K* keys, V* values, size_type n) {
  ::strata::stable_sort_by_key(exec, keys, values, n);
}

template <class Exec, class K, class V>
size_type reduce_by_key(const Exec& exec, const K* keys, const V* values, size_type n,
                        K* unique_keys, V* sums) {
  return ::strata::reduce_by_key(exec, keys, values, n, unique_keys, sums);
}

template <class Exec, class T, class I>
void gather(const Exec& exec, const T* src, const I* map, T* dst, size_type n) {
  parallel_for(exec, n, [=] STRATA_HD(size_type i) { dst[i] = src[map[i]]; });
}

template <class Exec, class T, class I>
void scatter(const Exec& exec, const T* src, const I* map, T* dst, size_type n) {
  parallel_for(exec, n, [=] STRATA_HD(size_type i) { dst[map[i]] = src[i]; });
}

template <class Exec, class From, class To>
void convert(const Exec& exec, const From* in, To* out, size_type n, int exponent,
             size_type* beyond) {
  // One pass: the conversion and its overflow count (each i is visited once).
  // ldexp scales exactly, subnormal inputs included (a factor 2^1030 is not
  // a double, a shift of the exponent by 1030 is).
  if (beyond == nullptr) {
    parallel_for(exec, n, [=] STRATA_HD(size_type i) {
      out[i] = static_cast<To>(ldexp(static_cast<double>(in[i]), exponent));
    });
    return;
  }
  transform_reduce_to(
      exec, n, size_type{0},
      [=] STRATA_HD(size_type i) -> size_type {
        const From v = in[i];
        const To w = static_cast<To>(ldexp(static_cast<double>(v), exponent));
        out[i] = w;
        // Finite in, infinite out: |v| beyond To's range (NaN fails both tests).
        return (v - v == From{0} && !(w - w == To{0})) ? 1 : 0;
      },
      ops::Plus{}, beyond);
}

}  // namespace strata::kernels::base
