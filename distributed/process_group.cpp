// distributed/process_group.cpp — Gloo collectives over host buffers, with consistency checks.
#include "distributed/process_group.h"

#include <gloo/allgather.h>
#include <gloo/allreduce.h>
#include <gloo/barrier.h>
#include <gloo/broadcast.h>
#include <gloo/common/error.h>
#include <gloo/gather.h>
#include <gloo/math.h>
#include <gloo/rendezvous/context.h>
#include <gloo/rendezvous/prefix_store.h>
#include <gloo/scatter.h>
#include <gloo/transport/tcp/address.h>
#include <gloo/transport/tcp/device.h>
#include <sys/socket.h>

#include <cstring>
#include <sstream>
#include <stdexcept>

namespace lt::dist {
namespace {

constexpr int kMaxDims = 12;
/// op id, dtype, root, ndim, dims...
constexpr int kMetaWords = 4 + kMaxDims;

std::string shape_str(const int64_t* dims, int64_t ndim) {
  std::ostringstream s;
  s << "[";
  for (int64_t i = 0; i < ndim; ++i) s << (i ? ", " : "") << dims[i];
  s << "]";
  return s.str();
}

int64_t numel(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

using RawReduce = void (*)(void*, const void*, const void*, size_t);

template <typename T>
gloo::AllreduceOptions::Func reduce_function(ReduceOp op) {
  switch (op) {
    case ReduceOp::Sum:
    case ReduceOp::Avg: return static_cast<RawReduce>(&gloo::sum<T>);
    case ReduceOp::Product: return static_cast<RawReduce>(&gloo::product<T>);
    case ReduceOp::Max: return static_cast<RawReduce>(&gloo::max<T>);
    case ReduceOp::Min: return static_cast<RawReduce>(&gloo::min<T>);
  }
  return nullptr;
}

gloo::AllreduceOptions::Func reduce_function(DType d, ReduceOp op) {
  switch (d) {
    case DType::Float32: return reduce_function<float>(op);
    case DType::Float64: return reduce_function<double>(op);
    case DType::Int32: return reduce_function<int32_t>(op);
    case DType::Int64: return reduce_function<int64_t>(op);
  }
  return nullptr;
}

template <typename T>
void divide(void* data, size_t n, int by) {
  T* p = static_cast<T*>(data);
  for (size_t i = 0; i < n; ++i) p[i] /= T(by);
}

/// A buffer of bytes typed as char for Gloo's typed setters (they only use sizeof(T) and the count).
char* bytes(const void* p) { return static_cast<char*>(const_cast<void*>(p)); }

}  // namespace

size_t dtype_size(DType d) {
  switch (d) {
    case DType::Float32:
    case DType::Int32: return 4;
    case DType::Float64:
    case DType::Int64: return 8;
  }
  return 0;
}

const char* dtype_name(DType d) {
  switch (d) {
    case DType::Float32: return "float32";
    case DType::Float64: return "float64";
    case DType::Int32: return "int32";
    case DType::Int64: return "int64";
  }
  return "?";
}

ProcessGroup::ProcessGroup(gloo::rendezvous::Store& store, const std::string& prefix, int rank, int size,
                           std::chrono::milliseconds timeout, const std::string& hostname, const std::string& iface)
    : rank_(rank), size_(size), timeout_(timeout) {
  if (size < 1 || rank < 0 || rank >= size) {
    throw std::invalid_argument("lazytensor.distributed: rank " + std::to_string(rank) + " is not in [0, " +
                                std::to_string(size) + ") (world_size " + std::to_string(size) + ")");
  }
  gloo::transport::tcp::attr attr;
  if (!iface.empty()) {
    attr.iface = iface;
  } else {
    attr.hostname = hostname;
  }
  try {
    auto device = gloo::transport::tcp::CreateDevice(attr);
    gloo::rendezvous::PrefixStore prefixed(prefix, store);
    auto context = std::make_shared<gloo::rendezvous::Context>(rank, size);
    context->setTimeout(timeout);
    context->connectFullMesh(prefixed, device);
    context_ = context;
    // connectFullMesh publishes, under each rank's number, the listening address of each of its pairs. Gloo's
    // errors name a peer by that address; keep them so an error can say which rank it was.
    constexpr size_t kSlot = gloo::transport::Address::kMaxByteSize;
    for (int r = 0; r < size; ++r) {
      if (r == rank) continue;
      std::vector<char> all = prefixed.get(std::to_string(r));
      for (size_t at = 0; at + sizeof(sockaddr_storage) <= all.size(); at += kSlot) {
        sockaddr_storage ss{};
        std::memcpy(&ss, all.data() + at, sizeof ss);
        if (ss.ss_family != AF_INET && ss.ss_family != AF_INET6) continue;
        std::string a = gloo::transport::tcp::Address(ss).str();
        peer_addresses_.emplace_back(a.substr(0, a.find('$')), r);
      }
    }
    // No rank leaves before every rank has read the store (rank 0 may otherwise close it under the others).
    gloo::BarrierOptions done(context_);
    gloo::barrier(done);
  } catch (const gloo::Exception& e) {
    rethrow("init_process_group", e);
  }
}

void ProcessGroup::rethrow(const char* op, const std::exception& e) const {
  std::string what = e.what();
  std::string peer;
  for (const auto& [address, r] : peer_addresses_) {
    if (what.find(address) != std::string::npos) {
      peer = " (peer rank " + std::to_string(r) + " at " + address + " failed or exited)";
      break;
    }
  }
  if (peer.empty() && what.find("Timed out") != std::string::npos) {
    peer = " (timed out: a peer rank died, hangs, or did not call the same collective)";
  }
  throw std::runtime_error("lazytensor.distributed." + std::string(op) + " on rank " + std::to_string(rank_) +
                           " of " + std::to_string(size_) + " failed" + peer + ": " + what);
}

void ProcessGroup::check_consistent(const char* op, const std::vector<int64_t>& shape, DType dtype, int root) {
  if (shape.size() > kMaxDims) {
    throw std::invalid_argument(std::string("lazytensor.distributed.") + op + ": tensors of more than " +
                                std::to_string(kMaxDims) + " dims are not supported");
  }
  if (root < -1 || root >= size_) {
    throw std::invalid_argument(std::string("lazytensor.distributed.") + op + ": rank " + std::to_string(root) +
                                " is not in the group of size " + std::to_string(size_));
  }
  std::vector<int64_t> mine(kMetaWords, 0), all(kMetaWords * size_);
  int64_t op_id = 0;
  for (const char* c = op; *c; ++c) op_id = op_id * 131 + *c;
  mine[0] = op_id;
  mine[1] = int64_t(dtype);
  mine[2] = root;
  mine[3] = int64_t(shape.size());
  for (size_t i = 0; i < shape.size(); ++i) mine[4 + i] = shape[i];
  try {
    gloo::AllgatherOptions opts(context_);
    opts.setInput(mine.data(), mine.size());
    opts.setOutput(all.data(), all.size());
    gloo::allgather(opts);
  } catch (const gloo::Exception& e) {
    rethrow(op, e);
  }
  for (int r = 0; r < size_; ++r) {
    const int64_t* m = all.data() + r * kMetaWords;
    if (std::memcmp(m, mine.data(), kMetaWords * sizeof(int64_t)) == 0) continue;
    std::ostringstream s;
    s << "lazytensor.distributed." << op << ": ranks disagree: rank " << rank_ << " has ";
    auto describe = [&](const int64_t* w) {
      if (w[0] != op_id) {
        s << "a different collective";
        return;
      }
      s << dtype_name(DType(w[1])) << shape_str(w + 4, w[3]);
      if (w[2] >= 0) s << " with root " << w[2];
    };
    describe(mine.data());
    s << ", rank " << r << " has ";
    describe(m);
    s << " (every rank must pass the same shape and dtype" << (root >= 0 ? " and src/dst" : "") << ")";
    throw std::invalid_argument(s.str());
  }
}

void ProcessGroup::all_reduce(void* data, const std::vector<int64_t>& shape, DType dtype, ReduceOp op) {
  check_consistent("all_reduce", shape, dtype, -1);
  size_t n = size_t(numel(shape));
  if (n == 0 || size_ == 1) {
    if (op != ReduceOp::Avg || size_ == 1) return;
  }
  try {
    gloo::AllreduceOptions opts(context_);
    switch (dtype) {
      case DType::Float32: opts.setOutput(static_cast<float*>(data), n); break;
      case DType::Float64: opts.setOutput(static_cast<double*>(data), n); break;
      case DType::Int32: opts.setOutput(static_cast<int32_t*>(data), n); break;
      case DType::Int64: opts.setOutput(static_cast<int64_t*>(data), n); break;
    }
    opts.setReduceFunction(reduce_function(dtype, op));
    if (n > 0) gloo::allreduce(opts);
  } catch (const gloo::Exception& e) {
    rethrow("all_reduce", e);
  }
  if (op == ReduceOp::Avg) {
    if (dtype == DType::Float32) divide<float>(data, n, size_);
    if (dtype == DType::Float64) divide<double>(data, n, size_);
  }
}

void ProcessGroup::broadcast(void* data, const std::vector<int64_t>& shape, DType dtype, int root) {
  check_consistent("broadcast", shape, dtype, root);
  size_t nbytes = size_t(numel(shape)) * dtype_size(dtype);
  if (nbytes == 0 || size_ == 1) return;
  try {
    gloo::BroadcastOptions opts(context_);
    opts.setOutput(bytes(data), nbytes);
    opts.setRoot(root);
    gloo::broadcast(opts);
  } catch (const gloo::Exception& e) {
    rethrow("broadcast", e);
  }
}

void ProcessGroup::all_gather(const void* in, void* out, const std::vector<int64_t>& shape, DType dtype) {
  check_consistent("all_gather", shape, dtype, -1);
  size_t nbytes = size_t(numel(shape)) * dtype_size(dtype);
  if (nbytes == 0) return;
  try {
    gloo::AllgatherOptions opts(context_);
    opts.setInput(bytes(in), nbytes);
    opts.setOutput(bytes(out), nbytes * size_);
    gloo::allgather(opts);
  } catch (const gloo::Exception& e) {
    rethrow("all_gather", e);
  }
}

void ProcessGroup::gather(const void* in, void* out, const std::vector<int64_t>& shape, DType dtype, int root) {
  check_consistent("gather", shape, dtype, root);
  size_t nbytes = size_t(numel(shape)) * dtype_size(dtype);
  if (nbytes == 0) return;
  try {
    gloo::GatherOptions opts(context_);
    opts.setInput(bytes(in), nbytes);
    if (rank_ == root) opts.setOutput(bytes(out), nbytes * size_);
    opts.setRoot(root);
    gloo::gather(opts);
  } catch (const gloo::Exception& e) {
    rethrow("gather", e);
  }
}

void ProcessGroup::scatter(const void* in, void* out, const std::vector<int64_t>& shape, DType dtype, int root) {
  check_consistent("scatter", shape, dtype, root);
  size_t nbytes = size_t(numel(shape)) * dtype_size(dtype);
  if (nbytes == 0) return;
  try {
    gloo::ScatterOptions opts(context_);
    if (rank_ == root) {
      std::vector<char*> blocks;
      for (int r = 0; r < size_; ++r) blocks.push_back(bytes(in) + r * nbytes);
      opts.setInputs(blocks, nbytes);
    }
    opts.setOutput(bytes(out), nbytes);
    opts.setRoot(root);
    gloo::scatter(opts);
  } catch (const gloo::Exception& e) {
    rethrow("scatter", e);
  }
}

void ProcessGroup::send(const void* data, const std::vector<int64_t>& shape, DType dtype, int dst, uint32_t tag) {
  if (dst < 0 || dst >= size_ || dst == rank_) {
    throw std::invalid_argument("lazytensor.distributed.send: dst " + std::to_string(dst) + " is not another rank of " +
                                "the group (rank " + std::to_string(rank_) + " of " + std::to_string(size_) + ")");
  }
  std::vector<int64_t> meta(kMetaWords, 0);
  meta[1] = int64_t(dtype);
  meta[3] = int64_t(shape.size());
  for (size_t i = 0; i < shape.size() && i < kMaxDims; ++i) meta[4 + i] = shape[i];
  size_t nbytes = size_t(numel(shape)) * dtype_size(dtype);
  try {
    // Metadata first (tag 2t), data second (tag 2t+1): the receiver checks the shape before it posts the data buffer.
    auto header = context_->createUnboundBuffer(meta.data(), meta.size() * sizeof(int64_t));
    header->send(dst, 2 * tag);
    header->waitSend(timeout_);
    if (nbytes > 0) {
      auto body = context_->createUnboundBuffer(const_cast<void*>(data), nbytes);
      body->send(dst, 2 * tag + 1);
      body->waitSend(timeout_);
    }
  } catch (const gloo::Exception& e) {
    rethrow("send", e);
  }
}

void ProcessGroup::recv(void* data, const std::vector<int64_t>& shape, DType dtype, int src, uint32_t tag) {
  if (src < 0 || src >= size_ || src == rank_) {
    throw std::invalid_argument("lazytensor.distributed.recv: src " + std::to_string(src) + " is not another rank of " +
                                "the group (rank " + std::to_string(rank_) + " of " + std::to_string(size_) + ")");
  }
  std::vector<int64_t> meta(kMetaWords, 0);
  size_t nbytes = size_t(numel(shape)) * dtype_size(dtype);
  try {
    auto header = context_->createUnboundBuffer(meta.data(), meta.size() * sizeof(int64_t));
    header->recv(src, 2 * tag);
    header->waitRecv(timeout_);
    bool same = meta[1] == int64_t(dtype) && meta[3] == int64_t(shape.size());
    for (size_t i = 0; same && i < shape.size(); ++i) same = meta[4 + i] == shape[i];
    if (!same) {
      throw std::invalid_argument("lazytensor.distributed.recv: rank " + std::to_string(rank_) + " expects " +
                                  dtype_name(dtype) + shape_str(shape.data(), int64_t(shape.size())) + " from rank " +
                                  std::to_string(src) + ", which sent " + dtype_name(DType(meta[1])) +
                                  shape_str(meta.data() + 4, meta[3]));
    }
    if (nbytes > 0) {
      auto body = context_->createUnboundBuffer(data, nbytes);
      body->recv(src, 2 * tag + 1);
      body->waitRecv(timeout_);
    }
  } catch (const gloo::Exception& e) {
    rethrow("recv", e);
  }
}

void ProcessGroup::barrier() {
  if (size_ == 1) return;
  try {
    gloo::BarrierOptions opts(context_);
    gloo::barrier(opts);
  } catch (const gloo::Exception& e) {
    rethrow("barrier", e);
  }
}

}  // namespace lt::dist
