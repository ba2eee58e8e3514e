#pragma once

#include <benchd/asio_common/client_watch.hpp>
#include <benchd/asio_common/connection_tracking.hpp>
#include <benchd/asio_common/event_loop_group.hpp>
#include <benchd/h2_session/server_session.hpp>
#include <benchd/sdk/service_request.hpp>

#include <boost/beast/core/tcp_stream.hpp>

#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

namespace benchd::asio_common {

/// The model-independent half of one HTTP/2 connection of the Asio plugins (CONTRACT.md,
/// "HTTP/2"): the libnghttp2 session (h2_session::ServerSession), the departures of the streams
/// being answered, the bytes waiting for the writer, and what every model decides alike (when
/// to send a GOAWAY, when the connection is idle, when it closes). The plugin owns the I/O and
/// the waiting: it reads and calls receive(), runs each stream's answer (a coroutine, a fiber, a
/// handler chain) and reports its end with finishStream(), and runs one writer at a time that
/// sends what nextOutput() gives.
///
/// Contract: loop thread only. Every call is synchronous; the Model's hooks are called from
/// inside receive(), finishStream() and endReading(), and must only start their work (spawn,
/// post), not run it to the end. `loop` and `tcp` outlive the exchange.
class Http2Exchange {
 public:
  /// How the plugin's model runs what the exchange asks for.
  struct Model {
    /// Starts answering `request`: departureOf(request.stream_id) exists already, and the
    /// answer ends with finishStream().
    std::function<void(h2_session::StreamRequest request)> start_stream;
    /// Starts the writer, which sends nextOutput()'s bytes until it returns false.
    std::function<void()> start_writer;
  };

  /// `server_name` is every reply's `server` header. `mark_idle(true)` tells the connection's
  /// drain book-keeping (a ConnectionRegistration, a session's own flag) that no stream is being
  /// answered, so a drain may close it; `mark_idle(false)` that one is.
  Http2Exchange(EventLoop& loop, std::function<void(bool idle)> mark_idle,
                boost::beast::tcp_stream& tcp, std::string server_name, Model model);

  /// Feeds what the client sent (first what was read before the protocol was known, h2c's
  /// preface; possibly nothing), then queues a GOAWAY when draining, marks the connection idle
  /// or busy, and flushes (the server's SETTINGS first). False when the bytes broke the
  /// protocol: a GOAWAY is queued; read no more.
  bool receive(std::string_view bytes);
  /// Whether to read on: the connection is open and the session not over.
  [[nodiscard]] bool reading() const { return !closed_ && !session_.finished(); }
  /// How long the next read may wait: an idle connection as long as an idle HTTP/1.1 one
  /// (sdk::kIoTimeout); one with streams in flight a day, since their own deadlines (the delay,
  /// the nested call's, the database's) bound them. (A connection that falls idle while a read
  /// waits keeps that read's expiry; a drain closes it.)
  [[nodiscard]] std::chrono::steady_clock::duration readTimeout() const;

  /// The departure of stream `stream_id`, whose answer runs: the request's ClientWatch watches
  /// it (InboundStream::h2_stream). Valid until finishStream() for that stream.
  [[nodiscard]] StreamDeparture* departureOf(std::int32_t stream_id);
  /// Stream `stream_id`'s answer ended with `reply`, or with none (its client left): the reply
  /// is submitted, the departure forgotten, a GOAWAY queued when draining, and the output
  /// flushed. The exchange keeps `in_flight` until the writer has written the bytes that
  /// carry the reply, then counts it answered; without a reply, or when the connection closes
  /// first, it goes unanswered. So the stream's own answer (coroutine, fiber, handler chain)
  /// ends here and does not wait for the writer, which under steady load never stops (a wait
  /// for it to stop held every stream's answer, and its memory, for as long as the load went
  /// on). "The bytes that carry the reply" are the next batch nextOutput() gives: a DATA frame
  /// that flow control holds back goes in a later one.
  void finishStream(std::int32_t stream_id, const std::optional<sdk::Reply>& reply,
                    std::unique_ptr<InFlightRequest> in_flight);

  /// For the writer: moves the next bytes to send into `out` and returns true; or returns
  /// false when there is nothing (the writer ends; writing() turns false, and the connection
  /// closes when the session is over).
  bool nextOutput(std::string& out);
  /// Whether a writer runs.
  [[nodiscard]] bool writing() const noexcept { return writing_; }

  /// The reads ended (the client left, the socket failed, the session is over): streams still
  /// waiting end their waits, and a last GOAWAY, if any, is flushed.
  void endReading();
  /// Closes the connection: pending reads and writes complete with operation_aborted.
  /// Idempotent.
  void close();
  [[nodiscard]] bool closed() const noexcept { return closed_; }

 private:
  void flush();
  void streamsChanged();
  /// Counts answered the requests whose replies went out in a batch up to written_.
  void answerWritten();

  /// A request whose reply waits for the writer: answered once batch `batch` is written.
  struct UnsentAnswer {
    std::uint64_t batch;
    std::unique_ptr<InFlightRequest> in_flight;
  };

  EventLoop& loop_;
  std::function<void(bool idle)> mark_idle_;
  boost::beast::tcp_stream& tcp_;
  Model model_;
  h2_session::ServerSession session_;
  /// The streams whose requests are being answered, by stream id.
  std::unordered_map<std::int32_t, StreamDeparture> departures_;
  std::string pending_;        ///< produced by the session, not yet taken by the writer
  std::uint64_t taken_ = 0;    ///< batches nextOutput() gave the writer
  std::uint64_t written_ = 0;  ///< of those, the ones written (each next call ends the last)
  std::deque<UnsentAnswer> unsent_answers_;  ///< in batch order
  bool writing_ = false;
  bool closed_ = false;
};

}  // namespace benchd::asio_common
