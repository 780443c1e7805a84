#pragma once
/// \file
/// The explicit transpose of a CSR matrix.
///
/// AMG keeps the restriction R = P^T as a matrix of its own instead of
/// applying P transposed: a transposed SpMV on CSR scatters into the result
/// (atomics on the GPU) and is much slower than a plain SpMV, and the
/// Galerkin product R (A P) wants R's rows (hypre paper, section 4.2).

#include "strata/matrix/csr.hpp"

namespace strata {

/// A^T as a CSR matrix on the executor where A lives (A.cols() x A.rows()).
///
/// The result does not depend on the order of the columns within A's rows:
/// every row of A^T lists its columns in ascending order, and the host and
/// the device produce the same matrix, bit for bit (a transpose only moves
/// values). Throws invalid_argument when A.rows() does not fit a 32-bit
/// column index of A^T.
template <class T>
CsrMatrix<T> transpose(const CsrMatrix<T>& A);

}  // namespace strata
