#pragma once

#include "fiber_loop.hpp"
#include "request_handler.hpp"

#include <benchd/asio_common/event_loop_group.hpp>
#include <benchd/plugin.h>
#include <benchd/sdk/host.hpp>
#include <benchd/sdk/plugin_support.hpp>
#include <benchd/sdk/request_deadline.hpp>

#include <array>
#include <chrono>
#include <cstddef>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

namespace benchd::fibers_asio {

/// The fibers-asio server: an EventLoopGroup whose loop threads run Boost.Fiber under
/// AsioScheduler, with one fiber per accepted connection. Lifecycle calls come from the host
/// thread.
class Server {
 public:
  Server(const benchd_host_api* host, sdk::ServerSettings settings);

  /// The stack of each connection's fiber, in KiB (fiber_stack.hpp's kFiberStackBytes unless
  /// given): the green-thread model's own knob, as stack_kib is the thread models'.
  static constexpr std::string_view kFiberStackOption = "fiber_stack_kib";
  /// fiber_stack_kib and the request deadlines' (benchd/sdk/request_deadline.hpp).
  static constexpr std::array<std::string_view, sdk::kRequestDeadlineOptions.size() + 1>
      kOptionNames = {kFiberStackOption, sdk::kRequestDeadlineOptions[0],
                      sdk::kRequestDeadlineOptions[1], sdk::kRequestDeadlineOptions[2],
                      sdk::kRequestDeadlineOptions[3]};
  static std::span<const std::string_view> knownOptions() { return kOptionNames; }

  void start();
  [[nodiscard]] std::uint16_t boundPort() const noexcept { return loops_.boundPort(); }
  /// Returns false when requests were still in flight at the deadline.
  bool stop(std::chrono::milliseconds timeout) { return loops_.stop(timeout); }
  void reportCounters(benchd_counter_sink sink, void* sink_context) const {
    loops_.reportCounters(sink, sink_context, "live_fibers");
  }

 private:
  sdk::Host host_;
  std::size_t fiber_stack_bytes_;  ///< read before loops_ takes the settings
  asio_common::EventLoopGroup loops_;
  std::vector<std::unique_ptr<FiberLoop>> fiber_loops_;  ///< by EventLoop::index
};

}  // namespace benchd::fibers_asio
