#pragma once
// What the kept sparse products (SparseProduct of CSR and of BSR matrices)
// check when they recompute: an operand must still have the pattern it had
// when the product was built. Defined in core/spgemm.cpp.

#include "kernels/matrix/spgemm_kernels.hpp"
#include "strata/core/executor.hpp"
#include "strata/matrix/spgemm.hpp"

namespace strata::detail {

/// The shape, entry count and pattern fingerprint of P (on exec).
OperandPattern describe_pattern(const Executor& exec, const kernels::spgemm::Pattern& P);

/// Throws invalid_argument, naming `who` (the caller, for the message),
/// `name` (the operand) and what differs, unless P (on exec) still has the
/// shape, entry count and fingerprint of `expected`. `entries` names what P
/// counts ("nonzeros" for CSR, "blocks" for BSR).
void check_pattern_unchanged(const char* who, const char* name, const Executor& exec,
                             const kernels::spgemm::Pattern& P, const OperandPattern& expected,
                             const char* entries);

/// check_pattern_unchanged() without the fingerprint: shape and entry count
/// only, no pass over the pattern and no wait. For operands the caller
/// vouches for (recompute_trusted), whose sizes are still worth the check.
void check_shape_unchanged(const char* who, const char* name, const kernels::spgemm::Pattern& P,
                           const OperandPattern& expected, const char* entries);

}  // namespace strata::detail
