// libFuzzer target: the MatrixMarket reader on arbitrary bytes. Every input
// must end in a matrix, a dense block or vector, or a strata::error (an
// io_error naming the file and line, or out_of_memory); anything else (a
// crash, another exception, a sanitizer report, an allocation past
// -rss_limit_mb) is a finding.

#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "strata/core/error.hpp"
#include "strata/io/matrix_market.hpp"

namespace {

// The reader takes a path: each input is written to one scratch file.
const std::string& scratch_path() {
  static const std::string path = [] {
    char name[] = "/tmp/strata_fuzz_mm_XXXXXX";
    const int fd = ::mkstemp(name);
    if (fd < 0) std::abort();
    ::close(fd);
    return std::string(name);
  }();
  return path;
}

template <class F>
void expect_result_or_strata_error(F&& read) {
  try {
    read();
  } catch (const strata::error&) {
    // A refusal with a message: what bad input should get.
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string& path = scratch_path();
  std::FILE* file = std::fopen(path.c_str(), "wb");
  if (file == nullptr) std::abort();
  if (size > 0 && std::fwrite(data, 1, size, file) != size) std::abort();
  std::fclose(file);

  expect_result_or_strata_error([&] {
    const auto A = strata::io::read_matrix_market(path);
    A.validate();  // what the reader returns is a valid CSR matrix
  });
  expect_result_or_strata_error([&] { strata::io::read_matrix_market_header(path); });
  expect_result_or_strata_error([&] { strata::io::read_matrix_market_dense(path); });
  expect_result_or_strata_error([&] { strata::io::read_matrix_market_vector(path); });
  return 0;
}
