// trace/text.cpp — placeholder until the text format lands.
#include "trace/text.h"

#include "ir/error.h"

namespace lt {
std::string print_trace(const Trace&) { fail(ErrorKind::NotImplemented, "print_trace"); }
Trace parse_trace(std::string_view) { fail(ErrorKind::NotImplemented, "parse_trace"); }
}  // namespace lt
