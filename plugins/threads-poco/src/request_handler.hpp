#pragma once

#include "server_state.hpp"

#include <Poco/Net/HTTPRequestHandler.h>

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

}  // namespace benchd::threads_poco
