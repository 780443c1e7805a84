#pragma once
/// \file
/// Sparse matrix-matrix products C = A B of CSR matrices, with the symbolic
/// phase (C's pattern) kept apart from the numeric phase (C's values).
///
/// Why the split: AMG setup multiplies the same patterns again whenever only
/// the values change (Newton steps, time steps on a fixed mesh; AmgX issue
/// #127, aggregation paper section 3.1). A SparseProduct keeps C's pattern
/// and the schedule of the numeric kernels, and recompute() then computes
/// C's values on that pattern: no hashing, no sorting, no allocation.
///
/// The algorithm is hypre's (hypre paper, section 4.2), row by row:
///  1. the work of each row of C, w_i = sum over A's entries (i, k) of the
///     length of B's row k (the number of products a_ik b_kj; also an upper
///     bound on the row's nonzeros);
///  2. rows binned by that work, so that each kernel launch handles rows of
///     similar cost with a fitting group of threads (on the GPU: 1 to 32
///     lanes per row, a whole block, or a hash table in global memory for
///     the longest rows);
///  3. symbolic: the distinct columns of each row counted in a hash table
///     (shared memory on the GPU), then 64-bit row offsets by a scan;
///  4. the columns of each row collected and sorted, and its values summed.
/// On the GPU, rows of at most 256 products skip the tables: a warp sorts
/// their products in registers, once, in step 3, and keeps the finished row
/// for step 4 to copy (in a staging buffer of at most 2^28 entries, 3 GB in
/// double precision, that lives while the product runs; rows past it, or all
/// of them when the pool cannot give it, are computed again in step 4).
///
/// Reproducibility: C's rows list their columns in ascending order, and each
/// c_ij is summed over k in the order of A's row i as stored (within one
/// a_ik the b_kj go to distinct c_ij, so threads never add into the same
/// entry at the same time and no atomics touch values). A product therefore
/// repeats bit for bit, and recompute() gives exactly the values of a fresh
/// product. Host and device add in the same order but may round differently
/// (the device fuses each multiply-add).
///
/// Size: row offsets, nonzero counts and product counts are 64-bit; a C with
/// more than 2^31 nonzeros is computed like any other (only its column
/// indices, which are below B.cols(), are 32-bit). A product too large for
/// memory fails with out_of_memory, never with a wrapped count.
///
/// Block matrices: the classes are templated on the matrix type, and
/// SparseProduct<BsrMatrix<T>> (bsr_spgemm.hpp) and GalerkinProduct<BsrMatrix<T>>
/// (galerkin.hpp) sit beside these. A block pattern is a CSR pattern of
/// blocks, so steps 1-3 run unchanged on the block patterns (rectangular
/// blocks included: A with r x m blocks times B with m x c blocks); only the
/// value kernel changes, a_ik b_kj becoming an (r x m)(m x c) block product
/// added into C's r x c block, in the same fixed order.

#include <cstdint>
#include <memory>

#include "strata/matrix/csr.hpp"

namespace strata {

namespace detail {
/// How the numeric phase splits C's rows between its kernels; defined by the
/// kernel layer (it differs per backend), opaque here.
struct ProductSchedule;

/// What recompute() checks about an operand: its shape and a 64-bit hash of
/// its pattern (row offsets and column indices).
struct OperandPattern {
  size_type rows = 0;
  size_type cols = 0;
  size_type nnz = 0;
  std::uint64_t fingerprint = 0;
};
}  // namespace detail

template <class Matrix>
class GalerkinProduct;

/// The product C = A B of two sparse matrices, kept so that C's values can be
/// recomputed when only the values of A and B change. One specialization per
/// matrix format: CSR here, BSR in bsr_spgemm.hpp.
template <class Matrix>
class SparseProduct;

template <class T>
class SparseProduct<CsrMatrix<T>> {
 public:
  /// Computes C = A B (pattern and values) where A lives; B must live there
  /// too (location_mismatch otherwise) and A.cols() must equal B.rows()
  /// (dimension_mismatch). The column order within A's and B's rows does not
  /// matter; C's rows come out sorted.
  SparseProduct(const CsrMatrix<T>& A, const CsrMatrix<T>& B);
  ~SparseProduct();
  SparseProduct(SparseProduct&&) noexcept;
  SparseProduct& operator=(SparseProduct&&) noexcept;
  SparseProduct(const SparseProduct&) = delete;
  SparseProduct& operator=(const SparseProduct&) = delete;

  /// C.
  const CsrMatrix<T>& result() const noexcept { return C_; }

  /// Recomputes C's values for new values of A and B, which must have the
  /// patterns (and the order of entries within rows) they had when this
  /// product was built: their shapes and a hash of their patterns are
  /// checked (invalid_argument naming the operand otherwise). The result
  /// equals a fresh SparseProduct(A, B) bit for bit.
  void recompute(const CsrMatrix<T>& A, const CsrMatrix<T>& B);

  /// Number of multiplications a_ik b_kj one product performs (the flop
  /// count is twice this).
  size_type products() const noexcept { return products_; }

 private:
  template <class>
  friend class GalerkinProduct;
  /// With trusted_b, B's pattern is not fingerprinted (nor checked by
  /// recompute_values): B is an intermediate the caller owns.
  SparseProduct(const CsrMatrix<T>& A, const CsrMatrix<T>& B, bool trusted_b);
  /// recompute() without the pattern check of the operands marked trusted.
  void recompute_values(const CsrMatrix<T>& A, const CsrMatrix<T>& B, bool check_a, bool check_b);
  /// Fingerprints B (built trusted) after all, so that recompute_values()
  /// can check it: for a B that is rebuilt, not kept, between recomputes.
  void fingerprint_b(const CsrMatrix<T>& B);

  CsrMatrix<T> C_;
  std::unique_ptr<detail::ProductSchedule> schedule_;
  detail::OperandPattern a_, b_;
  size_type products_ = 0;
};

template <class T>
SparseProduct(const CsrMatrix<T>&, const CsrMatrix<T>&) -> SparseProduct<CsrMatrix<T>>;

/// C = A B, once (no recompute). Same rules as SparseProduct.
template <class T>
CsrMatrix<T> spgemm(const CsrMatrix<T>& A, const CsrMatrix<T>& B);

}  // namespace strata
