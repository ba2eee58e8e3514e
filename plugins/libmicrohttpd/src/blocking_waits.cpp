#include "blocking_waits.hpp"

#include <benchd/sdk/database.hpp>
#include <benchd/sdk/poll_until.hpp>

#include <poll.h>

#include <chrono>
#include <span>

namespace benchd::libmicrohttpd {

namespace {

/// Sleeps `delay` unless the client leaves first (false). POLLRDHUP, not POLLIN: bytes the
/// client pipelines must not end the wait, only the end of its sending side (or POLLHUP and
/// POLLERR, which a stop's shutdown(2) raises).
bool sleepWatching(int client_fd, std::chrono::milliseconds delay) {
  pollfd watched{client_fd, POLLRDHUP, 0};
  switch (sdk::pollUntil(std::span(&watched, 1), std::chrono::steady_clock::now() + delay)) {
    case sdk::PollResult::kTimedOut:
      return true;
    case sdk::PollResult::kFailed:
      return false;
    case sdk::PollResult::kReady:
      break;
  }
  return (watched.revents & (POLLRDHUP | POLLHUP | POLLERR | POLLNVAL)) == 0;
}

}  // namespace

std::optional<sdk::Reply> serveBlocking(ServerState& state, const sdk::ServiceRequest& request,
                                        const std::string& body, int client_fd) {
  if (request.delay_call_depth > 0) {
    state.upstream_calls.fetch_add(1, std::memory_order_relaxed);
    const sdk::NestedCallOutcome upstream =
        state.nested_client->get(sdk::upstreamTarget(kApproachName, request), client_fd);
    if (upstream.client_gone)
      return std::nullopt;
    if (!upstream.error.empty())
      return sdk::errorReply(502, "nested call failed: " + upstream.error);
    if (upstream.status != 200)
      return sdk::errorReply(502, "nested call answered " + std::to_string(upstream.status));
  } else if (request.delay_millis > 0) {
    if (!sleepWatching(client_fd, std::chrono::milliseconds(request.delay_millis)))
      return std::nullopt;
  }
  if (state.database && sdk::usesDatabase(request))
    return state.database->run(request, body);
  return state.host.answer(request, body);
}

}  // namespace benchd::libmicrohttpd
