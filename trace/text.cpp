// trace/text.cpp — printing and parsing the trace text format.
//
// The grammar is in docs/trace-format.md. Printing is canonical (one spelling
// per trace), so print(parse(print(t))) == print(t). Scalar values round-trip
// bit for bit: finite doubles print with 17 significant digits, which strtod
// maps back to the same double; infinities print as inf/-inf; the default
// quiet NaN prints as nan and any other NaN as nan:0x<64-bit pattern>.
#include "trace/text.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string>

#include "absl/strings/str_join.h"
#include "ir/error.h"
#include "trace/capture.h"

namespace lt {
namespace {

// v2: an elementwise op may take a rank-0 scalar node as an operand directly
// (ir/ops.h). A v1 trace is a valid v2 trace and still parses; a v1 reader
// rejects a v2 file by its header instead of failing at evaluation.
constexpr std::string_view kMagic = "lazytensor-trace v2";
constexpr std::string_view kMagicV1 = "lazytensor-trace v1";
constexpr uint64_t kDefaultNaNBits = 0x7ff8000000000000ull;

uint64_t bits_of(double v) {
  uint64_t bits;
  std::memcpy(&bits, &v, sizeof bits);
  return bits;
}

double double_of(uint64_t bits) {
  double v;
  std::memcpy(&v, &bits, sizeof v);
  return v;
}

std::string format_double(double v) {
  if (std::isnan(v)) {
    uint64_t bits = bits_of(v);
    if (bits == kDefaultNaNBits) return "nan";
    char buf[32];
    std::snprintf(buf, sizeof buf, "nan:0x%016llx", static_cast<unsigned long long>(bits));
    return buf;
  }
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

std::string format_value(const ScalarValue& value, DType dtype) {
  return is_floating(dtype) ? format_double(value.f) : std::to_string(value.i);
}

std::string format_refs(absl::Span<const int32_t> ids) {
  std::string out;
  for (size_t k = 0; k < ids.size(); ++k) absl::StrAppend(&out, k ? ", %" : "%", ids[k]);
  return out;
}

// ---- parsing ------------------------------------------------------------------

/// A cursor over one line; every failure names the line and what was expected.
class LineParser {
 public:
  LineParser(std::string_view text, int line_number) : text_(text), line_(line_number) {}

  [[noreturn]] void expected(std::string_view what) const {
    std::string_view rest = text_.substr(pos_);
    fail(ErrorKind::Value, "parse_trace: line ", line_, ": expected ", what, ", found ",
         rest.empty() ? std::string("end of line") : cat("'", rest, "'"));
  }
  void skip_spaces() {
    while (pos_ < text_.size() && text_[pos_] == ' ') ++pos_;
  }
  bool at_end() {
    skip_spaces();
    return pos_ == text_.size();
  }
  bool peek(char c) {
    skip_spaces();
    return pos_ < text_.size() && text_[pos_] == c;
  }
  bool accept(char c) {
    if (!peek(c)) return false;
    ++pos_;
    return true;
  }
  void expect(char c) {
    if (!accept(c)) expected(cat("'", std::string(1, c), "'"));
  }
  /// Accepts `word` when it is followed by a non-word character.
  bool accept_word(std::string_view word) {
    skip_spaces();
    if (text_.substr(pos_, word.size()) != word) return false;
    size_t end = pos_ + word.size();
    if (end < text_.size() && is_word_char(text_[end])) return false;
    pos_ = end;
    return true;
  }
  /// A run of [A-Za-z0-9_] (op and dtype names).
  std::string_view word(std::string_view what) {
    skip_spaces();
    size_t start = pos_;
    while (pos_ < text_.size() && is_word_char(text_[pos_])) ++pos_;
    if (start == pos_) expected(what);
    return text_.substr(start, pos_ - start);
  }
  /// A token up to the next space, comma or bracket (a scalar value).
  std::string_view token(std::string_view what) {
    skip_spaces();
    size_t start = pos_;
    while (pos_ < text_.size() && !std::strchr(" ,[]", text_[pos_])) ++pos_;
    if (start == pos_) expected(what);
    return text_.substr(start, pos_ - start);
  }
  int64_t integer(std::string_view what) {
    skip_spaces();
    int64_t v = 0;
    auto [end, ec] = std::from_chars(text_.data() + pos_, text_.data() + text_.size(), v);
    if (ec != std::errc() || end == text_.data() + pos_) expected(what);
    pos_ = end - text_.data();
    return v;
  }
  int32_t node_ref(int32_t limit) {
    if (!accept('%')) expected("a node reference %N");
    int64_t id = integer("a node number after '%'");
    if (id < 0 || id >= limit)
      fail(ErrorKind::Value, "parse_trace: line ", line_, ": %", id, " is not an earlier node");
    return static_cast<int32_t>(id);
  }
  /// "[a, b, ...]"
  template <typename Vec>
  void int_list(Vec* out, std::string_view what) {
    expect('[');
    if (accept(']')) return;
    do out->push_back(integer(what));
    while (accept(','));
    expect(']');
  }
  double double_value(std::string_view tok) const {
    if (tok == "nan") return double_of(kDefaultNaNBits);
    if (tok == "inf") return std::numeric_limits<double>::infinity();
    if (tok == "-inf") return -std::numeric_limits<double>::infinity();
    if (tok.substr(0, 6) == "nan:0x") {
      uint64_t bits = 0;
      auto [end, ec] = std::from_chars(tok.data() + 6, tok.data() + tok.size(), bits, 16);
      if (ec == std::errc() && end == tok.data() + tok.size() && std::isnan(double_of(bits))) return double_of(bits);
    } else {
      double v = 0;
      auto [end, ec] = std::from_chars(tok.data(), tok.data() + tok.size(), v);
      if (ec == std::errc() && end == tok.data() + tok.size()) return v;
    }
    fail(ErrorKind::Value, "parse_trace: line ", line_, ": expected a floating value, found '", tok, "'");
  }
  int64_t int_value(std::string_view tok) const {
    int64_t v = 0;
    auto [end, ec] = std::from_chars(tok.data(), tok.data() + tok.size(), v);
    if (ec != std::errc() || end != tok.data() + tok.size()) {
      fail(ErrorKind::Value, "parse_trace: line ", line_, ": expected an integer value, found '", tok, "'");
    }
    return v;
  }
  int line() const { return line_; }

 private:
  static bool is_word_char(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
  }
  std::string_view text_;
  size_t pos_ = 0;
  int line_;
};

struct ParsedNode {
  TraceNode node;
  bool has_value = false;
  ScalarValue value;
};

ParsedNode parse_node_line(LineParser& p, int32_t id, int32_t ordinal_scalar) {
  ParsedNode out;
  TraceNode& n = out.node;
  p.expect('%');
  if (p.integer("a node number") != id)
    fail(ErrorKind::Value, "parse_trace: line ", p.line(), ": expected node %", id, " (nodes are numbered in order)");
  p.expect('=');
  std::string_view op_text = p.word("an op name");
  if (!parse_op(op_text, &n.op)) fail(ErrorKind::Value, "parse_trace: line ", p.line(), ": unknown op '", op_text, "'");
  std::string_view dtype_text = p.word("a dtype (bool, i32, i64, f32, f64)");
  if (!parse_dtype(dtype_text, &n.dtype))
    fail(ErrorKind::Value, "parse_trace: line ", p.line(), ": unknown dtype '", dtype_text, "'");
  p.int_list(&n.shape, "a dimension size");
  for (int64_t d : n.shape)
    if (d < 0) fail(ErrorKind::Value, "parse_trace: line ", p.line(), ": negative dimension ", d);
  if (p.peek('%')) {
    do n.inputs.push_back(p.node_ref(id));
    while (p.accept(','));
  }
  bool has_param = false;
  if (p.accept_word("attrs")) {
    p.expect('=');
    p.int_list(&n.attrs, "an integer attribute");
  }
  if (p.accept_word("param")) {
    p.expect('=');
    int64_t param = p.integer("a parameter number");
    if (param < 0 || param > INT32_MAX) fail(ErrorKind::Value, "parse_trace: line ", p.line(), ": bad param ", param);
    n.param = static_cast<int32_t>(param);
    has_param = true;
  }
  if (p.accept_word("value")) {
    p.expect('=');
    std::string_view tok = p.token("a scalar value");
    out.has_value = true;
    if (is_floating(n.dtype))
      out.value.f = p.double_value(tok);
    else
      out.value.i = p.int_value(tok);
  }
  if (!p.at_end()) p.expected("end of line (fields go in the order: inputs, attrs, param, value)");

  const int arity = op_info(n.op).arity;
  if (arity >= 0 && static_cast<int>(n.inputs.size()) != arity) {
    fail(ErrorKind::Value, "parse_trace: line ", p.line(), ": ", op_text, " takes ", arity, " inputs, found ",
         n.inputs.size());
  }
  if (n.op == Op::Input && !has_param) p.expected("param=N on an input");
  if (n.op == Op::Scalar) {
    if (!out.has_value) p.expected("value=V on a scalar");
    if (!has_param) n.param = ordinal_scalar;
  } else if (out.has_value) {
    fail(ErrorKind::Value, "parse_trace: line ", p.line(), ": only scalars carry a value");
  }
  if (has_param && n.op != Op::Input && n.op != Op::Scalar) {
    fail(ErrorKind::Value, "parse_trace: line ", p.line(), ": only inputs and scalars carry a param");
  }
  return out;
}

}  // namespace

std::string print_trace(const Trace& trace) {
  std::string out = cat(kMagic, "\nhash ", hash_trace(trace).hex(), "\n");
  int32_t scalar_ordinal = 0;
  for (size_t i = 0; i < trace.nodes.size(); ++i) {
    const TraceNode& n = trace.nodes[i];
    absl::StrAppend(&out, "%", i, " = ", detail::to_alpha(op_name(n.op)), " ", detail::to_alpha(dtype_name(n.dtype)),
                    shape_str(n.shape));
    if (!n.inputs.empty()) absl::StrAppend(&out, " ", format_refs(n.inputs));
    if (!n.attrs.empty()) absl::StrAppend(&out, " attrs=[", absl::StrJoin(n.attrs, ", "), "]");
    if (n.op == Op::Input) absl::StrAppend(&out, " param=", n.param);
    if (n.op == Op::Scalar) {
      if (n.param != scalar_ordinal) absl::StrAppend(&out, " param=", n.param);
      ++scalar_ordinal;
      ScalarValue v;
      if (n.param >= 0 && n.param < static_cast<int32_t>(trace.scalars.size())) v = trace.scalars[n.param];
      absl::StrAppend(&out, " value=", format_value(v, n.dtype));
    }
    out += '\n';
  }
  absl::StrAppend(&out, "outputs", trace.outputs.empty() ? "" : " ", format_refs(trace.outputs), "\n");
  return out;
}

Trace parse_trace(std::string_view text) {
  Trace trace;
  std::vector<std::pair<int32_t, ScalarValue>> scalar_values;
  enum class State { Magic, Body, Done } state = State::Magic;
  int line_number = 0;
  int32_t num_scalars = 0;
  while (!text.empty()) {
    size_t eol = text.find('\n');
    std::string_view line = text.substr(0, eol);
    text = eol == std::string_view::npos ? std::string_view() : text.substr(eol + 1);
    ++line_number;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    LineParser p(line, line_number);
    if (p.at_end() || p.peek('#')) continue;  // blank lines and comments
    switch (state) {
      case State::Magic:
        if (line != kMagic && line != kMagicV1) p.expected(cat("the header '", kMagic, "' (or '", kMagicV1, "')"));
        state = State::Body;
        break;
      case State::Body:
        if (p.accept_word("hash")) {
          p.token("a hash");  // informational: the hash is recomputed below
          if (!p.at_end()) p.expected("end of line");
        } else if (p.accept_word("outputs")) {
          const int32_t count = static_cast<int32_t>(trace.nodes.size());
          if (!p.at_end()) {
            do trace.outputs.push_back(p.node_ref(count));
            while (p.accept(','));
          }
          if (!p.at_end()) p.expected("',' or end of line");
          state = State::Done;
        } else {
          ParsedNode pn = parse_node_line(p, static_cast<int32_t>(trace.nodes.size()), num_scalars);
          if (pn.node.op == Op::Scalar) {
            ++num_scalars;
            scalar_values.emplace_back(pn.node.param, pn.value);
          }
          trace.nodes.push_back(std::move(pn.node));
        }
        break;
      case State::Done:
        p.expected("nothing after the outputs line");
    }
  }
  if (state == State::Magic)
    fail(ErrorKind::Value, "parse_trace: line ", line_number + 1, ": expected the header '", kMagic, "'");
  if (state != State::Done)
    fail(ErrorKind::Value, "parse_trace: line ", line_number + 1, ": expected an 'outputs' line");

  int32_t num_scalar_slots = 0;
  for (const auto& [param, value] : scalar_values) num_scalar_slots = std::max(num_scalar_slots, param + 1);
  trace.scalars.resize(num_scalar_slots);
  for (const auto& [param, value] : scalar_values) trace.scalars[param] = value;
  trace.params.resize(trace.num_params());
  trace.hash = hash_trace(trace);
  return trace;
}

}  // namespace lt
