#include "config.hpp"

#include <fstream>
#include <limits>
#include <sstream>

#include "config/json_limits.hpp"
#include "strata/core/error.hpp"

namespace strata::app {

using json = nlohmann::ordered_json;

namespace {
[[noreturn]] void wrong_type(const std::string& path, const char* expected, const json& v) {
  throw invalid_argument("config: '" + path + "' must be " + expected + ", got " +
                         std::string(v.type_name()) + " " + config::detail::shown_json(v));
}
}  // namespace

JsonSetter integer(long long& target, const std::string& path) {
  return [&target, path](const json& v) {
    if (!v.is_number_integer() ||
        (v.is_number_unsigned() &&
         v.get<unsigned long long>() >
             static_cast<unsigned long long>(std::numeric_limits<long long>::max()))) {
      wrong_type(path, "an integer", v);
    }
    target = v.get<long long>();
  };
}

JsonSetter boolean(bool& target, const std::string& path) {
  return [&target, path](const json& v) {
    if (!v.is_boolean()) wrong_type(path, "true or false", v);
    target = v.get<bool>();
  };
}

JsonSetter text(std::string& target, const std::string& path) {
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
  // Malformed JSON is a file error (exit 1), as a malformed MatrixMarket
  // file is; the settings it holds are judged later.
  try {
    return config::detail::parse_json_limited(buffer.str(), "config: '" + path + "'");
  } catch (const invalid_argument& e) {
    throw io_error(e.message());
  }
}

}  // namespace strata::app
