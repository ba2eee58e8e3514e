#pragma once

#include "server_state.hpp"

#include <benchd/sdk/database.hpp>

#include <cstdint>
#include <deque>
#include <optional>
#include <vector>

namespace benchd::h2o_plugin {

class WaitingRequest;

/// One event loop's share of the host's database sessions (`postgres` rows): the idle ones, and
/// the requests queued for one while all are busy. The host's pool (db_pool_size) is split
/// between the loops, at least one session each. Loop thread only.
class DatabaseWaits {
 public:
  DatabaseWaits(ServerState& state, unsigned loops) : state_(state), loops_(loops) {}

  /// A session for `request` now, or none: then `request` is queued and gets one later through
  /// WaitingRequest::runDatabase(). Throws sdk::PluginError when the host opens none.
  std::optional<sdk::DatabaseSession> acquire(WaitingRequest& request);
  /// A session is free again: the first queued request gets it, else it waits idle.
  void release(sdk::DatabaseSession session);
  /// `request` leaves the queue (its deadline passed, its client left).
  void leaveQueue(WaitingRequest& request);
  /// Closes the idle sessions and refuses to hand out more (the server closes).
  void close();

 private:
  ServerState& state_;
  unsigned loops_;
  std::int64_t capacity_ = 0;
  std::int64_t opened_ = 0;
  bool closed_ = false;
  std::vector<sdk::DatabaseSession> idle_;
  std::deque<WaitingRequest*> queue_;
};

}  // namespace benchd::h2o_plugin
