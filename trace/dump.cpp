// trace/dump.cpp — writing and reading trace dumps with their inputs.
#include "trace/dump.h"

#include <fstream>
#include <sstream>

#include "ir/error.h"
#include "trace/text.h"

namespace lt {

void write_trace_dump(const Trace& trace, const std::string& stem, bool with_inputs) {
  std::ofstream out(stem + ".trace");
  if (!out) fail(ErrorKind::Runtime, "write_trace_dump: cannot write ", stem, ".trace");
  out << print_trace(trace);
  if (!with_inputs) return;
  for (const BufferPtr& p : trace.params)
    if (!p) return;
  std::ofstream in(stem + ".inputs", std::ios::binary);
  for (const BufferPtr& p : trace.params) in.write(static_cast<const char*>(p->data()), p->nbytes());
}

Trace read_trace_dump(const std::string& path, bool* inputs_bound) {
  std::ifstream t(path);
  if (!t) fail(ErrorKind::Runtime, "read_trace_dump: cannot open ", path);
  std::stringstream ss;
  ss << t.rdbuf();
  Trace trace = parse_trace(ss.str());
  std::string stem = path.size() > 6 && path.substr(path.size() - 6) == ".trace" ? path.substr(0, path.size() - 6) : path;
  std::ifstream in(stem + ".inputs", std::ios::binary);
  if (inputs_bound) *inputs_bound = static_cast<bool>(in);
  if (!in) return trace;
  for (const TraceNode& n : trace.nodes) {
    if (n.op != Op::Input || trace.params[n.param]) continue;
    BufferPtr b = make_buffer(n.dtype, shape_numel(n.shape));
    in.read(static_cast<char*>(b->data()), static_cast<std::streamsize>(b->nbytes()));
    if (!in && b->nbytes()) fail(ErrorKind::Runtime, "read_trace_dump: ", stem, ".inputs is shorter than the trace's params");
    trace.params[n.param] = b;
  }
  return trace;
}

}  // namespace lt
