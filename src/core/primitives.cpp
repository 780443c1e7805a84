// Array-level primitives: check operands once, then run the kernel on the
// executor where the data lives.

#include "strata/core/primitives.hpp"

#include <cstdint>
#include <string>

#include "kernels/base/primitives_kernels.hpp"

namespace strata {

namespace detail {
template <class T>
void fill(const Executor& exec, T* data, size_type n, T value) {
  exec.visit([&](const auto& e) { kernels::base::fill(e, data, n, value); });
}
}  // namespace detail

namespace {
template <class A, class B>
void same_place(const A& a, const B& b, const char* a_name, const char* b_name) {
  check_location(a.executor(), b.executor(), b_name, a_name);
}

template <class A, class B>
void same_size(const A& a, const B& b, const char* what, const char* a_name, const char* b_name) {
  if (a.size() != b.size()) {
    throw dimension_mismatch(std::string(what) + ": " + a_name + " has " +
                             std::to_string(a.size()) + " elements but " + b_name + " has " +
                             std::to_string(b.size()));
  }
}

template <class I>
void check_map_range(const Array<I>& map, size_type limit, const char* what) {
  if (map.empty()) return;
  const auto [lo, hi] = map.executor().visit(
      [&](const auto& e) { return kernels::base::min_max(e, map.data(), map.size()); });
  if (lo < 0 || static_cast<size_type>(hi) >= limit) {
    throw invalid_argument(std::string(what) + ": map entries must lie in [0, " +
                           std::to_string(limit) + "), found range [" + std::to_string(lo) +
                           ", " + std::to_string(hi) + "]");
  }
}
}  // namespace

template <class T>
T reduce_sum(const Array<T>& values) {
  return values.executor().visit(
      [&](const auto& e) { return kernels::base::sum(e, values.data(), values.size()); });
}

template <class T>
T reduce_max(const Array<T>& values) {
  if (values.empty()) throw invalid_argument("reduce_max: the array is empty");
  return values.executor()
      .visit([&](const auto& e) {
        return kernels::base::min_max(e, values.data(), values.size());
      })
      .second;
}

template <class T>
T reduce_min(const Array<T>& values) {
  if (values.empty()) throw invalid_argument("reduce_min: the array is empty");
  return values.executor()
      .visit([&](const auto& e) {
        return kernels::base::min_max(e, values.data(), values.size());
      })
      .first;
}

template <class T>
T exclusive_scan(const Array<T>& in, Array<T>& out) {
  same_place(in, out, "in", "out");
  same_size(in, out, "exclusive_scan", "in", "out");
  return in.executor().visit([&](const auto& e) {
    return kernels::base::exclusive_scan(e, in.data(), out.data(), in.size());
  });
}

template <class T>
void inclusive_scan(const Array<T>& in, Array<T>& out) {
  same_place(in, out, "in", "out");
  same_size(in, out, "inclusive_scan", "in", "out");
  in.executor().visit([&](const auto& e) {
    kernels::base::inclusive_scan(e, in.data(), out.data(), in.size());
  });
}

template <class K, class V>
void stable_sort_by_key(Array<K>& keys, Array<V>& values) {
  same_place(keys, values, "keys", "values");
  same_size(keys, values, "stable_sort_by_key", "keys", "values");
  keys.executor().visit([&](const auto& e) {
    kernels::base::stable_sort_by_key(e, keys.data(), values.data(), keys.size());
  });
}

template <class K, class V>
size_type reduce_by_key(const Array<K>& keys, const Array<V>& values, Array<K>& unique_keys,
                        Array<V>& sums) {
  same_place(keys, values, "keys", "values");
  same_size(keys, values, "reduce_by_key", "keys", "values");
  const Executor& exec = keys.executor();
  Array<K> out_keys(exec, keys.size());
  Array<V> out_sums(exec, keys.size());
  const size_type runs = exec.visit([&](const auto& e) {
    return kernels::base::reduce_by_key(e, keys.data(), values.data(), keys.size(),
                                        out_keys.data(), out_sums.data());
  });
  // Trim to the run count: one extra copy of the (usually much shorter) result.
  unique_keys = Array<K>(exec, runs);
  sums = Array<V>(exec, runs);
  if (runs > 0) {
    copy_bytes(unique_keys.data(), exec, out_keys.data(), exec, sizeof(K) * runs);
    copy_bytes(sums.data(), exec, out_sums.data(), exec, sizeof(V) * runs);
  }
  return runs;
}

template <class T, class I>
void gather(const Array<T>& src, const Array<I>& map, Array<T>& dst) {
  same_place(src, map, "src", "map");
  same_place(src, dst, "src", "dst");
  same_size(map, dst, "gather", "map", "dst");
  check_map_range(map, src.size(), "gather");
  src.executor().visit([&](const auto& e) {
    kernels::base::gather(e, src.data(), map.data(), dst.data(), map.size());
  });
}

template <class T, class I>
void scatter(const Array<T>& src, const Array<I>& map, Array<T>& dst) {
  same_place(src, map, "src", "map");
  same_place(src, dst, "src", "dst");
  same_size(src, map, "scatter", "src", "map");
  check_map_range(map, dst.size(), "scatter");
  src.executor().visit([&](const auto& e) {
    kernels::base::scatter(e, src.data(), map.data(), dst.data(), src.size());
  });
}

template <class To, class From>
size_type convert(const Array<From>& in, Array<To>& out, int exponent) {
  same_place(in, out, "in", "out");
  same_size(in, out, "convert", "in", "out");
  Array<size_type> beyond(in.executor(), 1);
  in.executor().visit([&](const auto& e) {
    kernels::base::convert(e, in.data(), out.data(), in.size(), exponent, beyond.data());
  });
  return beyond.to_vector()[0];
}

template <class To, class From>
void convert_unchecked(const Array<From>& in, Array<To>& out, int exponent) {
  same_place(in, out, "in", "out");
  same_size(in, out, "convert_unchecked", "in", "out");
  in.executor().visit([&](const auto& e) {
    kernels::base::convert(e, in.data(), out.data(), in.size(), exponent, nullptr);
  });
}

template size_type convert<float, double>(const Array<double>&, Array<float>&, int);
template size_type convert<double, float>(const Array<float>&, Array<double>&, int);
template void convert_unchecked<float, double>(const Array<double>&, Array<float>&, int);
template void convert_unchecked<double, float>(const Array<float>&, Array<double>&, int);

#define STRATA_ARRAY_ANY(T)                                                            \
  template void detail::fill<T>(const Executor&, T*, size_type, T);                    \
  template void gather<T, std::int32_t>(const Array<T>&, const Array<std::int32_t>&,   \
                                        Array<T>&);                                    \
  template void gather<T, std::int64_t>(const Array<T>&, const Array<std::int64_t>&,   \
                                        Array<T>&);                                    \
  template void scatter<T, std::int32_t>(const Array<T>&, const Array<std::int32_t>&,  \
                                         Array<T>&);                                   \
  template void scatter<T, std::int64_t>(const Array<T>&, const Array<std::int64_t>&,  \
                                         Array<T>&);
#define STRATA_ARRAY_NUMERIC(T)                                    \
  STRATA_ARRAY_ANY(T)                                              \
  template T reduce_sum<T>(const Array<T>&);                       \
  template T reduce_max<T>(const Array<T>&);                       \
  template T reduce_min<T>(const Array<T>&);                       \
  template T exclusive_scan<T>(const Array<T>&, Array<T>&);        \
  template void inclusive_scan<T>(const Array<T>&, Array<T>&);
#define STRATA_ARRAY_SORT(K, V)                                                      \
  template void stable_sort_by_key<K, V>(Array<K>&, Array<V>&);                      \
  template size_type reduce_by_key<K, V>(const Array<K>&, const Array<V>&, Array<K>&, \
                                         Array<V>&);
#define STRATA_ARRAY_SORT_KEY(K)        \
  STRATA_ARRAY_SORT(K, std::int32_t)    \
  STRATA_ARRAY_SORT(K, std::int64_t)    \
  STRATA_ARRAY_SORT(K, float)           \
  STRATA_ARRAY_SORT(K, double)

STRATA_ARRAY_ANY(std::uint8_t)
STRATA_ARRAY_NUMERIC(std::int32_t)
STRATA_ARRAY_NUMERIC(std::uint32_t)
STRATA_ARRAY_NUMERIC(std::int64_t)
STRATA_ARRAY_NUMERIC(std::uint64_t)
STRATA_ARRAY_NUMERIC(float)
STRATA_ARRAY_NUMERIC(double)
STRATA_ARRAY_SORT_KEY(std::int32_t)
STRATA_ARRAY_SORT_KEY(std::uint32_t)
STRATA_ARRAY_SORT_KEY(std::int64_t)
STRATA_ARRAY_SORT_KEY(std::uint64_t)

}  // namespace strata
