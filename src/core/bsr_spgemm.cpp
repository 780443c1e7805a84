// Entry points of the blocked sparse products: operands are checked here,
// once; the symbolic phase is the CSR product's kernels on the block
// patterns, the numeric phase the blocked kernel, both where A lives.

#include "strata/matrix/bsr_spgemm.hpp"

#include <optional>
#include <string>
#include <type_traits>
#include <utility>

#include "core/sparse_product_checks.hpp"
#include "kernels/matrix/bsr_spgemm_kernels.hpp"
#include "kernels/matrix/spgemm_kernels.hpp"

namespace strata {

namespace {

template <class T>
kernels::spgemm::Pattern block_pattern_of(const BsrMatrix<T>& M) {
  return {M.block_rows(), M.block_cols(), M.num_blocks(), M.row_ptr().data(), M.col_idx().data()};
}

template <class T>
std::string describe_blocks(const char* name, const BsrMatrix<T>& M) {
  return std::string(name) + " is " + std::to_string(M.rows()) + " x " + std::to_string(M.cols()) +
         " (" + std::to_string(M.block_rows()) + " x " + std::to_string(M.block_cols()) +
         " blocks of " + std::to_string(M.row_block_size()) + "x" +
         std::to_string(M.col_block_size()) + ")";
}

template <class T>
void check_operands(const char* who, const BsrMatrix<T>& A, const BsrMatrix<T>& B) {
  check_location(A.executor(), B.executor(), "B", "A");
  if (A.cols() != B.rows()) {
    throw dimension_mismatch(std::string(who) + ": " + describe_blocks("A", A) + " and " +
                             describe_blocks("B", B) + "; A B needs A.cols() == B.rows()");
  }
  if (A.col_block_size() != B.row_block_size()) {
    throw invalid_argument(std::string(who) + ": A has " + std::to_string(A.row_block_size()) +
                           "x" + std::to_string(A.col_block_size()) + " blocks and B has " +
                           std::to_string(B.row_block_size()) + "x" +
                           std::to_string(B.col_block_size()) +
                           " blocks; a blocked A B needs A's column block size (" +
                           std::to_string(A.col_block_size()) + ") to equal B's row block size (" +
                           std::to_string(B.row_block_size()) + ")");
  }
}

/// C's block pattern, the block products that make it, and how many add
/// into each block of C.
struct BlockPattern {
  Array<offset_type> row_ptr;
  Array<index_type> col_idx;
  Array<float> counts;  // per block of C: the block products adding into it
  size_type block_products = 0;
};

/// The symbolic phase: the CSR product of A's and B's block patterns, by the
/// CSR product's own kernels (binning, hash tables, sorted rows) with unit
/// values in single precision. Reusing the kernels keeps one tuned symbolic
/// phase for both formats; the values it also computes cost one multiply-add
/// per block product, against r m c of the blocked numeric phase, and are
/// the counts a product plan is laid out by (exact: a block of C meets far
/// fewer than 2^24 products).
BlockPattern symbolic(const Executor& exec, const kernels::spgemm::Pattern& A,
                      const kernels::spgemm::Pattern& B) {
  return exec.visit([&](const auto& e) {
    const Array<float> a_ones(exec, A.nnz, 1.0f), b_ones(exec, B.nnz, 1.0f);
    auto product = kernels::spgemm::multiply(e, A, a_ones.data(), B, b_ones.data());
    return BlockPattern{product.C.row_ptr().clone(), product.C.col_idx().clone(),
                        std::move(product.C.values()), product.products};
  });
}

/// C's values from A's and B's on C's block pattern.
template <class T>
void blocked_numeric(const BsrMatrix<T>& A, const BsrMatrix<T>& B, BsrMatrix<T>& C) {
  const kernels::bsr_spgemm::BlockShape shape{A.row_block_size(), A.col_block_size(),
                                              B.col_block_size()};
  C.executor().visit([&](const auto& e) {
    kernels::bsr_spgemm::numeric(e, shape, block_pattern_of(A), A.values().data(),
                                 block_pattern_of(B), B.values().data(), block_pattern_of(C),
                                 C.values().data());
  });
}

/// C = A B (checked operands) with the block products it took, and, when
/// `keep_counts` and C is worth a plan on its device (plannable()), the
/// counts a plan would be laid out by (empty otherwise).
template <class T>
struct Multiplied {
  BsrMatrix<T> C;
  size_type block_products = 0;
  Array<float> counts;
};

template <class T>
Multiplied<T> multiply(const BsrMatrix<T>& A, const BsrMatrix<T>& B, bool keep_counts) {
  const Executor& exec = A.executor();
  if (A.row_block_size() == 1 && A.col_block_size() == 1 && B.col_block_size() == 1) {
    // 1 x 1 blocks (scalar smoothed aggregation) are CSR: on the host one
    // CSR product gives the pattern and the values, summed in the order of
    // the blocked numeric phase, instead of a symbolic product and a second
    // pass. (The device keeps the blocked path and its plan.)
    std::optional<Multiplied<T>> scalar;
    exec.visit([&](const auto& e) {
      if constexpr (std::is_same_v<std::decay_t<decltype(e)>, HostExec>) {
        auto product = kernels::spgemm::multiply(e, block_pattern_of(A), A.values().data(),
                                                 block_pattern_of(B), B.values().data());
        CsrMatrix<T>& C = product.C;
        scalar.emplace(Multiplied<T>{BsrMatrix<T>(C.rows(), C.cols(), 1, 1, C.row_ptr().clone(),
                                                  C.col_idx().clone(), std::move(C.values())),
                                     product.products,
                                     {}});
      }
    });
    if (scalar) return std::move(*scalar);
  }
  BlockPattern pattern = symbolic(exec, block_pattern_of(A), block_pattern_of(B));
  const size_type blocks = pattern.col_idx.size();
  const size_type block = static_cast<size_type>(A.row_block_size()) * B.col_block_size();
  Multiplied<T> out{BsrMatrix<T>(A.block_rows(), B.block_cols(), A.row_block_size(),
                                 B.col_block_size(), std::move(pattern.row_ptr),
                                 std::move(pattern.col_idx), Array<T>(exec, blocks * block)),
                    pattern.block_products,
                    {}};
  const kernels::bsr_spgemm::BlockShape shape{A.row_block_size(), A.col_block_size(),
                                              B.col_block_size()};
  if (keep_counts && exec.is_cuda() && blocks > 0 &&
      kernels::bsr_spgemm::plannable(shape, block_pattern_of(A), block_pattern_of(B), blocks)) {
    out.counts = std::move(pattern.counts);
  }
  blocked_numeric(A, B, out.C);
  return out;
}

/// Throws invalid_argument unless M still has the block sizes and block
/// pattern the product was built for (the pattern's fingerprint only with
/// `fingerprint`; its shape and block count always).
template <class T>
void check_unchanged(const char* name, const BsrMatrix<T>& M, int row_block, int col_block,
                     const detail::OperandPattern& expected, bool fingerprint) {
  const char* who = "SparseProduct<BsrMatrix>::recompute";
  if (M.row_block_size() != row_block || M.col_block_size() != col_block) {
    throw invalid_argument(
        std::string(who) + ": " + name + " has " + std::to_string(M.row_block_size()) + "x" +
        std::to_string(M.col_block_size()) + " blocks; the product was built for " +
        std::to_string(row_block) + "x" + std::to_string(col_block) +
        " (only values may change; build a new product for new blocks)");
  }
  if (fingerprint) {
    detail::check_pattern_unchanged(who, name, M.executor(), block_pattern_of(M), expected,
                                    "blocks");
  } else {
    detail::check_shape_unchanged(who, name, block_pattern_of(M), expected, "blocks");
  }
}

}  // namespace

template <class T>
SparseProduct<BsrMatrix<T>>::SparseProduct(const BsrMatrix<T>& A, const BsrMatrix<T>& B)
    : SparseProduct(A, B, false) {}

template <class T>
SparseProduct<BsrMatrix<T>>::SparseProduct(const BsrMatrix<T>& A, const BsrMatrix<T>& B,
                                           bool trusted_b) {
  check_operands("SparseProduct<BsrMatrix>", A, B);
  a_ = detail::describe_pattern(A.executor(), block_pattern_of(A));
  b_ = trusted_b  ? detail::OperandPattern{B.block_rows(), B.block_cols(), B.num_blocks(), 0}
       : &B == &A ? a_
                  : detail::describe_pattern(B.executor(), block_pattern_of(B));
  inner_block_ = A.col_block_size();
  Multiplied<T> product = multiply(A, B, /*keep_counts=*/true);
  C_ = std::move(product.C);
  block_products_ = product.block_products;
  plan_counts_ = std::move(product.counts);
  built_ = true;
}

template <class T>
SparseProduct<BsrMatrix<T>>::~SparseProduct() = default;

template <class T>
SparseProduct<BsrMatrix<T>>::SparseProduct(SparseProduct&& other) noexcept
    : C_(std::move(other.C_)),
      inner_block_(other.inner_block_),
      a_(other.a_),
      b_(other.b_),
      block_products_(other.block_products_),
      plan_counts_(std::move(other.plan_counts_)),
      plan_ptr_(std::move(other.plan_ptr_)),
      plan_pairs_(std::move(other.plan_pairs_)),
      built_(std::exchange(other.built_, false)) {}

template <class T>
SparseProduct<BsrMatrix<T>>& SparseProduct<BsrMatrix<T>>::operator=(
    SparseProduct&& other) noexcept {
  C_ = std::move(other.C_);
  inner_block_ = other.inner_block_;
  a_ = other.a_;
  b_ = other.b_;
  block_products_ = other.block_products_;
  plan_counts_ = std::move(other.plan_counts_);
  plan_ptr_ = std::move(other.plan_ptr_);
  plan_pairs_ = std::move(other.plan_pairs_);
  built_ = std::exchange(other.built_, false);
  return *this;
}

template <class T>
void SparseProduct<BsrMatrix<T>>::recompute(const BsrMatrix<T>& A, const BsrMatrix<T>& B) {
  recompute_values(A, B, true, true);
}

template <class T>
void SparseProduct<BsrMatrix<T>>::recompute_values(const BsrMatrix<T>& A, const BsrMatrix<T>& B,
                                                   bool check_a, bool check_b) {
  if (!built_) {
    throw invalid_argument("SparseProduct<BsrMatrix>::recompute: this product was moved from");
  }
  const char* who = "the product (SparseProduct<BsrMatrix>::recompute)";
  check_location(C_.executor(), A.executor(), "A", who);
  check_location(C_.executor(), B.executor(), "B", who);
  if (check_b && &B == &A && b_.fingerprint == a_.fingerprint && b_.rows == a_.rows &&
      b_.cols == a_.cols) {
    check_b = false;  // A A: one check covers both
  }
  // An unchecked operand is vouched for by the caller (its fingerprint is
  // not taken), but its sizes, block count and block sizes, which decide how
  // the kernels read it, are checked all the same.
  check_unchanged("A", A, C_.row_block_size(), inner_block_, a_, check_a);
  check_unchanged("B", B, inner_block_, C_.col_block_size(), b_, check_b);
  if (plan_ptr_.size() == 0 && plan_counts_.size() > 0) build_plan(A, B);
  if (plan_ptr_.size() > 0) {
    C_.executor().visit([&](const auto& e) {
      if constexpr (std::is_same_v<std::decay_t<decltype(e)>, CudaExec>) {
        kernels::bsr_spgemm::planned_numeric(
            e, {A.row_block_size(), A.col_block_size(), B.col_block_size()}, C_.num_blocks(),
            plan_ptr_.data(), plan_pairs_.data(), A.values().data(), B.values().data(),
            C_.values().data());
      }
    });
  } else {
    blocked_numeric(A, B, C_);
  }
}

template <class T>
void SparseProduct<BsrMatrix<T>>::build_plan(const BsrMatrix<T>& A, const BsrMatrix<T>& B) {
  Array<float> counts = std::move(plan_counts_);  // used once, whatever happens
  C_.executor().visit([&](const auto& e) {
    if constexpr (std::is_same_v<std::decay_t<decltype(e)>, CudaExec>) {
      try {
        Array<offset_type> ptr(C_.executor(), C_.num_blocks() + 1);
        Array<index_type> pairs(C_.executor(), 2 * block_products_);
        kernels::bsr_spgemm::plan(e, block_pattern_of(A), block_pattern_of(B), block_pattern_of(C_),
                                  counts.data(), block_products_, ptr.data(), pairs.data());
        plan_ptr_ = std::move(ptr);
        plan_pairs_ = std::move(pairs);
      } catch (const out_of_memory&) {
        // The plan is a speed-up: without room for it, the unplanned
        // kernel computes the same values.
      }
    }
  });
}

template <class T>
void SparseProduct<BsrMatrix<T>>::release_plan() noexcept {
  plan_counts_ = Array<float>();
  plan_ptr_ = Array<offset_type>();
  plan_pairs_ = Array<index_type>();
}

template <class T>
void SparseProduct<BsrMatrix<T>>::fingerprint_b(const BsrMatrix<T>& B) {
  b_ = detail::describe_pattern(B.executor(), block_pattern_of(B));
}

template <class T>
BsrMatrix<T> spgemm(const BsrMatrix<T>& A, const BsrMatrix<T>& B) {
  check_operands("spgemm", A, B);
  return std::move(multiply(A, B, /*keep_counts=*/false).C);
}

template class SparseProduct<BsrMatrix<float>>;
template class SparseProduct<BsrMatrix<double>>;
template BsrMatrix<float> spgemm<float>(const BsrMatrix<float>&, const BsrMatrix<float>&);
template BsrMatrix<double> spgemm<double>(const BsrMatrix<double>&, const BsrMatrix<double>&);

}  // namespace strata
