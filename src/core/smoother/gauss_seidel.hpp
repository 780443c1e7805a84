#pragma once
// The Gauss-Seidel smoothers (hybrid l1, multicolor, two-stage) for
// make_smoother's dispatch (smoothers.cpp). Their parameters are public
// (strata/smoother/gauss_seidel.hpp); the class stays in gauss_seidel.cpp.

#include <memory>
#include <vector>

#include "strata/smoother/smoother.hpp"

namespace strata::detail {

/// The smoother of `params` for the CSR level A (invalid_argument naming
/// A's kind for other kinds, naming the parameter for a value out of
/// range, naming the row for a zero diagonal entry).
template <class T>
std::unique_ptr<Smoother<T>> make_gauss_seidel(std::shared_ptr<const LevelOperator<T>> A,
                                               const GaussSeidelParams& params);
template <class T>
std::unique_ptr<Smoother<T>> make_gauss_seidel(std::shared_ptr<const LevelOperator<T>> A,
                                               const MulticolorGaussSeidelParams& params);
template <class T>
std::unique_ptr<Smoother<T>> make_gauss_seidel(std::shared_ptr<const LevelOperator<T>> A,
                                               const TwoStageGaussSeidelParams& params);

/// The distance-1 coloring of multicolor Gauss-Seidel, for tests: color[i]
/// (host copy) and the number of colors (some may be empty).
template <class T>
std::vector<int> multicolor_coloring(const CsrMatrix<T>& A, std::uint64_t seed, int& colors);

}  // namespace strata::detail
