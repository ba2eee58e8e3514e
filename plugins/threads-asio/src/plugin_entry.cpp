// The entry symbol of the threads-asio plugin.
#include "server.hpp"

#include <benchd/blocking_clients/library_client.hpp>
#include <benchd/plugin.h>
#include <benchd/sdk/plugin_entry.hpp>

namespace {

/// Beast (blocking) is the native client (client-beast, or no client profile).
constexpr const char* kProfiles[] = {"no-keep-alive",
                                     "postgres",
                                     "client-beast",
                                     benchd::blocking_clients::kLibraryClientProfiles[0],
                                     benchd::blocking_clients::kLibraryClientProfiles[1],
                                     benchd::blocking_clients::kLibraryClientProfiles[2],
                                     "tls",
                                     "h2",
                                     "h2c"};

constexpr benchd::sdk::PluginFacts kFacts = {
    .name = benchd::threads_asio::kApproachName,
    .version = "0.1.0",
    .description =
        "OS threads on Boost.Asio/Beast: one pool thread per open connection, synchronous Beast "
        "reads and writes, a blocking sleep and a blocking pooled keep-alive client (Beast's; "
        "libcurl, cpp-httplib or Poco under their client profiles, and client-httplib adds one "
        "thread that watches the clients of the nested calls in flight); the same HTTP "
        "handling as the other Asio plugins; under tls, Asio's TLS stream over the same "
        "blocking socket, nested calls over TLS too (and with Poco's client under client-poco); "
        "under h2 and h2c, the connection's pool thread pumps its libnghttp2 session and each "
        "stream's request runs on a pool thread of its own, as a connection does (on the "
        "pump's thread when the pool is at max_threads). Options: max_threads (5000), max_queued "
        "(5000), backlog (2000), stack_kib (256)",
    .concurrency_model = BENCHD_MODEL_OS_THREADS,
    .io_stack = "Boost.Asio 1.81 + Beast, synchronous calls on blocking threads",
    .implemented_profiles = kProfiles,
};

}  // namespace

// The name is fixed by the ABI (BENCHD_PLUGIN_ENTRY_SYMBOL).
// NOLINTNEXTLINE(readability-identifier-naming)
extern "C" BENCHD_PLUGIN_EXPORT const benchd_plugin_descriptor* benchd_plugin_entry(void) {
  return benchd::sdk::PluginAdapter<benchd::threads_asio::Server>::describe(kFacts);
}
