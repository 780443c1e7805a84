#pragma once
/// \file
/// Span<T>: a pointer and a length, the subset of std::span that the public
/// API uses (data, size, iteration, indexing, subspan).
///
/// Why not std::span: it is C++20, and the public headers are meant to
/// compile as C++17 too (a consumer's project may not be on C++20). The
/// library itself is built as C++20, so a signature that named std::span
/// would mangle differently in the two (or not compile at all in C++17);
/// Span is the same type in both. In C++20 it converts to and from
/// std::span implicitly (std::span takes it as a contiguous range, and it
/// takes std::span as a container), so C++20 code may keep using std::span.

#include <cstddef>
#include <type_traits>
#include <utility>

#if __cplusplus >= 202002L
#include <span>  // declares ranges::enable_borrowed_range, specialised below
#endif

namespace strata {

template <class T>
class Span {
 public:
  using element_type = T;
  using value_type = std::remove_cv_t<T>;
  using size_type = std::size_t;
  using pointer = T*;
  using reference = T&;
  using iterator = T*;

  constexpr Span() noexcept = default;
  constexpr Span(T* data, std::size_t size) noexcept : data_(data), size_(size) {}
  template <std::size_t N>
  constexpr Span(T (&array)[N]) noexcept : data_(array), size_(N) {}  // NOLINT: implicit
  /// Any contiguous container whose data() converts to T* (std::vector,
  /// std::array, Span<U> for T = const U); implicit, as std::span's.
  template <class C,
            class = std::enable_if_t<
                !std::is_same_v<std::remove_cv_t<std::remove_reference_t<C>>, Span> &&
                std::is_convertible_v<decltype(std::declval<C&>().data()), T*> &&
                std::is_convertible_v<decltype(std::declval<C&>().size()), std::size_t>>>
  constexpr Span(C&& container) noexcept  // NOLINT: implicit on purpose
      : data_(container.data()), size_(static_cast<std::size_t>(container.size())) {}

  constexpr T* data() const noexcept { return data_; }
  constexpr std::size_t size() const noexcept { return size_; }
  constexpr bool empty() const noexcept { return size_ == 0; }
  constexpr T* begin() const noexcept { return data_; }
  constexpr T* end() const noexcept { return data_ + size_; }
  /// No bounds check, as std::span's.
  constexpr T& operator[](std::size_t i) const noexcept { return data_[i]; }
  constexpr T& front() const noexcept { return data_[0]; }
  constexpr T& back() const noexcept { return data_[size_ - 1]; }
  /// The `count` elements from `offset` (count = npos: to the end).
  static constexpr std::size_t npos = static_cast<std::size_t>(-1);
  constexpr Span subspan(std::size_t offset, std::size_t count = npos) const noexcept {
    return {data_ + offset, count == npos ? size_ - offset : count};
  }

 private:
  T* data_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace strata

#if __cplusplus >= 202002L
// A Span does not own what it views, so std::span may be made from a
// temporary one (`std::span<double> s = a.host_view();`), as from a
// temporary std::span.
template <class T>
inline constexpr bool std::ranges::enable_borrowed_range<strata::Span<T>> = true;
#endif
