#pragma once
// The plugin's own accept loop in front of MHD (MHD_USE_NO_LISTEN_SOCKET + MHD_add_connection):
// MHD 0.9.75's own loop spins at a whole core while accept() fails for want of descriptors,
// and closes connections over its limit at once. This one backs off as the contract says, and
// leaves connections over `max_threads` waiting in the listen backlog until a connection
// closes.

#include "server_state.hpp"

#include <microhttpd.h>

#include <cstdint>
#include <thread>

namespace benchd::libmicrohttpd {

/// Thread-safety: start() and stop() from the host thread; connectionClosed() from any thread.
class ConnectionAcceptor {
 public:
  /// Accepts on `listen_fd` (the server's; not closed here) into `daemon`, at most
  /// `max_connections` open at once. Throws sdk::PluginError when its eventfds cannot be made.
  ConnectionAcceptor(int listen_fd, MHD_Daemon* daemon, ServerState& state,
                     std::int64_t max_connections);
  ~ConnectionAcceptor();
  ConnectionAcceptor(const ConnectionAcceptor&) = delete;
  ConnectionAcceptor& operator=(const ConnectionAcceptor&) = delete;

  void start();
  /// Ends the loop and joins its thread; connections accepted so far stay MHD's.
  void stop();
  /// A connection MHD was given has closed: its place is free.
  void connectionClosed() noexcept;
  /// accept() failures for want of descriptors or memory (the accept_errors counter).
  [[nodiscard]] std::int64_t acceptErrors() const noexcept {
    return accept_errors_.load(std::memory_order_relaxed);
  }

 private:
  void run();
  /// Waits up to `millis` (-1: no limit) for the stop or a freed place; false once stopping.
  bool waitForStopOrFreedPlace(int millis);

  const int listen_fd_;
  MHD_Daemon* const daemon_;
  ServerState& state_;
  const std::int64_t max_connections_;
  /// Readable once stop() is called.
  int stop_fd_ = -1;
  /// Counts closed connections, so a loop waiting at the cap wakes.
  int freed_fd_ = -1;
  std::atomic<std::int64_t> admitted_{0};
  std::atomic<std::int64_t> accept_errors_{0};
  std::thread thread_;
};

}  // namespace benchd::libmicrohttpd
