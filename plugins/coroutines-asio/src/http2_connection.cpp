#include "http2_connection.hpp"

#include "completion_token.hpp"
#include "live_task.hpp"
#include "reply_write.hpp"
#include "request_handler.hpp"

#include <benchd/asio_common/client_watch.hpp>
#include <benchd/h2_session/server_session.hpp>
#include <benchd/sdk/limits.hpp>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/steady_timer.hpp>

#include <chrono>
#include <exception>
#include <string>
#include <unordered_map>

namespace benchd::coroutines_asio {

namespace asio = boost::asio;
namespace beast = boost::beast;
using asio_common::ConnectionRegistration;
using asio_common::InFlightRequest;

namespace {

/// How long a read waits while streams are in flight: their own deadlines (the delay, the
/// nested call's, the database's) bound them, not the connection's idle timeout.
constexpr std::chrono::hours kBusyReadTimeout{24};

/// One HTTP/2 connection's state, in serveHttp2's frame. Its coroutines (the stream answers,
/// the writer) get a pointer: serveHttp2 waits for every one to end before the state goes.
/// Loop thread only.
template <typename Stream>
struct Http2Connection {
  Http2Connection(asio_common::EventLoop* loop_, const sdk::Host* host_, Stream* stream_,
                  beast::flat_buffer* buffer_, ConnectionRegistration* registration_)
      : loop(loop_),
        host(host_),
        stream(stream_),
        buffer(buffer_),
        registration(registration_),
        session({[this](h2_session::StreamRequest request) { startStream(std::move(request)); },
                 [this](std::int32_t stream_id) { streamGone(stream_id); }},
                std::string("benchd ") + kApproachName),
        changed(loop_->io, asio::steady_timer::time_point::max()) {}

  void startStream(h2_session::StreamRequest request);
  void streamGone(std::int32_t stream_id) {
    if (const auto found = departures.find(stream_id); found != departures.end())
      found->second.depart();
  }
  /// Hands what the session has to send to the writer, starting one if none runs.
  void flush();
  /// Ends the connection: pending reads and writes complete with operation_aborted.
  void close() {
    if (closed)
      return;
    closed = true;
    asio_common::closeStream(beast::get_lowest_layer(*stream));
  }
  /// After a change of the streams in flight: a draining server ends the connection once they
  /// are answered (GOAWAY), and a connection without streams counts as idle.
  void streamsChanged() {
    if (loop->group.draining())
      session.goAway();
    registration->setIdle(departures.empty());
  }
  /// Wakes every coroutine waiting for a change (the writer went idle, a task ended).
  void notify() { changed.cancel(); }

  asio_common::EventLoop* loop;
  const sdk::Host* host;
  Stream* stream;
  beast::flat_buffer* buffer;
  ConnectionRegistration* registration;
  h2_session::ServerSession session;
  /// The streams whose requests are being answered, by stream id.
  std::unordered_map<std::int32_t, asio_common::StreamDeparture> departures;
  std::string pending;  ///< produced by the session, not yet taken by the writer
  bool writing = false;
  bool closed = false;
  std::size_t tasks = 0;  ///< coroutines started and not ended (counted when spawned)
  /// Never expires: an event, cancelled to wake its waiters, who check what they wait for.
  asio::steady_timer changed;
};

/// Sends what the session produces until it has nothing more; then, once the session is over
/// (GOAWAY sent with nothing in flight, or a protocol error's GOAWAY), closes the connection.
template <typename Stream>
asio::awaitable<void> writeOutput(Http2Connection<Stream>* connection) {
  std::string sending;
  while (!connection->pending.empty() && !connection->closed) {
    sending.clear();
    sending.swap(connection->pending);
    if (co_await writeReply(connection->stream, &sending)) {
      connection->close();
      break;
    }
    connection->session.takeOutput(connection->pending);
  }
  connection->writing = false;
  if (connection->session.finished())
    connection->close();
  // Decremented here, not by a guard: a frame destroyed unfinished by a stopping loop must not
  // touch the connection, which may be gone by then.
  --connection->tasks;
  connection->notify();
}

template <typename Stream>
void Http2Connection<Stream>::flush() {
  if (closed)
    return;
  session.takeOutput(pending);
  if (writing || pending.empty())
    return;
  writing = true;
  ++tasks;
  asio::co_spawn(loop->io, writeOutput(this), asio::detached);
}

/// Answers one stream: handleRequest, as for an HTTP/1.1 request, then the reply through the
/// session, counted as answered once the writer has sent it.
template <typename Stream>
asio::awaitable<void> answerStream(Http2Connection<Stream>* connection,
                                   h2_session::StreamRequest request) {
  {
    const LiveCoroutine live(*connection->loop);
    InFlightRequest in_flight(*connection->loop);
    asio_common::StreamDeparture* departure = &connection->departures[request.stream_id];
    std::optional<sdk::Reply> reply;
    try {
      reply =
          co_await handleRequest(connection->loop, connection->host, request.method, request.target,
                                 &request.body, {nullptr, nullptr, departure}, connection->buffer);
    } catch (const std::exception& e) {
      reply = sdk::errorReply(500, std::string("request failed: ") + e.what());
    }
    if (reply) {
      connection->session.respond(request.stream_id, *reply);
      connection->departures.erase(request.stream_id);
      connection->streamsChanged();
      connection->flush();
      while (connection->writing && !connection->closed)
        (void)co_await connection->changed.async_wait(kNoThrow);
      in_flight.answered();
    } else {
      connection->departures.erase(request.stream_id);
      connection->streamsChanged();
      connection->flush();  // a GOAWAY, when draining
    }
  }
  --connection->tasks;  // as in writeOutput
  connection->notify();
}

template <typename Stream>
void Http2Connection<Stream>::startStream(h2_session::StreamRequest request) {
  departures[request.stream_id];  // before the answer starts, so a reset in between is seen
  registration->setIdle(false);
  ++tasks;
  asio::co_spawn(loop->io, answerStream(this, std::move(request)), asio::detached);
}

template <typename Stream>
asio::awaitable<void> serveStreams(asio_common::EventLoop* loop, const sdk::Host* host,
                                   Stream* stream, beast::flat_buffer* buffer,
                                   ConnectionRegistration* registration) {
  Http2Connection<Stream> connection(loop, host, stream, buffer, registration);
  beast::tcp_stream& tcp = beast::get_lowest_layer(*stream);
  bool protocol_kept = true;
  // What was read before the protocol was known (h2c's preface) goes first.
  if (buffer->size() > 0) {
    protocol_kept = connection.session.receive(
        {static_cast<const char*>(buffer->data().data()), buffer->size()});
    buffer->consume(buffer->size());
  }
  connection.streamsChanged();
  connection.flush();  // the server's SETTINGS, first
  while (protocol_kept && !connection.closed && !connection.session.finished()) {
    // An idle connection waits for its next stream as long as an idle HTTP/1.1 one does.
    if (connection.departures.empty()) {
      tcp.expires_after(sdk::kIoTimeout);
    } else {
      tcp.expires_after(kBusyReadTimeout);
    }
    auto [error, bytes] = co_await stream->async_read_some(buffer->prepare(16384), kNoThrow);
    if (error)
      break;
    buffer->commit(bytes);
    protocol_kept = connection.session.receive(
        {static_cast<const char*>(buffer->data().data()), buffer->size()});
    buffer->consume(buffer->size());
    connection.streamsChanged();
    connection.flush();
  }
  // The client is gone, or the session is over: streams still waiting end their waits, and a
  // last GOAWAY goes out before the connection closes.
  connection.session.endConnection();
  connection.flush();
  while (connection.writing && !connection.closed)
    (void)co_await connection.changed.async_wait(kNoThrow);
  connection.close();
  while (connection.tasks > 0)
    (void)co_await connection.changed.async_wait(kNoThrow);
}

}  // namespace

asio::awaitable<void> serveHttp2(asio_common::EventLoop* loop, const sdk::Host* host,
                                 beast::tcp_stream* stream, beast::flat_buffer* buffer,
                                 ConnectionRegistration* registration) {
  co_await serveStreams(loop, host, stream, buffer, registration);
}

asio::awaitable<void> serveHttp2(asio_common::EventLoop* loop, const sdk::Host* host,
                                 asio_common::TlsStream* stream, beast::flat_buffer* buffer,
                                 ConnectionRegistration* registration) {
  co_await serveStreams(loop, host, stream, buffer, registration);
}

}  // namespace benchd::coroutines_asio
