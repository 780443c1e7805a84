#pragma once
/// \file
/// Array<T>: an owning, contiguous buffer that knows where it lives.

#include <cstring>
#include <initializer_list>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "strata/core/executor.hpp"
#include "strata/core/span.hpp"
#include "strata/core/types.hpp"

namespace strata {

namespace detail {
/// Sets data[0..n) = value on `exec`. Instantiated for the element types of
/// Array listed in primitives.hpp.
template <class T>
void fill(const Executor& exec, T* data, size_type n, T value);
}  // namespace detail

/// An owning array of trivially copyable elements on one executor.
///
/// Copies are explicit: `to(exec)` makes a copy on another (or the same)
/// executor, `copy(src, dst)` copies into existing storage. The copy
/// constructor is deleted so that a deep copy never hides in a pass by value.
/// Element access from the host is only through `view()` on a host array or
/// `to_vector()`; a device array refuses host views with location_mismatch.
template <class T>
class Array {
  static_assert(std::is_trivially_copyable_v<T>, "Array elements must be trivially copyable");

 public:
  using value_type = T;

  /// An empty host array.
  Array() = default;

  /// `n` uninitialised elements on `exec`.
  Array(Executor exec, size_type n) : exec_(std::move(exec)), size_(n) {
    if (n < 0) throw invalid_argument("Array size must be >= 0, got " + std::to_string(n));
    if (n > 0) data_ = static_cast<T*>(exec_.allocate(bytes()));
  }

  /// `n` elements on `exec`, each set to `value` (the fill runs on `exec`).
  Array(Executor exec, size_type n, T value) : Array(std::move(exec), n) {
    detail::fill(exec_, data_, size_, value);
  }

  /// Elements copied from host memory to `exec`.
  Array(Executor exec, Span<const T> host_values)
      : Array(std::move(exec), static_cast<size_type>(host_values.size())) {
    if (size_ > 0) copy_bytes(data_, exec_, host_values.data(), Executor::host(), bytes());
  }

  Array(Executor exec, std::initializer_list<T> host_values)
      : Array(std::move(exec), Span<const T>(host_values.begin(), host_values.size())) {}

  Array(Executor exec, const std::vector<T>& host_values)
      : Array(std::move(exec), Span<const T>(host_values)) {}

  Array(const Array&) = delete;
  Array& operator=(const Array&) = delete;

  Array(Array&& other) noexcept
      : exec_(std::move(other.exec_)),
        data_(std::exchange(other.data_, nullptr)),
        size_(std::exchange(other.size_, 0)),
        owner_(std::move(other.owner_)) {}

  Array& operator=(Array&& other) noexcept {
    if (this != &other) {
      release();
      exec_ = std::move(other.exec_);
      data_ = std::exchange(other.data_, nullptr);
      size_ = std::exchange(other.size_, 0);
      owner_ = std::move(other.owner_);
    }
    return *this;
  }

  /// The elements of `of`, shared rather than copied: an array that does
  /// not free them and keeps `owner` (what owns `of`) alive as long as it
  /// and its moves live. For data that neither side changes: the pattern a
  /// matrix shares with its single-precision copy (LevelOperator::
  /// to_single), which then costs only its values. A write through either
  /// array is seen by both.
  static Array alias(const Array& of, std::shared_ptr<const void> owner) {
    require(owner != nullptr || of.size_ == 0,
            "Array::alias: the owner of the shared elements is null");
    Array a;
    a.exec_ = of.exec_;
    a.data_ = of.data_;
    a.size_ = of.size_;
    a.owner_ = std::move(owner);
    return a;
  }
  /// Whether the elements are shared with another array (alias()).
  bool is_alias() const noexcept { return owner_ != nullptr; }

  ~Array() { release(); }

  size_type size() const noexcept { return size_; }
  bool empty() const noexcept { return size_ == 0; }
  std::size_t bytes() const noexcept { return static_cast<std::size_t>(size_) * sizeof(T); }
  const Executor& executor() const noexcept { return exec_; }
  Location location() const noexcept { return exec_.location(); }

  /// Raw pointer in the array's own location. Kernels use this after the
  /// public entry point has checked locations once.
  T* data() noexcept { return data_; }
  const T* data() const noexcept { return data_; }

  /// The elements as a span usable on `exec`; throws location_mismatch when
  /// the array lives elsewhere. Never copies.
  Span<T> view(const Executor& exec) {
    check_location(exec, exec_, "array", "the requested view");
    return {data_, static_cast<std::size_t>(size_)};
  }
  Span<const T> view(const Executor& exec) const {
    check_location(exec, exec_, "array", "the requested view");
    return {data_, static_cast<std::size_t>(size_)};
  }
  /// view(Executor::host()).
  Span<T> host_view() { return view(Executor::host()); }
  Span<const T> host_view() const { return view(Executor::host()); }

  /// A copy of this array on `target` (which may be the same executor).
  Array to(const Executor& target) const {
    Array result(target, size_);
    if (size_ > 0) copy_bytes(result.data_, target, data_, exec_, bytes());
    return result;
  }
  /// A copy on the same executor.
  Array clone() const { return to(exec_); }

  /// The elements copied into a host std::vector.
  std::vector<T> to_vector() const {
    std::vector<T> result(static_cast<std::size_t>(size_));
    if (size_ > 0) copy_bytes(result.data(), Executor::host(), data_, exec_, bytes());
    return result;
  }

  /// Sets every element to `value`, on the array's executor.
  void fill(T value) { detail::fill(exec_, data_, size_, value); }

 private:
  void release() noexcept {
    if (data_ != nullptr && owner_ == nullptr) exec_.deallocate(data_, bytes());
    data_ = nullptr;
    size_ = 0;
    owner_.reset();
  }

  Executor exec_;
  T* data_ = nullptr;
  size_type size_ = 0;
  /// Set for an alias(): what owns data_ (which this array then never frees).
  std::shared_ptr<const void> owner_;
};

/// Copies `src` into `dst` across any two locations; sizes must match.
template <class T>
void copy(const Array<T>& src, Array<T>& dst) {
  if (src.size() != dst.size()) {
    throw dimension_mismatch("copy: source has " + std::to_string(src.size()) +
                             " elements, destination has " + std::to_string(dst.size()));
  }
  if (src.size() > 0) copy_bytes(dst.data(), dst.executor(), src.data(), src.executor(), src.bytes());
}

}  // namespace strata
