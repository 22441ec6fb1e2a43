// distributed/tcp_store.cpp — TcpStore's client and the server rank 0 hosts.
#include "distributed/store.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <map>
#include <mutex>
#include <stdexcept>
#include <thread>

namespace lt::dist {
namespace {

enum Command : char { kSet = 's', kGet = 'g', kAdd = 'a', kHello = 'h', kBye = 'b' };

/// The key under which the server lists, space-separated, the ranks whose connection dropped without a goodbye.
constexpr const char* kExitedKey = "lt_exited_ranks";

[[noreturn]] void fail_errno(const std::string& what) {
  throw std::runtime_error("lazytensor.distributed store: " + what + ": " + std::strerror(errno));
}

bool write_all(int fd, const void* p, size_t n) {
  const char* c = static_cast<const char*>(p);
  while (n > 0) {
    ssize_t w = ::send(fd, c, n, MSG_NOSIGNAL);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    c += w;
    n -= size_t(w);
  }
  return true;
}

bool read_all(int fd, void* p, size_t n) {
  char* c = static_cast<char*>(p);
  while (n > 0) {
    ssize_t r = ::recv(fd, c, n, 0);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    c += r;
    n -= size_t(r);
  }
  return true;
}

bool write_blob(int fd, const char* p, uint32_t n) { return write_all(fd, &n, 4) && write_all(fd, p, n); }

bool read_blob(int fd, std::vector<char>* out) {
  uint32_t n = 0;
  if (!read_all(fd, &n, 4)) return false;
  out->resize(n);
  return read_all(fd, out->data(), n);
}

}  // namespace

class TcpStoreServer {
 public:
  explicit TcpStoreServer(int port) {
    listen_fd_ = ::socket(AF_INET6, SOCK_STREAM, 0);
    bool v6 = listen_fd_ >= 0;
    if (!v6) listen_fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    if (listen_fd_ < 0) fail_errno("socket");
    int one = 1, zero = 0;
    ::setsockopt(listen_fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    int rc;
    if (v6) {
      ::setsockopt(listen_fd_, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof zero);
      sockaddr_in6 a{};
      a.sin6_family = AF_INET6;
      a.sin6_addr = in6addr_any;
      a.sin6_port = htons(uint16_t(port));
      rc = ::bind(listen_fd_, reinterpret_cast<sockaddr*>(&a), sizeof a);
    } else {
      sockaddr_in a{};
      a.sin_family = AF_INET;
      a.sin_addr.s_addr = htonl(INADDR_ANY);
      a.sin_port = htons(uint16_t(port));
      rc = ::bind(listen_fd_, reinterpret_cast<sockaddr*>(&a), sizeof a);
    }
    if (rc != 0) {
      int e = errno;
      ::close(listen_fd_);
      errno = e;
      fail_errno("rank 0 could not listen on port " + std::to_string(port) + " (MASTER_PORT)");
    }
    if (::listen(listen_fd_, 128) != 0) fail_errno("listen");
    sockaddr_storage s{};
    socklen_t len = sizeof s;
    ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&s), &len);
    port_ = ntohs(s.ss_family == AF_INET6 ? reinterpret_cast<sockaddr_in6*>(&s)->sin6_port
                                          : reinterpret_cast<sockaddr_in*>(&s)->sin_port);
    acceptor_ = std::thread([this] { accept_loop(); });
  }

  ~TcpStoreServer() {
    stopping_ = true;
    ::shutdown(listen_fd_, SHUT_RDWR);
    acceptor_.join();
    ::close(listen_fd_);
    std::vector<std::thread> clients;
    {
      std::lock_guard<std::mutex> lock(mu_);
      for (int fd : client_fds_) ::shutdown(fd, SHUT_RDWR);
      clients.swap(clients_);
    }
    for (auto& t : clients) t.join();
  }

  int port() const { return port_; }

 private:
  void accept_loop() {
    while (!stopping_) {
      pollfd p{listen_fd_, POLLIN, 0};
      int r = ::poll(&p, 1, 200);
      if (r <= 0) continue;
      int fd = ::accept(listen_fd_, nullptr, nullptr);
      if (fd < 0) continue;
      int one = 1;
      ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
      std::lock_guard<std::mutex> lock(mu_);
      client_fds_.push_back(fd);
      clients_.emplace_back([this, fd] { serve(fd); });
    }
  }

  void serve(int fd) {
    std::string who;  // the rank this connection said it is, until it says goodbye
    for (;;) {
      char cmd = 0;
      std::vector<char> key, value;
      if (!read_all(fd, &cmd, 1) || !read_blob(fd, &key) || !read_blob(fd, &value)) break;
      std::string k(key.begin(), key.end());
      std::vector<char> reply;
      char found = 1;
      {
        std::lock_guard<std::mutex> lock(mu_);
        if (cmd == kSet) {
          map_[k] = value;
        } else if (cmd == kGet) {
          auto it = map_.find(k);
          found = it != map_.end();
          if (found) reply = it->second;
        } else if (cmd == kHello) {
          who = k;
        } else if (cmd == kBye) {
          who.clear();
        } else if (cmd == kAdd) {
          int64_t delta = 0, now = 0;
          std::memcpy(&delta, value.data(), std::min(value.size(), sizeof delta));
          auto it = map_.find(k);
          if (it != map_.end()) std::memcpy(&now, it->second.data(), std::min(it->second.size(), sizeof now));
          now += delta;
          std::vector<char> bytes(sizeof now);
          std::memcpy(bytes.data(), &now, sizeof now);
          map_[k] = reply = bytes;
        }
      }
      if (!write_all(fd, &found, 1) || !write_blob(fd, reply.data(), uint32_t(reply.size()))) break;
    }
    std::lock_guard<std::mutex> lock(mu_);
    if (!who.empty() && !stopping_) {
      std::vector<char>& exited = map_[kExitedKey];
      exited.insert(exited.end(), who.begin(), who.end());
      exited.push_back(' ');
    }
    ::close(fd);
    std::erase(client_fds_, fd);
  }

  int listen_fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stopping_{false};
  std::thread acceptor_;
  std::mutex mu_;
  std::vector<std::thread> clients_;
  std::vector<int> client_fds_;
  std::map<std::string, std::vector<char>> map_;
};

TcpStore::TcpStore(const std::string& host, int port, bool host_server, std::chrono::milliseconds timeout)
    : host_(host), port_(port), timeout_(timeout) {
  if (host_server) {
    server_ = std::make_unique<TcpStoreServer>(port);
    port_ = server_->port();
  }
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  auto deadline = std::chrono::steady_clock::now() + timeout;
  std::string last_error = "no attempt";
  // Rank 0 may start after the others: retry until the timeout.
  while (fd_ < 0) {
    addrinfo* res = nullptr;
    int rc = ::getaddrinfo(host.c_str(), std::to_string(port_).c_str(), &hints, &res);
    if (rc != 0) {
      last_error = std::string("cannot resolve host: ") + gai_strerror(rc);
    } else {
      for (addrinfo* a = res; a && fd_ < 0; a = a->ai_next) {
        int fd = ::socket(a->ai_family, a->ai_socktype, a->ai_protocol);
        if (fd < 0) continue;
        if (::connect(fd, a->ai_addr, a->ai_addrlen) == 0) {
          fd_ = fd;
        } else {
          last_error = std::strerror(errno);
          ::close(fd);
        }
      }
      ::freeaddrinfo(res);
    }
    if (fd_ >= 0) break;
    if (std::chrono::steady_clock::now() > deadline) {
      throw std::runtime_error("lazytensor.distributed: could not connect to the store at " + host + ":" +
                               std::to_string(port_) + " (MASTER_ADDR:MASTER_PORT, hosted by rank 0) within " +
                               std::to_string(timeout.count() / 1000.0) + " s: " + last_error);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  int one = 1;
  ::setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

TcpStore::~TcpStore() {
  if (fd_ >= 0) {
    try {
      request(kBye, "", {});
    } catch (const std::exception&) {
    }
    ::close(fd_);
  }
  server_.reset();
}

std::vector<char> TcpStore::request(char cmd, const std::string& key, const std::vector<char>& value) {
  char found = 0;
  std::vector<char> reply;
  if (!write_all(fd_, &cmd, 1) || !write_blob(fd_, key.data(), uint32_t(key.size())) ||
      !write_blob(fd_, value.data(), uint32_t(value.size())) || !read_all(fd_, &found, 1) || !read_blob(fd_, &reply)) {
    throw std::runtime_error("lazytensor.distributed: lost the connection to the store at " + host_ + ":" +
                             std::to_string(port_) + " (hosted by rank 0; has it exited?)");
  }
  if (!found) throw std::out_of_range(key);
  return reply;
}

void TcpStore::set(const std::string& key, const std::vector<char>& data) { request(kSet, key, data); }

bool TcpStore::try_get(const std::string& key, std::vector<char>* out) {
  try {
    *out = request(kGet, key, {});
    return true;
  } catch (const std::out_of_range&) {
    return false;
  }
}

std::vector<char> TcpStore::get(const std::string& key) {
  wait({key}, timeout_);
  std::vector<char> v;
  try_get(key, &v);
  return v;
}

void TcpStore::wait(const std::vector<std::string>& keys, const std::chrono::milliseconds& timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  auto pause = std::chrono::microseconds(100);
  std::vector<char> ignored;
  for (const auto& key : keys) {
    while (!try_get(key, &ignored)) {
      if (std::chrono::steady_clock::now() > deadline) {
        throw std::runtime_error("lazytensor.distributed: timed out after " + std::to_string(timeout.count() / 1000.0) +
                                 " s waiting for store key '" + key + "' (a rank has not joined or has died)");
      }
      std::this_thread::sleep_for(pause);
      pause = std::min(pause * 2, std::chrono::microseconds(20000));
    }
  }
}

void TcpStore::register_rank(int rank) { request(kHello, std::to_string(rank), {}); }

std::string TcpStore::exited_ranks() {
  std::vector<char> v;
  if (!try_get(kExitedKey, &v)) return "";
  return std::string(v.begin(), v.end());
}

int64_t TcpStore::add(const std::string& key, int64_t delta) {
  std::vector<char> v(sizeof delta);
  std::memcpy(v.data(), &delta, sizeof delta);
  std::vector<char> r = request(kAdd, key, v);
  int64_t now = 0;
  std::memcpy(&now, r.data(), std::min(r.size(), sizeof now));
  return now;
}

}  // namespace lt::dist
