#pragma once
// The distributed SpMV's shape, shared by DistributedCsrMatrix and
// DistributedBsrMatrix: the operand checks, all made before any message is
// posted, and the diagonal block's product run while the halo is in flight.

#include <string>

#include "strata/core/error.hpp"
#include "strata/distributed/halo.hpp"
#include "strata/matrix/vector.hpp"

namespace strata::detail {

/// The checks of y = alpha A x + beta z on a process's block of A (rows x
/// cols, scalar sizes, on `exec`), with `who` naming the caller. Every
/// check comes before the exchange begins: a product that throws later
/// would leave messages posted that this process never completes.
template <class T>
void check_product_operands(const char* who, const Executor& exec, size_type rows, size_type cols,
                            const Vector<T>& x, const Vector<T>& z, const Vector<T>& y) {
  check_location(exec, x.executor(), "x", who);
  check_location(exec, y.executor(), "y", who);
  check_location(exec, z.executor(), "z", who);
  if (x.size() != cols || y.size() != rows || z.size() != rows) {
    throw dimension_mismatch(std::string(who) + ": this process's block of A is " +
                             std::to_string(rows) + " x " + std::to_string(cols) + ", x has " +
                             std::to_string(x.size()) + " entries, y " + std::to_string(y.size()) +
                             ", z " + std::to_string(z.size()) +
                             "; expected x of local_cols() and y, z of local_rows() entries");
  }
  if (x.size() > 0 && (x.data() == y.data() || x.data() == z.data())) {
    throw invalid_argument(std::string(who) + ": x is also " + (x.data() == y.data() ? "y" : "z") +
                           "; y = alpha A x + beta z needs x in separate storage");
  }
}

/// Runs `diagonal()` while the ghosts of x are in flight, then
/// `off_diagonal(ghosts)` once they have arrived; without neighbours,
/// `diagonal()` alone (a process whose rows reach no other process's
/// columns, or one process).
template <class T, class Diagonal, class OffDiagonal>
void overlapped_product(const HaloPlan& plan, HaloExchange<T>& exchange, const Vector<T>& x,
                        Diagonal&& diagonal, OffDiagonal&& off_diagonal) {
  const bool exchanges = !plan.sends().empty() || !plan.receives().empty();
  if (exchanges) exchange.begin(x);
  diagonal();
  if (exchanges) off_diagonal(exchange.finish());
}

}  // namespace strata::detail
