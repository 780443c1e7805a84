// Agglomeration of small distributed levels onto one process
// (src/core/distributed/agglomeration.hpp).

#include "core/distributed/agglomeration.hpp"

#include <utility>
#include <vector>

#include "core/amg/stage_timer.hpp"
#include "strata/distributed/operator.hpp"
#include "strata/distributed/rows.hpp"

namespace strata::detail {

namespace {

using amg::detail::StageTimer;

template <class T>
const DistributedCsrMatrix<T>* distributed_matrix(const LevelOperator<T>& op) {
  const auto* d = dynamic_cast<const DistributedOperator<T>*>(&op);
  return d ? &d->matrix() : nullptr;
}

/// How many processes own rows under `partition`.
inline int owners(const RowPartition& partition) {
  int count = 0;
  for (int r = 0; r < partition.processes(); ++r) count += partition.local_size(r) > 0;
  return count;
}

/// The identity from the rows of `from` to the same global rows all on
/// process 0: rows split like `from`, columns on process 0.
template <class T>
DistributedCsrMatrix<T> gather_onto_first(const RowPartition& from, const Executor& exec) {
  const size_type n = from.local_size();
  std::vector<offset_type> ptr(static_cast<std::size_t>(n) + 1);
  std::vector<global_index> cols(static_cast<std::size_t>(n));
  for (size_type i = 0; i < n; ++i) {
    ptr[static_cast<std::size_t>(i) + 1] = i + 1;
    cols[static_cast<std::size_t>(i)] = from.begin() + i;
  }
  std::vector<global_index> offsets(static_cast<std::size_t>(from.processes()) + 1,
                                    from.global_size());
  offsets[0] = 0;
  const RowPartition to(from.communicator(), offsets);
  const RowBlock<T> block{Array<offset_type>(exec, ptr), Array<global_index>(exec, cols),
                          Array<T>(exec, n, T{1})};
  return DistributedCsrMatrix<T>(from, to, block);
}

template <class T>
class AgglomeratingCoarsening final : public amg::Coarsening<T> {
 public:
  AgglomeratingCoarsening(std::unique_ptr<amg::Coarsening<T>> inner, size_type rows)
      : inner_(std::move(inner)), rows_(rows) {}

  std::optional<amg::Transfer<T>> coarsen(const LevelOperator<T>& A, int level,
                                          amg::StageTimes& times) override {
    auto transfer = inner_->coarsen(A, level, times);
    if (levels_.size() <= static_cast<std::size_t>(level)) levels_.resize(level + 1);
    Level& L = levels_[static_cast<std::size_t>(level)];
    L = Level{};
    if (!transfer) return transfer;
    const DistributedCsrMatrix<T>* P = distributed_matrix(*transfer->P);
    if (P == nullptr || P->global_cols() == 0 || P->global_cols() >= rows_ ||
        owners(P->col_partition()) <= 1) {
      return transfer;
    }
    StageTimer clock(A.executor(), times, "agglomeration");
    L.inner = *transfer;
    L.identity = std::make_shared<const DistributedCsrMatrix<T>>(
        gather_onto_first<T>(P->col_partition(), P->executor()));
    L.product = std::make_unique<DistributedProduct<T>>(*P, *L.identity);
    L.P = std::make_shared<const DistributedOperator<T>>(
        std::shared_ptr<const DistributedCsrMatrix<T>>(L.product->result()));
    // What the inner coarsening keeps per coarse row moves with the rows:
    // x split as before, I^T x split as now.
    const DistributedCsrMatrix<T> move = transpose(*L.identity);
    inner_->move_coarse_rows(level, [&move](const Vector<T>& x) {
      Vector<T> y(x.executor(), move.local_rows());
      move.apply(T{1}, x, T{0}, y, y);
      return y;
    });
    return amg::Transfer<T>{L.P, transposed(*L.product->result())};
  }

  void refresh(const LevelOperator<T>& A, int level, amg::Transfer<T>& transfer,
               amg::StageTimes& times) override {
    Level* L = composed(level);
    if (L == nullptr) return inner_->refresh(A, level, transfer, times);
    require(L->product != nullptr,
            "agglomeration: the refresh data of level " + std::to_string(level) +
                " was released (HierarchyParams::keep_resetup_data = false)");
    inner_->refresh(A, level, L->inner, times);
    StageTimer clock(A.executor(), times, "agglomeration");
    L->product->recompute(*distributed_matrix(*L->inner.P), *L->identity);
    transfer.P = L->P;  // the same object, with the new values
    transfer.R = transposed(*L->product->result());
  }

  std::unique_ptr<CoarseProduct<T>> galerkin(const LevelOperator<T>& R, const LevelOperator<T>& A,
                                             const LevelOperator<T>& P) override {
    for (const Level& L : levels_) {
      if (L.P.get() == &P) return A.galerkin(R, P);  // R' A P', across processes
    }
    return inner_->galerkin(R, A, P);
  }

  void coarsen_as_distributed() override { inner_->coarsen_as_distributed(); }
  void release_refresh_data() override {
    inner_->release_refresh_data();
    for (Level& L : levels_) {
      L.product.reset();
      L.inner = amg::Transfer<T>{};
    }
  }

  void release_rebuildable_data() override { inner_->release_rebuildable_data(); }

  std::string name() const override {
    return inner_->name() + ", distributed levels below " + std::to_string(rows_) +
           " rows gathered onto one process";
  }

 private:
  struct Level {
    amg::Transfer<T> inner;  // the inner coarsening's P and R (for refresh)
    std::shared_ptr<const DistributedCsrMatrix<T>> identity;
    std::unique_ptr<DistributedProduct<T>> product;  // P' = P I
    std::shared_ptr<const DistributedOperator<T>> P;
  };

  Level* composed(int level) {
    if (level < 0 || static_cast<std::size_t>(level) >= levels_.size()) return nullptr;
    Level& L = levels_[static_cast<std::size_t>(level)];
    return L.P ? &L : nullptr;
  }

  static std::shared_ptr<const LevelOperator<T>> transposed(const DistributedCsrMatrix<T>& P) {
    return std::make_shared<const DistributedOperator<T>>(transpose(P));
  }

  std::unique_ptr<amg::Coarsening<T>> inner_;
  size_type rows_;
  std::vector<Level> levels_;
};

}  // namespace

template <class T>
std::unique_ptr<amg::Coarsening<T>> make_agglomerating(std::unique_ptr<amg::Coarsening<T>> inner,
                                                       size_type rows) {
  require(inner != nullptr, "agglomeration: the coarsening is null");
  return std::make_unique<AgglomeratingCoarsening<T>>(std::move(inner), rows);
}

template std::unique_ptr<amg::Coarsening<double>> make_agglomerating<double>(
    std::unique_ptr<amg::Coarsening<double>>, size_type);

}  // namespace strata::detail
