#pragma once
/// \file Span: a view of contiguous elements (C++17 has no std::span). It does not own what it
/// views: build it from an array, a std::array or a vector that outlives the use, or from a
/// braced list only inside the call that consumes it (the list's storage ends with the full
/// expression).
///
/// \code
///   const MlirValue operands[] = {input, weight};
///   OpSpec op;
///   op.operands = operands;                 // views the local array
///   writer.addOp(op);                        // both alive for the call
/// \endcode

#include <array>
#include <cstddef>
#include <initializer_list>
#include <type_traits>
#include <vector>

namespace lattice {

template <typename T> class Span {
public:
  using value_type = std::remove_cv_t<T>;

  constexpr Span() = default;
  constexpr Span(T* data, std::size_t size) : m_data(data), m_size(size) {}
  template <std::size_t N> constexpr Span(T (&array)[N]) : m_data(array), m_size(N) {}
  template <std::size_t N> constexpr Span(std::array<value_type, N>& a) : m_data(a.data()), m_size(N) {}
  template <std::size_t N, typename U = T, typename = std::enable_if_t<std::is_const_v<U>>>
  constexpr Span(const std::array<value_type, N>& a) : m_data(a.data()), m_size(N) {}
  Span(std::vector<value_type>& v) : m_data(v.data()), m_size(v.size()) {}
  template <typename U = T, typename = std::enable_if_t<std::is_const_v<U>>>
  Span(const std::vector<value_type>& v) : m_data(v.data()), m_size(v.size()) {}
  template <typename U = T, typename = std::enable_if_t<std::is_const_v<U>>>
  constexpr Span(std::initializer_list<value_type> list) : m_data(list.begin()), m_size(list.size()) {}

  constexpr T* data() const { return m_data; }
  constexpr std::size_t size() const { return m_size; }
  constexpr bool empty() const { return m_size == 0; }
  constexpr T& operator[](std::size_t i) const { return m_data[i]; }
  constexpr T& front() const { return m_data[0]; }
  constexpr T& back() const { return m_data[m_size - 1]; }
  constexpr T* begin() const { return m_data; }
  constexpr T* end() const { return m_data + m_size; }
  /// The first `n` elements (n ≤ size()).
  constexpr Span first(std::size_t n) const { return {m_data, n}; }

private:
  T* m_data = nullptr;
  std::size_t m_size = 0;
};

} // namespace lattice
