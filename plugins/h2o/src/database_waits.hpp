#pragma once

#include "database_sessions.hpp"

#include <benchd/sdk/database.hpp>

#include <deque>
#include <optional>

namespace benchd::h2o_plugin {

class EventLoop;
class WaitingRequest;

/// One event loop's requests waiting for a database session, in arrival order, and the loop's
/// side of the shared DatabaseSessions. Loop thread only.
class DatabaseWaits {
 public:
  DatabaseWaits(EventLoop& loop, DatabaseSessions& sessions) : loop_(loop), sessions_(sessions) {}

  /// A session for `request` now, or none: then `request` is queued and gets one later through
  /// WaitingRequest::runDatabase(). Throws sdk::PluginError when the host opens none.
  std::optional<sdk::DatabaseSession> acquire(WaitingRequest& request);
  /// A session is free again: the request first in the shared queue gets it, on this loop or
  /// handed over to its own.
  void release(sdk::DatabaseSession session);
  /// A session handed over by another loop (or this one) for a request queued here.
  void takeOver(sdk::DatabaseSession session);
  /// `request` leaves the queue (its deadline passed, its client left).
  void leaveQueue(WaitingRequest& request);
  /// The loop closes: acquire() refuses from now on, so that no session is promised to a loop
  /// that may be gone before it arrives.
  void close() noexcept { closed_ = true; }

 private:
  EventLoop& loop_;
  DatabaseSessions& sessions_;
  std::deque<WaitingRequest*> queue_;
  bool closed_ = false;
};

}  // namespace benchd::h2o_plugin
