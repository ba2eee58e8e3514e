#include "request_handler.hpp"

#include "completion_token.hpp"
#include "upstream_call.hpp"

#include <benchd/asio_common/client_watch.hpp>

#include <boost/asio/steady_timer.hpp>

#include <variant>

namespace benchd::coroutines_asio {

namespace asio = boost::asio;

asio::awaitable<std::optional<sdk::Reply>> handleRequest(
    asio_common::EventLoop* loop, const sdk::Host* host, std::string_view method,
    std::string_view target, const std::string* body, asio_common::InboundStream stream,
    boost::beast::flat_buffer* buffer) {
  auto classified = sdk::classifyRequest(method, target, kApproachName);
  if (auto* reply = std::get_if<sdk::Reply>(&classified))
    co_return std::move(*reply);
  const sdk::ServiceRequest request = std::move(std::get<sdk::ServiceRequest>(classified));

  if (request.delay_call_depth > 0) {
    asio_common::LoopCounters::add(loop->counters.upstream_calls, 1);
    asio_common::ClientWatch watch(stream, *buffer);
    const UpstreamResult upstream =
        co_await callUpstream(loop, sdk::upstreamTarget(kApproachName, request), &watch);
    if (watch.clientGone())
      co_return std::nullopt;
    if (upstream.error) {
      co_return sdk::nestedCallFailedReply(upstream.error.message());
    }
    if (upstream.status != 200) {
      co_return sdk::nestedCallAnsweredReply(upstream.status);
    }
  } else if (request.delay_millis > 0) {
    asio::steady_timer timer(loop->io, std::chrono::milliseconds(request.delay_millis));
    asio_common::ClientWatch watch(stream, *buffer);
    const auto interruption = watch.interruptWith([&timer] { timer.cancel(); });
    auto [error] = co_await timer.async_wait(kNoThrow);
    if (watch.clientGone())
      co_return std::nullopt;
    if (error)
      co_return sdk::errorReply(503, "delay interrupted: " + error.message());
  }
  if (asio_common::DatabasePool* database = loop->group.database();
      database != nullptr && sdk::usesDatabase(request)) {
    auto [reply] = co_await database->asyncRun(loop->io.get_executor(), request, *body, kNoThrow);
    co_return std::move(reply);
  }
  co_return host->answer(request, *body);
}

}  // namespace benchd::coroutines_asio
