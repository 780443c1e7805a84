#pragma once
// Reading JSON text with limits, for the configuration reader
// (src/config/json.cpp) and the strata program's --config file: the nesting
// depth is checked by a SAX pass before any document is built, so that
// nothing afterwards (building the DOM, converting between json types,
// dumping a value into a message, collecting keys) recurses deeper than
// max_json_depth, whatever the input. Internal: no installed header includes
// nlohmann-json.

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "strata/core/error.hpp"

namespace strata::config::detail {

/// Objects and arrays nested deeper than this are refused. A configuration
/// is four levels deep ("preconditioner.amg.classical.seed").
constexpr std::size_t max_json_depth = 32;

/// Checks the depth of the text without building anything; stops at the
/// first object or array past the limit, or at a syntax error.
class JsonDepthCheck final : public nlohmann::json_sax<nlohmann::ordered_json> {
 public:
  using Json = nlohmann::ordered_json;

  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(Json::number_integer_t) override { return true; }
  bool number_unsigned(Json::number_unsigned_t) override { return true; }
  bool number_float(Json::number_float_t, const Json::string_t&) override { return true; }
  bool string(Json::string_t&) override { return true; }
  bool binary(Json::binary_t&) override { return true; }
  bool start_object(std::size_t) override { return enter(); }
  bool key(Json::string_t&) override { return true; }
  bool end_object() override { return leave(); }
  bool start_array(std::size_t) override { return enter(); }
  bool end_array() override { return leave(); }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& e) override {
    syntax_error = e.what();
    return false;
  }

  bool too_deep = false;
  std::string syntax_error;

 private:
  bool enter() {
    too_deep = ++depth_ > max_json_depth;
    return !too_deep;
  }
  bool leave() {
    --depth_;
    return true;
  }
  std::size_t depth_ = 0;
};

/// Parses `text` after checking its depth. Errors (invalid_argument) start
/// with `what` ("config", "config: 'file.json'") and say what was wrong.
inline nlohmann::ordered_json parse_json_limited(std::string_view text, const std::string& what) {
  JsonDepthCheck check;
  const bool complete = nlohmann::ordered_json::sax_parse(text, &check);
  if (check.too_deep) {
    throw invalid_argument(what + ": objects and arrays are nested more than " +
                           std::to_string(max_json_depth) +
                           " levels deep; a configuration needs at most 4");
  }
  if (!complete) throw invalid_argument(what + " is not valid JSON: " + check.syntax_error);
  return nlohmann::ordered_json::parse(text);
}

/// A JSON value as text for an error message, cut short: a wrong value may
/// be a large array.
inline std::string shown_json(const nlohmann::ordered_json& v) {
  constexpr std::size_t max_shown = 80;
  std::string text = v.dump();
  if (text.size() > max_shown) text = text.substr(0, max_shown) + "...";
  return text;
}

}  // namespace strata::config::detail
