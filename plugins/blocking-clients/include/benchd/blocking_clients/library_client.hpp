#pragma once
// The client libraries a thread-per-connection plugin may make its nested call with, chosen by
// the row's client profile: libcurl (client-curl), cpp-httplib (client-httplib) and Poco's
// HTTPClientSession (client-poco, threads-poco's native client). threads-asio's native client,
// Beast on its own blocking stream, is not one of them.

#include <benchd/sdk/blocking_nested_client.hpp>
#include <benchd/sdk/plugin_support.hpp>

#include <array>
#include <chrono>
#include <memory>
#include <openssl/ssl.h>
#include <string_view>

namespace benchd::blocking_clients {

/// The client profiles makeLibraryClient() serves, for a plugin's implemented_profiles.
inline constexpr std::array<const char*, 3> kLibraryClientProfiles = {
    "client-curl", "client-httplib", "client-poco"};

/// The client library the worker's profiles choose, set up with the contract's margin and idle
/// timeout (`response_margin`, `idle_timeout`) and the server's stop descriptor (`stop_fd`, or
/// -1: the stop then ends calls by shutting the clients' connections down); null when the
/// profiles name none. Under `tls`, `tls_client` is the context the nested calls speak TLS with
/// (null in clear): Poco's client speaks it; libcurl's and cpp-httplib's are refused by name
/// (sdk::PluginError, BENCHD_ERR_INVALID_ARGUMENT), as their builds here speak plain HTTP only.
/// Throws what the library's client throws when it cannot start.
[[nodiscard]] std::unique_ptr<sdk::BlockingNestedClient> makeLibraryClient(
    const sdk::ServerSettings& settings, std::chrono::milliseconds response_margin,
    std::chrono::milliseconds idle_timeout, int stop_fd, SSL_CTX* tls_client);

}  // namespace benchd::blocking_clients
