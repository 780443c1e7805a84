#include "config.hpp"

#include <fstream>
#include <sstream>

#include "strata/core/error.hpp"

namespace strata::app {

using nlohmann::json;

namespace {
[[noreturn]] void wrong_type(const std::string& path, const char* expected, const json& v) {
  throw invalid_argument("config: '" + path + "' must be " + expected + ", got " +
                         std::string(v.type_name()) + " " + v.dump());
}
}  // namespace

std::function<void(const json&)> integer(long long& target, const std::string& path) {
  return [&target, path](const json& v) {
    if (!v.is_number_integer()) wrong_type(path, "an integer", v);
    target = v.get<long long>();
  };
}

std::function<void(const json&)> boolean(bool& target, const std::string& path) {
  return [&target, path](const json& v) {
    if (!v.is_boolean()) wrong_type(path, "true or false", v);
    target = v.get<bool>();
  };
}

std::function<void(const json&)> text(std::string& target, const std::string& path) {
  return [&target, path](const json& v) {
    if (!v.is_string()) wrong_type(path, "a string", v);
    target = v.get<std::string>();
  };
}

json read_json_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw io_error("config: cannot open '" + path + "'");
  std::stringstream buffer;
  buffer << in.rdbuf();
  try {
    return json::parse(buffer.str());
  } catch (const json::parse_error& e) {
    throw io_error("config: '" + path + "' is not valid JSON: " + e.what());
  }
}

}  // namespace strata::app
