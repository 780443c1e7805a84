#pragma once
// Turning a command-line problem argument (a gallery name or a .mtx file)
// into a matrix on the requested executor.

#include <optional>
#include <string>

#include "strata/strata.hpp"

namespace strata::app {

struct Problem {
  /// The gallery name or the file path, as given.
  std::string name;
  /// "gallery" or "file".
  std::string source;
  /// The size parameter used (0 for files).
  size_type n = 0;
  CsrMatrix<double> A;
  /// Unknowns per node the problem knows it has (3 for elasticity3d; 0:
  /// unknown, a file or a scalar problem), and its nodes' coordinates
  /// (interleaved, node_dimension per node; empty when unknown): what
  /// smoothed aggregation takes without --block-size and --coordinates.
  int block_size = 0;
  int node_dimension = 0;
  Vector<double> coordinates;
  /// Seconds spent generating or reading (and moving to the executor).
  double load_seconds = 0;
};

/// The size a gallery problem gets when --n is not given.
size_type default_size(const std::string& name);

/// A gallery problem (name from gallery::problem_names()) or a MatrixMarket
/// file (anything ending in .mtx or naming an existing file), on `exec`.
/// Files are read on the host and then moved, explicitly, to `exec`.
/// `n` is --n when given: it must be >= 1, and a file takes none (its size
/// is its own); without it a gallery problem gets `default_n`, or
/// default_size() when that is 0. A bad `spec` or `n` is a usage_error.
Problem load_problem(const std::string& spec, std::optional<long long> n, const Executor& exec,
                     size_type default_n = 0);

/// The executor picked by --host / --device (default: device when one is
/// usable, else host). Throws usage_error when both flags are given and
/// not_compiled / cuda_error when --device cannot be honoured.
Executor pick_executor(bool host, bool device);

}  // namespace strata::app
