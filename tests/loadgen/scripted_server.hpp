#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace benchd::loadgen::testing {

/// A tiny HTTP/1.1 server on 127.0.0.1 for behaviour that is on the wire and that no real
/// plugin shows on purpose: interim 1xx responses, a kept-alive connection closed before the
/// answer, a listen queue that never accepts. Each connection gets a thread that reads whole
/// requests (head plus Content-Length body) and asks the script what to do with each.
///
/// Thread-safety: the script runs on connection threads, possibly concurrently; the counters
/// may be read from any thread. Stops and joins its threads on destruction.
class ScriptedServer {
 public:
  /// What to do with one request.
  struct Action {
    std::chrono::milliseconds wait{0};  ///< before answering (or closing)
    std::optional<std::string> reply;   ///< bytes to write; nullopt: close without an answer
    bool close_after = false;           ///< close once the reply is written
  };

  /// `connection` numbers connections from 0 in accept order; `request_on_connection` numbers
  /// the requests of one connection from 0; `request` is the request's head and body.
  using Script = std::function<Action(std::uint64_t connection, std::uint64_t request_on_connection,
                                      std::string_view request)>;

  explicit ScriptedServer(Script script);
  ScriptedServer(const ScriptedServer&) = delete;
  ScriptedServer& operator=(const ScriptedServer&) = delete;
  ~ScriptedServer();

  [[nodiscard]] std::uint16_t port() const noexcept { return port_; }
  /// Requests read in full so far (answered or not).
  [[nodiscard]] std::uint64_t requestsReceived() const noexcept { return requests_.load(); }
  /// The request lines ("POST /x HTTP/1.1") read so far, in the order they were read.
  [[nodiscard]] std::vector<std::string> requestLines() const;

  /// A 200 response with body "ok", kept alive.
  static std::string okResponse();

 private:
  void acceptLoop();
  void serve(int fd, std::uint64_t connection);

  Script script_;
  int listen_fd_ = -1;
  std::uint16_t port_ = 0;
  std::atomic<bool> stopping_{false};
  std::atomic<std::uint64_t> requests_{0};
  mutable std::mutex mutex_;
  std::vector<std::string> request_lines_;
  std::vector<std::thread> connection_threads_;
  std::thread acceptor_;
};

/// A listening socket on 127.0.0.1 that never accepts, with its queue filled, so further
/// connects hang until the client gives up (the kernel drops their SYNs).
class UnansweredListener {
 public:
  UnansweredListener();
  UnansweredListener(const UnansweredListener&) = delete;
  UnansweredListener& operator=(const UnansweredListener&) = delete;
  ~UnansweredListener();

  [[nodiscard]] std::uint16_t port() const noexcept { return port_; }

 private:
  int listen_fd_ = -1;
  std::vector<int> fillers_;
  std::uint16_t port_ = 0;
};

}  // namespace benchd::loadgen::testing
