#pragma once
/// \file
/// Dense vectors and the vector operations Krylov methods are built from.
/// Every operation runs where its operands live and throws
/// location_mismatch (operands in different places) or dimension_mismatch
/// (different sizes). Reductions have a fixed order: a run repeats bit for
/// bit. The fused operations exist because each saves a full pass over
/// memory in the solvers' inner loops.

#include <utility>

#include "strata/core/array.hpp"
#include "strata/core/span.hpp"

namespace strata {

/// A dense vector of `size()` values on one executor. Today a thin owner of an
/// Array; with MPI it also carries the row distribution, which is why the
/// vector operations take Vectors rather than Arrays.
template <class T>
class Vector {
 public:
  using value_type = T;

  Vector() = default;
  /// `n` uninitialised values.
  Vector(Executor exec, size_type n) : values_(std::move(exec), n) {}
  /// `n` values set to `value`.
  Vector(Executor exec, size_type n, T value) : values_(std::move(exec), n, value) {}
  explicit Vector(Array<T> values) : values_(std::move(values)) {}

  size_type size() const noexcept { return values_.size(); }
  const Executor& executor() const noexcept { return values_.executor(); }
  Location location() const noexcept { return values_.location(); }
  Array<T>& values() noexcept { return values_; }
  const Array<T>& values() const noexcept { return values_; }
  T* data() noexcept { return values_.data(); }
  const T* data() const noexcept { return values_.data(); }

  Vector to(const Executor& target) const { return Vector(values_.to(target)); }
  Vector clone() const { return Vector(values_.clone()); }
  std::vector<T> to_vector() const { return values_.to_vector(); }
  void fill(T value) { values_.fill(value); }

 private:
  Array<T> values_;
};

/// y = alpha * x + y
template <class T>
void axpy(T alpha, const Vector<T>& x, Vector<T>& y);
/// y = alpha * x + beta * y (beta == 0 overwrites y, so y may hold NaN before)
template <class T>
void axpby(T alpha, const Vector<T>& x, T beta, Vector<T>& y);
/// z = alpha * x + beta * y (three operands; z may alias neither x nor y)
template <class T>
void axpbyz(T alpha, const Vector<T>& x, T beta, const Vector<T>& y, Vector<T>& z);
/// x = alpha * x
template <class T>
void scale(T alpha, Vector<T>& x);
/// x^T y
template <class T>
T dot(const Vector<T>& x, const Vector<T>& y);
/// ||x||_2
template <class T>
T norm2(const Vector<T>& x);
/// ||x||_1
template <class T>
T norm1(const Vector<T>& x);
/// max_i |x_i|
template <class T>
T norm_inf(const Vector<T>& x);
/// z_i = x_i * y_i (z may alias x or y)
template <class T>
void pointwise_multiply(const Vector<T>& x, const Vector<T>& y, Vector<T>& z);

/// Fused: y = alpha * x + y, returns ||y||_2^2 (one pass; the CG residual update).
template <class T>
T axpy_norm2_squared(T alpha, const Vector<T>& x, Vector<T>& y);
/// Fused: z_i = d_i * r_i, returns r^T z (one pass; Jacobi preconditioning in PCG).
template <class T>
T pointwise_multiply_dot(const Vector<T>& d, const Vector<T>& r, Vector<T>& z);
/// Fused: returns {x^T y, x^T z} in one pass over x.
template <class T>
std::pair<T, T> dot2(const Vector<T>& x, const Vector<T>& y, const Vector<T>& z);

// Multi-vector operations: classical Gram-Schmidt against k = V.size()
// vectors (a Krylov basis). Each reads every V_j and w once per call and, on
// a device, synchronises once (for k <= 32; larger k take one pass per 32
// vectors), where k separate dots or axpys would read w k times and
// synchronise k times. Coefficients and results are host values. All
// vectors share w's executor and size.

/// out[j] = V_j^T w for j < k, and out[k] = w^T w; out has k + 1 entries.
template <class T>
void multi_dot(Span<const Vector<T>> V, const Vector<T>& w, Span<T> out);
/// w -= sum_j h_j V_j; h has k entries.
template <class T>
void multi_axpy(Span<const T> h, Span<const Vector<T>> V, Vector<T>& w);
/// Fused: w -= sum_j h_j V_j, then out[j] = V_j^T w and out[k] = w^T w of the
/// new w (h has k entries, out k + 1): one Gram-Schmidt correction and the
/// projections of its result in one pass. w must not be one of the V_j.
template <class T>
void multi_axpy_dot(Span<const T> h, Span<const Vector<T>> V, Vector<T>& w,
                    Span<T> out);

}  // namespace strata
