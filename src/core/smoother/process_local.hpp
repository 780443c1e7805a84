#pragma once
// The Gauss-Seidel and ILU smoothers on a distributed level, in hypre's
// hybrid form (make_smoother's dispatch, smoothers.cpp).

#include <functional>
#include <memory>

#include "strata/smoother/smoother.hpp"

namespace strata::detail {

/// Builds a serial smoother on one process's part of a distributed level.
template <class T>
using LocalSmootherFactory =
    std::function<std::unique_ptr<Smoother<T>>(std::shared_ptr<const LevelOperator<T>>)>;

/// The smoother `make_local` builds, run in hybrid form on the distributed
/// level A (A->distributed()): each process relaxes its own rows with it,
/// built on its diagonal block with the l1 norm of each row's off-process
/// entries added to the row's diagonal entry (away from zero), and takes
/// the other processes' values from the start of the sweep: Jacobi between
/// processes, the serial smoother within one (hypre's relax 3/4/6, with the
/// l1 term of relax 8/13/14/88/89, which keeps the sweep convergent for
/// SPD A however strongly the processes couple). One sweep is
/// x <- x + M^-1 (b - A x): one distributed residual (one halo exchange)
/// and one application of the local smoother from zero. Collective: a
/// process whose part cannot be smoothed (a zero or missing diagonal entry)
/// throws, and the others throw with it.
template <class T>
std::unique_ptr<Smoother<T>> make_process_local(std::shared_ptr<const LevelOperator<T>> A,
                                                const LocalSmootherFactory<T>& make_local);

}  // namespace strata::detail
