#pragma once

#include "request_handler.hpp"

#include <benchd/asio_common/event_loop_group.hpp>
#include <benchd/plugin.h>
#include <benchd/sdk/host.hpp>
#include <benchd/sdk/plugin_support.hpp>
#include <benchd/sdk/request_deadline.hpp>

#include <chrono>
#include <span>
#include <string_view>

namespace benchd::coroutines_asio {

/// The coroutines-asio server: an EventLoopGroup that spawns one serveConnection coroutine
/// per accepted connection. Lifecycle calls come from the host thread.
class Server {
 public:
  Server(const benchd_host_api* host, sdk::ServerSettings settings);

  /// header_deadline_ms (benchd/sdk/request_deadline.hpp).
  static std::span<const std::string_view> knownOptions() { return sdk::kRequestDeadlineOptions; }

  void start();
  [[nodiscard]] std::uint16_t boundPort() const noexcept { return loops_.boundPort(); }
  /// Returns false when requests were still in flight at the deadline.
  bool stop(std::chrono::milliseconds timeout) { return loops_.stop(timeout); }
  void reportCounters(benchd_counter_sink sink, void* sink_context) const {
    loops_.reportCounters(sink, sink_context, "live_coroutines");
  }

 private:
  sdk::Host host_;
  asio_common::EventLoopGroup loops_;
};

}  // namespace benchd::coroutines_asio
