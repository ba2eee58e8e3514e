#pragma once

#include "request_run.hpp"

#include <benchd/asio_common/connection_tracking.hpp>
#include <benchd/asio_common/event_loop_group.hpp>
#include <benchd/asio_common/tls_contexts.hpp>
#include <benchd/sdk/host.hpp>
#include <benchd/sdk/limits.hpp>

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
/// see benchd/sdk/request_deadline.hpp; a RequestRun answers it. While it waits, a ClientWatch
/// ends the wait when the client leaves, and the request is dropped unanswered. Under `h2` (ALPN
/// chose h2) and `h2c` (the client's first bytes are HTTP/2's preface) the connection is handed
/// to an Http2Connection, which holds the session. Owned by the completion handlers in flight
/// through shared_from_this; lives on one loop and is only touched on its thread.
class Session final : public std::enable_shared_from_this<Session>,
                      public asio_common::DrainableConnection {
 public:
  Session(asio_common::EventLoop& loop, const sdk::Host& host, boost::asio::ip::tcp::socket socket);
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  /// Begins with the TLS handshake under `tls` and `h2` (under the header deadline: it is the
  /// first part of the first request's header), or under `h2c` with reading until the first
  /// bytes tell HTTP/2 from HTTP/1.1, then serves the connection's protocol.
  void start();
  void closeIfIdle() override;
  void closeNow() override;

 private:
  void readRequest();
  /// Under `h2c`: reads until the first bytes are HTTP/2's preface or not.
  void readPreface();
  void serveHttp2();
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
  void send(const sdk::Reply& reply, bool close_after);
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
  RequestRun run_;
  /// Waiting for the next request (or, under HTTP/2, no stream being answered): a drain may
  /// close the connection.
  bool idle_ = false;
  std::optional<asio_common::InFlightRequest> in_flight_;
};

}  // namespace benchd::callbacks_asio
