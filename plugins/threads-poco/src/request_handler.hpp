#pragma once

#include "server_state.hpp"

#include <benchd/h2_session/server_session.hpp>
#include <benchd/sdk/service_request.hpp>

#include <Poco/Net/HTTPRequestHandler.h>

#include <optional>

namespace benchd::threads_poco {

/// Serves one request on the pool thread that owns its connection, blocking throughout: the
/// delay is a sleep of this OS thread and the nested call a blocking client call.
class RequestHandler final : public Poco::Net::HTTPRequestHandler {
 public:
  explicit RequestHandler(ServerState& state) : state_(state) {}
  void handleRequest(Poco::Net::HTTPServerRequest& request,
                     Poco::Net::HTTPServerResponse& response) override;

 private:
  ServerState& state_;
};

/// Serves one HTTP/2 stream's request on the calling pool thread, blocking as handleRequest()
/// does, watching `gone_fd` (h2_blocking::ServeStream) as a request watches its connection.
/// Nothing when the client left while it waited. Counts nothing: the connection's pump does.
std::optional<sdk::Reply> serveStream(ServerState& state, const h2_session::StreamRequest& request,
                                      int gone_fd);

}  // namespace benchd::threads_poco
