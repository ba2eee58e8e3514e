#include "request_handler.hpp"

#include <benchd/sdk/service_request.hpp>

#include <Poco/Net/HTTPServerRequest.h>
#include <Poco/Net/HTTPServerResponse.h>

#include <array>
#include <istream>
#include <thread>
#include <variant>

namespace benchd::threads_poco {

namespace {

/// Reads the body, at most kMaxRequestBodyBytes; returns false if it is longer. The rest of
/// an oversized body is read and dropped (up to a bound) so that closing the connection after
/// the 413 does not reset it before the client has read the reply.
bool readBody(std::istream& in, std::string& body) {
  constexpr std::size_t kMaxDiscardBytes = std::size_t{64} * 1024 * 1024;
  std::array<char, std::size_t{16} * 1024> chunk{};
  std::size_t total = 0;
  while (in.read(chunk.data(), chunk.size()) || in.gcount() > 0) {
    const auto got = static_cast<std::size_t>(in.gcount());
    total += got;
    if (total <= sdk::kMaxRequestBodyBytes) {
      body.append(chunk.data(), got);
    } else if (total > kMaxDiscardBytes) {
      break;
    }
  }
  return total <= sdk::kMaxRequestBodyBytes;
}

void send(Poco::Net::HTTPServerResponse& response, const sdk::Reply& reply, bool keep_alive) {
  response.setVersion(Poco::Net::HTTPMessage::HTTP_1_1);
  response.setStatusAndReason(static_cast<Poco::Net::HTTPResponse::HTTPStatus>(reply.status));
  response.set("Server", "benchd threads-poco");
  if (!reply.body.empty() || reply.status != 200)
    response.setContentType(std::string(reply.content_type));
  if (!reply.allow.empty())
    response.set("Allow", reply.allow);
  response.setKeepAlive(keep_alive);
  response.setContentLength(static_cast<std::streamsize>(reply.body.size()));
  response.send().write(reply.body.data(), static_cast<std::streamsize>(reply.body.size()));
}

sdk::Reply serve(ServerState& state, const sdk::ServiceRequest& request, const std::string& body) {
  if (request.delay_call_depth > 0) {
    state.upstream_calls.fetch_add(1, std::memory_order_relaxed);
    const UpstreamResult upstream = state.upstream.get(sdk::upstreamTarget(kApproachName, request));
    if (!upstream.error.empty())
      return sdk::errorReply(502, "nested call failed: " + upstream.error);
    if (upstream.status != 200) {
      return sdk::errorReply(502, "nested call answered " + std::to_string(upstream.status));
    }
  } else if (request.delay_millis > 0) {
    std::this_thread::sleep_for(std::chrono::milliseconds(request.delay_millis));
  }
  return state.host.answer(request, body);
}

}  // namespace

void RequestHandler::handleRequest(Poco::Net::HTTPServerRequest& request,
                                   Poco::Net::HTTPServerResponse& response) {
  state_.requests_in_flight.fetch_add(1, std::memory_order_relaxed);
  std::string body;
  sdk::Reply reply;
  bool keep_alive = request.getKeepAlive() && !state_.no_keep_alive;
  const std::string& version = request.getVersion();
  if (version != Poco::Net::HTTPMessage::HTTP_1_1 && version != Poco::Net::HTTPMessage::HTTP_1_0) {
    // Poco's parser takes any word as the version; the other stacks refuse anything but 1.x.
    reply = sdk::errorReply(400, "malformed HTTP request: unsupported version '" + version + "'");
    keep_alive = false;
  } else if (!readBody(request.stream(), body)) {
    reply = sdk::errorReply(
        413, "request body exceeds " + std::to_string(sdk::kMaxRequestBodyBytes) + " bytes");
    keep_alive = false;
  } else {
    auto classified = sdk::classifyRequest(request.getMethod(), request.getURI(), kApproachName);
    if (auto* error_reply = std::get_if<sdk::Reply>(&classified)) {
      reply = std::move(*error_reply);
    } else {
      reply = serve(state_, std::get<sdk::ServiceRequest>(classified), body);
    }
  }
  keep_alive = keep_alive && !state_.draining.load(std::memory_order_relaxed);
  try {
    send(response, reply, keep_alive);
  } catch (...) {
    state_.requests_in_flight.fetch_sub(1, std::memory_order_relaxed);
    throw;
  }
  state_.requests_in_flight.fetch_sub(1, std::memory_order_relaxed);
  state_.requests_served.fetch_add(1, std::memory_order_relaxed);
}

Poco::Net::HTTPRequestHandler* RequestHandlerFactory::createRequestHandler(
    const Poco::Net::HTTPServerRequest& /*request*/) {
  return new RequestHandler(state_);
}

}  // namespace benchd::threads_poco
