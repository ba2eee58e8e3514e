// The entry symbol of the libmicrohttpd plugin.
#include "server.hpp"

#include <benchd/plugin.h>
#include <benchd/sdk/plugin_entry.hpp>

namespace {

/// libcurl's blocking client is the native client (client-curl, or no client profile).
constexpr const char* kProfiles[] = {"no-keep-alive", "postgres", "client-curl", "tls"};

constexpr benchd::sdk::PluginFacts kFacts = {
    .name = benchd::libmicrohttpd::kApproachName,
    .version = "0.1.0",
    .description =
        "GNU libmicrohttpd's HTTP/1.1 server (its parser, its framing answers, its idle timeout "
        "in whole seconds) in one of its threading modes. mode=per-connection (the default): "
        "one OS thread per open connection, which MHD starts when it takes the connection "
        "(none up front: --threads is not used) and which blocks in the request's waits: the "
        "delay in poll() on the client's socket, the nested call in libcurl's blocking pooled "
        "keep-alive client, the database in the blocking pool. mode=internal: one MHD polling "
        "thread reads every connection; mode=pool: --threads of them, MHD's thread pool. In "
        "both a request that waits is suspended in MHD and handed to the plugin's one reactor "
        "thread, which waits for all of them at once (timers, libcurl's multi interface for "
        "the nested calls, the database sockets, each waiting client's socket) and resumes it "
        "with its answer. Outside pool mode the plugin's own accept thread hands MHD the "
        "connections, at most max_threads at once (more wait in the listen backlog); in pool "
        "mode MHD accepts and closes those over max_threads. Under tls, MHD's TLS (GnuTLS) and "
        "nested calls over TLS with libcurl (OpenSSL). Options: mode (per-connection, "
        "internal, pool), max_threads (5000), stack_kib (256), backlog (2000)",
    .concurrency_model = BENCHD_MODEL_OS_THREADS,
    .io_stack = "GNU libmicrohttpd 0.9.75, libcurl (nested calls)",
    .implemented_profiles = kProfiles,
    // MHD parses and frames requests itself, answering what it refuses in its own words, and
    // its connection timeout is an idle timeout in whole seconds.
    .contract_exceptions =
        BENCHD_CONTRACT_EXCEPTION_STACK_FRAMING | BENCHD_CONTRACT_EXCEPTION_IDLE_HEADER_TIMEOUT,
};

}  // namespace

// The name is fixed by the ABI (BENCHD_PLUGIN_ENTRY_SYMBOL).
// NOLINTNEXTLINE(readability-identifier-naming)
extern "C" BENCHD_PLUGIN_EXPORT const benchd_plugin_descriptor* benchd_plugin_entry(void) {
  return benchd::sdk::PluginAdapter<benchd::libmicrohttpd::Server>::describe(kFacts);
}
