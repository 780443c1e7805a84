#pragma once
// Reading `strata solve --config FILE.json`: every key is checked, an unknown
// key or a value of the wrong type is an error that names the key by its
// full path ("preconditioner.amg.cycle"), so a typo never goes unnoticed.

#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

namespace strata::app {

/// Setters for the keys of one JSON object, by name.
using FieldTable = std::map<std::string, std::function<void(const nlohmann::json&)>>;

/// Applies `fields` to every key of the object `j` found at `path`.
/// Throws invalid_argument for a non-object, an unknown key (listing the
/// known ones) or, through the setters, a value of the wrong type.
void read_object(const nlohmann::json& j, const std::string& path, const FieldTable& fields);

/// Typed setters for FieldTable entries; each checks the JSON type and
/// names `path` in its error.
std::function<void(const nlohmann::json&)> number(double& target, const std::string& path);
std::function<void(const nlohmann::json&)> integer(int& target, const std::string& path);
std::function<void(const nlohmann::json&)> integer(long long& target, const std::string& path);
std::function<void(const nlohmann::json&)> boolean(bool& target, const std::string& path);
std::function<void(const nlohmann::json&)> text(std::string& target, const std::string& path);

/// Parses FILE as JSON; errors name the file and, for syntax errors, the byte.
nlohmann::json read_json_file(const std::string& path);

}  // namespace strata::app
