#pragma once
// The distributed SpMV's shape, shared by DistributedCsrMatrix and
// DistributedBsrMatrix: the operand checks, all made before any message is
// posted, and the diagonal block's product run while the halo is in flight.

#include <string>
#include <type_traits>

#include "strata/core/error.hpp"
#include "strata/distributed/halo.hpp"
#include "strata/matrix/vector.hpp"

namespace strata::detail {

/// spmv(A, x, y) on distributed vectors: x split like A's columns and y
/// like its rows (invalid_argument naming the split otherwise), then
/// y = A x. For DistributedCsrMatrix and DistributedBsrMatrix alike.
template <class Matrix, class V>
void spmv_on_distributed_vectors(const Matrix& A, const V& x, V& y) {
  if (x.partition() != A.col_partition()) {
    throw invalid_argument("spmv: x is not split like A's columns (x has " +
                           std::to_string(x.partition().local_size()) + " of " +
                           std::to_string(x.partition().global_size()) + " rows here, A " +
                           std::to_string(A.local_cols()) + " of " +
                           std::to_string(A.global_cols()) + " columns)");
  }
  if (y.partition() != A.row_partition()) {
    throw invalid_argument(
        "spmv: y is not split like A's rows (y has " + std::to_string(y.partition().local_size()) +
        " of " + std::to_string(y.partition().global_size()) + " rows here, A " +
        std::to_string(A.local_rows()) + " of " + std::to_string(A.global_rows()) + ")");
  }
  using T = typename std::decay_t<decltype(y.local())>::value_type;
  A.apply(T{1}, x.local(), T{0}, y.local(), y.local());
}

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
