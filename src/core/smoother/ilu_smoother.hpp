#pragma once
// The ILU smoother (strata/smoother/ilu.hpp), built by make_smoother for
// IluParams.

#include <memory>
#include <string>

#include "strata/smoother/smoother.hpp"

namespace strata::detail {

/// "ilu0", "iluk" or "ilut".
std::string ilu_name(const IluParams& params);

/// Factors A (a CSR level: invalid_argument naming its kind otherwise) and
/// analyses both triangular solves. Parameters out of range and breakdowns
/// of the factorization throw invalid_argument naming them.
template <class T>
std::unique_ptr<Smoother<T>> make_ilu_smoother(std::shared_ptr<const LevelOperator<T>> A,
                                               const IluParams& params);

}  // namespace strata::detail
