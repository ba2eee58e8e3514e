#pragma once

#include "event_loop.hpp"

#include <benchd/plugin.h>
#include <benchd/sdk/host.hpp>
#include <benchd/sdk/plugin_support.hpp>

#include <boost/asio/ip/tcp.hpp>

#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <vector>

namespace benchd::callbacks_asio {

inline constexpr const char* kApproachName = "callbacks-asio";
/// Reads, writes, upstream responses and idle keep-alive connections all time out after this.
inline constexpr std::chrono::seconds kIoTimeout{60};
inline constexpr std::chrono::seconds kConnectTimeout{20};
/// Upper bound on upstream connections per worker, like the original's client pool.
inline constexpr std::int64_t kUpstreamPoolCapacity = 65'000;

/// The callbacks-asio server: one acceptor, `threads` event loops, sessions handed to loops
/// round-robin. Lifecycle calls (start, stop, counters) come from the host thread; everything
/// else runs on the loops.
class Server {
 public:
  Server(const benchd_host_api* host, sdk::ServerSettings settings);
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  void start();
  [[nodiscard]] std::uint16_t boundPort() const noexcept { return bound_port_; }
  /// Returns false when requests were still in flight at the deadline.
  bool stop(std::chrono::milliseconds timeout);
  void reportCounters(benchd_counter_sink sink, void* sink_context) const;

  // Used by sessions and upstream calls (any loop thread).
  [[nodiscard]] const sdk::Host& host() const noexcept { return host_; }
  [[nodiscard]] bool keepAliveAllowed() const noexcept {
    return !no_keep_alive_ && !draining_.load(std::memory_order_relaxed);
  }
  [[nodiscard]] bool draining() const noexcept { return draining_.load(std::memory_order_relaxed); }
  [[nodiscard]] const boost::asio::ip::tcp::endpoint& selfEndpoint() const noexcept {
    return self_endpoint_;
  }
  /// Reserves one upstream connection of the shared pool capacity; false when exhausted.
  bool reserveUpstreamConnection() noexcept;
  void releaseUpstreamConnection() noexcept;

 private:
  void acceptNext();
  [[nodiscard]] std::int64_t requestsInFlight() const;

  sdk::Host host_;
  sdk::ServerSettings settings_;
  bool no_keep_alive_;
  std::atomic<bool> draining_{false};
  std::atomic<std::int64_t> upstream_connections_{0};
  std::vector<std::unique_ptr<EventLoop>> loops_;
  std::size_t next_loop_ = 0;  // acceptor thread only
  std::unique_ptr<boost::asio::ip::tcp::acceptor> acceptor_;  // lives on loops_[0]
  boost::asio::ip::tcp::endpoint self_endpoint_;
  std::uint16_t bound_port_ = 0;
  bool started_ = false;
  bool stopped_ = false;
};

}  // namespace benchd::callbacks_asio
