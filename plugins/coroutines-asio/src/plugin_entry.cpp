// The entry symbol of the coroutines-asio plugin.
#include "server.hpp"

#include <benchd/asio_common/event_loop_group.hpp>
#include <benchd/plugin.h>
#include <benchd/sdk/plugin_entry.hpp>

namespace {

constexpr benchd::sdk::PluginFacts kFacts = {
    .name = benchd::coroutines_asio::kApproachName,
    .version = "0.1.0",
    .description =
        "C++20 coroutines (co_await, asio::awaitable) on Boost.Asio/Beast: awaitable "
        "timers and a pooled keep-alive client, one event loop per thread; under h2 and h2c "
        "a read-loop coroutine per connection and one coroutine per request stream",
    .concurrency_model = BENCHD_MODEL_COROUTINES,
    .io_stack = "Boost.Asio 1.81 + Beast, C++20 coroutines; HTTP/2 on libnghttp2",
    .implemented_profiles = benchd::asio_common::kEventLoopHttp2Profiles,
};

}  // namespace

// The name is fixed by the ABI (BENCHD_PLUGIN_ENTRY_SYMBOL).
// NOLINTNEXTLINE(readability-identifier-naming)
extern "C" BENCHD_PLUGIN_EXPORT const benchd_plugin_descriptor* benchd_plugin_entry(void) {
  return benchd::sdk::PluginAdapter<benchd::coroutines_asio::Server>::describe(kFacts);
}
