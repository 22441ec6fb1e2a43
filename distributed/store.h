// distributed/store.h — the key-value stores Gloo's rendezvous runs over.
//
// TcpStore is the TCPStore of torch.distributed: rank 0 hosts a small key-value
// server (one thread per connection, a mutex-guarded map) on MASTER_PORT and every
// rank, rank 0 included, is a client of it. Gloo only needs set/get/wait; `add`
// is an atomic counter. The server also notices a registered rank whose
// connection drops without a goodbye, which is how an error names a dead rank
// that Gloo only knew by a socket address. A get polls until the key
// exists or the timeout passes, so no request blocks the server.
#pragma once

#include <gloo/rendezvous/store.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace lt::dist {

class TcpStoreServer;

class TcpStore : public gloo::rendezvous::Store {
 public:
  /// Connects to host:port, first starting the server there when `host_server` is set.
  TcpStore(const std::string& host, int port, bool host_server, std::chrono::milliseconds timeout);
  ~TcpStore() override;

  void set(const std::string& key, const std::vector<char>& data) override;
  std::vector<char> get(const std::string& key) override;
  void wait(const std::vector<std::string>& keys) override { wait(keys, timeout_); }
  void wait(const std::vector<std::string>& keys, const std::chrono::milliseconds& timeout) override;
  /// Adds delta to the integer stored at key (0 when absent) and returns the sum.
  int64_t add(const std::string& key, int64_t delta);
  /// Tells the server which rank this connection belongs to: if it drops without the goodbye the destructor
  /// sends (the process died), the server lists the rank in exited_ranks().
  void register_rank(int rank);
  /// The ranks, space-separated, whose store connection dropped without a goodbye; throws if the server is gone.
  std::string exited_ranks();
  /// The port the server listens on (the one asked for, or the one the kernel chose for port 0).
  int port() const { return port_; }

 private:
  bool try_get(const std::string& key, std::vector<char>* out);
  std::vector<char> request(char cmd, const std::string& key, const std::vector<char>& value);

  std::unique_ptr<TcpStoreServer> server_;
  std::string host_;
  int port_ = 0;
  int fd_ = -1;
  std::chrono::milliseconds timeout_;
};

}  // namespace lt::dist
