#pragma once
// Header-only plugin SDK: the database pool of the thread-per-connection plugins (threads-asio,
// threads-poco). A request's thread blocks: first on a condition variable until a session is
// free, then in poll() on the session's socket, as a JDBC client blocks its thread in the
// original study. Both waits end at the request's database deadline.

#include <benchd/sdk/database.hpp>
#include <benchd/sdk/database_session_stock.hpp>

#include <poll.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <string_view>

namespace benchd::sdk {

class BlockingDatabasePool {
 public:
  using Clock = std::chrono::steady_clock;

  /// `api` is the host's table (hostHasDatabase(api) must hold); the pool opens up to its
  /// db_pool_size() sessions, when requests first need them.
  BlockingDatabasePool(const benchd_host_api* api, std::chrono::milliseconds deadline)
      : deadline_(deadline), stock_(api) {}
  BlockingDatabasePool(const BlockingDatabasePool&) = delete;
  BlockingDatabasePool& operator=(const BlockingDatabasePool&) = delete;

  /// Runs `request`'s database operation on the calling thread and returns its reply. Blocks
  /// the thread until then, at most the database deadline. Thread-safe.
  [[nodiscard]] Reply run(const ServiceRequest& request, std::string_view body) {
    const Clock::time_point deadline = Clock::now() + deadline_;
    DatabaseSession session = acquire(deadline);
    if (!session.isOpen()) {
      counters_.timedOut();
      return databaseDeadlineReply(stopping_.load()
                                       ? "the server stopped before a connection was free"
                                       : "no database connection was free",
                                   deadline_);
    }
    Reply reply = drive(session, request, body, deadline);
    release(std::move(session));
    return reply;
  }

  /// Ends every wait for a session at once (the server stops); later runs fail at once too.
  void stop() {
    {
      const std::lock_guard lock(mutex_);
      stopping_ = true;
    }
    freed_.notify_all();
  }

  /// db_pool_waits, db_pool_wait_micros, db_pool_timeouts.
  void reportCounters(benchd_counter_sink sink, void* sink_context) const {
    counters_.report(sink, sink_context);
  }

 private:
  DatabaseSession acquire(Clock::time_point deadline) {
    std::unique_lock lock(mutex_);
    if (DatabaseSession session = stock_.take(lock); session.isOpen())
      return session;
    const Clock::time_point started = Clock::now();
    freed_.wait_until(lock, deadline, [this] { return stopping_ || stock_.hasIdle(); });
    counters_.waited(Clock::now() - started);
    if (stopping_)
      return {};
    return stock_.takeIdle();
  }

  void release(DatabaseSession session) {
    {
      const std::lock_guard lock(mutex_);
      stock_.putBack(std::move(session));
    }
    freed_.notify_one();
  }

  Reply drive(DatabaseSession& session, const ServiceRequest& request, std::string_view body,
              Clock::time_point deadline) {
    DatabaseSession::Progress progress = session.begin(request, body);
    for (;;) {
      if (Reply* reply = std::get_if<Reply>(&progress))
        return std::move(*reply);
      const benchd_db_step& step = std::get<benchd_db_step>(progress);
      if (step.wait == BENCHD_DB_DONE)
        return session.finish();
      if (!waitForSocket(step, deadline)) {
        session.abandon();
        counters_.timedOut();
        return databaseDeadlineReply("the database did not answer", deadline_);
      }
      progress = session.resume();
    }
  }

  /// Blocks in poll() until the step's socket is ready or `deadline` passes (false).
  static bool waitForSocket(const benchd_db_step& step, Clock::time_point deadline) {
    pollfd descriptor{};
    descriptor.fd = step.socket;
    descriptor.events = step.wait == BENCHD_DB_WRITABLE ? POLLOUT : POLLIN;
    for (;;) {
      const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now());
      if (left.count() <= 0)
        return false;
      const int ready = ::poll(&descriptor, 1, static_cast<int>(left.count()));
      if (ready > 0)
        return true;  // readable, writable, or an error libpq will read
      if (ready < 0 && errno != EINTR)
        return true;  // let libpq report what is wrong with the socket
    }
  }

  const std::chrono::milliseconds deadline_;
  std::mutex mutex_;
  std::condition_variable freed_;
  DatabaseSessionStock stock_;         // guarded by mutex_
  std::atomic<bool> stopping_{false};  // set under mutex_, so a waiter cannot miss it
  DatabaseWaitCounters counters_;
};

}  // namespace benchd::sdk
