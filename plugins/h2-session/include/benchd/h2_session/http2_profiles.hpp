#pragma once
// What every plugin that serves HTTP/2 refuses in create(), in the same words.

#include <benchd/sdk/plugin_support.hpp>

namespace benchd::h2_session {

/// Whether `settings` asks for HTTP/2, over TLS (`h2`) or in clear (`h2c`).
[[nodiscard]] inline bool wantsHttp2(const sdk::ServerSettings& settings) {
  return settings.hasProfile("h2") || settings.hasProfile("h2c");
}

/// Refuses `no-keep-alive` with `h2` or `h2c` (CONTRACT.md, "HTTP/2"): sdk::PluginError,
/// BENCHD_ERR_INVALID_ARGUMENT.
inline void refuseHttp2WithoutKeepAlive(const sdk::ServerSettings& settings) {
  if (settings.hasProfile("no-keep-alive") && wantsHttp2(settings))
    throw sdk::PluginError(BENCHD_ERR_INVALID_ARGUMENT,
                           "no-keep-alive with h2 or h2c is not implemented: an HTTP/2 "
                           "connection carries many requests by design");
}

}  // namespace benchd::h2_session
