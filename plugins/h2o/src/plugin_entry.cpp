// The entry symbol of the h2o plugin.
#include "server.hpp"

#include <benchd/plugin.h>
#include <benchd/sdk/plugin_entry.hpp>

namespace {

/// h2o's own HTTP/1 client is the native client: it lists no client profile.
constexpr const char* kProfiles[] = {"no-keep-alive", "postgres", "tls", "h2", "h2c"};

constexpr benchd::sdk::PluginFacts kFacts = {
    .name = benchd::h2o_plugin::kApproachName,
    .version = "0.1.0",
    .description =
        "The h2o HTTP server library on its own event loop (libh2o-evloop): its HTTP/1.1 "
        "parser and framing answers, its TLS and HTTP/2, one event loop per --threads, each "
        "accepting on the same listening socket. Every wait is a callback on the request's "
        "loop: the delay an h2o timer, the nested call h2o's HTTP/1 client with a pool of "
        "keep-alive connections per loop, the database the host's sockets watched by the "
        "loop. An HTTP/1.1 request that waits watches its client's socket, which h2o does not "
        "read while it serves it; h2o's request timeout counts idle time between requests.",
    .concurrency_model = BENCHD_MODEL_CALLBACKS,
    .io_stack = "h2o 2.2.5 (libh2o-evloop), OpenSSL",
    .implemented_profiles = kProfiles,
    // h2o parses and frames requests itself, answering what it refuses in its own words, and
    // its request timeout starts when a connection waits for a request, not at its first byte.
    .contract_exceptions =
        BENCHD_CONTRACT_EXCEPTION_STACK_FRAMING | BENCHD_CONTRACT_EXCEPTION_IDLE_HEADER_TIMEOUT,
};

}  // namespace

// The name is fixed by the ABI (BENCHD_PLUGIN_ENTRY_SYMBOL).
// NOLINTNEXTLINE(readability-identifier-naming)
extern "C" BENCHD_PLUGIN_EXPORT const benchd_plugin_descriptor* benchd_plugin_entry(void) {
  return benchd::sdk::PluginAdapter<benchd::h2o_plugin::Server>::describe(kFacts);
}
