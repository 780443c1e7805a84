#pragma once
/// \file
/// Incomplete LU factorizations: ILU(0), ILU(k) and ILUT (Saad, "Iterative
/// Methods for Sparse Linear Systems", chapter 10; the hypre paper,
/// section 4.4).
///
/// Each returns one CSR matrix L\U on A's executor, with ascending columns
/// in every row: the strictly lower entries are L (whose diagonal is 1 and
/// not stored), the diagonal and the entries above it are U, and L U
/// approximates A. TriangularSolver reads both triangles from it
/// (Triangle::lower with unit_diagonal, then Triangle::upper).
///
/// Where each runs:
///  - ilu0: where A lives. The numeric factorization is the row-wise ILU
///    run level by level over the levels of the lower triangular solve with
///    A's pattern (the rows of one level are independent), on the host and
///    on the device from one source. It is the exact sequential ILU(0), not
///    an approximation (unlike the fine-grained iterative ILU of Chow and
///    Patel), so host and device factors agree up to rounding, and with
///    them the iteration counts of the solves they precondition.
///  - iluk: the symbolic phase (the fill pattern) runs on the host: for a
///    device matrix the pattern is copied to the host and the fill pattern
///    back; the numeric phase then runs where A lives, as for ilu0.
///  - ilut: runs on the host, since its dropping decides the pattern while
///    it eliminates, row after row: a device matrix is copied to the host,
///    factored there, and the factor copied back to the device.
///
/// Pivots: a factorization throws invalid_argument naming the first row
/// (1-based) whose pivot u_ii is zero, not finite or tiny (|u_ii| <= 1e-14
/// max_j |a_ij|), and the value, or a row without a diagonal entry in its
/// pattern (ilu0, iluk). No pivot is shifted or replaced: a changed pivot
/// gives a preconditioner for another matrix, and the caller should know.

#include "strata/matrix/csr.hpp"

namespace strata {

/// ILU(0): L\U on the pattern of A ((L U)_ij = a_ij for every (i, j) in it).
/// A must be square with a diagonal entry in every row; its columns need
/// not be sorted.
template <class T>
CsrMatrix<T> ilu0(const CsrMatrix<T>& A);

/// ILU(k) by levels of fill: an entry of A has level 0, a fill entry made
/// through pivot k has level lev(i,k) + lev(k,j) + 1, and entries up to
/// level `level_of_fill` (>= 0) are kept. iluk(A, 0) is ilu0(A); with
/// level_of_fill at least the number of rows it is the full LU without
/// pivoting.
template <class T>
CsrMatrix<T> iluk(const CsrMatrix<T>& A, int level_of_fill);

/// ILUT(p, tau) (Saad, Algorithm 10.6): in row i, multipliers and entries
/// below drop_tolerance * ||a_i||_2 are dropped, and at most
/// max_fill_per_row (>= 0) entries of L and max_fill_per_row of U, the
/// largest, are kept besides the diagonal. drop_tolerance 0 with
/// max_fill_per_row >= rows is the full LU without pivoting.
template <class T>
CsrMatrix<T> ilut(const CsrMatrix<T>& A, double drop_tolerance, int max_fill_per_row);

}  // namespace strata
