#include "blocking_waits.hpp"

#include <benchd/sdk/database.hpp>
#include <benchd/sdk/poll_until.hpp>

#include <chrono>

namespace benchd::libmicrohttpd {

std::optional<sdk::Reply> serveBlocking(ServerState& state, const sdk::ServiceRequest& request,
                                        const std::string& body, int client_fd) {
  if (request.delay_call_depth > 0) {
    state.upstream_calls.fetch_add(1, std::memory_order_relaxed);
    const sdk::NestedCallOutcome upstream =
        state.nested_client->get(sdk::upstreamTarget(kApproachName, request), client_fd);
    if (upstream.client_gone)
      return std::nullopt;
    if (!upstream.error.empty())
      return sdk::nestedCallFailedReply(upstream.error);
    if (upstream.status != 200)
      return sdk::nestedCallAnsweredReply(upstream.status);
  } else if (request.delay_millis > 0) {
    if (!sdk::sleepWatchingClient(client_fd, std::chrono::milliseconds(request.delay_millis)))
      return std::nullopt;
  }
  if (state.database && sdk::usesDatabase(request))
    return state.database->run(request, body);
  return state.host.answer(request, body);
}

}  // namespace benchd::libmicrohttpd
