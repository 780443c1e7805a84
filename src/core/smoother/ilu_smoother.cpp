// The ILU smoother: an incomplete factorization L U of A and two triangular
// solves per application.

#include "core/smoother/ilu_smoother.hpp"

#include <cstdio>
#include <string>

#include "strata/matrix/ilu.hpp"
#include "strata/matrix/triangular.hpp"

namespace strata::detail {

namespace {

template <class T>
CsrMatrix<T> factorize(const CsrMatrix<T>& A, const IluParams& p) {
  switch (p.factorization) {
    case IluParams::Factorization::ilu0:
      return ilu0(A);
    case IluParams::Factorization::iluk:
      return iluk(A, p.level_of_fill);
    case IluParams::Factorization::ilut:
      return ilut(A, p.drop_tolerance, p.max_fill_per_row);
  }
  throw invalid_argument("ilu: factorization holds " +
                         std::to_string(static_cast<int>(p.factorization)) +
                         "; expected ilu0, iluk or ilut");
}

TriangularSolveParams solve_params(const IluParams& p, Triangle triangle) {
  return {.triangle = triangle,
          .unit_diagonal = triangle == Triangle::lower,
          .algorithm = p.triangular_solve,
          .sweeps = p.triangular_sweeps};
}

template <class T>
class IluSmoother final : public Smoother<T> {
 public:
  IluSmoother(std::shared_ptr<const LevelOperator<T>> A, const IluParams& p)
      : IluSmoother(A, p, factorize(csr_matrix(*A, "the ILU smoother"), p)) {}

  size_type rows() const override { return A_->rows(); }
  size_type cols() const override { return A_->cols(); }
  const Executor& executor() const override { return A_->executor(); }
  std::string describe() const override { return description_; }

  void apply(const Vector<T>& b, Vector<T>& x) const override {
    check(b, x);
    lower_.solve(b, y_);
    upper_.solve(y_, x);
  }

  void smooth(const Vector<T>& b, Vector<T>& x, int sweeps) const override {
    check(b, x);
    for (int s = 0; s < sweeps; ++s) {
      A_->residual(b, x, r_);
      lower_.solve(r_, y_);
      upper_.solve(y_, r_);
      axpy(T{1}, r_, x);
    }
  }

 private:
  // The factor is needed only to analyse the two solves, which copy their
  // triangles; it is not kept.
  IluSmoother(std::shared_ptr<const LevelOperator<T>> A, const IluParams& p, CsrMatrix<T> LU)
      : A_(std::move(A)),
        lower_(LU, solve_params(p, Triangle::lower)),
        upper_(LU, solve_params(p, Triangle::upper)),
        y_(A_->executor(), A_->rows()),
        r_(A_->executor(), A_->rows()) {
    description_ = ilu_name(p);
    if (p.factorization == IluParams::Factorization::iluk) {
      description_ += "(k=" + std::to_string(p.level_of_fill) + ")";
    } else if (p.factorization == IluParams::Factorization::ilut) {
      char text[64];
      std::snprintf(text, sizeof text, "(tau=%g, p=%d)", p.drop_tolerance, p.max_fill_per_row);
      description_ += text;
    }
    description_ += ", " + std::to_string(LU.nnz()) + " factor entries, ";
    if (p.triangular_solve == TriangularAlgorithm::level_scheduled) {
      description_ += "level-scheduled solves (" + std::to_string(lower_.levels()) + " + " +
                      std::to_string(upper_.levels()) + " levels)";
    } else {
      description_ += std::to_string(p.triangular_sweeps) + " Jacobi sweeps per triangular solve";
    }
  }

  void check(const Vector<T>& b, const Vector<T>& x) const {
    check_location(executor(), b.executor(), "b", "the ILU smoother");
    check_location(executor(), x.executor(), "x", "the ILU smoother");
    if (b.size() != rows() || x.size() != cols()) {
      throw dimension_mismatch("ilu: A is " + std::to_string(rows()) + " x " +
                               std::to_string(cols()) + ", b has " + std::to_string(b.size()) +
                               " and x has " + std::to_string(x.size()) + " entries");
    }
  }

  std::shared_ptr<const LevelOperator<T>> A_;
  TriangularSolver<T> lower_, upper_;
  mutable Vector<T> y_, r_;  // scratch: L^-1 r, and the residual
  std::string description_;
};

}  // namespace

std::string ilu_name(const IluParams& params) {
  switch (params.factorization) {
    case IluParams::Factorization::ilu0:
      return "ilu0";
    case IluParams::Factorization::iluk:
      return "iluk";
    case IluParams::Factorization::ilut:
      return "ilut";
  }
  return "ilu";
}

template <class T>
std::unique_ptr<Smoother<T>> make_ilu_smoother(std::shared_ptr<const LevelOperator<T>> A,
                                               const IluParams& p) {
  require(p.triangular_sweeps >= 1 || p.triangular_solve != TriangularAlgorithm::jacobi,
          "ilu: triangular_sweeps must be >= 1, got " + std::to_string(p.triangular_sweeps));
  return std::make_unique<IluSmoother<T>>(std::move(A), p);
}

template std::unique_ptr<Smoother<double>> make_ilu_smoother<double>(
    std::shared_ptr<const LevelOperator<double>>, const IluParams&);

}  // namespace strata::detail
