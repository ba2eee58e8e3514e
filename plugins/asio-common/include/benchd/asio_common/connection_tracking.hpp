#pragma once
// Book-keeping every inbound connection of the Asio-based plugins shares, as RAII guards that
// live where the connection's state lives (a coroutine frame, a fiber stack, a session).
// All of it is used on the connection's loop thread only.

#include <benchd/asio_common/event_loop_group.hpp>
#include <benchd/sdk/service_request.hpp>

#include <boost/beast/core/tcp_stream.hpp>
#include <boost/system/error_code.hpp>

namespace benchd::asio_common {

/// Shuts a stream down in both directions and closes it; pending operations complete with
/// operation_aborted.
void closeStream(boost::beast::tcp_stream& stream);

/// True for read errors after which there is no request to answer: the peer closed, the
/// connection was reset or closed by the server, or the idle timeout passed.
bool endsConnection(const boost::system::error_code& read_error);

/// The reply to a request that could not be read (any read error for which endsConnection()
/// is false): 413 for a body over sdk::kMaxRequestBodyBytes, 400 for malformed HTTP. The
/// connection closes after it.
sdk::Reply readErrorReply(const boost::system::error_code& read_error);

/// Registers a connection in its loop's connection set and counts it as open, for the guard's
/// lifetime, so a draining or stopping server can close it.
class ConnectionRegistration final : public DrainableConnection {
 public:
  ConnectionRegistration(EventLoop& loop, boost::beast::tcp_stream& stream);
  ~ConnectionRegistration();
  ConnectionRegistration(const ConnectionRegistration&) = delete;
  ConnectionRegistration& operator=(const ConnectionRegistration&) = delete;

  /// Marks the connection as waiting for its next request (closable while draining).
  void setIdle(bool idle) { idle_ = idle; }
  void closeIfIdle() override;
  void closeNow() override;

 private:
  EventLoop& loop_;
  boost::beast::tcp_stream& stream_;
  bool idle_ = false;
};

/// Counts one request as in flight until answered() (or the guard dies unanswered).
class InFlightRequest {
 public:
  explicit InFlightRequest(EventLoop& loop);
  ~InFlightRequest();
  InFlightRequest(const InFlightRequest&) = delete;
  InFlightRequest& operator=(const InFlightRequest&) = delete;

  /// The reply was written: no longer in flight, one more served.
  void answered();

 private:
  EventLoop& loop_;
  bool answered_ = false;
};

}  // namespace benchd::asio_common
