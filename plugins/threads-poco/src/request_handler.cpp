#include "request_handler.hpp"

#include "checked_request.hpp"
#include "client_watch.hpp"
#include "connection.hpp"
#include "request_body.hpp"

#include <benchd/sdk/counted.hpp>
#include <benchd/sdk/service_request.hpp>

#include <Poco/Exception.h>
#include <Poco/Net/HTTPServerRequest.h>
#include <Poco/Net/HTTPServerResponse.h>

#include <optional>
#include <ostream>
#include <variant>

namespace benchd::threads_poco {

namespace {

void send(Poco::Net::HTTPServerResponse& response, const sdk::Reply& reply, bool keep_alive) {
  describeReply(response, reply, keep_alive);
  std::ostream& out = response.send();
  out.write(reply.body.data(), static_cast<std::streamsize>(reply.body.size()));
  out.flush();  // before a close after the reply shuts the sending side down
}

/// The reply, or nothing when the client left while the request waited (`watch`).
std::optional<sdk::Reply> serve(ServerState& state, const sdk::ServiceRequest& request,
                                const std::string& body, ClientWatch& watch) {
  if (request.delay_call_depth > 0) {
    state.upstream_calls.fetch_add(1, std::memory_order_relaxed);
    const std::string target = sdk::upstreamTarget(kApproachName, request);
    const sdk::NestedCallOutcome upstream = state.nested_client->get(target, watch.clientFd());
    if (upstream.client_gone)
      return std::nullopt;
    if (!upstream.error.empty())
      return sdk::nestedCallFailedReply(upstream.error);
    if (upstream.status != 200) {
      return sdk::nestedCallAnsweredReply(upstream.status);
    }
  } else if (request.delay_millis > 0) {
    // Not std::this_thread::sleep_for: a departing client or a stop wakes this wait.
    if (!watch.sleepFor(std::chrono::milliseconds(request.delay_millis)))
      return std::nullopt;
  }
  if (state.database && sdk::usesDatabase(request))
    return state.database->run(request, body);
  return state.host.answer(request, body);
}

}  // namespace

std::optional<sdk::Reply> serveStream(ServerState& state, const h2_session::StreamRequest& request,
                                      int gone_fd) {
  auto classified = sdk::classifyRequest(request.method, request.target, kApproachName);
  if (auto* error_reply = std::get_if<sdk::Reply>(&classified))
    return std::move(*error_reply);
  ClientWatch watch(gone_fd);
  return serve(state, std::get<sdk::ServiceRequest>(classified), request.body, watch);
}

void RequestHandler::handleRequest(Poco::Net::HTTPServerRequest& request,
                                   Poco::Net::HTTPServerResponse& response) {
  const sdk::Counted in_flight(state_.requests_in_flight);  // for as long as the handler runs
  std::string body;
  sdk::Reply reply;
  bool keep_alive = request.getKeepAlive() && !state_.no_keep_alive;
  // After a framing error the rest of the input is not at a request boundary.
  bool close_after = false;
  // The version was checked with the head (RequestHeadChecker): HTTP/1.0 or HTTP/1.1.
  std::optional<sdk::Reply> refusal;
  try {
    refusal = readRequestBody(request, response, body);
  } catch (const Poco::Exception&) {
    // The connection failed (timeout, reset) inside the body: nobody is left to answer.
    response.setKeepAlive(false);
    return;
  }
  if (refusal) {
    reply = std::move(*refusal);
    close_after = true;
  } else {
    auto classified = sdk::classifyRequest(request.getMethod(), request.getURI(), kApproachName);
    if (auto* error_reply = std::get_if<sdk::Reply>(&classified)) {
      reply = std::move(*error_reply);
    } else {
      // Connection hands every handler a CheckedRequest.
      ClientWatch watch(dynamic_cast<CheckedRequest&>(request).socket());
      auto served = serve(state_, std::get<sdk::ServiceRequest>(classified), body, watch);
      if (!served) {
        // The client left while its request waited: nobody to answer.
        response.setKeepAlive(false);
        return;
      }
      reply = std::move(*served);
    }
  }
  keep_alive = keep_alive && !close_after && !state_.draining.load(std::memory_order_relaxed);
  send(response, reply, keep_alive);
  state_.requests_served.fetch_add(1, std::memory_order_relaxed);
  if (close_after) {
    // Connection hands every handler a CheckedRequest.
    closeAfterReply(dynamic_cast<CheckedRequest&>(request).socket());
  }
}

}  // namespace benchd::threads_poco
