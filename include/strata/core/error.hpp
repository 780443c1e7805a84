#pragma once
/// \file
/// The exceptions Strata throws. Every message names what was wrong (the
/// argument, the value, what was expected) and where it was detected.
///
/// Numerical outcomes (a solver that did not converge) are results, not
/// exceptions. Device code never throws: it records a status word that the
/// host checks and turns into one of these.

#include <cstddef>
#include <stdexcept>
#include <string>

#include "strata/core/source_location.hpp"

namespace strata {

// Each class spells out its constructor: nvcc 13's front end crashes on
// inherited constructors whose default argument is source_location::current().

/// Base of every Strata exception. what() reads
/// "<message> [<function> at <file>:<line>]".
class error : public std::runtime_error {
 public:
  explicit error(const std::string& message,
                 SourceLocation where = SourceLocation::current());
  /// The message without the source location.
  const std::string& message() const noexcept { return message_; }
  const SourceLocation& where() const noexcept { return where_; }

 private:
  std::string message_;
  SourceLocation where_;
};

/// An argument had a value outside what the function accepts.
class invalid_argument : public error {
 public:
  explicit invalid_argument(const std::string& message,
                            SourceLocation where = SourceLocation::current())
      : error(message, where) {}
};

/// Sizes of two operands do not fit together (y = A x with x.size() != A.cols()).
class dimension_mismatch : public error {
 public:
  explicit dimension_mismatch(const std::string& message,
                              SourceLocation where = SourceLocation::current())
      : error(message, where) {}
};

/// Operands live in different places (host versus device, or two devices).
/// Strata never copies behind your back: move data with Array::to() or copy().
class location_mismatch : public error {
 public:
  explicit location_mismatch(const std::string& message,
                             SourceLocation where = SourceLocation::current())
      : error(message, where) {}
};

/// The feature exists but this build does not contain it (CUDA in a CPU-only build).
class not_compiled : public error {
 public:
  explicit not_compiled(const std::string& message,
                        SourceLocation where = SourceLocation::current())
      : error(message, where) {}
};

/// The combination asked for is not implemented yet.
class not_implemented : public error {
 public:
  explicit not_implemented(const std::string& message,
                           SourceLocation where = SourceLocation::current())
      : error(message, where) {}
};

/// A file could not be read or written, or its content is malformed. The
/// message names the file and, for content errors, the line.
class io_error : public error {
 public:
  explicit io_error(const std::string& message,
                    SourceLocation where = SourceLocation::current())
      : error(message, where) {}
};

/// A CUDA runtime call failed.
class cuda_error : public error {
 public:
  explicit cuda_error(const std::string& message,
                      SourceLocation where = SourceLocation::current())
      : error(message, where) {}
};

/// A cuSPARSE call failed.
class cusparse_error : public error {
 public:
  explicit cusparse_error(const std::string& message,
                          SourceLocation where = SourceLocation::current())
      : error(message, where) {}
};

/// An allocation failed. Objects that exist stay valid and can be destroyed.
class out_of_memory : public error {
 public:
  out_of_memory(const std::string& message, std::size_t requested_bytes,
                SourceLocation where = SourceLocation::current())
      : error(message, where), requested_bytes_(requested_bytes) {}
  std::size_t requested_bytes() const noexcept { return requested_bytes_; }

 private:
  std::size_t requested_bytes_;
};

/// Throws invalid_argument with `message` unless `condition` holds.
inline void require(bool condition, const std::string& message,
                    SourceLocation where = SourceLocation::current()) {
  if (!condition) throw invalid_argument(message, where);
}

}  // namespace strata
