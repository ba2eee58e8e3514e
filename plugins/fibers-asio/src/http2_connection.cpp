#include "http2_connection.hpp"

#include "reply_write.hpp"
#include "request_handler.hpp"

#include <benchd/asio_common/client_watch.hpp>
#include <benchd/fiber_scheduler_asio/fiber_stack.hpp>
#include <benchd/fiber_scheduler_asio/use_fiber.hpp>
#include <benchd/h2_session/server_session.hpp>
#include <benchd/sdk/limits.hpp>

#include <boost/fiber/condition_variable.hpp>
#include <boost/fiber/fiber.hpp>
#include <boost/fiber/mutex.hpp>

#include <chrono>
#include <exception>
#include <mutex>
#include <string>
#include <unordered_map>

namespace benchd::fibers_asio {

namespace beast = boost::beast;
using asio_common::ConnectionRegistration;
using asio_common::InFlightRequest;
using fiber_scheduler_asio::use_fiber;

namespace {

/// How long a read waits while streams are in flight: their own deadlines (the delay, the
/// nested call's, the database's) bound them, not the connection's idle timeout.
constexpr std::chrono::hours kBusyReadTimeout{24};

/// One HTTP/2 connection's state, on its connection fiber's stack. The fibers it starts (the
/// stream answers, the writer) get a pointer: serveHttp2 waits for every one to end before the
/// state goes. Loop thread only; the fibers take turns, so nothing here needs a lock but the
/// condition variable's.
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
        registration(registration_),
        session({[this](h2_session::StreamRequest request) { startStream(std::move(request)); },
                 [this](std::int32_t stream_id) { streamGone(stream_id); }},
                std::string("benchd ") + kApproachName) {}

  void startStream(h2_session::StreamRequest request);
  void streamGone(std::int32_t stream_id) {
    if (const auto found = departures.find(stream_id); found != departures.end())
      found->second.depart();
  }
  /// Hands what the session has to send to the writer, starting one if none runs.
  void flush();
  /// Ends the connection: the pending read and write complete with operation_aborted.
  void close() {
    if (closed)
      return;
    closed = true;
    asio_common::closeStream(beast::get_lowest_layer(stream));
  }
  /// After a change of the streams in flight: a draining server ends the connection once they
  /// are answered (GOAWAY), and a connection without streams counts as idle.
  void streamsChanged() {
    if (loop.group.draining())
      session.goAway();
    registration.setIdle(departures.empty());
  }
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
    boost::fibers::fiber(boost::fibers::launch::post, std::allocator_arg,
                         fiber_scheduler_asio::connectionFiberStack(fiber_loop.fiberStackBytes()),
                         body, this, std::move(arguments)...)
        .detach();
  }

  asio_common::EventLoop& loop;
  FiberLoop& fiber_loop;
  const sdk::Host& host;
  Stream& stream;
  beast::flat_buffer& buffer;
  ConnectionRegistration& registration;
  h2_session::ServerSession session;
  /// The streams whose requests are being answered, by stream id.
  std::unordered_map<std::int32_t, asio_common::StreamDeparture> departures;
  std::string pending;  ///< produced by the session, not yet taken by the writer
  bool writing = false;
  bool closed = false;
  std::size_t tasks = 0;  ///< fibers started and not ended (counted when spawned)
  boost::fibers::mutex mutex;
  boost::fibers::condition_variable changed;
};

/// The writer fiber: sends what the session produces until it has nothing more; then, once the
/// session is over (GOAWAY sent with nothing in flight, or a protocol error's GOAWAY), closes.
template <typename Stream>
void writeOutput(Http2Connection<Stream>* connection) {
  const LiveFiber live(connection->fiber_loop, connection->loop);
  std::string sending;
  while (!connection->pending.empty() && !connection->closed) {
    sending.clear();
    sending.swap(connection->pending);
    if (writeReply(connection->stream, sending)) {
      connection->close();
      break;
    }
    connection->session.takeOutput(connection->pending);
  }
  connection->writing = false;
  if (connection->session.finished())
    connection->close();
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
  spawn(&writeOutput<Stream>);
}

/// A stream's fiber: handleRequest, as for an HTTP/1.1 request, then the reply through the
/// session, counted as answered once the writer has sent it.
template <typename Stream>
void answerStream(Http2Connection<Stream>* connection, h2_session::StreamRequest request) {
  {
    const LiveFiber live(connection->fiber_loop, connection->loop);
    InFlightRequest in_flight(connection->loop);
    asio_common::StreamDeparture* departure = &connection->departures[request.stream_id];
    std::optional<sdk::Reply> reply;
    try {
      reply = handleRequest(connection->loop, connection->host, request.method, request.target,
                            request.body, {nullptr, nullptr, departure}, connection->buffer);
    } catch (const std::exception& e) {
      reply = sdk::errorReply(500, std::string("request failed: ") + e.what());
    }
    if (reply)
      connection->session.respond(request.stream_id, *reply);
    connection->departures.erase(request.stream_id);
    connection->streamsChanged();
    connection->flush();  // the reply, or a GOAWAY when draining
    if (reply) {
      connection->waitUntil([connection] { return !connection->writing || connection->closed; });
      in_flight.answered();
    }
  }
  --connection->tasks;
  connection->notify();
}

template <typename Stream>
void Http2Connection<Stream>::startStream(h2_session::StreamRequest request) {
  departures[request.stream_id];  // before the answer starts, so a reset in between is seen
  registration.setIdle(false);
  spawn(&answerStream<Stream>, std::move(request));
}

template <typename Stream>
void serveStreams(asio_common::EventLoop& loop, FiberLoop& fiber_loop, const sdk::Host& host,
                  Stream& stream, beast::flat_buffer& buffer,
                  ConnectionRegistration& registration) {
  Http2Connection<Stream> connection(loop, fiber_loop, host, stream, buffer, registration);
  beast::tcp_stream& tcp = beast::get_lowest_layer(stream);
  bool protocol_kept = true;
  // What was read before the protocol was known (h2c's preface) goes first.
  if (buffer.size() > 0) {
    protocol_kept =
        connection.session.receive({static_cast<const char*>(buffer.data().data()), buffer.size()});
    buffer.consume(buffer.size());
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
    auto [error, bytes] = stream.async_read_some(buffer.prepare(16384), use_fiber);
    if (error)
      break;
    buffer.commit(bytes);
    protocol_kept =
        connection.session.receive({static_cast<const char*>(buffer.data().data()), buffer.size()});
    buffer.consume(buffer.size());
    connection.streamsChanged();
    connection.flush();
  }
  // The client is gone, or the session is over: streams still waiting end their waits, and a
  // last GOAWAY goes out before the connection closes.
  connection.session.endConnection();
  connection.flush();
  connection.waitUntil([&connection] { return !connection.writing || connection.closed; });
  connection.close();
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
