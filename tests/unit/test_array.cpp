// Array and Executor: ownership, explicit copies, location checks.

#include <gtest/gtest.h>

#include <memory>
#include <span>
#include <vector>

#include "strata/core/array.hpp"
#include "strata/core/primitives.hpp"
#include "test_util.hpp"

namespace strata {
namespace {

TEST(Executor, HostIsDefaultAndNamed) {
  Executor e;
  EXPECT_TRUE(e.is_host());
  EXPECT_EQ(e.name(), "host");
  EXPECT_EQ(e, Executor::host(3));  // one host memory, whatever the threads
  EXPECT_THROW(HostExec(-1), invalid_argument);
}

TEST(Executor, CudaWithoutDeviceIsAClearError) {
  if (cuda_available()) GTEST_SKIP() << "a CUDA device is present";
  try {
    Executor::cuda();
    FAIL() << "expected an exception";
  } catch (const error& e) {
    // not_compiled in a CPU build, cuda_error without a device.
    EXPECT_TRUE(dynamic_cast<const not_compiled*>(&e) || dynamic_cast<const cuda_error*>(&e));
  }
}

TEST(Array, ConstructFillAndCopy) {
  Array<double> a(Executor::host(), 5, 2.5);
  EXPECT_EQ(a.size(), 5);
  EXPECT_EQ(a.location(), Location::host);
  for (double v : a.host_view()) EXPECT_EQ(v, 2.5);
  Array<double> b = a.to(Executor::host());
  b.host_view()[0] = 1.0;
  EXPECT_EQ(a.host_view()[0], 2.5) << "to() must be a deep copy";
  Array<double> c(Executor::host(), {1.0, 2.0, 3.0});
  EXPECT_EQ(c.to_vector(), (std::vector<double>{1.0, 2.0, 3.0}));
  Array<double> moved = std::move(c);
  EXPECT_EQ(moved.size(), 3);
  EXPECT_EQ(c.size(), 0);  // NOLINT(bugprone-use-after-move): moved-from is empty
}

// Span stands in for std::span in the public headers (C++17 consumers):
// C++20 code passes std::span in and takes it out, const added or not.
TEST(Span, ConvertsToAndFromStdSpan) {
  Array<double> a(Executor::host(), 4, 1.5);
  const Span<double> view = a.host_view();
  const std::span<double> mutable_std = view;
  const std::span<const double> const_std = view;
  const Span<const double> back = const_std;
  const Span<const double> from_std(mutable_std);
  EXPECT_EQ(mutable_std.data(), a.data());
  EXPECT_EQ(const_std.size(), 4u);
  EXPECT_EQ(back.data(), a.data());
  EXPECT_EQ(from_std.size(), 4u);
  mutable_std[3] = 2.5;
  EXPECT_EQ(back.back(), 2.5);
  EXPECT_EQ(view.subspan(1, 2).size(), 2u);
  EXPECT_EQ(view.subspan(1).size(), 3u);
  const std::span<double> from_temporary = a.host_view();
  EXPECT_EQ(from_temporary.size(), 4u);
  std::vector<double> v = {1, 2, 3};
  const Span<const double> of_vector = v;
  double sum = 0;
  for (double x : of_vector) sum += x;
  EXPECT_EQ(sum, 6.0);
}

TEST(Array, AnAliasSharesTheElementsAndKeepsTheirOwnerAlive) {
  const Executor host = Executor::host();
  const std::size_t before = host.memory_stats().in_use;
  auto owner = std::make_shared<Array<int>>(host, std::vector<int>{1, 2, 3});
  Array<int> alias = Array<int>::alias(*owner, owner);
  EXPECT_TRUE(alias.is_alias());
  EXPECT_FALSE(owner->is_alias());
  EXPECT_EQ(alias.data(), owner->data());
  const std::size_t held = host.memory_stats().in_use;
  EXPECT_EQ(held, before + 3 * sizeof(int));  // nothing allocated for the alias
  // The alias outlives the owner's other handles, and moves keep it alive.
  const int* data = owner->data();
  owner.reset();
  Array<int> moved = std::move(alias);
  EXPECT_EQ(moved.data(), data);
  EXPECT_EQ(moved.to_vector(), (std::vector<int>{1, 2, 3}));
  EXPECT_EQ(host.memory_stats().in_use, held);
  moved = Array<int>();  // the last handle: the owner frees the elements once
  EXPECT_EQ(host.memory_stats().in_use, before);
  EXPECT_THROW(Array<int>::alias(Array<int>(host, 2), nullptr), invalid_argument);
}

TEST(Array, CopyChecksSizes) {
  Array<int> a(Executor::host(), 3, 1), b(Executor::host(), 4, 0);
  EXPECT_THROW(copy(a, b), dimension_mismatch);
  Array<int> c(Executor::host(), 3, 0);
  copy(a, c);
  EXPECT_EQ(c.to_vector(), (std::vector<int>{1, 1, 1}));
}

TEST(Array, NegativeSizeIsRejected) {
  EXPECT_THROW(Array<double>(Executor::host(), -1), invalid_argument);
}

TEST(Array, HostOutOfMemoryIsCatchable) {
  // A request no machine can satisfy: the error is catchable and names the size.
  try {
    Array<double> huge(Executor::host(), size_type{1} << 60);
    FAIL() << "expected out_of_memory";
  } catch (const out_of_memory& e) {
    EXPECT_GT(e.requested_bytes(), 0u);
    EXPECT_NE(std::string(e.what()).find("bytes"), std::string::npos);
  }
  Array<double> fine(Executor::host(), 10, 0.0);  // and the allocator still works
  EXPECT_EQ(fine.size(), 10);
}

TEST(Array, HostMemoryStatsTrackPeak) {
  Executor host;
  host.reset_peak_memory();
  const auto before = host.memory_stats().in_use;
  {
    Array<double> a(host, 1 << 20);
    EXPECT_GE(host.memory_stats().in_use, before + (8u << 20));
  }
  EXPECT_EQ(host.memory_stats().in_use, before);
  EXPECT_GE(host.memory_stats().peak_in_use, before + (8u << 20));
}

TEST(ArrayDevice, RoundTripAndLocationChecks) {
  STRATA_REQUIRE_DEVICE();
  auto dev = Executor::cuda();
  Array<double> h(Executor::host(), {1.0, 2.0, 3.0, 4.0});
  Array<double> d = h.to(dev);
  EXPECT_EQ(d.location(), Location::cuda);
  EXPECT_THROW((void)d.host_view(), location_mismatch);
  EXPECT_EQ(d.to_vector(), h.to_vector());
  d.fill(7.0);
  EXPECT_EQ(d.to_vector(), (std::vector<double>{7, 7, 7, 7}));
  Array<double> d2(dev, 4);
  copy(d, d2);
  EXPECT_EQ(d2.to_vector(), d.to_vector());
  // Mixing locations in a kernel is an error, never a silent copy.
  EXPECT_THROW(exclusive_scan(h, d), location_mismatch);
}

TEST(ArrayDevice, OutOfMemoryIsCatchableAndObjectsSurvive) {
  STRATA_REQUIRE_DEVICE();
  auto dev = Executor::cuda();
  Array<double> keep(dev, 1000, 1.0);
  try {
    Array<double> huge(dev, size_type{1} << 50);  // 8 PiB
    FAIL() << "expected out_of_memory";
  } catch (const out_of_memory& e) {
    EXPECT_NE(std::string(e.what()).find("cuda:0"), std::string::npos);
  }
  EXPECT_EQ(reduce_sum(keep), 1000.0);  // earlier objects are intact and usable
  Array<double> after(dev, 1000, 2.0);
  EXPECT_EQ(reduce_sum(after), 2000.0);
}

TEST(ArrayDevice, PoolReportsPeak) {
  STRATA_REQUIRE_DEVICE();
  auto dev = Executor::cuda();
  dev.reset_peak_memory();
  { Array<double> a(dev, 1 << 24); }
  const auto stats = dev.memory_stats();
  EXPECT_GE(stats.peak_in_use, std::size_t{8} << 24);
  EXPECT_GE(stats.reserved, stats.in_use);
}

}  // namespace
}  // namespace strata
