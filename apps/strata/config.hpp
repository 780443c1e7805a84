#pragma once
// Reading `strata solve --config FILE.json`: the file, and the program's own
// keys (problem, n, rhs, device). The solve settings in it are read by the
// library (strata/config/solver_config.hpp), which checks every key.

#include <functional>
#include <nlohmann/json.hpp>
#include <string>

namespace strata::app {

/// Typed setters of the program's keys; each checks the JSON type and
/// names `path` in its error.
std::function<void(const nlohmann::json&)> integer(long long& target, const std::string& path);
std::function<void(const nlohmann::json&)> boolean(bool& target, const std::string& path);
std::function<void(const nlohmann::json&)> text(std::string& target, const std::string& path);

/// Parses FILE as JSON; errors name the file and, for syntax errors, the byte.
nlohmann::json read_json_file(const std::string& path);

}  // namespace strata::app
