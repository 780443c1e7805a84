#include <gtest/gtest.h>

#include <cstdio>

#include "strata/core/executor.hpp"

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  std::printf("[strata] CUDA devices visible: %d%s\n", strata::cuda_device_count(),
              strata::cuda_available() ? "" : " (device tests will be skipped)");
  return RUN_ALL_TESTS();
}
