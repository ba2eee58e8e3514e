#pragma once

#include "server_state.hpp"

#include <benchd/sdk/service_request.hpp>

#include <optional>
#include <string>

namespace benchd::libmicrohttpd {

/// Runs `request`'s waits on the calling connection thread, blocking it: the nested call
/// (libcurl's blocking client) or the delay (poll() on the client's descriptor), then the
/// database or the host's answer. Nothing when the client on `client_fd` left first, or the
/// stop shut its connection down: nobody is left to answer.
[[nodiscard]] std::optional<sdk::Reply> serveBlocking(ServerState& state,
                                                      const sdk::ServiceRequest& request,
                                                      const std::string& body, int client_fd);

}  // namespace benchd::libmicrohttpd
