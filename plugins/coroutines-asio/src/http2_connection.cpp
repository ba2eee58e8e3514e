#include "http2_connection.hpp"

#include "completion_token.hpp"
#include "live_task.hpp"
#include "reply_write.hpp"
#include "request_handler.hpp"

#include <benchd/asio_common/http2_exchange.hpp>
#include <benchd/sdk/limits.hpp>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/steady_timer.hpp>

#include <exception>
#include <memory>
#include <string>

namespace benchd::coroutines_asio {

namespace asio = boost::asio;
namespace beast = boost::beast;
using asio_common::ConnectionRegistration;
using asio_common::InFlightRequest;

namespace {

/// One HTTP/2 connection's state, in serveHttp2's frame: the model-independent exchange and how
/// this model waits. Its coroutines (the stream answers, the writer) get a pointer: serveHttp2
/// waits for every one to end before the state goes. Loop thread only.
template <typename Stream>
struct Http2Connection {
  Http2Connection(asio_common::EventLoop* loop_, const sdk::Host* host_, Stream* stream_,
                  beast::flat_buffer* buffer_, ConnectionRegistration* registration_)
      : loop(loop_),
        host(host_),
        stream(stream_),
        buffer(buffer_),
        exchange(*loop_, [registration_](bool idle) { registration_->setIdle(idle); },
                 beast::get_lowest_layer(*stream_), std::string("benchd ") + kApproachName,
                 {[this](h2_session::StreamRequest request) { startStream(std::move(request)); },
                  [this] { startWriter(); }}),
        changed(loop_->io, asio::steady_timer::time_point::max()) {}

  void startStream(h2_session::StreamRequest request);
  void startWriter();
  /// Wakes every coroutine waiting for a change (the writer went idle, a task ended).
  void notify() { changed.cancel(); }

  asio_common::EventLoop* loop;
  const sdk::Host* host;
  Stream* stream;
  beast::flat_buffer* buffer;
  asio_common::Http2Exchange exchange;
  std::size_t tasks = 0;  ///< coroutines started and not ended (counted when spawned)
  /// Never expires: an event, cancelled to wake its waiters, who check what they wait for.
  asio::steady_timer changed;
};

/// The writer: sends the exchange's output until it has none.
template <typename Stream>
asio::awaitable<void> writeOutput(Http2Connection<Stream>* connection) {
  std::string sending;
  while (connection->exchange.nextOutput(sending)) {
    if (co_await writeReply(connection->stream, &sending))
      connection->exchange.close();
  }
  // Decremented here, not by a guard: a frame destroyed unfinished by a stopping loop must not
  // touch the connection, which may be gone by then.
  --connection->tasks;
  connection->notify();
}

template <typename Stream>
void Http2Connection<Stream>::startWriter() {
  ++tasks;
#ifndef __clang_analyzer__  // see startStream
  asio::co_spawn(loop->io, writeOutput(this), asio::detached);
#endif
}

/// Answers one stream: handleRequest, as for an HTTP/1.1 request, then the reply through the
/// exchange, which counts it answered once the writer has sent it.
template <typename Stream>
asio::awaitable<void> answerStream(Http2Connection<Stream>* connection,
                                   h2_session::StreamRequest request) {
  {
    const LiveCoroutine live(*connection->loop);
    auto in_flight = std::make_unique<InFlightRequest>(*connection->loop);
    std::optional<sdk::Reply> reply;
    try {
      reply = co_await handleRequest(
          connection->loop, connection->host, request.method, request.target, &request.body,
          {nullptr, nullptr, connection->exchange.departureOf(request.stream_id)},
          connection->buffer);
    } catch (const std::exception& e) {
      reply = sdk::errorReply(500, std::string("request failed: ") + e.what());
    }
    connection->exchange.finishStream(request.stream_id, reply, std::move(in_flight));
  }
  --connection->tasks;  // as in writeOutput
  connection->notify();
}

template <typename Stream>
void Http2Connection<Stream>::startStream(h2_session::StreamRequest request) {
  ++tasks;
  // Hidden from clang-tidy's static analyzer, which runs a coroutine defined in this file as a
  // plain call from here and then reports an uninitialised pointer inside Asio's frame code
  // (clang-analyzer-core.CallAndMessage); the compiler sees the spawn as it is.
#ifndef __clang_analyzer__
  asio::co_spawn(loop->io, answerStream(this, std::move(request)), asio::detached);
#else
  [[maybe_unused]] const h2_session::StreamRequest spawned = std::move(request);
#endif
}

template <typename Stream>
asio::awaitable<void> serveStreams(asio_common::EventLoop* loop, const sdk::Host* host,
                                   Stream* stream, beast::flat_buffer* buffer,
                                   ConnectionRegistration* registration) {
  Http2Connection<Stream> connection(loop, host, stream, buffer, registration);
  beast::tcp_stream& tcp = beast::get_lowest_layer(*stream);
  // What was read before the protocol was known (h2c's preface) goes first.
  bool protocol_kept = connection.exchange.receive(
      {static_cast<const char*>(buffer->data().data()), buffer->size()});
  buffer->consume(buffer->size());
  while (protocol_kept && connection.exchange.reading()) {
    tcp.expires_after(connection.exchange.readTimeout());
    auto [error, bytes] =
        co_await stream->async_read_some(buffer->prepare(buffer->max_size()), kNoThrow);
    if (error)
      break;
    buffer->commit(bytes);
    protocol_kept = connection.exchange.receive(
        {static_cast<const char*>(buffer->data().data()), buffer->size()});
    buffer->consume(buffer->size());
  }
  // The client is gone, or the session is over: streams still waiting end their waits, and a
  // last GOAWAY goes out before the connection closes.
  connection.exchange.endReading();
  while (connection.exchange.writing() && !connection.exchange.closed())
    (void)co_await connection.changed.async_wait(kNoThrow);
  connection.exchange.close();
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
