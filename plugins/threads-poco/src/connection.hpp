#pragma once

#include "server_state.hpp"

#include <benchd/sdk/limits.hpp>
#include <benchd/sdk/service_request.hpp>

#include <Poco/BasicEvent.h>
#include <Poco/Net/HTTPResponse.h>
#include <Poco/Net/HTTPServerParams.h>
#include <Poco/Net/StreamSocket.h>
#include <Poco/Net/TCPServerConnection.h>
#include <Poco/Net/TCPServerConnectionFactory.h>

#include <atomic>
#include <chrono>

namespace benchd::threads_poco {

/// After a reply that ends a connection, unread input is discarded for at most this long.
using sdk::kDiscardTimeout;

/// Sets the status, headers and length of `reply` on `response`; the caller writes the body.
void describeReply(Poco::Net::HTTPResponse& response, const sdk::Reply& reply, bool keep_alive);

/// Ends a connection after its last reply was sent: stops sending, then reads and drops what
/// the peer still sends until it closes or kDiscardTimeout passes. Closing with unread request
/// bytes would reset the connection and could destroy the reply before the client read it.
/// Blocks the calling thread for at most kDiscardTimeout; never throws.
void closeAfterReply(Poco::Net::StreamSocket& socket) noexcept;

class ConnectionFactory;

/// One client connection: reads each request's head itself, checks its syntax and lets Poco
/// parse it (BufferedServerSession, CheckedRequest), then hands Poco's request to a
/// RequestHandler, on the pool thread that owns the connection, until the client or the
/// handler ends it. It replaces Poco's HTTPServerConnection, whose header parsing accepts some
/// malformed heads that the Asio plugins refuse, refuses more than 100 fields, closes the
/// connection without an answer when it cannot parse Content-Length and answers other
/// malformed heads with an empty body; here all of those get the JSON 400 the Asio plugins send.
class Connection final : public Poco::Net::TCPServerConnection {
 public:
  Connection(const Poco::Net::StreamSocket& socket, ConnectionFactory& factory);
  ~Connection() override;
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  void run() override;

 private:
  void onStop(const bool& ignored);
  void refuse(const sdk::Reply& reply);

  ConnectionFactory& factory_;
  std::atomic<bool> stopped_{false};
};

/// Makes a Connection for every accepted socket (called on the TCPServer's acceptor thread)
/// and ends them all on request. Must outlive its connections.
class ConnectionFactory final : public Poco::Net::TCPServerConnectionFactory {
 public:
  ConnectionFactory(Poco::Net::HTTPServerParams::Ptr params, ServerState& state)
      : params_(std::move(params)), state_(state) {}
  Poco::Net::TCPServerConnection* createConnection(const Poco::Net::StreamSocket& socket) override {
    return new Connection(socket, *this);
  }

  /// Shuts every open connection down at once, idle keep-alive ones included; a handler
  /// still running finishes its request but cannot send the reply. Thread-safe.
  void stopConnections() {
    const bool abort = true;
    stopping_.notify(this, abort);
  }

 private:
  friend class Connection;
  Poco::Net::HTTPServerParams::Ptr params_;
  ServerState& state_;
  Poco::BasicEvent<const bool> stopping_;
};

}  // namespace benchd::threads_poco
