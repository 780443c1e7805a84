#pragma once
/// \file
/// The one contract for everything that maps a vector to a vector: system
/// matrices, preconditioners, smoothers, AMG hierarchies and user callbacks.
/// A Krylov method sees only LinearOperators and a Reduction (reduction.hpp).
/// Assembled matrices are operators through the level-operator contract
/// (level_operator.hpp: CsrOperator, BsrOperator).

#include <functional>
#include <memory>
#include <string>

#include "strata/core/span.hpp"
#include "strata/matrix/vector.hpp"
#include "strata/solver/reduction.hpp"

namespace strata {

/// y = Op(x). Implementations live on one executor and take vectors there.
template <class T>
class LinearOperator {
 public:
  virtual ~LinearOperator() = default;
  virtual size_type rows() const = 0;
  virtual size_type cols() const = 0;
  virtual const Executor& executor() const = 0;
  /// y = Op(x). x and y are distinct vectors on executor(), of sizes cols()
  /// and rows().
  virtual void apply(const Vector<T>& x, Vector<T>& y) const = 0;
  /// y = Op(x) and returns the local part of x^T y (square operators only).
  /// Operators that can fuse the two override it (a matrix, PFMG's float
  /// cycle); CG calls it for p^T A p and, on its preconditioner, for r^T z.
  virtual T apply_dot(const Vector<T>& x, Vector<T>& y) const {
    apply(x, y);
    return dot(x, y);
  }
  /// A short description for logs ("CSR 1000x1000", "Jacobi(omega=0.67)").
  virtual std::string describe() const = 0;
  /// Whether apply() is the same linear map every time. A preconditioner that
  /// is not (a K-cycle, an inner Krylov solve) needs FGMRES.
  virtual bool is_fixed() const { return true; }
  /// When apply() is a diagonal scaling y_i = d_i x_i, its d; otherwise
  /// nullptr. Krylov methods use it to fuse the preconditioner into their
  /// vector updates (one pass instead of three in Jacobi-preconditioned CG).
  virtual const Vector<T>* diagonal_scaling() const { return nullptr; }
};

/// y = x.
template <class T>
class IdentityOperator final : public LinearOperator<T> {
 public:
  IdentityOperator(Executor exec, size_type n) : exec_(std::move(exec)), n_(n) {}
  size_type rows() const override { return n_; }
  size_type cols() const override { return n_; }
  const Executor& executor() const override { return exec_; }
  void apply(const Vector<T>& x, Vector<T>& y) const override { copy(x.values(), y.values()); }
  std::string describe() const override { return "identity"; }

 private:
  Executor exec_;
  size_type n_;
};

/// A user function as an operator (a matrix-free product, an external
/// preconditioner). `fixed` says whether it is the same linear map each call.
template <class T>
class CallbackOperator final : public LinearOperator<T> {
 public:
  using Function = std::function<void(const Vector<T>& x, Vector<T>& y)>;
  CallbackOperator(Executor exec, size_type rows, size_type cols, Function f,
                   std::string name = "callback", bool fixed = true)
      : exec_(std::move(exec)), rows_(rows), cols_(cols), f_(std::move(f)),
        name_(std::move(name)), fixed_(fixed) {}
  size_type rows() const override { return rows_; }
  size_type cols() const override { return cols_; }
  const Executor& executor() const override { return exec_; }
  void apply(const Vector<T>& x, Vector<T>& y) const override { f_(x, y); }
  std::string describe() const override { return name_; }
  bool is_fixed() const override { return fixed_; }

 private:
  Executor exec_;
  size_type rows_, cols_;
  Function f_;
  std::string name_;
  bool fixed_;
};

}  // namespace strata
