// The entry symbol of the callbacks-asio plugin.
#include "server.hpp"

#include <benchd/asio_common/event_loop_group.hpp>
#include <benchd/plugin.h>
#include <benchd/sdk/plugin_entry.hpp>

namespace {

constexpr benchd::sdk::PluginFacts kFacts = {
    .name = benchd::callbacks_asio::kApproachName,
    .version = "0.1.0",
    .description =
        "Boost.Asio/Beast with completion handlers: non-blocking timers and a pooled "
        "asynchronous keep-alive client, one event loop per thread; under h2 and h2c a read "
        "handler chain per connection and one handler chain per request stream",
    .concurrency_model = BENCHD_MODEL_CALLBACKS,
    .io_stack = "Boost.Asio 1.81 + Beast; HTTP/2 on libnghttp2",
    .implemented_profiles = benchd::asio_common::kEventLoopHttp2Profiles,
};

}  // namespace

// The name is fixed by the ABI (BENCHD_PLUGIN_ENTRY_SYMBOL).
// NOLINTNEXTLINE(readability-identifier-naming)
extern "C" BENCHD_PLUGIN_EXPORT const benchd_plugin_descriptor* benchd_plugin_entry(void) {
  return benchd::sdk::PluginAdapter<benchd::callbacks_asio::Server>::describe(kFacts);
}
