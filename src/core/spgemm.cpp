// Entry points of the sparse products: operands are checked here, once, and
// the kernels run where A lives.

#include "strata/matrix/spgemm.hpp"

#include <string>

#include "core/sparse_product_checks.hpp"
#include "core/spgemm_internal.hpp"
#include "kernels/matrix/spgemm_kernels.hpp"

namespace strata {

namespace {

template <class T>
kernels::spgemm::Pattern pattern_of(const CsrMatrix<T>& M) {
  return {M.rows(), M.cols(), M.nnz(), M.row_ptr().data(), M.col_idx().data()};
}

std::string shape(const char* name, size_type rows, size_type cols) {
  return std::string(name) + " is " + std::to_string(rows) + " x " + std::to_string(cols);
}

template <class T>
void check_operands(const char* who, const CsrMatrix<T>& A, const CsrMatrix<T>& B) {
  check_location(A.executor(), B.executor(), "B", "A");
  if (A.cols() != B.rows()) {
    throw dimension_mismatch(std::string(who) + ": " + shape("A", A.rows(), A.cols()) + " and " +
                             shape("B", B.rows(), B.cols()) + "; A B needs A.cols() == B.rows()");
  }
}

template <class T>
detail::OperandPattern describe(const CsrMatrix<T>& M) {
  return detail::describe_pattern(M.executor(), pattern_of(M));
}

/// Throws invalid_argument unless M still has the pattern `expected` (its
/// fingerprint only with `fingerprint`; its shape and entry count always).
template <class T>
void check_unchanged(const char* name, const CsrMatrix<T>& M,
                     const detail::OperandPattern& expected, bool fingerprint) {
  const char* who = "SparseProduct::recompute";
  if (fingerprint) {
    detail::check_pattern_unchanged(who, name, M.executor(), pattern_of(M), expected, "nonzeros");
  } else {
    detail::check_shape_unchanged(who, name, pattern_of(M), expected, "nonzeros");
  }
}

}  // namespace

template <class T>
SparseProduct<CsrMatrix<T>>::SparseProduct(const CsrMatrix<T>& A, const CsrMatrix<T>& B)
    : SparseProduct(A, B, false) {}

template <class T>
SparseProduct<CsrMatrix<T>>::SparseProduct(const CsrMatrix<T>& A, const CsrMatrix<T>& B,
                                           bool trusted_b) {
  check_operands("SparseProduct", A, B);
  a_ = describe(A);
  b_ = trusted_b  ? detail::OperandPattern{B.rows(), B.cols(), B.nnz(), 0}
       : &B == &A ? a_
                  : describe(B);
  auto product = A.executor().visit([&](const auto& e) {
    return kernels::spgemm::multiply(e, pattern_of(A), A.values().data(), pattern_of(B),
                                     B.values().data());
  });
  C_ = std::move(product.C);
  schedule_ = std::make_unique<detail::ProductSchedule>(std::move(product.schedule));
  products_ = product.products;
}

template <class T>
SparseProduct<CsrMatrix<T>>::~SparseProduct() = default;
template <class T>
SparseProduct<CsrMatrix<T>>::SparseProduct(SparseProduct&&) noexcept = default;
template <class T>
SparseProduct<CsrMatrix<T>>& SparseProduct<CsrMatrix<T>>::operator=(SparseProduct&&) noexcept =
    default;

template <class T>
void SparseProduct<CsrMatrix<T>>::recompute(const CsrMatrix<T>& A, const CsrMatrix<T>& B) {
  recompute_values(A, B, true, true);
}

template <class T>
void SparseProduct<CsrMatrix<T>>::recompute_values(const CsrMatrix<T>& A, const CsrMatrix<T>& B,
                                                   bool check_a, bool check_b) {
  if (!schedule_) {
    throw invalid_argument("SparseProduct::recompute: this product was moved from");
  }
  check_location(C_.executor(), A.executor(), "A", "the product (SparseProduct::recompute)");
  check_location(C_.executor(), B.executor(), "B", "the product (SparseProduct::recompute)");
  check_unchanged("A", A, a_, check_a);
  if (check_b && &B == &A && b_.fingerprint == a_.fingerprint && b_.rows == a_.rows &&
      b_.cols == a_.cols) {
    check_b = false;  // A A: one check covers both
  }
  check_unchanged("B", B, b_, check_b);
  C_.executor().visit([&](const auto& e) {
    kernels::spgemm::numeric(e, pattern_of(A), A.values().data(), pattern_of(B), B.values().data(),
                             pattern_of(C_), *schedule_, C_.values().data());
  });
}

template <class T>
void SparseProduct<CsrMatrix<T>>::fingerprint_b(const CsrMatrix<T>& B) {
  b_ = describe(B);
}

template <class T>
CsrMatrix<T> spgemm(const CsrMatrix<T>& A, const CsrMatrix<T>& B) {
  check_operands("spgemm", A, B);
  return A.executor().visit([&](const auto& e) {
    return kernels::spgemm::multiply(e, pattern_of(A), A.values().data(), pattern_of(B),
                                     B.values().data())
        .C;
  });
}

namespace detail {

OperandPattern describe_pattern(const Executor& exec, const kernels::spgemm::Pattern& P) {
  const auto fingerprint =
      exec.visit([&](const auto& e) { return kernels::spgemm::pattern_fingerprint(e, P); });
  return {P.rows, P.cols, P.nnz, fingerprint};
}

void check_shape_unchanged(const char* who, const char* name, const kernels::spgemm::Pattern& P,
                           const OperandPattern& expected, const char* entries) {
  if (P.rows != expected.rows || P.cols != expected.cols || P.nnz != expected.nnz) {
    throw invalid_argument(std::string(who) + ": " + name + " is " + std::to_string(P.rows) +
                           " x " + std::to_string(P.cols) + " with " + std::to_string(P.nnz) + " " +
                           entries + "; the product was built for " +
                           std::to_string(expected.rows) + " x " + std::to_string(expected.cols) +
                           " with " + std::to_string(expected.nnz) +
                           " (only values may change; build a new product for a new pattern)");
  }
}

void check_pattern_unchanged(const char* who, const char* name, const Executor& exec,
                             const kernels::spgemm::Pattern& P, const OperandPattern& expected,
                             const char* entries) {
  const auto where = [&] { return std::string(who) + ": " + name + " "; };
  check_shape_unchanged(who, name, P, expected, entries);
  if (describe_pattern(exec, P).fingerprint != expected.fingerprint) {
    throw invalid_argument(where() + "has the product's shape and number of " + entries +
                           " but a different pattern (row offsets or column indices, or "
                           "their order within rows); only values may change: build a new "
                           "product for a new pattern");
  }
}

size_type spgemm_row_products(const Array<offset_type>& a_row_ptr,
                              const Array<index_type>& a_col_idx,
                              const Array<offset_type>& b_row_ptr, Array<offset_type>& work) {
  check_location(a_row_ptr.executor(), a_col_idx.executor(), "a_col_idx", "a_row_ptr");
  check_location(a_row_ptr.executor(), b_row_ptr.executor(), "b_row_ptr", "a_row_ptr");
  check_location(a_row_ptr.executor(), work.executor(), "work", "a_row_ptr");
  const size_type rows = a_row_ptr.size() - 1;
  if (rows < 0 || work.size() != rows) {
    throw dimension_mismatch("spgemm_row_products: work has " + std::to_string(work.size()) +
                             " entries, expected a_row_ptr.size() - 1 = " + std::to_string(rows));
  }
  return a_row_ptr.executor().visit([&](const auto& e) {
    return kernels::spgemm::row_products(e, rows, a_row_ptr.data(), a_col_idx.data(),
                                         b_row_ptr.data(), work.data());
  });
}

std::uint64_t spgemm_staging_budget(std::uint64_t entries) {
  return kernels::spgemm::staging_budget.exchange(entries);
}

bool spgemm_stage_timing(bool on) { return kernels::spgemm::stage_timing.exchange(on); }

size_type spgemm_counts_to_offsets(Array<offset_type>& counts, size_type max_per_row) {
  if (counts.empty()) {
    throw invalid_argument("spgemm_counts_to_offsets: counts is empty; expected rows + 1 entries");
  }
  return counts.executor().visit([&](const auto& e) {
    return kernels::spgemm::counts_to_offsets(e, counts.data(), counts.size() - 1, max_per_row);
  });
}

}  // namespace detail

template class SparseProduct<CsrMatrix<float>>;
template class SparseProduct<CsrMatrix<double>>;
template CsrMatrix<float> spgemm<float>(const CsrMatrix<float>&, const CsrMatrix<float>&);
template CsrMatrix<double> spgemm<double>(const CsrMatrix<double>&, const CsrMatrix<double>&);

}  // namespace strata
