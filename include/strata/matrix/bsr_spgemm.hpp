#pragma once
/// \file
/// Blocked sparse products C = A B of BSR matrices with independent row and
/// column block sizes: A of r x m blocks times B of m x c blocks gives C of
/// r x c blocks. Smoothed aggregation for 3D elasticity multiplies exactly
/// these: R (6x3) times A (3x3) times P (3x6) on the first level, 6x6 below
/// (the blocked GAMG paper, whose PtAP keeps the blocks throughout).
///
/// Why a product of its own rather than the CSR product of the expanded
/// matrices: the expanded form carries one column index per value (9 and 18
/// times the block indices), its hash tables and sorts see r*c times as many
/// entries, and the result has to be gathered back into blocks. Here the
/// index work is done once per block and each product a_IK b_KJ is a small
/// dense (r x m)(m x c) product.
///
/// Why its own header beside spgemm.hpp (whose SparseProduct template it
/// specialises): spgemm.hpp stays the CSR product with no BSR in sight, and
/// the rules that differ for blocks (block sizes, their fast paths, what
/// products() counts) are documented here, next to the declarations.
///
/// The algorithm is the CSR product's (spgemm.hpp) one level up:
///  - symbolic: C's block pattern is the CSR product of A's and B's block
///    patterns, computed by the same row-wise hash kernels with the same
///    binning (the CSR kernels run on the block indices, with unit values
///    that are then dropped), so C's block rows list their block columns in
///    ascending order;
///  - numeric: for each block row I of C, for each block a_IK of A's row in
///    stored order, for each block b_KJ of B's row K, C_IJ += a_IK b_KJ, each
///    entry c_ij of the block summed over k = 0..m-1 in order. A block row's
///    accumulators start at zero. Within one a_IK the b_KJ go to distinct
///    blocks of C, so no two threads ever add into one entry at a time and
///    no atomics touch values.
/// Compiled fast paths for r, m, c each 3 or 6 (the elasticity blocks) and
/// for 1x1 blocks; other sizes run the same order with run-time loops.
///
/// Reproducibility: the same as the CSR product. Each entry of C is summed
/// in one fixed order (A's block row as stored, then k within the blocks),
/// so a product repeats bit for bit and recompute() equals a fresh product
/// bit for bit; host and device add in the same order and differ only by
/// the device's fused multiply-adds. That order is also the order of the
/// CSR product of the expanded matrices (to_csr lists a block row's entries
/// block by block, explicit zeros included), so on the host to_csr(C) equals
/// spgemm(to_csr(A), to_csr(B)) bit for bit, pattern and values.
///
/// Recompute: the product keeps C's block pattern; recompute() on new values
/// of A and B with the same block patterns and block sizes does no hashing,
/// no sorting and no allocation: it runs the numeric phase alone.
///
/// The plan (CUDA only): the numeric phase finds every block product's block
/// of C and serialises a block row's products behind barriers, and a
/// recompute repeats all of it. A SparseProduct on a device therefore keeps,
/// from its first recompute on, for each block of C the list of its block
/// products in the order above (their positions in A and B, 8 bytes per
/// block product); a planned pass gives each row of each block of C one
/// thread that sums its list in registers: no search, no barrier, the same
/// additions in the same order, so the same bits. It is built at the first
/// recompute, not with the product, so a product computed once costs
/// nothing for it; only for the compiled block shapes and when C has at
/// least 2^16 rows of blocks (smaller products leave the GPU idle with one
/// thread per row and long lists: the numeric kernel is faster there); and
/// not at all when the device has no room for it (the unplanned kernel
/// gives the same values). plan_bytes() says what it holds, release_plan()
/// frees it. spgemm() keeps none. bench/NOTES.md (session 23) has its
/// measurements.

#include <memory>

#include "strata/matrix/bsr.hpp"
#include "strata/matrix/spgemm.hpp"

namespace strata {

template <class T>
class SparseProduct<BsrMatrix<T>> {
 public:
  /// Computes C = A B (block pattern and values) where A lives; B must live
  /// there too (location_mismatch), A.cols() must equal B.rows()
  /// (dimension_mismatch), and A's column block size must equal B's row
  /// block size (invalid_argument naming both block shapes otherwise: the
  /// blocks of A and B would not line up). C has A's row block size and B's
  /// column block size; its block columns come out ascending in each block
  /// row whatever the order in A and B.
  SparseProduct(const BsrMatrix<T>& A, const BsrMatrix<T>& B);
  ~SparseProduct();
  SparseProduct(SparseProduct&&) noexcept;
  SparseProduct& operator=(SparseProduct&&) noexcept;
  SparseProduct(const SparseProduct&) = delete;
  SparseProduct& operator=(const SparseProduct&) = delete;

  /// C.
  const BsrMatrix<T>& result() const noexcept { return C_; }

  /// Recomputes C's values in place for new values of A and B, which must
  /// have the block sizes, block patterns and order of blocks within block
  /// rows they had when this product was built (checked: invalid_argument
  /// naming the operand). Equals a fresh SparseProduct(A, B) bit for bit.
  void recompute(const BsrMatrix<T>& A, const BsrMatrix<T>& B);

  /// Block products a_IK b_KJ one product performs.
  size_type block_products() const noexcept { return block_products_; }
  /// Scalar multiplications one product performs: block_products() * r * m
  /// * c (the flop count is twice this), comparable with the CSR product's
  /// products() on the expanded matrices, which counts the same
  /// multiplications when the blocks are dense.
  size_type products() const noexcept {
    return block_products_ * C_.row_block_size() * inner_block_ * C_.col_block_size();
  }

  /// Bytes of the plan this product keeps for its recomputes (see the file
  /// comment): 0 before the first recompute, on the host, for block shapes
  /// without a compiled path, for products too small for a plan to pay, and
  /// after release_plan().
  std::size_t plan_bytes() const noexcept { return plan_ptr_.bytes() + plan_pairs_.bytes(); }
  /// Frees the plan (and what it would be built from): recompute() then runs
  /// the unplanned kernel, with the same values, for 8 bytes less per block
  /// product held.
  void release_plan() noexcept;

 private:
  template <class>
  friend class GalerkinProduct;
  /// With trusted_b, B's pattern is not fingerprinted (nor checked by
  /// recompute_values): B is an intermediate the caller owns.
  SparseProduct(const BsrMatrix<T>& A, const BsrMatrix<T>& B, bool trusted_b);
  /// recompute() without the pattern check of the operands marked trusted.
  void recompute_values(const BsrMatrix<T>& A, const BsrMatrix<T>& B, bool check_a, bool check_b);
  /// Fingerprints B (built trusted) after all, so that recompute_values()
  /// can check it: for a B that is rebuilt, not kept, between recomputes.
  void fingerprint_b(const BsrMatrix<T>& B);

  BsrMatrix<T> C_;
  /// m: A's column block size, B's row block size.
  int inner_block_ = 1;
  detail::OperandPattern a_, b_;
  size_type block_products_ = 0;
  /// Builds the plan from plan_counts_ (its first recompute), or leaves it
  /// empty when the device has no room for it.
  void build_plan(const BsrMatrix<T>& A, const BsrMatrix<T>& B);

  /// On a CUDA device, when the product is worth a plan: the symbolic
  /// phase's count of block products per block of C, kept until the first
  /// recompute lays the plan out by it (4 bytes per block of C), then the
  /// plan (each block of C's block products, in the order they add).
  Array<float> plan_counts_;
  Array<offset_type> plan_ptr_;
  Array<index_type> plan_pairs_;
  bool built_ = false;
};

template <class T>
SparseProduct(const BsrMatrix<T>&, const BsrMatrix<T>&) -> SparseProduct<BsrMatrix<T>>;

/// C = A B of BSR matrices, once (no recompute). Same rules as
/// SparseProduct<BsrMatrix<T>>.
template <class T>
BsrMatrix<T> spgemm(const BsrMatrix<T>& A, const BsrMatrix<T>& B);

}  // namespace strata
