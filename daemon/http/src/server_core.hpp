#pragma once
// What every connection of one HttpServer shares: its event loops, its options and routes, its
// counters and, under TLS, its TLS context. Private to the server's translation units.

#include "stream_state.hpp"

#include <benchd/http/request.hpp>
#include <benchd/http/response.hpp>
#include <benchd/http/router.hpp>
#include <benchd/http/server.hpp>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ssl/context.hpp>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <unordered_set>
#include <vector>

namespace benchd::http::detail {

/// What a loop knows of its connections, whatever stream each one runs on.
class LoopSession {
 public:
  virtual ~LoopSession() = default;
  /// The server is stopping: close if idle, finish the current exchange otherwise. On the
  /// session's loop thread.
  virtual void shutdown() = 0;
};

/// One event-loop thread with its io_context. Connections live on exactly one loop, so their
/// state needs no locks.
struct Loop {
  /// Live sessions of this loop (loop thread only, or any thread after the loop has ended).
  /// Declared before `io` so it outlives the handlers `io` destroys.
  std::unordered_set<LoopSession*> sessions;
  boost::asio::io_context io{1};
  std::optional<boost::asio::executor_work_guard<boost::asio::io_context::executor_type>> work;
  std::thread thread;
};

/// State shared by every session of a server; outlives them all.
struct Core {
  /// Throws std::invalid_argument naming the file when options.tls's files cannot be used.
  Core(Router r, ServerOptions o);

  Response dispatch(Request& request) const;
  void registerStream(const std::shared_ptr<StreamState>& state);
  /// After the loops have ended: closes every stream still alive and tells the application.
  void sweepStreams();

  const Router router;
  const ServerOptions options;
  /// Under ServerOptions::tls: the server's certificate and key, TLS 1.2 at least. Read-only
  /// once built, so the loops share it.
  std::optional<boost::asio::ssl::context> tls;
  std::atomic<std::size_t> connections{0};
  std::atomic<std::size_t> streams{0};
  std::atomic<std::uint64_t> requests{0};
  std::atomic<bool> stopping{false};

  std::mutex live_mutex;
  std::vector<std::weak_ptr<StreamState>> live_streams;  ///< guarded by live_mutex
};

}  // namespace benchd::http::detail
