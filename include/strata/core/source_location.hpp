#pragma once
/// \file
/// SourceLocation: where an error was detected (file, line, function), taken
/// at the call site as a default argument, as std::source_location is.
///
/// Why not std::source_location: it is C++20 and the public headers are
/// meant to compile as C++17 too; and a library built as C++20 must see the
/// same type in its signatures as a C++17 consumer does. The compiler
/// builtins below (GCC >= 9, Clang >= 9, and the CUDA front end in their
/// modes) are what std::source_location::current() is made of.

#include <cstdint>

namespace strata {

class SourceLocation {
 public:
  constexpr SourceLocation() noexcept = default;
  /// The caller's location: the builtins in default arguments are evaluated
  /// where current() is called, or, as a default argument in turn, where
  /// that function is called.
  static constexpr SourceLocation current(const char* file = __builtin_FILE(),
                                          const char* function = __builtin_FUNCTION(),
                                          std::uint_least32_t line = __builtin_LINE()) noexcept {
    SourceLocation s;
    s.file_ = file;
    s.function_ = function;
    s.line_ = line;
    return s;
  }
  constexpr const char* file_name() const noexcept { return file_; }
  /// The function's name (without its signature, unlike GCC's std::source_location).
  constexpr const char* function_name() const noexcept { return function_; }
  constexpr std::uint_least32_t line() const noexcept { return line_; }

 private:
  const char* file_ = "";
  const char* function_ = "";
  std::uint_least32_t line_ = 0;
};

}  // namespace strata
