#pragma once
/// \file
/// Index types. Row offsets and nonzero counts are 64-bit so that a matrix of
/// more than 2^31 nonzeros is first-class; column indices of the local block
/// are 32-bit, which halves their memory traffic in SpMV. Overflow is checked
/// and reported, never wrapped.

#include <cstdint>
#include <limits>
#include <string>

#include "strata/core/error.hpp"

namespace strata {

/// Sizes, counts and row offsets.
using size_type = std::int64_t;
/// Row offsets of compressed sparse rows.
using offset_type = std::int64_t;
/// Column indices of the local block.
using index_type = std::int32_t;

/// Converts a count to index_type, throwing invalid_argument when it does not fit.
inline index_type checked_index(size_type value, const char* what,
                                SourceLocation where = SourceLocation::current()) {
  if (value < 0 || value > std::numeric_limits<index_type>::max()) {
    throw invalid_argument(std::string(what) + " = " + std::to_string(value) +
                               " does not fit a 32-bit column index (at most " +
                               std::to_string(std::numeric_limits<index_type>::max()) + ")",
                           where);
  }
  return static_cast<index_type>(value);
}

}  // namespace strata
