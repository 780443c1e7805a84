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
/// An integer outside long long's range is an error, never truncated.
using JsonSetter = std::function<void(const nlohmann::ordered_json&)>;
JsonSetter integer(long long& target, const std::string& path);
JsonSetter boolean(bool& target, const std::string& path);
JsonSetter text(std::string& target, const std::string& path);

/// Parses FILE as JSON (ordered_json, the library's type: nothing converts
/// between the two recursively); errors (io_error) name the file and, for
/// syntax errors, the byte. Objects and arrays nested deeper than the
/// library's limit are refused before a document is built.
nlohmann::ordered_json read_json_file(const std::string& path);

}  // namespace strata::app
