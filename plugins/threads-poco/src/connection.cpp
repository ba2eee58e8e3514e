#include "connection.hpp"

#include "buffered_session.hpp"
#include "checked_request.hpp"
#include "deadline_socket.hpp"
#include "http2_connection.hpp"
#include "request_handler.hpp"

#include <Poco/Delegate.h>
#include <Poco/Exception.h>
#include <Poco/Net/HTTPServerResponseImpl.h>
#include <Poco/Net/NetException.h>
#include <Poco/Net/SocketAddress.h>
#include <Poco/Timespan.h>

#include <array>
#include <chrono>
#include <optional>
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
  BufferedServerSession session(socket(), params);
  // The listener (DeadlineServerSocket) makes every connection's socket one.
  auto* deadlines = dynamic_cast<DeadlineSocketImpl*>(socket().impl());
  const auto body_time = std::chrono::microseconds(params->getTimeout().totalMicroseconds());
  const Poco::Net::SocketAddress client = session.clientAddress();
  const Poco::Net::SocketAddress server = session.serverAddress();
  if (factory_.state_.tls_server) {
    // The handshake counts as the first request's header: it has the header deadline. A
    // client that fails it (plain HTTP to a TLS port, among others) is closed unanswered.
    if (deadlines == nullptr ||
        !deadlines->acceptTls(factory_.state_.tls_server.get(),
                              std::chrono::steady_clock::now() + factory_.state_.header_deadline))
      return;
    if (deadlines->negotiatedHttp2()) {
      serveHttp2Connection(factory_.state_, socket(), *deadlines, {});
      return;
    }
  }
  bool first_request = true;
  while (!stopped_.load() && session.awaitRequest()) {
    // The first byte of a request is here (or pipelined in the session's buffer): its header
    // has the header deadline from now, in total (benchd/sdk/request_deadline.hpp).
    if (deadlines != nullptr)
      deadlines->setDeadline(std::chrono::steady_clock::now() + factory_.state_.header_deadline);
    HeadRead head;
    try {
      if (first_request && factory_.state_.h2c && deadlines != nullptr) {
        // Under h2c the first bytes decide the protocol, within the header's deadline.
        if (session.matchClientPreface() == h2_session::PrefaceMatch::kHttp2) {
          deadlines->clearDeadline();
          serveHttp2Connection(factory_.state_, socket(), *deadlines, session.takeUnread());
          return;
        }
      }
      first_request = false;
      head = session.readHead();
    } catch (const Poco::TimeoutException&) {
      return;  // the header missed its deadline: closed without an answer, like the others
    }
    // Other exceptions (resets) end the connection in TCPServerConnection::start.
    switch (head.outcome) {
      case HeadRead::Outcome::kHead:
        break;
      case HeadRead::Outcome::kRefused:
        refuse(sdk::errorReply(400, head.problem));
        return;
      case HeadRead::Outcome::kEndedEarly:
        // A client that half-closes may still read: it gets the 400 the Asio plugins send.
        refuse(sdk::malformedRequestReply("the input ended inside the header"));
        return;
      case HeadRead::Outcome::kClosed:
        return;  // closed between requests
    }
    Poco::Net::HTTPServerResponseImpl response(session);
    std::optional<CheckedRequest> request;
    try {
      request.emplace(head.head, session, response, *params, client, server);
    } catch (const Poco::Net::MessageException& e) {
      // What Poco's parser refuses in a head the check accepted (CheckedRequest).
      refuse(sdk::malformedRequestReply(e.message()));
      return;
    }
    // The body, read by the handler, gets the timeout for a read as its total.
    if (deadlines != nullptr)
      deadlines->setDeadline(std::chrono::steady_clock::now() + body_time);
    response.setVersion(request->getVersion());
    response.setKeepAlive(params->getKeepAlive() && request->getKeepAlive() &&
                          session.mayKeepAlive());
    RequestHandler handler(factory_.state_);
    handler.handleRequest(*request, response);
    if (deadlines != nullptr)
      deadlines->clearDeadline();
    session.setKeepAlive(params->getKeepAlive() && response.getKeepAlive() &&
                         session.mayKeepAlive());
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
