// ir/error.h — the one exception type of the library.
//
// Every user-facing failure is an lt::Error carrying a kind, so bindings can
// map it to the exception type PyTorch would raise (RuntimeError, IndexError,
// TypeError, ValueError) without parsing messages.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include "absl/strings/str_cat.h"

namespace lt {

enum class ErrorKind {
  Runtime,   ///< shape mismatch and everything else (PyTorch: RuntimeError)
  Index,     ///< dim or index out of range (PyTorch: IndexError)
  Type,      ///< wrong dtype for an op (PyTorch: TypeError or RuntimeError)
  Value,     ///< bad argument value (PyTorch: ValueError)
  NotImplemented,
};

class Error : public std::runtime_error {
 public:
  Error(ErrorKind kind, const std::string& message, bool on_data = false)
      : std::runtime_error(message), kind_(kind), on_data_(on_data) {}
  ErrorKind kind() const { return kind_; }
  /// Found in the values a kernel computed (an index out of range), not in
  /// shapes, code or the machine: the same inputs fail again (lazy/ then
  /// undoes the in-place writes that failed, see lazy/runtime.cpp).
  bool on_data() const { return on_data_; }

 private:
  ErrorKind kind_;
  bool on_data_;
};

namespace detail {
// Debian's Abseil has its own string_view type; bridge std::string_view.
template <typename T>
const T& to_alpha(const T& v) { return v; }
inline absl::string_view to_alpha(const std::string_view& v) { return absl::string_view(v.data(), v.size()); }
}  // namespace detail

/// absl::StrCat that also takes std::string_view. Constrained to printable
/// arguments so that it never captures lt::cat(tensors, 1) (an int dim).
template <typename... Args>
  requires(std::is_constructible_v<absl::AlphaNum, decltype(detail::to_alpha(std::declval<const Args&>()))> && ...)
std::string cat(const Args&... args) {
  return absl::StrCat(detail::to_alpha(args)...);
}

template <typename... Args>
[[noreturn]] void fail(ErrorKind kind, const Args&... args) {
  throw Error(kind, cat(args...));
}

/// fail() for an error found in the values (Error::on_data).
template <typename... Args>
[[noreturn]] void fail_on_data(ErrorKind kind, const Args&... args) {
  throw Error(kind, cat(args...), /*on_data=*/true);
}

#define LT_CHECK(cond, kind, ...)          \
  do {                                     \
    if (!(cond)) ::lt::fail(kind, __VA_ARGS__); \
  } while (0)

}  // namespace lt
