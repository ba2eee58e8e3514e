#include "http2_connection.hpp"

#include "reply_write.hpp"
#include "request_handler.hpp"

#include <benchd/asio_common/http2_exchange.hpp>
#include <benchd/fiber_scheduler_asio/fiber_stack.hpp>
#include <benchd/fiber_scheduler_asio/use_fiber.hpp>
#include <benchd/sdk/limits.hpp>

#include <boost/fiber/condition_variable.hpp>
#include <boost/fiber/fiber.hpp>
#include <boost/fiber/mutex.hpp>

#include <exception>
#include <memory>
#include <mutex>
#include <string>

namespace benchd::fibers_asio {

namespace beast = boost::beast;
using asio_common::ConnectionRegistration;
using asio_common::InFlightRequest;
using fiber_scheduler_asio::use_fiber;

namespace {

/// One HTTP/2 connection's state, on its connection fiber's stack: the model-independent
/// exchange and how this model waits. The fibers it starts (the stream answers, the writer) get
/// a pointer: serveHttp2 waits for every one to end before the state goes. Loop thread only;
/// the fibers take turns, so nothing here needs a lock but the condition variable's.
template <typename Stream>
struct Http2Connection {
  Http2Connection(asio_common::EventLoop& loop_, FiberLoop& fiber_loop_, const sdk::Host& host_,
                  Stream& stream_, beast::flat_buffer& buffer_,
                  ConnectionRegistration& registration_)
      : loop(loop_),
        fiber_loop(fiber_loop_),
        host(host_),
        stream(stream_),
        buffer(buffer_),
        exchange(loop_, [&registration_](bool idle) { registration_.setIdle(idle); },
                 beast::get_lowest_layer(stream_), std::string("benchd ") + kApproachName,
                 {[this](h2_session::StreamRequest request) { startStream(std::move(request)); },
                  [this] { startWriter(); }}) {}

  void startStream(h2_session::StreamRequest request);
  void startWriter();
  /// Suspends the calling fiber until `done()` holds, checked after every notify().
  template <typename Predicate>
  void waitUntil(Predicate done) {
    std::unique_lock lock(mutex);
    changed.wait(lock, done);
  }
  void notify() { changed.notify_all(); }
  /// Starts `body(this, arguments...)` as a fiber of this loop, counted in `tasks`.
  template <typename... Arguments>
  void spawn(void (*body)(Http2Connection*, Arguments...), Arguments... arguments) {
    ++tasks;
    boost::fibers::fiber(boost::fibers::launch::post, std::allocator_arg, fiber_loop.fiberStack(),
                         body, this, std::move(arguments)...)
        .detach();
  }

  asio_common::EventLoop& loop;
  FiberLoop& fiber_loop;
  const sdk::Host& host;
  Stream& stream;
  beast::flat_buffer& buffer;
  asio_common::Http2Exchange exchange;
  std::size_t tasks = 0;  ///< fibers started and not ended (counted when spawned)
  boost::fibers::mutex mutex;
  boost::fibers::condition_variable changed;
};

/// The writer fiber: sends the exchange's output until it has none.
template <typename Stream>
void writeOutput(Http2Connection<Stream>* connection) {
  {
    const LiveFiber live(connection->fiber_loop, connection->loop);
    std::string sending;
    while (connection->exchange.nextOutput(sending)) {
      if (writeReply(connection->stream, sending))
        connection->exchange.close();
    }
  }
  --connection->tasks;
  connection->notify();
}

template <typename Stream>
void Http2Connection<Stream>::startWriter() {
  spawn(&writeOutput<Stream>);
}

/// A stream's fiber: handleRequest, as for an HTTP/1.1 request, then the reply through the
/// exchange, which counts it answered once the writer has sent it.
template <typename Stream>
void answerStream(Http2Connection<Stream>* connection, h2_session::StreamRequest request) {
  {
    const LiveFiber live(connection->fiber_loop, connection->loop);
    auto in_flight = std::make_unique<InFlightRequest>(connection->loop);
    std::optional<sdk::Reply> reply;
    try {
      reply = handleRequest(connection->loop, connection->host, request.method, request.target,
                            request.body,
                            {nullptr, nullptr, connection->exchange.departureOf(request.stream_id)},
                            connection->buffer);
    } catch (const std::exception& e) {
      reply = sdk::errorReply(500, std::string("request failed: ") + e.what());
    }
    connection->exchange.finishStream(request.stream_id, reply, std::move(in_flight));
  }
  --connection->tasks;
  connection->notify();
}

template <typename Stream>
void Http2Connection<Stream>::startStream(h2_session::StreamRequest request) {
  spawn(&answerStream<Stream>, std::move(request));
}

template <typename Stream>
void serveStreams(asio_common::EventLoop& loop, FiberLoop& fiber_loop, const sdk::Host& host,
                  Stream& stream, beast::flat_buffer& buffer,
                  ConnectionRegistration& registration) {
  Http2Connection<Stream> connection(loop, fiber_loop, host, stream, buffer, registration);
  beast::tcp_stream& tcp = beast::get_lowest_layer(stream);
  // What was read before the protocol was known (h2c's preface) goes first.
  bool protocol_kept =
      connection.exchange.receive({static_cast<const char*>(buffer.data().data()), buffer.size()});
  buffer.consume(buffer.size());
  while (protocol_kept && connection.exchange.reading()) {
    tcp.expires_after(connection.exchange.readTimeout());
    auto [error, bytes] = stream.async_read_some(buffer.prepare(buffer.max_size()), use_fiber);
    if (error)
      break;
    buffer.commit(bytes);
    protocol_kept = connection.exchange.receive(
        {static_cast<const char*>(buffer.data().data()), buffer.size()});
    buffer.consume(buffer.size());
  }
  // The client is gone, or the session is over: streams still waiting end their waits, and a
  // last GOAWAY goes out before the connection closes.
  connection.exchange.endReading();
  connection.waitUntil(
      [&connection] { return !connection.exchange.writing() || connection.exchange.closed(); });
  connection.exchange.close();
  connection.waitUntil([&connection] { return connection.tasks == 0; });
}

}  // namespace

void serveHttp2(asio_common::EventLoop& loop, FiberLoop& fiber_loop, const sdk::Host& host,
                beast::tcp_stream& stream, beast::flat_buffer& buffer,
                ConnectionRegistration& registration) {
  serveStreams(loop, fiber_loop, host, stream, buffer, registration);
}

void serveHttp2(asio_common::EventLoop& loop, FiberLoop& fiber_loop, const sdk::Host& host,
                asio_common::TlsStream& stream, beast::flat_buffer& buffer,
                ConnectionRegistration& registration) {
  serveStreams(loop, fiber_loop, host, stream, buffer, registration);
}

}  // namespace benchd::fibers_asio
