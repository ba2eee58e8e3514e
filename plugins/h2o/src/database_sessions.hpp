#pragma once

#include <benchd/plugin.h>
#include <benchd/sdk/database.hpp>
#include <benchd/sdk/database_session_stock.hpp>

#include <cstdint>
#include <deque>
#include <mutex>
#include <optional>

namespace benchd::h2o_plugin {

class EventLoop;

/// The host's database sessions (`postgres` rows), shared by the event loops: the host's pool
/// (db_pool_size) is one budget whatever the loop count, so a session freed on one loop may
/// serve a request waiting on another. Thread-safe; a session changes loops through the loop's
/// command queue (EventLoop::handOver), which orders the two threads' use of it.
class DatabaseSessions {
 public:
  explicit DatabaseSessions(const benchd_host_api* api) : stock_(api) {}

  /// An idle or a new session, or none while all are busy: `waiting` is then queued for the
  /// next one released. Throws sdk::PluginError when the host opens none, or after close().
  std::optional<sdk::DatabaseSession> acquire(EventLoop& waiting);
  /// `session` is free: the loop first in the queue gets it (returned; the session is then the
  /// caller's to hand over), else it is kept idle (null returned, `session` taken).
  EventLoop* release(sdk::DatabaseSession& session);
  /// One request of `loop` left the queue (its deadline passed, its client left).
  void leave(EventLoop& loop);
  /// Closes the idle sessions; sessions released from now on close too.
  void close();
  [[nodiscard]] std::int64_t opened() const;

 private:
  mutable std::mutex mutex_;
  sdk::DatabaseSessionStock stock_;  // guarded by mutex_
  bool closed_ = false;
  /// One entry per queued request, in arrival order.
  std::deque<EventLoop*> waiting_;
};

}  // namespace benchd::h2o_plugin
