// distributed/process_group.h — a Gloo process group: collectives over host buffers.
//
// The layer knows nothing of lazy tensors: every operation takes host memory,
// an element type and a count. lazytensor.distributed materialises a tensor,
// hands its host copy here and binds the result back as a new leaf, so a
// collective is a sync point of its inputs. A collective executed as a trace
// node between kernels would call the same functions on the buffers a plan
// allocates; nothing here would change.
//
// Every collective first all-gathers a small metadata record (operation,
// dtype, shape) and compares it, so ranks that disagree get an error naming
// the ranks and shapes instead of a hang or garbage. Gloo failures (a peer
// that closed its connection, a timeout) are rethrown with the group's rank,
// the operation and, where Gloo names one, the peer's rank.
#pragma once

#include <gloo/context.h>
#include <gloo/rendezvous/store.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace lt::dist {

enum class DType : int { Float32 = 0, Float64 = 1, Int32 = 2, Int64 = 3 };
enum class ReduceOp : int { Sum = 0, Avg = 1, Max = 2, Min = 3, Product = 4 };

size_t dtype_size(DType d);
const char* dtype_name(DType d);

class ProcessGroup {
 public:
  /// Joins the group: every member calls this with the same store and prefix. `hostname` or
  /// `iface` picks the address the TCP transport listens on.
  ProcessGroup(gloo::rendezvous::Store& store, const std::string& prefix, int rank, int size,
               std::chrono::milliseconds timeout, const std::string& hostname, const std::string& iface);

  int rank() const { return rank_; }
  int size() const { return size_; }

  /// `shape` is only for the consistency check and the messages.
  void all_reduce(void* data, const std::vector<int64_t>& shape, DType dtype, ReduceOp op);
  void broadcast(void* data, const std::vector<int64_t>& shape, DType dtype, int root);
  /// out holds size() copies of the input's element count.
  void all_gather(const void* in, void* out, const std::vector<int64_t>& shape, DType dtype);
  /// out (size() blocks) is written on root only.
  void gather(const void* in, void* out, const std::vector<int64_t>& shape, DType dtype, int root);
  /// in (size() blocks) is read on root only.
  void scatter(const void* in, void* out, const std::vector<int64_t>& shape, DType dtype, int root);
  void send(const void* data, const std::vector<int64_t>& shape, DType dtype, int dst, uint32_t tag);
  void recv(void* data, const std::vector<int64_t>& shape, DType dtype, int src, uint32_t tag);
  void barrier();

 private:
  void check_consistent(const char* op, const std::vector<int64_t>& shape, DType dtype, int root);
  [[noreturn]] void rethrow(const char* op, const std::exception& e) const;

  std::shared_ptr<gloo::Context> context_;
  std::vector<std::pair<std::string, int>> peer_addresses_;  ///< "[ip]:port" of a peer's pair listener, its rank
  int rank_;
  int size_;
  std::chrono::milliseconds timeout_;
};

}  // namespace lt::dist
