// The entry symbol of the fibers-asio plugin.
#include "server.hpp"

#include <benchd/asio_common/event_loop_group.hpp>
#include <benchd/plugin.h>
#include <benchd/sdk/plugin_entry.hpp>

namespace {

constexpr benchd::sdk::PluginFacts kFacts = {
    .name = benchd::fibers_asio::kApproachName,
    .version = "0.1.0",
    .description =
        "Boost.Fiber green threads over Asio/Beast: one fiber per connection, handler "
        "code written blocking-style (sleep_for, a blocking-looking upstream call), one "
        "scheduler thread per event loop; under h2 and h2c a reading fiber per connection and "
        "one fiber per request stream",
    .concurrency_model = BENCHD_MODEL_GREEN_THREADS,
    .io_stack = "Boost.Fiber 1.81 + Boost.Asio/Beast; HTTP/2 on libnghttp2",
    .implemented_profiles = benchd::asio_common::kEventLoopHttp2Profiles,
};

}  // namespace

// The name is fixed by the ABI (BENCHD_PLUGIN_ENTRY_SYMBOL).
// NOLINTNEXTLINE(readability-identifier-naming)
extern "C" BENCHD_PLUGIN_EXPORT const benchd_plugin_descriptor* benchd_plugin_entry(void) {
  return benchd::sdk::PluginAdapter<benchd::fibers_asio::Server>::describe(kFacts);
}
