#pragma once

#include "request_run.hpp"

#include <benchd/asio_common/connection_tracking.hpp>
#include <benchd/asio_common/event_loop_group.hpp>
#include <benchd/asio_common/http2_exchange.hpp>
#include <benchd/asio_common/tls_contexts.hpp>
#include <benchd/sdk/host.hpp>

#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>

#include <functional>
#include <memory>
#include <string>

namespace benchd::callbacks_asio {

/// Serves an HTTP/2 connection (CONTRACT.md, "HTTP/2") with completion handlers, until the
/// client closes it, it fails, or a draining server's GOAWAY has let its streams finish: a read
/// handler chain feeds the exchange (asio_common::Http2Exchange), each request stream is
/// answered by a RequestRun of its own (as an HTTP/1.1 request is, watching its stream's
/// departure instead of the socket), and one write chain at a time sends what the exchange
/// produces.
///
/// Contract: loop thread only. Owned by its pending handlers (shared_from_this); it holds
/// `owner` (the Session whose `tcp`, `tls` and `buffer` these are), so they outlive it.
/// `mark_idle` is the Session's drain flag.
class Http2Connection final : public std::enable_shared_from_this<Http2Connection> {
 public:
  Http2Connection(std::shared_ptr<void> owner, asio_common::EventLoop& loop, const sdk::Host& host,
                  boost::beast::tcp_stream& tcp, asio_common::TlsStream* tls,
                  boost::beast::flat_buffer& buffer, std::function<void(bool idle)> mark_idle);

  /// Feeds what `buffer` holds already (h2c's preface; under `h2` possibly nothing), then reads.
  void start();

 private:
  /// One stream's answer and its in-flight count, owned by the RequestRun's handlers.
  struct StreamAnswer {
    StreamAnswer(asio_common::EventLoop& loop, const sdk::Host& host)
        : run(loop, host), in_flight(std::make_unique<asio_common::InFlightRequest>(loop)) {}
    RequestRun run;
    std::unique_ptr<asio_common::InFlightRequest> in_flight;
  };

  template <typename Operation>
  void onStream(Operation&& operation);
  /// Feeds the buffer's bytes to the exchange and reads on, or ends reading.
  void receiveBuffered();
  void read();
  /// The reads are over: the streams still waiting end, a last GOAWAY is flushed, and the
  /// connection closes once the writer is done.
  void endReading();
  void runStream(h2_session::StreamRequest request);
  void finishStream(std::int32_t stream_id, StreamAnswer& answer, const RequestOutcome& outcome);
  void writeNext();
  /// The writer sent everything: a connection whose reads ended closes.
  void writerStopped();

  std::shared_ptr<void> owner_;
  asio_common::EventLoop& loop_;
  const sdk::Host& host_;
  boost::beast::tcp_stream& tcp_;
  asio_common::TlsStream* tls_;
  boost::beast::flat_buffer& buffer_;
  asio_common::Http2Exchange exchange_;
  std::string sending_;  ///< the bytes being written
  bool reading_ended_ = false;
};

}  // namespace benchd::callbacks_asio
