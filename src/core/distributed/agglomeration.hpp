#pragma once
// Agglomeration of small distributed levels onto one process (hypre's and
// PETSc GAMG's "processor reduction"), as a decorator of any coarsening;
// amg::Hierarchy applies it when HierarchyParams::agglomeration_rows > 0.

#include <memory>

#include "strata/amg/amg.hpp"

namespace strata::detail {

/// `inner` with its transfers to distributed levels of fewer than `rows`
/// rows (over all processes) composed with a redistribution of the coarse
/// rows onto process 0: P' = P I and R' = P'^T, where I is the identity
/// from the coarse rows as `inner` splits them to all of them on process 0.
/// The coarse level and every level below it then live on one process
/// (the others hold no rows and only join the collectives), so their
/// products exchange no halo and the coarsest level needs no gather.
/// Levels that are not distributed, or already on one process, pass
/// through unchanged; refresh() recomputes P' and R' after inner's.
template <class T>
std::unique_ptr<amg::Coarsening<T>> make_agglomerating(std::unique_ptr<amg::Coarsening<T>> inner,
                                                       size_type rows);

}  // namespace strata::detail
