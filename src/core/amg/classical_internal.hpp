#pragma once
// Internal to classical coarsening: one interpolation stage (its roles, its
// untruncated operator, the truncation's choice) and the functions that
// build it and refresh its values, shared by the serial coarsening
// (classical.cpp) and the distributed one (distributed_classical.cpp), which
// runs the same stage on each process's extended local problem so that both
// compute P the same way.

#include <optional>

#include "core/amg/stage_timer.hpp"
#include "core/sparse_product_checks.hpp"
#include "kernels/amg/classical_kernels.hpp"
#include "strata/amg/classical.hpp"
#include "strata/matrix/spgemm.hpp"

namespace strata::amg::detail {

namespace ck = kernels::classical;

inline ck::MmVariant mm_variant(Interpolation kind) {
  switch (kind) {
    case Interpolation::mm_ext:
      return ck::MmVariant::ext;
    case Interpolation::mm_ext_i:
      return ck::MmVariant::ext_i;
    case Interpolation::mm_ext_e:
      return ck::MmVariant::ext_e;
    case Interpolation::direct:
      break;
  }
  return ck::MmVariant::ext;
}

/// One interpolation operator of a level (P, or P1 or P2 of two-stage
/// interpolation), kept for refresh: its roles, its untruncated form, and
/// which entries truncation kept.
template <class T>
struct InterpolationStage {
  Interpolation kind = Interpolation::mm_ext_i;
  Array<std::int32_t> role;
  Array<index_type> cmap, dmap;
  size_type nc = 0, nd = 0;
  std::optional<ck::MmOperands<T>> operands;
  std::optional<SparseProduct<CsrMatrix<T>>> product;  // MM: untruncated = AFF AFC
  CsrMatrix<T> direct;                                 // direct: untruncated
  bool truncated = false;
  bool sorted_rows = false;
  /// release(): operands, product and direct were freed (the lean resetup);
  /// refresh_stage() rebuilds them, checks the untruncated pattern against
  /// this fingerprint, and frees them again.
  bool released = false;
  strata::detail::OperandPattern untruncated_pattern;

  const CsrMatrix<T>& untruncated() const { return product ? product->result() : direct; }

  ck::InterpolationInput<T> input(const CsrMatrix<T>& A, const Array<std::uint8_t>& strong) const {
    ck::InterpolationInput<T> in;
    in.n = A.rows();
    in.nnz = A.nnz();
    in.row_ptr = A.row_ptr().data();
    in.col_idx = A.col_idx().data();
    in.values = A.values().data();
    in.strong = strong.data();
    in.role = role.data();
    in.cmap = cmap.data();
    in.dmap = dmap.data();
    in.nc = nc;
    in.nd = nd;
    in.sorted_rows = sorted_rows;
    return in;
  }
};

/// Truncates P (or copies it when truncation is off). The result's pattern
/// is the choice: truncated_values() finds its entries in P by column.
template <class T>
CsrMatrix<T> truncate(const CsrMatrix<T>& P, int max_elements, double factor, bool& truncated) {
  truncated = max_elements > 0 || factor > 0;
  if (!truncated) return P.clone();
  Array<offset_type> source;
  return P.executor().visit(
      [&](const auto& e) { return ck::truncate(e, P, max_elements, factor, source); });
}

/// New values of a truncate() result for new values of P (same patterns).
template <class T>
void truncated_values(const CsrMatrix<T>& P, bool truncated, CsrMatrix<T>& result) {
  if (!truncated) {
    copy(P.values(), result.values());
    return;
  }
  const size_type missing = P.executor().visit(
      [&](const auto& e) { return ck::truncated_values_by_columns(e, P, result); });
  require(missing == 0, "classical coarsening: refresh: " + std::to_string(missing) +
                            " rows of the truncated interpolation have entries the untruncated "
                            "one lacks (internal error: the patterns changed)");
}

/// Builds the stage's untruncated operator and returns it truncated. With
/// `parts`, the parts' times are added there.
template <class T>
CsrMatrix<T> build(InterpolationStage<T>& s, const CsrMatrix<T>& A,
                   const Array<std::uint8_t>& strong, int max_elements, double factor,
                   StageTimes* parts) {
  const Executor& exec = A.executor();
  StageTimes unused;
  StageTimes& times = parts ? *parts : unused;
  if (s.kind == Interpolation::mm_ext_i) {
    s.sorted_rows = exec.visit([&](const auto& e) {
      return ck::rows_sorted(e, A.rows(), A.row_ptr().data(), A.col_idx().data());
    });
  }
  const auto in = s.input(A, strong);
  {
    PartTimer t(parts != nullptr, exec, times, "interpolation: operands");
    exec.visit([&](const auto& e) {
      if (s.kind == Interpolation::direct) {
        s.direct = ck::direct_interpolation(e, in);
      } else {
        s.operands = ck::mm_operands(e, in, mm_variant(s.kind));
      }
    });
  }
  if (s.operands) {
    PartTimer t(parts != nullptr, exec, times, "interpolation: product");
    s.product.emplace(s.operands->AFF, s.operands->AFC);
  }
  PartTimer t(parts != nullptr, exec, times, "interpolation: truncation");
  return truncate(s.untruncated(), max_elements, factor, s.truncated);
}

template <class T>
kernels::spgemm::Pattern pattern_of(const CsrMatrix<T>& M) {
  return {M.rows(), M.cols(), M.nnz(), M.row_ptr().data(), M.col_idx().data()};
}

/// The operands, their product and the untruncated operator freed.
template <class T>
void free_untruncated(InterpolationStage<T>& s) {
  s.operands.reset();
  s.product.reset();
  s.direct = CsrMatrix<T>{};
}

/// Frees what refresh_stage() can rebuild from A, the strength flags and the
/// roles: the operands, their product and the untruncated operator (the
/// lean resetup). The roles and the truncation's choice stay.
template <class T>
void release(InterpolationStage<T>& s) {
  if (s.released) return;
  const CsrMatrix<T>& W = s.untruncated();
  s.untruncated_pattern = strata::detail::describe_pattern(W.executor(), pattern_of(W));
  free_untruncated(s);
  s.released = true;
}

/// New values of the stage's operator P for new values of A. A released
/// stage builds its operands and untruncated operator afresh (pattern and
/// values; the pattern follows from the strength flags and roles, and is
/// checked), takes the values and frees them again.
template <class T>
void refresh_stage(InterpolationStage<T>& s, const CsrMatrix<T>& A,
                   const Array<std::uint8_t>& strong, CsrMatrix<T>& P) {
  const auto in = s.input(A, strong);
  A.executor().visit([&](const auto& e) {
    if (s.kind == Interpolation::direct) {
      if (s.released) {
        s.direct = ck::direct_interpolation(e, in);
      } else {
        ck::direct_interpolation_values(e, in, s.direct);
      }
    } else if (s.released) {
      s.operands = ck::mm_operands(e, in, mm_variant(s.kind));
    } else {
      ck::mm_operand_values(e, in, mm_variant(s.kind), *s.operands);
    }
  });
  if (s.released) {
    if (s.operands) s.product.emplace(s.operands->AFF, s.operands->AFC);
    strata::detail::check_pattern_unchanged(
        "classical coarsening: refresh", "the untruncated interpolation", A.executor(),
        pattern_of(s.untruncated()), s.untruncated_pattern, "nonzeros");
  } else if (s.product) {
    s.product->recompute(s.operands->AFF, s.operands->AFC);
  }
  truncated_values(s.untruncated(), s.truncated, P);
  if (s.released) free_untruncated(s);
}

}  // namespace strata::amg::detail
