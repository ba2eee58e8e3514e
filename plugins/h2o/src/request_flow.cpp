#include "request_flow.hpp"

#include "event_loop.hpp"
#include "waiting_request.hpp"

#include <benchd/sdk/database.hpp>
#include <benchd/sdk/limits.hpp>
#include <benchd/sdk/service_request.hpp>

#include <string_view>
#include <variant>

namespace benchd::h2o_plugin {

namespace {

/// Whether `request` waits (a delay, a nested call, the database) before its answer.
bool needsToWait(const ServerState& state, const sdk::ServiceRequest& request) {
  return request.delay_call_depth > 0 || request.delay_millis > 0 ||
         (state.has_database && sdk::usesDatabase(request));
}

}  // namespace

int onRequest(h2o_handler_t* /*handler*/, h2o_req_t* req) {
  EventLoop& loop = EventLoop::of(req->conn->ctx);
  ServerState& state = loop.state();
  state.requests_in_flight.fetch_add(1, std::memory_order_relaxed);
  // The raw target as the client sent it (HTTP/1.1's request target, HTTP/2's :path), not
  // h2o's normalised path: the contract's classification reads the query itself.
  if (req->entity.len > sdk::kMaxRequestBodyBytes) {
    // Checked before anything else (413 beats 404 and 405), and the connection ends.
    state.requests_in_flight.fetch_sub(1, std::memory_order_relaxed);
    req->http1_is_persistent = 0;
    sendReply(loop, req, sdk::bodyTooLargeReply());
    return 0;
  }
  const std::string_view method(req->input.method.base, req->input.method.len);
  const std::string_view target(req->input.path.base, req->input.path.len);
  auto classified = sdk::classifyRequest(method, target, kApproachName);
  if (auto* refusal = std::get_if<sdk::Reply>(&classified)) {
    state.requests_in_flight.fetch_sub(1, std::memory_order_relaxed);
    sendReply(loop, req, *refusal);
    return 0;
  }
  auto& request = std::get<sdk::ServiceRequest>(classified);
  if (needsToWait(state, request)) {
    WaitingRequest::start(loop, req, std::move(request));
    return 0;
  }
  const std::string_view body(req->entity.base == nullptr ? "" : req->entity.base, req->entity.len);
  const sdk::Reply reply = state.host.answer(request, body);
  state.requests_in_flight.fetch_sub(1, std::memory_order_relaxed);
  sendReply(loop, req, reply);
  return 0;
}

}  // namespace benchd::h2o_plugin
