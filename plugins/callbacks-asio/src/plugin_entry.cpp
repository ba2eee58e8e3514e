// The C entry points of the callbacks-asio plugin: thin adapters from the benchd ABI to
// Server, keeping every exception on this side of the boundary.
#include "server.hpp"

#include <benchd/plugin.h>
#include <benchd/sdk/plugin_support.hpp>

namespace {

using benchd::callbacks_asio::Server;

Server* asServer(benchd_server* server) { return reinterpret_cast<Server*>(server); }

benchd_status createServer(const benchd_host_api* host, const benchd_server_config* config,
                           benchd_server** server, benchd_error* error) {
  return benchd::sdk::guardedCall(error, [&] {
    if (host == nullptr || server == nullptr) {
      throw benchd::sdk::PluginError(BENCHD_ERR_INVALID_ARGUMENT, "host table or out missing");
    }
    auto settings = benchd::sdk::ServerSettings::from(config);
    *server = reinterpret_cast<benchd_server*>(new Server(host, std::move(settings)));
  });
}

benchd_status startServer(benchd_server* server, benchd_error* error) {
  return benchd::sdk::guardedCall(error, [&] { asServer(server)->start(); });
}

uint16_t boundPort(const benchd_server* server) {
  return reinterpret_cast<const Server*>(server)->boundPort();
}

benchd_status serverStats(benchd_server* server, benchd_counter_sink sink, void* sink_context,
                          benchd_error* error) {
  return benchd::sdk::guardedCall(error,
                                  [&] { asServer(server)->reportCounters(sink, sink_context); });
}

benchd_status stopServer(benchd_server* server, uint32_t timeout_millis, benchd_error* error) {
  bool drained = true;
  const benchd_status status = benchd::sdk::guardedCall(
      error, [&] { drained = asServer(server)->stop(std::chrono::milliseconds(timeout_millis)); });
  if (status == BENCHD_OK && !drained) {
    benchd::sdk::setError(error, "requests still in flight after " +
                                     std::to_string(timeout_millis) + " ms were cut off");
    return BENCHD_ERR_TIMEOUT;
  }
  return status;
}

void destroyServer(benchd_server* server) { delete asServer(server); }

const benchd_plugin_descriptor kDescriptor = {
    .struct_size = sizeof(benchd_plugin_descriptor),
    .abi_major = BENCHD_ABI_MAJOR,
    .abi_minor = BENCHD_ABI_MINOR,
    .name = benchd::callbacks_asio::kApproachName,
    .version = "0.1.0",
    .description = "Boost.Asio/Beast with completion handlers: non-blocking timers and a pooled "
                   "asynchronous keep-alive client, one event loop per thread",
    .concurrency_model = BENCHD_MODEL_CALLBACKS,
    .io_stack = "Boost.Asio 1.81 + Beast",
    .create = createServer,
    .start = startServer,
    .bound_port = boundPort,
    .stats = serverStats,
    .stop = stopServer,
    .destroy = destroyServer,
};

}  // namespace

extern "C" BENCHD_PLUGIN_EXPORT const benchd_plugin_descriptor* benchd_plugin_entry(void) {
  return &kDescriptor;
}
