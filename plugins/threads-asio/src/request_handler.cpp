#include "request_handler.hpp"

#include <string>
#include <variant>

namespace benchd::threads_asio {

std::optional<sdk::Reply> handleRequest(
    ServerState& state, const boost::beast::http::request<boost::beast::http::string_body>& message,
    BlockingStream& client) {
  return handleRequest(state, message.method_string(), message.target(), message.body(),
                       client.socket().native_handle());
}

std::optional<sdk::Reply> handleRequest(ServerState& state, std::string_view method,
                                        std::string_view target, const std::string& body,
                                        int client_fd) {
  auto classified = sdk::classifyRequest(method, target, kApproachName);
  if (auto* reply = std::get_if<sdk::Reply>(&classified))
    return std::move(*reply);
  const sdk::ServiceRequest request = std::move(std::get<sdk::ServiceRequest>(classified));

  if (request.delay_call_depth > 0) {
    state.upstream_calls.fetch_add(1, std::memory_order_relaxed);
    const std::string upstream_target = sdk::upstreamTarget(kApproachName, request);
    if (state.library_client) {
      const sdk::NestedCallOutcome nested = state.library_client->get(upstream_target, client_fd);
      if (nested.client_gone || state.signals.stopped())
        return std::nullopt;
      if (!nested.error.empty())
        return sdk::nestedCallFailedReply(nested.error);
      if (nested.status != 200)
        return sdk::nestedCallAnsweredReply(nested.status);
    } else {
      const UpstreamClient::Outcome nested = state.upstream.call(upstream_target, client_fd);
      if (nested.client_gone || state.signals.stopped())
        return std::nullopt;
      if (nested.result.error)
        return sdk::nestedCallFailedReply(nested.result.error.message());
      if (nested.result.status != 200) {
        return sdk::nestedCallAnsweredReply(nested.result.status);
      }
    }
  } else if (request.delay_millis > 0) {
    if (BlockingStream::sleepWatching(client_fd, state.signals,
                                      std::chrono::milliseconds(request.delay_millis)) !=
        BlockingStream::WaitEnd::kElapsed) {
      return std::nullopt;
    }
  }
  if (state.database && sdk::usesDatabase(request))
    return state.database->run(request, body);
  return state.host.answer(request, body);
}

}  // namespace benchd::threads_asio
