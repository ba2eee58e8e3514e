#pragma once

#include "blocking_stream.hpp"
#include "server_state.hpp"

#include <benchd/sdk/service_request.hpp>

#include <boost/beast/http/message.hpp>
#include <boost/beast/http/string_body.hpp>

#include <optional>
#include <string>
#include <string_view>

namespace benchd::threads_asio {

/// Produces the reply to one parsed request on the calling pool thread: validates it, makes
/// the nested call or sleeps the delay (blocking), then asks the host for the answer. Returns
/// nothing when the client left while the request waited, or the stop gave up: nobody is left
/// to answer. `client` is the request's connection, watched for the client's departure.
std::optional<sdk::Reply> handleRequest(
    ServerState& state, const boost::beast::http::request<boost::beast::http::string_body>& message,
    BlockingStream& client);

/// The same for a request given by its parts, watching `client_fd` (a connection's socket, or an
/// HTTP/2 stream's watch: h2_blocking::ServeStream) for the client's departure.
std::optional<sdk::Reply> handleRequest(ServerState& state, std::string_view method,
                                        std::string_view target, const std::string& body,
                                        int client_fd);

}  // namespace benchd::threads_asio
