// Settings to and from JSON text, made from the declarations of
// parameters(). nlohmann-json stays inside this file: the public header
// exchanges text.

#include <nlohmann/json.hpp>
#include <set>

#include "config/json_limits.hpp"
#include "strata/config/solver_config.hpp"
#include "strata/core/error.hpp"

namespace strata::config {

namespace {

using json = nlohmann::ordered_json;
using detail::shown_json;

std::string shown_path(const std::string& path) { return path.empty() ? "(top level)" : path; }

/// True when some parameter's path or JSON alias lies below `path`.
bool is_section(const std::string& path) {
  const std::string prefix = path + ".";
  for (const auto& p : parameters()) {
    if (p.path.starts_with(prefix)) return true;
    for (const auto& a : p.json_aliases) {
      if (a.starts_with(prefix)) return true;
    }
  }
  return false;
}

/// The keys an object at `path` may hold, for the unknown-key message.
std::string known_keys(const std::string& path) {
  const std::string prefix = path.empty() ? "" : path + ".";
  std::set<std::string> keys;
  const auto add = [&](const std::string& full) {
    if (!full.starts_with(prefix)) return;
    const std::string rest = full.substr(prefix.size());
    keys.insert(rest.substr(0, rest.find('.')));
  };
  for (const auto& p : parameters()) {
    add(p.path);
    for (const auto& a : p.json_aliases) add(a);
  }
  std::string s;
  for (const auto& k : keys) s += (s.empty() ? "" : ", ") + k;
  return s;
}

/// A JSON value as the parameter's Value, or invalid_argument naming the
/// path, what was expected and what was there.
Value to_value(const Parameter& p, const json& v, const std::string& path) {
  switch (p.type) {
    case ParameterType::boolean:
      if (v.is_boolean()) return v.get<bool>();
      break;
    case ParameterType::integer:
    case ParameterType::unsigned_integer:
      if (v.is_number_unsigned()) return v.get<std::uint64_t>();
      if (v.is_number_integer()) return v.get<std::int64_t>();
      break;
    case ParameterType::number:
      if (v.is_number()) return v.get<double>();
      break;
    case ParameterType::choice:
      if (v.is_string()) return v.get<std::string>();
      break;
  }
  throw invalid_argument("config: '" + path + "' must be " + p.expected() + ", got " +
                         std::string(v.type_name()) + " " + shown_json(v));
}

struct Leaf {
  const Parameter* parameter;
  Value value;
  std::string path;
};

/// Collects the settings of the object `j` at `path`: those by a
/// parameter's own path in `own`, those by an older key in `aliased`.
void collect(const json& j, const std::string& path, std::vector<Leaf>& own,
             std::vector<Leaf>& aliased) {
  if (!j.is_object()) {
    throw invalid_argument("config: '" + shown_path(path) + "' must be an object, got " +
                           std::string(j.type_name()) + " " + shown_json(j));
  }
  for (const auto& [key, value] : j.items()) {
    const std::string full = path.empty() ? key : path + "." + key;
    if (const Parameter* p = find_parameter(full)) {
      own.push_back({p, to_value(*p, value, full), full});
      continue;
    }
    bool is_alias = false;
    for (const auto& p : parameters()) {
      for (const auto& a : p.json_aliases) {
        if (a == full) {
          aliased.push_back({&p, to_value(p, value, full), full});
          is_alias = true;
        }
      }
    }
    if (is_alias) continue;
    if (is_section(full)) {
      collect(value, full, own, aliased);
      continue;
    }
    throw invalid_argument("config: unknown key '" + full +
                           "'; expected one of: " + known_keys(path));
  }
}

json to_json(const Value& v) {
  return std::visit([](const auto& x) { return json(x); }, v);
}

}  // namespace

SolverConfig config_from_json(std::string_view text, const SolverConfig& base) {
  // Depth-checked before a document is built; collect() below recurses
  // once per level.
  const json j = detail::parse_json_limited(text, "config: the text");
  std::vector<Leaf> own, aliased;
  collect(j, "", own, aliased);
  SolverConfig cfg = base;
  // Older keys first, so that a parameter's own key wins.
  for (const auto& leaf : aliased) set_parameter(cfg, *leaf.parameter, leaf.value, leaf.path);
  for (const auto& leaf : own) set_parameter(cfg, *leaf.parameter, leaf.value, leaf.path);
  return cfg;
}

std::string config_to_json(const SolverConfig& cfg, int indent) {
  json root = json::object();
  for (const auto& p : parameters()) {
    json* node = &root;
    std::string_view rest = p.path;
    for (auto dot = rest.find('.'); dot != std::string_view::npos; dot = rest.find('.')) {
      node = &(*node)[std::string(rest.substr(0, dot))];
      rest.remove_prefix(dot + 1);
    }
    (*node)[std::string(rest)] = to_json(p.get(cfg));
  }
  return root.dump(indent);
}

}  // namespace strata::config
