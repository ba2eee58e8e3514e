#pragma once

#include "active_gauge.hpp"
#include "interval_stats.hpp"
#include "request_budget.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/context.hpp>

#include <chrono>
#include <cstdint>
#include <random>

namespace benchd::loadgen {

/// What every VU and group of one event-loop thread shares. Owned by the LoopWorker; touched
/// only on its thread.
struct LoopContext {
  using Clock = std::chrono::steady_clock;

  boost::asio::io_context& io;
  IntervalStats& stats;
  /// Shared by every loop of the phase: each group reports its VUs starting and stopping.
  ActiveGauge& active_vus;
  /// Request-count mode: a send needs a ticket (see RequestBudget); null otherwise.
  RequestBudget* budget;
  boost::asio::ip::tcp::endpoint endpoint;
  /// The phase's TLS client context under a `tls` target (PhaseSetup::tls); null otherwise.
  boost::asio::ssl::context* tls;
  /// HTTP/2 (RequestTarget::http2): every group's VUs share H2ClientConnections,
  /// `streams_per_connection` VUs on each (RequestTarget::streams_per_connection).
  bool http2;
  std::uint32_t streams_per_connection;
  Clock::time_point phase_start;
  std::chrono::nanoseconds request_timeout;
  std::chrono::nanoseconds connect_timeout;
  std::mt19937_64 random;

  /// Uniform in [0, 1), from this thread's stream.
  double uniform() noexcept { return static_cast<double>(random() >> 11) * 0x1.0p-53; }
};

}  // namespace benchd::loadgen
