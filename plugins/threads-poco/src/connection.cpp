#include "connection.hpp"

#include "deadline_socket.hpp"
#include "request_handler.hpp"
#include "request_head_check.hpp"

#include <Poco/Delegate.h>
#include <Poco/Exception.h>
#include <Poco/Net/HTTPServerRequestImpl.h>
#include <Poco/Net/HTTPServerResponseImpl.h>
#include <Poco/Net/HTTPServerSession.h>
#include <Poco/Net/NetException.h>
#include <Poco/Timespan.h>

#include <array>
#include <chrono>
#include <memory>
#include <sstream>

namespace benchd::threads_poco {

void describeReply(Poco::Net::HTTPResponse& response, const sdk::Reply& reply, bool keep_alive) {
  response.setVersion(Poco::Net::HTTPMessage::HTTP_1_1);
  response.setStatusAndReason(static_cast<Poco::Net::HTTPResponse::HTTPStatus>(reply.status));
  response.set("Server", "benchd threads-poco");
  if (!reply.body.empty() || reply.status != 200)
    response.setContentType(std::string(reply.content_type));
  if (!reply.allow.empty())
    response.set("Allow", reply.allow);
  response.setKeepAlive(keep_alive);
  response.setContentLength(static_cast<std::streamsize>(reply.body.size()));
}

void closeAfterReply(Poco::Net::StreamSocket& socket) noexcept {
  try {
    socket.shutdownSend();
    const auto deadline = std::chrono::steady_clock::now() + kDiscardTimeout;
    std::array<char, 4096> scratch{};
    for (;;) {
      const auto left = std::chrono::duration_cast<std::chrono::microseconds>(
          deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0)
        return;
      socket.setReceiveTimeout(Poco::Timespan(left.count()));
      if (socket.receiveBytes(scratch.data(), static_cast<int>(scratch.size())) <= 0)
        return;
    }
  } catch (const Poco::Exception&) {
    // A timeout or a reset: either way nothing more is owed to the peer.
  }
}

Connection::Connection(const Poco::Net::StreamSocket& socket, ConnectionFactory& factory)
    : TCPServerConnection(socket), factory_(factory) {
  factory_.stopping_ += Poco::delegate(this, &Connection::onStop);
}

Connection::~Connection() {
  factory_.stopping_ -= Poco::delegate(this, &Connection::onStop);
}

void Connection::onStop(const bool& /*ignored*/) {
  stopped_.store(true);
  try {
    socket().shutdown();  // wakes a read blocked on the socket
  } catch (const Poco::Exception&) {
    // Already closed.
  }
}

void Connection::run() {
  Poco::Net::HTTPServerParams::Ptr params = factory_.params_;
  // The session closes the socket when it goes, so it lives until the last answer is sent.
  Poco::Net::HTTPServerSession session(socket(), params);
  // The listener (DeadlineServerSocket) makes every connection's socket one.
  auto* deadlines = dynamic_cast<DeadlineSocketImpl*>(socket().impl());
  const auto body_time = std::chrono::microseconds(params->getTimeout().totalMicroseconds());
  while (!stopped_.load() && session.hasMoreRequests()) {
    // The first byte of a request is here (or pipelined in the session's buffer): its header
    // has the header deadline from now, in total (benchd/sdk/request_deadline.hpp).
    if (deadlines != nullptr)
      deadlines->setDeadline(std::chrono::steady_clock::now() + factory_.state_.header_deadline);
    Poco::Net::HTTPServerResponseImpl response(session);
    std::unique_ptr<Poco::Net::HTTPServerRequestImpl> request;
    try {
      request = std::make_unique<Poco::Net::HTTPServerRequestImpl>(response, session, params.get());
    } catch (const Poco::TimeoutException&) {
      return;  // the header missed its deadline: closed without an answer, like the others
    } catch (const Poco::Net::NoMessageException&) {
      return;  // closed between requests
    } catch (const Poco::Net::MessageException& e) {
      refuse(sdk::errorReply(400, "malformed HTTP request: " + e.message()));
      return;
    } catch (const Poco::SyntaxException& e) {
      // Poco parses Content-Length while it reads the header; nothing else there throws this.
      refuse(sdk::errorReply(
          400,
          "malformed HTTP request: Content-Length is not a decimal number (" + e.message() + ")"));
      return;
    }
    // Other exceptions (resets) end the connection in TCPServerConnection::start.
    if (const std::optional<std::string> problem = requestHeadProblem(*request)) {
      refuse(sdk::errorReply(400, *problem));
      return;
    }
    // The body, read by the handler, gets the timeout for a read as its total.
    if (deadlines != nullptr)
      deadlines->setDeadline(std::chrono::steady_clock::now() + body_time);
    response.setVersion(request->getVersion());
    response.setKeepAlive(params->getKeepAlive() && request->getKeepAlive() &&
                          session.canKeepAlive());
    RequestHandler handler(factory_.state_);
    handler.handleRequest(*request, response);
    if (deadlines != nullptr)
      deadlines->clearDeadline();
    session.setKeepAlive(params->getKeepAlive() && response.getKeepAlive() &&
                         session.canKeepAlive());
  }
}

/// Answers a request whose header could not be read, then ends the connection: what follows
/// the header cannot be framed.
void Connection::refuse(const sdk::Reply& reply) {
  Poco::Net::HTTPResponse response;
  describeReply(response, reply, false);
  std::ostringstream head;
  response.write(head);
  const std::string bytes = head.str() + reply.body;
  try {
    for (std::size_t sent = 0; sent < bytes.size();) {
      const int now =
          socket().sendBytes(bytes.data() + sent, static_cast<int>(bytes.size() - sent));
      if (now <= 0)
        return;
      sent += static_cast<std::size_t>(now);
    }
  } catch (const Poco::Exception&) {
    return;  // the peer is gone
  }
  factory_.state_.requests_served.fetch_add(1, std::memory_order_relaxed);
  closeAfterReply(socket());
}

}  // namespace benchd::threads_poco
