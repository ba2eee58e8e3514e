#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>

namespace benchd::http {

/// Server-Sent Events (WHATWG HTML §9.2 "Server-sent events").
///
/// A handler opens a stream by returning Response::eventStream(callbacks). The server then
/// sends `200` with `Content-Type: text/event-stream` (chunked, `Cache-Control: no-cache`),
/// hands the application an EventSink through `on_open`, and writes whatever is pushed, in push
/// order, plus a `: keep-alive` comment every heartbeat interval. A stream is the last response
/// on its connection: when it ends the connection closes.

/// One event. `id` and `event` must not contain CR, LF or NUL (encodeEvent() throws
/// std::invalid_argument otherwise); `data` may contain any text, including newlines (each
/// line becomes its own `data:` line and the client joins them back with '\n').
struct Event {
  std::string id;     ///< empty: no `id:` line (the client keeps its last event id)
  std::string event;  ///< empty: no `event:` line (the client dispatches a "message")
  std::string data;   ///< an empty data field still produces one `data:` line
  std::optional<std::chrono::milliseconds> retry;  ///< reconnection delay hint for the client
};

/// The wire form of `event`, ending with the blank line that dispatches it. Line breaks in
/// `data` (CRLF, CR or LF) split it into several `data:` lines. Pure and thread-safe.
[[nodiscard]] std::string encodeEvent(const Event& event);

/// Why a stream ended; reported exactly once through EventStreamCallbacks::on_close.
enum class StreamEnd {
  ClientLeft = 1,       ///< the client closed the connection (or it broke)
  ClientTooSlow,        ///< the per-stream queue bound was hit: the client was cut off
  ClosedByApplication,  ///< EventSink::close() was called
  ServerStopping,       ///< HttpServer::stop() (or its destructor) ended the stream
};

/// A short lower-case name for logs, e.g. "client left".
[[nodiscard]] const char* describe(StreamEnd end) noexcept;

namespace detail {
class StreamState;
}

/// The application's handle on one open stream. Cheap to copy (copies share the stream).
///
/// Thread-safety: every member may be called from any thread, concurrently. push() never
/// blocks on the network: it encodes the event, appends it to the stream's bounded queue and
/// returns; a server thread writes it out. Events from one thread arrive in the order pushed;
/// pushes from several threads are serialised in some order.
///
/// A default-constructed sink is detached: push() returns false.
class EventSink {
 public:
  EventSink() = default;

  /// Queues an event. Returns false, and drops the event, when the stream has ended (client
  /// left, server stopping, closed) or when this event would exceed the stream's queue bound:
  /// the client is then too slow, the stream ends with StreamEnd::ClientTooSlow and the
  /// connection is closed. Pushing to an ended stream is harmless. Throws
  /// std::invalid_argument for an id or event name with CR, LF or NUL.
  bool push(const Event& event);
  /// Queues a comment line (`: text`), e.g. for padding; same rules as push().
  bool comment(const std::string& text);
  /// Ends the stream gracefully: events already queued are still written, then the chunked
  /// body is terminated and the connection closed. Idempotent.
  void close();
  /// False once the stream has ended or is ending (a hint: it may end right after the call).
  [[nodiscard]] bool isOpen() const;

 private:
  friend class detail::StreamState;
  explicit EventSink(std::shared_ptr<detail::StreamState> state) : state_(std::move(state)) {}
  std::shared_ptr<detail::StreamState> state_;
};

/// What a handler provides to open a stream.
struct EventStreamCallbacks {
  /// Called once, on a server thread, right after the stream was accepted (the response
  /// headers are queued ahead of any event). Subscribe here; keep the sink as long as needed.
  /// Must not block (it delays the other connections of that server thread).
  std::function<void(EventSink)> on_open;
  /// Called exactly once when a stream that was opened ends, on a server thread or on the
  /// thread calling HttpServer::stop(). Always after on_open has returned. Unsubscribe here.
  /// Must not block; calling the sink from it is allowed (push returns false).
  /// Neither callback is called when the stream is refused (503, stream limit reached).
  std::function<void(StreamEnd)> on_close;
};

}  // namespace benchd::http
