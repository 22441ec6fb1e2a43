// bindings/api_table.h — the rows of ir/api_functions.def as C++ types.
//
// api::sum (one struct per row) carries the row's names and its pybind11
// argument list; def_api<api::sum>(m, cls, f) registers f under every torch.*
// and Tensor.* name of the row with those argument names, so a binding cannot
// disagree with the table (pybind11 fails the build when f's parameters and the
// row's arguments differ in number). The keyword aliases and out= are added
// over the registered forms by lazytensor/_api.py from _C._api_table().
#pragma once

#include <bit>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "bindings/py_tensor.h"

namespace ltpy::api {

// The rows are structs named by id (api::sum, api::std): below, the standard library is ::std.
constexpr int LT_NUMPY = 1, LT_OUT = 2, LT_PYTHON = 4, LT_VARARGS = 8;
constexpr int LT_AUTOCAST_LOWER = 16, LT_AUTOCAST_FP32 = 32, LT_AUTOCAST_PROMOTE = 64;
constexpr int kAutocastFlags = LT_AUTOCAST_LOWER | LT_AUTOCAST_FP32 | LT_AUTOCAST_PROMOTE;

/// The row's autocast class as lazytensor/amp/_op_policy.py names it, or nullptr for none.
constexpr const char* autocast_class(int flags) {
  switch (flags & kAutocastFlags) {
    case LT_AUTOCAST_LOWER: return "lower_precision_fp";
    case LT_AUTOCAST_FP32: return "fp32";
    case LT_AUTOCAST_PROMOTE: return "promote";
    default: return nullptr;
  }
}

#define LT_DEFAULT_None py::none()
#define LT_DEFAULT_False false
#define LT_DEFAULT_True true
#define LT_DEFAULT_Zero int64_t(0)
#define LT_DEFAULT_MinusOne int64_t(-1)
#define LT_DEFAULT_Empty py::tuple()
#define LT_DEFAULT_Fro "fro"

#define LT_REQ(n) py::arg(#n)
#define LT_OPT(n, d) py::arg(#n) = LT_DEFAULT_##d
#define LT_KW py::kw_only()
#define LT_API_FUNCTION(id, fns, first_, methods_, inplace_, flags_, ...)        \
  struct id {                                                                   \
    static constexpr const char* name = #id;                                    \
    static constexpr const char* functions = fns;                               \
    static constexpr const char* first = first_;                                \
    static constexpr const char* methods = methods_;                            \
    static constexpr const char* inplace = inplace_;                            \
    static constexpr int flags = (flags_);                                      \
    static_assert(::std::popcount(unsigned(flags & kAutocastFlags)) <= 1,       \
                  #id ": at most one autocast class");                          \
    static auto args() { return ::std::make_tuple(__VA_ARGS__); }                 \
  };
#include "ir/api_functions.def"

inline ::std::vector<::std::string> words(const char* s) {
  ::std::istringstream in(s);
  ::std::vector<::std::string> out;
  for (::std::string w; in >> w;) out.push_back(w);
  return out;
}

/// A name pybind11 may keep a pointer to (the names live as long as the process).
inline const char* keep(const ::std::string& s) { return (new ::std::string(s))->c_str(); }

/// f as torch.<functions> only (a row without methods).
template <class Row, class F>
void def_api(py::module_& m, F f) {
  for (const auto& n : words(Row::functions)) {
    ::std::apply([&](auto... a) { m.def(keep(n), f, py::arg(Row::first), a...); }, Row::args());
  }
}

/// f as torch.<functions> (first argument named Row::first) and Tensor.<methods>.
template <class Row, class F>
void def_api(py::module_& m, py::class_<PyTensor>& cls, F f) {
  static_assert(!(Row::flags & LT_PYTHON), "a LT_PYTHON row is written in the Python package");
  if constexpr (Row::functions[0] != '\0') def_api<Row>(m, f);
  for (const auto& n : words(Row::methods)) {
    if constexpr ((Row::flags & LT_VARARGS) != 0) cls.def(keep(n), f);  // (self, *args): the keyword is mapped in _api.py
    else ::std::apply([&](auto... a) { cls.def(keep(n), f, a...); }, Row::args());
  }
}

/// f (taking self as py::object) as the in-place methods Tensor.<inplace>.
template <class Row, class F>
void def_api_inplace(py::class_<PyTensor>& cls, F f) {
  for (const auto& n : words(Row::inplace)) {
    ::std::apply([&](auto... a) { cls.def(keep(n), f, a...); }, Row::args());
  }
}

}  // namespace ltpy::api

namespace ltpy {
/// _C._api_table() and _C._api_alias (bindings/api_table.cpp).
void bind_api_table(py::module_& m);
}  // namespace ltpy
