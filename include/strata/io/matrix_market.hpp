#pragma once
/// \file
/// MatrixMarket files (https://math.nist.gov/MatrixMarket/formats.html).
///
/// Coordinate matrices (real, integer, unsigned-integer, pattern; general,
/// symmetric, skew-symmetric) read into host CSR; array files (dense, column
/// major) read into DenseBlock, or into a Vector when they have one column.
/// Malformed files raise io_error naming the file and the line.

#include <string>
#include <vector>

#include "strata/matrix/csr.hpp"
#include "strata/matrix/vector.hpp"

namespace strata::io {

enum class MmFormat { coordinate, array };
enum class MmField { real, integer, unsigned_integer, pattern };
enum class MmSymmetry { general, symmetric, skew_symmetric };

/// The banner and size line of a MatrixMarket file.
struct MatrixMarketHeader {
  MmFormat format = MmFormat::coordinate;
  MmField field = MmField::real;
  MmSymmetry symmetry = MmSymmetry::general;
  size_type rows = 0;
  size_type cols = 0;
  /// Stored entries (coordinate) or rows*cols (array).
  size_type entries = 0;
};

/// A dense column-major block read from an array file (a near-null space
/// with several columns, a set of right-hand sides).
struct DenseBlock {
  size_type rows = 0;
  size_type cols = 0;
  /// values[i + j * rows] is entry (i, j).
  std::vector<double> values;
};

/// Reads only the banner and the size line.
MatrixMarketHeader read_matrix_market_header(const std::string& path);

/// Reads a coordinate file into a host CSR matrix. Symmetric and
/// skew-symmetric files are expanded to both triangles; pattern entries get
/// the value 1; entries repeated in the file are summed; column indices come
/// out sorted within each row.
CsrMatrix<double> read_matrix_market(const std::string& path);

/// Reads an array file (or an n x 1 coordinate file) into a host DenseBlock.
DenseBlock read_matrix_market_dense(const std::string& path);

/// Reads a file holding one column (array n x 1, or coordinate n x 1) into a
/// host vector; more than one column is an io_error.
Vector<double> read_matrix_market_vector(const std::string& path);

/// Writes `A` as "coordinate real general" with 17 significant digits, so a
/// read after the write gives the same matrix bit for bit. A device matrix
/// is refused with location_mismatch (move it to the host first).
void write_matrix_market(const std::string& path, const CsrMatrix<double>& A);

/// Writes `x` as "array real general" with one column.
void write_matrix_market(const std::string& path, const Vector<double>& x);

}  // namespace strata::io
