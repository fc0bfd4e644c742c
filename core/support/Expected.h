#pragma once
/// \file Error values for the core API. Errors are values, never exceptions across the
/// public API (exceptions may be used inside a .cpp and are converted at its boundary).

#include <cassert>
#include <cstdint>
#include <string>
#include <utility>
#include <variant>

namespace lattice {

/// What kind of failure an Error is, for callers that act on it (an exit status, a hint, a
/// cancel that is not reported as a failure). Most errors are `Failed`; a caller never matches
/// the message text to tell them apart.
enum class ErrorCode : unsigned char {
  Failed,        ///< the operation failed; the message says why
  Cancelled,     ///< stopped on request (a progress callback returned false)
  NotAnArtifact, ///< a save target holds files that are not part of a lattice artifact
  NoInputs,      ///< a lowering was given no example inputs and the model carries none
  InputCount,    ///< the example inputs' count does not fit the model's forward signature
};

/// One failure. `message` is a single line that already names its context (file, JSON
/// location, tensor key, node or module path); it starts lower-case and has no trailing period.
/// Multi-line text (e.g. FX's "While executing ..." trailer) is allowed where the reference
/// prints it.
struct Error {
  std::string message;
  ErrorCode code = ErrorCode::Failed;
  /// What the error is about, for callers that point at it (the studio selects the node): the
  /// line of the artifact text it is at (1-based; 0: none), and the artifact input it names
  /// (its ABI name; empty: none).
  std::uint32_t line = 0;
  std::string input;
};

/// Thrown inside implementation files only; caught and turned into an Error at API boundaries.
struct Exception {
  std::string message;
  ErrorCode code = ErrorCode::Failed;
};

/// A value or an Error.
template <typename T>
class [[nodiscard]] Expected {
public:
  Expected(T value) : m_v(std::move(value)) {}
  Expected(Error error) : m_v(std::move(error)) {}

  bool ok() const { return m_v.index() == 0; }
  explicit operator bool() const { return ok(); }

  T& value() & { assert(ok()); return std::get<0>(m_v); }
  const T& value() const& { assert(ok()); return std::get<0>(m_v); }
  T&& value() && { assert(ok()); return std::get<0>(std::move(m_v)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

  const Error& error() const { assert(!ok()); return std::get<1>(m_v); }
  const std::string& message() const { return error().message; }
  ErrorCode code() const { return error().code; }

private:
  std::variant<T, Error> m_v;
};

template <>
class [[nodiscard]] Expected<void> {
public:
  Expected() = default;
  Expected(Error error) : m_error(std::move(error)), m_ok(false) {}

  bool ok() const { return m_ok; }
  explicit operator bool() const { return m_ok; }
  const Error& error() const { assert(!m_ok); return m_error; }
  const std::string& message() const { return error().message; }
  ErrorCode code() const { return error().code; }

private:
  Error m_error;
  bool m_ok = true;
};

using Status = Expected<void>;

inline Error makeError(std::string message, ErrorCode code = ErrorCode::Failed) {
  return Error{std::move(message), code, 0, {}};
}

} // namespace lattice
