#include "request_handler.hpp"

#include "upstream_call.hpp"

#include <boost/fiber/operations.hpp>

#include <variant>

namespace benchd::fibers_asio {

sdk::Reply handleRequest(
    asio_common::EventLoop& loop, const sdk::Host& host,
    const boost::beast::http::request<boost::beast::http::string_body>& message) {
  auto classified = sdk::classifyRequest(message.method_string(), message.target(), kApproachName);
  if (auto* reply = std::get_if<sdk::Reply>(&classified))
    return std::move(*reply);
  const sdk::ServiceRequest request = std::move(std::get<sdk::ServiceRequest>(classified));

  if (request.delay_call_depth > 0) {
    asio_common::LoopCounters::add(loop.counters.upstream_calls, 1);
    const UpstreamResult upstream = callUpstream(loop, sdk::upstreamTarget(kApproachName, request));
    if (upstream.error)
      return sdk::errorReply(502, "nested call failed: " + upstream.error.message());
    if (upstream.status != 200) {
      return sdk::errorReply(502, "nested call answered " + std::to_string(upstream.status));
    }
  } else if (request.delay_millis > 0) {
    boost::this_fiber::sleep_for(std::chrono::milliseconds(request.delay_millis));
  }
  return host.answer(request, message.body());
}

}  // namespace benchd::fibers_asio
