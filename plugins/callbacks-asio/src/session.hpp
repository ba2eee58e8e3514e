#pragma once

#include <benchd/asio_common/client_watch.hpp>
#include <benchd/asio_common/connection_tracking.hpp>
#include <benchd/asio_common/event_loop_group.hpp>
#include <benchd/asio_common/tls_contexts.hpp>
#include <benchd/sdk/host.hpp>
#include <benchd/sdk/limits.hpp>
#include <benchd/sdk/service_request.hpp>

#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/message.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/string_body.hpp>

#include <memory>
#include <optional>

namespace benchd::callbacks_asio {

/// One inbound connection, served request by request (read, wait or call upstream, answer,
/// repeat while keep-alive holds). A request is read in three steps: its first byte (as long
/// as an idle connection may wait), its header (the header deadline) and its body (kIoTimeout),
/// see benchd/sdk/request_deadline.hpp. While it waits, a ClientWatch ends the wait when the
/// client leaves, and the request is dropped unanswered. Owned by the completion handlers in flight
/// through shared_from_this; lives on one loop and is only touched on its thread.
class Session final : public std::enable_shared_from_this<Session>,
                      public asio_common::DrainableConnection {
 public:
  Session(asio_common::EventLoop& loop, const sdk::Host& host, boost::asio::ip::tcp::socket socket);
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  /// Begins with the TLS handshake under the `tls` profile (under the header deadline: it is
  /// the first part of the first request's header), then reads requests.
  void start();
  void closeIfIdle() override;
  void closeNow() override;

 private:
  void readRequest();
  /// Runs `operation(stream)` with the connection's stream: the TLS one under `tls`, else the
  /// TCP one (the two types share every Beast and Asio operation used here).
  template <typename Operation>
  void onStream(Operation&& operation);
  [[nodiscard]] asio_common::InboundStream inbound() noexcept;
  void readHeader();
  void readBody();
  void onRead(boost::system::error_code error);
  /// Ends a request whose client left while it waited: no answer, the connection closes.
  void abandon();
  void onDelayElapsed(boost::system::error_code error);
  void onUpstreamDone(const asio_common::UpstreamResult& result);
  void send(const sdk::Reply& reply, bool close_after);
  /// Answers the request whose waiting is done: from the host, or under `postgres` from the
  /// database, whose reply comes back as one more callback.
  void answer(const std::string& body);
  void onWritten(boost::system::error_code error, bool close_after);
  void discardInputThenClose();
  void close();

  asio_common::EventLoop& loop_;
  const sdk::Host& host_;
  boost::beast::tcp_stream stream_;
  /// TLS over stream_ under the `tls` profile; empty otherwise.
  std::optional<asio_common::TlsStream> tls_;
  /// Capped at sdk::kMaxUnparsedRequestBytes: chunk lines and trailer sections beyond it are
  /// refused.
  boost::beast::flat_buffer buffer_{benchd::sdk::kMaxUnparsedRequestBytes};
  std::optional<boost::beast::http::request_parser<boost::beast::http::string_body>> parser_;
  std::string response_;  ///< bytes of the response being written
  boost::asio::steady_timer delay_timer_;
  sdk::ServiceRequest request_;
  bool idle_ = false;  ///< waiting for the next request
  std::optional<asio_common::InFlightRequest> in_flight_;
  std::optional<asio_common::ClientWatch> watch_;                       ///< while the request waits
  std::optional<asio_common::ClientWatch::Interruption> interruption_;  ///< of the delay
};

}  // namespace benchd::callbacks_asio
