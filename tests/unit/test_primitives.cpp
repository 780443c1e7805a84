// Parallel primitives on each executor against plain sequential references,
// on sizes around the chunk and block boundaries.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <random>
#include <vector>

#include "strata/core/primitives.hpp"
#include "test_util.hpp"

namespace strata {
namespace {

using test::OnExecutor;

class Primitives : public OnExecutor {};

const std::vector<size_type> sizes = {0, 1, 2, 31, 32, 33, 255, 256, 257, 4095, 4096, 4097,
                                      100000, 1000003};

TEST_P(Primitives, ExclusiveAndInclusiveScanOfIntegersAreExact) {
  for (size_type n : sizes) {
    std::vector<std::int64_t> in(n);
    std::mt19937 gen{static_cast<unsigned>(n)};
    for (auto& v : in) v = std::int64_t(gen() % 100);
    Array<std::int64_t> a(exec(), in), out(exec(), n);
    const auto total = exclusive_scan(a, out);
    std::vector<std::int64_t> ref(n);
    std::exclusive_scan(in.begin(), in.end(), ref.begin(), std::int64_t{0});
    EXPECT_EQ(out.to_vector(), ref) << "n = " << n;
    EXPECT_EQ(total, std::accumulate(in.begin(), in.end(), std::int64_t{0}));
    inclusive_scan(a, a);  // in place
    std::inclusive_scan(in.begin(), in.end(), ref.begin());
    EXPECT_EQ(a.to_vector(), ref) << "n = " << n;
  }
}

TEST_P(Primitives, InPlaceExclusiveScan) {
  Array<std::int32_t> a(exec(), {3, 1, 4, 1, 5});
  EXPECT_EQ(exclusive_scan(a, a), 14);
  EXPECT_EQ(a.to_vector(), (std::vector<std::int32_t>{0, 3, 4, 8, 9}));
}

TEST_P(Primitives, ReductionsMatchAndRepeatBitForBit) {
  for (size_type n : sizes) {
    const auto values = test::random_values(n, 7);
    Array<double> a(exec(), values);
    const double s1 = reduce_sum(a), s2 = reduce_sum(a);
    EXPECT_EQ(s1, s2) << "a reduction must repeat bit for bit";
    double ref = 0;
    for (double v : values) ref += v;
    EXPECT_NEAR(s1, ref, 1e-12 * (1 + std::abs(ref)) * std::max<size_type>(1, n));
    if (n > 0) {
      EXPECT_EQ(reduce_max(a), *std::max_element(values.begin(), values.end()));
      EXPECT_EQ(reduce_min(a), *std::min_element(values.begin(), values.end()));
    } else {
      EXPECT_EQ(s1, 0.0);
      EXPECT_THROW(reduce_max(a), invalid_argument);
    }
  }
}

TEST_P(Primitives, StableSortByKeyKeepsOrderOfEqualKeys) {
  for (size_type n : sizes) {
    std::vector<std::int64_t> keys(n);
    std::vector<std::int32_t> vals(n);
    std::mt19937 gen(unsigned(n) + 1);
    for (size_type i = 0; i < n; ++i) {
      keys[i] = std::int64_t(gen() % 50) - 25;  // many ties, negative keys too
      vals[i] = std::int32_t(i);
    }
    Array<std::int64_t> k(exec(), keys);
    Array<std::int32_t> v(exec(), vals);
    stable_sort_by_key(k, v);
    std::vector<std::size_t> perm(n);
    std::iota(perm.begin(), perm.end(), 0);
    std::stable_sort(perm.begin(), perm.end(), [&](auto a, auto b) { return keys[a] < keys[b]; });
    const auto ks = k.to_vector();
    const auto vs = v.to_vector();
    for (size_type i = 0; i < n; ++i) {
      ASSERT_EQ(ks[i], keys[perm[i]]) << "n = " << n << " i = " << i;
      ASSERT_EQ(vs[i], vals[perm[i]]) << "n = " << n << " i = " << i;
    }
  }
}

TEST_P(Primitives, ReduceByKeySumsRuns) {
  Array<std::int32_t> keys(exec(), {1, 1, 2, 5, 5, 5, 1});
  Array<double> vals(exec(), {1, 2, 3, 4, 5, 6, 7});
  Array<std::int32_t> uk;
  Array<double> sums;
  EXPECT_EQ(reduce_by_key(keys, vals, uk, sums), 4);
  EXPECT_EQ(uk.to_vector(), (std::vector<std::int32_t>{1, 2, 5, 1}));
  EXPECT_EQ(sums.to_vector(), (std::vector<double>{3, 3, 15, 7}));
  EXPECT_EQ(uk.location(), exec().location());
}

TEST_P(Primitives, ReduceByKeyLarge) {
  for (size_type n : sizes) {
    std::vector<std::uint64_t> keys(n);
    std::vector<std::int64_t> vals(n);
    std::mt19937 gen(unsigned(n) + 3);
    std::uint64_t key = 0;
    for (size_type i = 0; i < n; ++i) {
      if (gen() % 3 == 0) key += 1 + gen() % 4;
      keys[i] = key;
      vals[i] = std::int64_t(gen() % 1000);
    }
    std::vector<std::uint64_t> ref_keys;
    std::vector<std::int64_t> ref_sums;
    for (size_type i = 0; i < n; ++i) {
      if (i == 0 || keys[i] != keys[i - 1]) {
        ref_keys.push_back(keys[i]);
        ref_sums.push_back(0);
      }
      ref_sums.back() += vals[i];
    }
    Array<std::uint64_t> k(exec(), keys), uk;
    Array<std::int64_t> v(exec(), vals), sums;
    EXPECT_EQ(reduce_by_key(k, v, uk, sums), size_type(ref_keys.size()));
    EXPECT_EQ(uk.to_vector(), ref_keys);
    EXPECT_EQ(sums.to_vector(), ref_sums);
  }
}

TEST_P(Primitives, GatherScatterAndRangeChecks) {
  Array<double> src(exec(), {10, 20, 30, 40});
  Array<std::int32_t> map(exec(), {3, 0, 2});
  Array<double> dst(exec(), 3);
  gather(src, map, dst);
  EXPECT_EQ(dst.to_vector(), (std::vector<double>{40, 10, 30}));
  Array<double> back(exec(), 4, 0.0);
  scatter(dst, map, back);
  EXPECT_EQ(back.to_vector(), (std::vector<double>{10, 0, 30, 40}));
  Array<std::int32_t> bad(exec(), {0, 4, 1});
  EXPECT_THROW(gather(src, bad, dst), invalid_argument);
  Array<double> wrong_size(exec(), 2);
  EXPECT_THROW(gather(src, map, wrong_size), dimension_mismatch);
}

TEST_P(Primitives, FillAllTypes) {
  Array<std::uint8_t> a(exec(), 1000, std::uint8_t{3});
  for (auto v : a.to_vector()) ASSERT_EQ(v, 3);
  Array<float> f(exec(), 77, 1.5f);
  EXPECT_EQ(reduce_sum(f), 77 * 1.5f);
}

TEST_P(Primitives, ConvertRoundsScalesAndCountsWhatOverflows) {
  // double -> float: rounded to nearest, scaled exactly by a power of two
  // first (2^1000 beyond float's range scaled by 2^-996 is 16), values
  // still beyond float's range counted, NaN and infinities passing
  // through uncounted.
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double big = std::ldexp(1.0, 1000), tiny = std::ldexp(1.0, -1060);  // tiny: subnormal
  const Array<double> in(exec(), {1.0 / 3.0, -2.5, big, 1e39, -1e39, inf, nan, tiny});
  Array<float> out(exec(), 8);
  EXPECT_EQ(convert(in, out), 3);  // big, 1e39, -1e39
  const std::vector<float> rounded = out.to_vector();
  EXPECT_EQ(rounded[0], static_cast<float>(1.0 / 3.0));
  EXPECT_EQ(rounded[1], -2.5f);
  EXPECT_TRUE(std::isinf(rounded[2]) && rounded[2] > 0);
  EXPECT_TRUE(std::isinf(rounded[3]) && rounded[3] > 0);
  EXPECT_TRUE(std::isinf(rounded[4]) && rounded[4] < 0);
  EXPECT_TRUE(std::isinf(rounded[5]));
  EXPECT_TRUE(std::isnan(rounded[6]));
  EXPECT_EQ(rounded[7], 0.0f);  // below float's range
  // Scaled by 2^-996: big becomes 16 exactly; the rest underflows to zero
  // or (infinity, NaN) passes through uncounted.
  EXPECT_EQ(convert(in, out, -996), 0);
  EXPECT_EQ(out.to_vector()[2], 16.0f);
  EXPECT_TRUE(std::isinf(out.to_vector()[5]));
  EXPECT_TRUE(std::isnan(out.to_vector()[6]));
  // A subnormal double scaled up by 2^1060 is 1: no factor of that size
  // exists in double, the shift of the exponent does.
  EXPECT_EQ(convert(in, out, 1060), 5);  // 1/3, -2.5, big, +-1e39 overflow now
  EXPECT_EQ(out.to_vector()[7], 1.0f);
  // float -> double, scaled in double: beyond float's range is fine here.
  const Array<float> small(exec(), {1.5f, -3.0f});
  Array<double> wide(exec(), 2);
  EXPECT_EQ(convert(small, wide, 1000), 0);
  EXPECT_EQ(wide.to_vector()[0], 1.5 * big);
  EXPECT_EQ(wide.to_vector()[1], -3.0 * big);
  Array<float> wrong_size(exec(), 7);
  EXPECT_THROW(convert(in, wrong_size), dimension_mismatch);
}

STRATA_INSTANTIATE_ON_EXECUTORS(Primitives);

}  // namespace
}  // namespace strata
