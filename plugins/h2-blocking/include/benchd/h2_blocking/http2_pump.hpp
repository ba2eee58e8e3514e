#pragma once
// An HTTP/2 connection served by the threads of a thread-per-connection plugin: the connection's
// pool thread pumps the session, and every stream's request runs on a pool thread of its own.

#include <benchd/h2_session/server_session.hpp>
#include <benchd/sdk/limits.hpp>
#include <benchd/sdk/service_request.hpp>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace benchd::h2_blocking {

/// What ConnectionIo::readOrWake() saw.
struct ReadOutcome {
  enum class Kind {
    kInput,     ///< `bytes` bytes were read
    kEnded,     ///< the peer ended the connection, or it failed (or the stop ended the read)
    kWoken,     ///< one of the wake descriptors turned readable first
    kTimedOut,  ///< the timeout passed first
  };
  Kind kind = Kind::kEnded;
  std::size_t bytes = 0;
};

/// A connection's bytes, in clear or over TLS, as the pump reads and writes them. Every call
/// comes from the pump's thread and blocks it.
class ConnectionIo {
 public:
  virtual ~ConnectionIo() = default;
  /// Reads what the peer sent into `buffer` (at once when input waits inside the connection's
  /// own layers, such as TLS's, where poll() on the descriptor cannot see it), or waits for it
  /// until one of `wake_fds` (-1 entries are ignored) turns readable or `timeout` passes (a
  /// negative timeout: none). A read that began (a TLS record cut short) may take the plugin's
  /// timeout per read to finish.
  virtual ReadOutcome readOrWake(char* buffer, std::size_t size, std::span<const int> wake_fds,
                                 std::chrono::milliseconds timeout) = 0;
  /// Writes all of `bytes`; false when the connection failed or took too long.
  virtual bool writeAll(std::string_view bytes) = 0;
};

/// Where a stream's request runs: a thread of the plugin's pool.
class StreamRunner {
 public:
  virtual ~StreamRunner() = default;
  /// Runs `task` on an idle pool thread or a new one; false when the pool has none to give now
  /// (at its max_threads), and the pump then runs the task on its own thread, so the
  /// connection's streams wait on each other until threads free up.
  virtual bool tryRun(std::function<void()> task) = 0;
};

/// Serves one stream's request in blocking style on the calling thread, as an HTTP/1.1 request:
/// `gone_fd` turns POLLRDHUP (and POLLHUP) once the client has reset the stream or the
/// connection ended, so a wait that watches it as the client's descriptor ends then. Returns
/// nothing when the wait ended so (nobody to answer), or when the plugin's stop gave it up.
using ServeStream =
    std::function<std::optional<sdk::Reply>(const h2_session::StreamRequest& request, int gone_fd)>;

/// The plugin's moments and counters the pump shares.
struct PumpContext {
  /// Readable once the drain begins (every idle connection then sends GOAWAY and closes, the
  /// others after their streams in flight); -1 when the plugin has none.
  int drain_fd = -1;
  /// Readable once the stop gives up: the connection ends at once; -1 when the plugin instead
  /// shuts the connection's descriptor down.
  int stop_fd = -1;
  /// The plugin's counters: a stream counts as in flight from its request until the write that
  /// carries its reply, so a stop that waits for none in flight does not cut a reply off.
  std::atomic<std::int64_t>* requests_in_flight = nullptr;
  std::atomic<std::int64_t>* requests_served = nullptr;
  /// The `server` field of every reply.
  std::string server_name;
  /// How long a connection without streams may wait for its next bytes (the contract's idle
  /// timeout, as for an idle HTTP/1.1 keep-alive connection); then it sends GOAWAY and closes.
  std::chrono::milliseconds idle_timeout{sdk::kIoTimeout};
};

/// Serves an HTTP/2 connection on the calling thread (the connection's pool thread) until it
/// ends: feeds the session `received` (bytes already read, from the client preface on, or
/// none) and then what `io` reads, writes what the session sends, hands each stream's request
/// to `runner` with `serve`, and answers the streams as their replies come back. Returns once
/// the connection is over and every stream's task has ended. Never throws for the
/// connection's failures.
void serveHttp2(ConnectionIo& io, std::string_view received, const ServeStream& serve,
                StreamRunner& runner, const PumpContext& context);

}  // namespace benchd::h2_blocking
