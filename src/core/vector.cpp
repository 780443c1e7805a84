// Vector operations: check operands once, then run where the data lives.

#include "strata/matrix/vector.hpp"

#include <cmath>
#include <string>
#include <vector>

#include "kernels/blas/vector_kernels.hpp"

namespace strata {

namespace {
template <class T>
void agree(const char* op, const Vector<T>& a, const char* a_name, const Vector<T>& b,
           const char* b_name) {
  check_location(a.executor(), b.executor(), b_name, a_name);
  if (a.size() != b.size()) {
    throw dimension_mismatch(std::string(op) + ": " + a_name + " has " +
                             std::to_string(a.size()) + " entries but " + b_name + " has " +
                             std::to_string(b.size()));
  }
}
/// Throws unless the host array `name` of op has `expected` entries.
void require_entries(const char* op, const char* name, std::size_t actual, std::size_t expected,
                     const char* meaning) {
  if (actual != expected) {
    throw dimension_mismatch(std::string(op) + ": " + name + " has " + std::to_string(actual) +
                             " entries, expected " + std::to_string(expected) + " (" + meaning +
                             ")");
  }
}

/// Checks every V_j against w (executor, size, not w itself); returns their
/// data pointers for the kernel.
template <class T>
std::vector<const T*> basis_pointers(const char* op, Span<const Vector<T>> V,
                                     const Vector<T>& w) {
  std::vector<const T*> pointers(V.size());
  for (std::size_t j = 0; j < V.size(); ++j) {
    const std::string name = "V[" + std::to_string(j) + "]";
    check_location(w.executor(), V[j].executor(), name.c_str(), "w");
    if (V[j].size() != w.size()) {
      throw dimension_mismatch(std::string(op) + ": " + name + " has " +
                               std::to_string(V[j].size()) + " entries but w has " +
                               std::to_string(w.size()));
    }
    if (V[j].data() == w.data() && w.size() > 0) {
      throw invalid_argument(std::string(op) + ": w is " + name +
                             "; it must be a vector outside V");
    }
    pointers[j] = V[j].data();
  }
  return pointers;
}

}  // namespace

template <class T>
void multi_dot(Span<const Vector<T>> V, const Vector<T>& w, Span<T> out) {
  require_entries("multi_dot", "out", out.size(), V.size() + 1, "k + 1: V^T w, then w^T w");
  const auto p = basis_pointers("multi_dot", V, w);
  w.executor().visit([&](const auto& e) {
    kernels::blas::multi_dot(e, w.size(), static_cast<int>(V.size()), p.data(), w.data(),
                             out.data());
  });
}

template <class T>
void multi_axpy(Span<const T> h, Span<const Vector<T>> V, Vector<T>& w) {
  require_entries("multi_axpy", "h", h.size(), V.size(), "one per vector of V");
  const auto p = basis_pointers("multi_axpy", V, w);
  w.executor().visit([&](const auto& e) {
    kernels::blas::multi_axpy(e, w.size(), static_cast<int>(V.size()), p.data(), h.data(),
                              w.data());
  });
}

template <class T>
void multi_axpy_dot(Span<const T> h, Span<const Vector<T>> V, Vector<T>& w,
                    Span<T> out) {
  require_entries("multi_axpy_dot", "h", h.size(), V.size(), "one per vector of V");
  require_entries("multi_axpy_dot", "out", out.size(), V.size() + 1,
                  "k + 1: V^T w, then w^T w");
  const auto p = basis_pointers("multi_axpy_dot", V, w);
  w.executor().visit([&](const auto& e) {
    kernels::blas::multi_axpy_dot(e, w.size(), static_cast<int>(V.size()), p.data(), h.data(),
                                  w.data(), out.data());
  });
}

template <class T>
void axpy(T alpha, const Vector<T>& x, Vector<T>& y) {
  axpby(alpha, x, T{1}, y);
}

template <class T>
void axpby(T alpha, const Vector<T>& x, T beta, Vector<T>& y) {
  agree("axpby", x, "x", y, "y");
  x.executor().visit([&](const auto& e) {
    kernels::blas::axpby(e, x.size(), alpha, x.data(), beta, y.data());
  });
}

template <class T>
void axpbyz(T alpha, const Vector<T>& x, T beta, const Vector<T>& y, Vector<T>& z) {
  agree("axpbyz", x, "x", y, "y");
  agree("axpbyz", x, "x", z, "z");
  x.executor().visit([&](const auto& e) {
    kernels::blas::axpbyz(e, x.size(), alpha, x.data(), beta, y.data(), z.data());
  });
}

template <class T>
void scale(T alpha, Vector<T>& x) {
  x.executor().visit([&](const auto& e) { kernels::blas::scale(e, x.size(), alpha, x.data()); });
}

template <class T>
T dot(const Vector<T>& x, const Vector<T>& y) {
  agree("dot", x, "x", y, "y");
  return x.executor().visit(
      [&](const auto& e) { return kernels::blas::dot(e, x.size(), x.data(), y.data()); });
}

template <class T>
T norm2(const Vector<T>& x) {
  return std::sqrt(x.executor().visit(
      [&](const auto& e) { return kernels::blas::dot(e, x.size(), x.data(), x.data()); }));
}

template <class T>
T norm1(const Vector<T>& x) {
  return x.executor().visit(
      [&](const auto& e) { return kernels::blas::asum(e, x.size(), x.data()); });
}

template <class T>
T norm_inf(const Vector<T>& x) {
  return x.executor().visit(
      [&](const auto& e) { return kernels::blas::amax(e, x.size(), x.data()); });
}

template <class T>
void pointwise_multiply(const Vector<T>& x, const Vector<T>& y, Vector<T>& z) {
  agree("pointwise_multiply", x, "x", y, "y");
  agree("pointwise_multiply", x, "x", z, "z");
  x.executor().visit([&](const auto& e) {
    kernels::blas::pointwise_multiply(e, x.size(), x.data(), y.data(), z.data());
  });
}

template <class T>
T axpy_norm2_squared(T alpha, const Vector<T>& x, Vector<T>& y) {
  agree("axpy_norm2_squared", x, "x", y, "y");
  return x.executor().visit([&](const auto& e) {
    return kernels::blas::axpy_norm2_squared(e, x.size(), alpha, x.data(), y.data());
  });
}

template <class T>
T pointwise_multiply_dot(const Vector<T>& d, const Vector<T>& r, Vector<T>& z) {
  agree("pointwise_multiply_dot", d, "d", r, "r");
  agree("pointwise_multiply_dot", d, "d", z, "z");
  return d.executor().visit([&](const auto& e) {
    return kernels::blas::pointwise_multiply_dot(e, d.size(), d.data(), r.data(), z.data());
  });
}

template <class T>
std::pair<T, T> dot2(const Vector<T>& x, const Vector<T>& y, const Vector<T>& z) {
  agree("dot2", x, "x", y, "y");
  agree("dot2", x, "x", z, "z");
  return x.executor().visit([&](const auto& e) {
    return kernels::blas::dot2(e, x.size(), x.data(), y.data(), z.data());
  });
}

#define STRATA_VECTOR_OPS(T)                                                          \
  template void axpy<T>(T, const Vector<T>&, Vector<T>&);                             \
  template void axpby<T>(T, const Vector<T>&, T, Vector<T>&);                         \
  template void axpbyz<T>(T, const Vector<T>&, T, const Vector<T>&, Vector<T>&);      \
  template void scale<T>(T, Vector<T>&);                                              \
  template T dot<T>(const Vector<T>&, const Vector<T>&);                              \
  template T norm2<T>(const Vector<T>&);                                              \
  template T norm1<T>(const Vector<T>&);                                              \
  template T norm_inf<T>(const Vector<T>&);                                           \
  template void pointwise_multiply<T>(const Vector<T>&, const Vector<T>&, Vector<T>&); \
  template T axpy_norm2_squared<T>(T, const Vector<T>&, Vector<T>&);                  \
  template T pointwise_multiply_dot<T>(const Vector<T>&, const Vector<T>&, Vector<T>&); \
  template std::pair<T, T> dot2<T>(const Vector<T>&, const Vector<T>&, const Vector<T>&); \
  template void multi_dot<T>(Span<const Vector<T>>, const Vector<T>&, Span<T>);  \
  template void multi_axpy<T>(Span<const T>, Span<const Vector<T>>, Vector<T>&); \
  template void multi_axpy_dot<T>(Span<const T>, Span<const Vector<T>>,          \
                                  Vector<T>&, Span<T>);
STRATA_VECTOR_OPS(float)
STRATA_VECTOR_OPS(double)

}  // namespace strata
