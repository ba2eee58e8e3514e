#pragma once

#include <benchd/sdk/thread_pool_settings.hpp>

#include <boost/asio/ip/tcp.hpp>

#include <pthread.h>

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <unordered_set>
#include <variant>
#include <vector>

namespace benchd::threads_asio {

/// What a pool reports (the stats counters pool_threads_*, connections_queued and _refused).
struct PoolCounters {
  std::int64_t busy = 0;       ///< threads serving a connection
  std::int64_t allocated = 0;  ///< threads alive, busy or idle
  std::int64_t queued = 0;     ///< accepted connections no thread has taken yet
  std::int64_t refused = 0;    ///< connections closed because the pool and its queue were full
};

/// A bounded pool of OS threads, one per open connection: a connection is served start to end
/// by one thread, which blocks while it waits. Starts `min_threads` threads up front, grows one
/// thread per connection no idle thread takes, up to `max_threads`, then queues up to
/// `max_queued` connections and refuses (closes) the rest. A thread idle for `idle_timeout`
/// ends while more than `min_threads` are alive (as Poco's pool does). Threads get
/// `stack_kib` KiB of stack.
///
/// It also runs tasks (an HTTP/2 stream's request, tryRun()) on the same threads, under the same
/// max_threads, but never queues one: a task needs a thread now, or its caller runs it.
///
/// Thread-safety: dispatch() from the accepting thread, tryRun() from any pool thread,
/// counters() from any thread, stopAndJoin() from the host thread after every connection's wait
/// was ended (the server's stop signal); `serve` and the tasks run on the pool threads. A task
/// taken by tryRun() always runs, the stop included.
class ConnectionThreadPool {
 public:
  using Serve = std::function<void(boost::asio::ip::tcp::socket)>;

  ConnectionThreadPool(const sdk::ThreadPoolSettings& settings,
                       std::chrono::milliseconds idle_timeout, Serve serve);
  ~ConnectionThreadPool();
  ConnectionThreadPool(const ConnectionThreadPool&) = delete;
  ConnectionThreadPool& operator=(const ConnectionThreadPool&) = delete;

  /// Starts the min_threads threads. Throws sdk::PluginError when not even one can start.
  void start();
  /// Hands `socket` to an idle thread, a new thread or the queue, in that order. False when it
  /// was refused (pool and queue full, or stopping): the socket is then closed.
  bool dispatch(boost::asio::ip::tcp::socket socket);
  /// Hands `task` to an idle thread or a new one; false when there is none (max_threads are
  /// busy, or the pool stops), and `task` was not taken.
  bool tryRun(std::function<void()> task);
  /// Closes the queued connections, ends the idle threads and joins every thread (after they
  /// ran the tasks they took). The busy ones
  /// must be on their way out (ServerSignals::signalStop()). Idempotent.
  void stopAndJoin();

  [[nodiscard]] PoolCounters counters() const;

 private:
  static void* threadMain(void* pool);
  void serveUntilStopped();
  /// Queued connections beyond what the threads not busy will take: negative when a thread is
  /// free for one more. A thread started but not yet waiting counts as free, so a burst at
  /// start does not overshoot. Called with mutex_ held.
  [[nodiscard]] std::int64_t waitingLocked() const;
  /// Starts one more thread; false when the system refuses. Called with mutex_ held.
  bool spawnLocked();
  /// Joins `threads` (ended, or ending). Without the lock held.
  static void joinThreads(const std::vector<pthread_t>& threads);

  const int min_threads_;
  const int max_threads_;
  const std::size_t max_queued_;
  const std::size_t stack_bytes_;
  const std::chrono::milliseconds idle_timeout_;
  const Serve serve_;

  mutable std::mutex mutex_;
  std::condition_variable work_;
  /// Connections waiting for a thread, and tasks a thread was promised to.
  std::deque<std::variant<boost::asio::ip::tcp::socket, std::function<void()>>> queue_;
  std::unordered_set<pthread_t> live_;
  std::vector<pthread_t> retired_;  // ended idle, not joined yet
  int allocated_ = 0;
  int busy_ = 0;
  std::int64_t refused_ = 0;
  bool stopping_ = false;
};

}  // namespace benchd::threads_asio
