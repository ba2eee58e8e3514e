// The entry symbol of the threads-poco plugin.
#include "server.hpp"

#include <benchd/blocking_clients/library_client.hpp>
#include <benchd/plugin.h>
#include <benchd/sdk/plugin_entry.hpp>

namespace {

/// Poco's HTTPClientSession is the native client (client-poco, or no client profile).
constexpr const char* kProfiles[] = {"no-keep-alive",
                                     "postgres",
                                     "client-poco",
                                     benchd::blocking_clients::kLibraryClientProfiles[0],
                                     benchd::blocking_clients::kLibraryClientProfiles[1],
                                     "tls",
                                     "h2",
                                     "h2c"};

constexpr benchd::sdk::PluginFacts kFacts = {
    .name = benchd::threads_poco::kApproachName,
    .version = "0.1.0",
    .description =
        "Poco::Net::TCPServer with Poco's HTTP request parsing on a pool of OS threads (one "
        "per open connection), "
        "blocking sleep and a blocking pooled keep-alive client (Poco's; libcurl or cpp-httplib "
        "under their client profiles, and client-httplib adds one thread that watches the "
        "clients of the nested calls in flight); under tls, OpenSSL under Poco's socket calls, "
        "the pool thread doing the handshake and every read and write in blocking style, nested "
        "calls over TLS too (Poco's client); under h2 and h2c, the connection's pool thread pumps "
        "its libnghttp2 session and each stream's request runs on a pool thread of its own, as "
        "a connection does (on the pump's thread when the pool is at max_threads). Options: "
        "max_threads (5000), max_queued "
        "(5000), backlog (2000), stack_kib (256)",
    .concurrency_model = BENCHD_MODEL_OS_THREADS,
    .io_stack = "Poco 1.11 Net (TCPServer, HTTPServerSession, HTTPClientSession)",
    .implemented_profiles = kProfiles,
};

}  // namespace

// The name is fixed by the ABI (BENCHD_PLUGIN_ENTRY_SYMBOL).
// NOLINTNEXTLINE(readability-identifier-naming)
extern "C" BENCHD_PLUGIN_EXPORT const benchd_plugin_descriptor* benchd_plugin_entry(void) {
  return benchd::sdk::PluginAdapter<benchd::threads_poco::Server>::describe(kFacts);
}
