#include "config.hpp"

#include <fstream>
#include <sstream>

#include "strata/core/error.hpp"

namespace strata::app {

using nlohmann::json;

void read_object(const json& j, const std::string& path, const FieldTable& fields) {
  if (!j.is_object()) {
    throw invalid_argument("config: '" + path + "' must be an object, got " +
                           std::string(j.type_name()));
  }
  for (const auto& [key, value] : j.items()) {
    const auto it = fields.find(key);
    if (it == fields.end()) {
      std::string known;
      for (const auto& [name, setter] : fields) known += (known.empty() ? "" : ", ") + name;
      throw invalid_argument("config: unknown key '" + (path.empty() ? key : path + "." + key) +
                             "'; expected one of: " + known);
    }
    it->second(value);
  }
}

namespace {
[[noreturn]] void wrong_type(const std::string& path, const char* expected, const json& v) {
  throw invalid_argument("config: '" + path + "' must be " + expected + ", got " +
                         std::string(v.type_name()) + " " + v.dump());
}
}  // namespace

std::function<void(const json&)> number(double& target, const std::string& path) {
  return [&target, path](const json& v) {
    if (!v.is_number()) wrong_type(path, "a number", v);
    target = v.get<double>();
  };
}

std::function<void(const json&)> integer(int& target, const std::string& path) {
  return [&target, path](const json& v) {
    if (!v.is_number_integer()) wrong_type(path, "an integer", v);
    target = v.get<int>();
  };
}

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
