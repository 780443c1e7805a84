#include "strata/core/error.hpp"

#include <string>

namespace strata {

namespace {
std::string with_location(const std::string& message, const SourceLocation& where) {
  std::string file = where.file_name();
  // Keep the path from the repository root on, which is what a reader needs.
  for (const char* root : {"/src/", "/include/", "/apps/", "/tests/"}) {
    if (const auto pos = file.rfind(root); pos != std::string::npos) {
      file = file.substr(pos + 1);
      break;
    }
  }
  return message + " [" + where.function_name() + " at " + file + ":" +
         std::to_string(where.line()) + "]";
}
}  // namespace

error::error(const std::string& message, SourceLocation where)
    : std::runtime_error(with_location(message, where)), message_(message), where_(where) {}

}  // namespace strata
