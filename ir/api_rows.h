// ir/api_rows.h — the rows of ir/api_functions.def as compile-time data for C++.
//
// `ApiRow::sum` names a row; `api_row_names(row)` gives its torch.*, Tensor.*
// and in-place names. The C++ API table (lazy/api_cxx.def) keys its rows by
// these ids, and lazy/tensor.cpp checks with `functions_match`,
// `methods_match`, `aliases_match` and `inplace_match` that each C++ function, method and
// in-place method carries the names (the torch aliases included) that its row
// lists.
#pragma once

#include <string_view>

namespace lt {

enum class ApiRow {
#define LT_API_FUNCTION(id, ...) id,
#include "ir/api_functions.def"
};

/// A row's space-separated names ("" for none).
struct ApiRowNames {
  std::string_view functions;  ///< torch.X
  std::string_view methods;    ///< Tensor.X
  std::string_view inplace;    ///< Tensor.X_
};

inline constexpr ApiRowNames kApiRowNames[] = {
#define LT_API_FUNCTION(id, functions, first, methods, inplace, ...) {functions, methods, inplace},
#include "ir/api_functions.def"
};

constexpr const ApiRowNames& api_row_names(ApiRow row) { return kApiRowNames[static_cast<int>(row)]; }

namespace api_words {
constexpr bool is_separator(char c) { return c == ' ' || c == ','; }

/// Calls f(word) for each word of `words` (separated by spaces or commas) until f returns false.
template <class F>
constexpr bool all_words(std::string_view words, F f) {
  size_t i = 0;
  while (i < words.size()) {
    while (i < words.size() && is_separator(words[i])) ++i;
    size_t j = i;
    while (j < words.size() && !is_separator(words[j])) ++j;
    if (j > i && !f(words.substr(i, j - i))) return false;
    i = j;
  }
  return true;
}
}  // namespace api_words

/// Whether `word` is one of the words of `words`.
constexpr bool has_word(std::string_view words, std::string_view word) {
  return !api_words::all_words(words, [&](std::string_view w) { return w != word; });
}

/// Whether every word of `a` is a word of `b`.
constexpr bool words_within(std::string_view a, std::string_view b) {
  return api_words::all_words(a, [&](std::string_view w) { return has_word(b, w); });
}

/// Whether `a` and `b` hold the same words.
constexpr bool same_words(std::string_view a, std::string_view b) { return words_within(a, b) && words_within(b, a); }

/// Whether `name` is a Tensor method of some row (a method may have a row of its own: permute_method).
constexpr bool is_api_method(std::string_view name) {
  for (const ApiRowNames& row : kApiRowNames)
    if (has_word(row.methods, name)) return true;
  return false;
}

/// Whether C++ functions named `names` are exactly the row's torch.* names.
constexpr bool functions_match(ApiRow row, std::string_view names) {
  return same_words(names, api_row_names(row).functions);
}

/// Whether C++ methods named `names` are Tensor methods of the table and include the row's own.
constexpr bool methods_match(ApiRow row, std::string_view names) {
  return words_within(api_row_names(row).methods, names) && api_words::all_words(names, is_api_method);
}

/// Whether the hand-written C++ `function` (when the row names it) and its
/// forwarding `aliases` are exactly the row's torch.* names.
constexpr bool aliases_match(ApiRow row, std::string_view function, std::string_view aliases) {
  std::string_view names = api_row_names(row).functions;
  return words_within(aliases, names) &&
         api_words::all_words(names, [&](std::string_view w) { return w == function || has_word(aliases, w); });
}

/// Whether C++ in-place methods named `names` are exactly the row's in-place names.
constexpr bool inplace_match(ApiRow row, std::string_view names) {
  return same_words(names, api_row_names(row).inplace);
}

}  // namespace lt
