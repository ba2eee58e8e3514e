#include "request_handler.hpp"

#include "upstream_call.hpp"

#include <benchd/asio_common/client_watch.hpp>
#include <benchd/fiber_scheduler_asio/use_fiber.hpp>

#include <boost/asio/steady_timer.hpp>

#include <variant>

namespace benchd::fibers_asio {

std::optional<sdk::Reply> handleRequest(asio_common::EventLoop& loop, const sdk::Host& host,
                                        std::string_view method, std::string_view target,
                                        const std::string& body, asio_common::InboundStream stream,
                                        boost::beast::flat_buffer& buffer) {
  auto classified = sdk::classifyRequest(method, target, kApproachName);
  if (auto* reply = std::get_if<sdk::Reply>(&classified))
    return std::move(*reply);
  const sdk::ServiceRequest request = std::move(std::get<sdk::ServiceRequest>(classified));

  if (request.delay_call_depth > 0) {
    asio_common::LoopCounters::add(loop.counters.upstream_calls, 1);
    asio_common::ClientWatch watch(stream, buffer);
    const UpstreamResult upstream =
        callUpstream(loop, sdk::upstreamTarget(kApproachName, request), watch);
    if (watch.clientGone())
      return std::nullopt;
    if (upstream.error)
      return sdk::nestedCallFailedReply(upstream.error.message());
    if (upstream.status != 200) {
      return sdk::nestedCallAnsweredReply(upstream.status);
    }
  } else if (request.delay_millis > 0) {
    // An Asio timer rather than boost::this_fiber::sleep_for: a fiber's sleep cannot be
    // interrupted, so a departing client or a stop would wait up to the whole delay.
    boost::asio::steady_timer timer(loop.io, std::chrono::milliseconds(request.delay_millis));
    asio_common::ClientWatch watch(stream, buffer);
    const auto interruption = watch.interruptWith([&timer] { timer.cancel(); });
    const boost::system::error_code error = timer.async_wait(fiber_scheduler_asio::use_fiber);
    if (watch.clientGone())
      return std::nullopt;
    if (error)
      return sdk::errorReply(503, "delay interrupted: " + error.message());
  }
  if (asio_common::DatabasePool* database = loop.group.database();
      database != nullptr && sdk::usesDatabase(request)) {
    // Suspends this fiber only, until the database's answer is in.
    return database->asyncRun(loop.io.get_executor(), request, body,
                              fiber_scheduler_asio::use_fiber);
  }
  return host.answer(request, body);
}

}  // namespace benchd::fibers_asio
