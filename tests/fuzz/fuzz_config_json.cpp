// libFuzzer target: the JSON configuration reader (config_from_json) on
// arbitrary text. Every input must give settings or a strata::error naming
// what was wrong; settings it accepts must survive config_to_json and a
// second read unchanged. Deep nesting must be refused, not recursed into.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "strata/config/solver_config.hpp"
#include "strata/core/error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  strata::config::SolverConfig cfg;
  try {
    cfg = strata::config::config_from_json(text);
  } catch (const strata::error&) {
    return 0;  // refused with a message
  }
  const auto again = strata::config::config_from_json(strata::config::config_to_json(cfg));
  if (!strata::config::same_settings(cfg, again)) std::abort();
  // The checks a front end runs must not throw anything but strata errors.
  try {
    strata::config::ineffective_settings(cfg);
    strata::config::krylov_method(cfg);
    strata::config::hierarchy_params(cfg);
  } catch (const strata::error&) {
  }
  return 0;
}
