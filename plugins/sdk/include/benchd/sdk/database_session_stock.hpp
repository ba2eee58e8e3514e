#pragma once
// Header-only plugin SDK: the sessions a plugin's database pool holds, whatever its model
// waits with. One budget, the host's db_pool_size(): a session is taken idle when one is,
// opened while fewer than the budget are open, and otherwise the caller queues the request its
// own way (a condition variable, a completion queue, a loop's command).

#include <benchd/plugin.h>
#include <benchd/sdk/database.hpp>

#include <cstdint>
#include <utility>
#include <vector>

namespace benchd::sdk {

/// Not thread-safe: its owner guards it (a mutex, or a single thread). Sessions move out and
/// back in; the stock counts every session open, idle or in use.
class DatabaseSessionStock {
 public:
  /// `api` is the host's table (hostHasDatabase(api) must hold before the first take).
  explicit DatabaseSessionStock(const benchd_host_api* api) : api_(api) {}

  /// An idle session, else a new one while fewer than db_pool_size() are open, else a closed
  /// session: all are in use. Throws PluginError when the host opens none; nothing is counted
  /// then. Opens the session under whatever the owner holds.
  [[nodiscard]] DatabaseSession take() {
    NoLock none;
    return take(none);
  }

  /// As take(), but releases `lock` (held on entry, the owner's) while a session opens, since
  /// opening may wait for the host; `lock` is held again on return, also on a throw.
  template <typename Lock>
  [[nodiscard]] DatabaseSession take(Lock& lock) {
    if (DatabaseSession idle = takeIdle(); idle.isOpen())
      return idle;
    if (capacity_ < 0)
      capacity_ = static_cast<std::int64_t>(api_->db_pool_size(api_->host_context));
    if (opened_ >= capacity_)
      return {};
    ++opened_;
    lock.unlock();
    try {
      DatabaseSession opened(api_);
      lock.lock();
      return opened;
    } catch (...) {
      lock.lock();
      --opened_;
      throw;
    }
  }

  /// The last idle session, or a closed one when none is idle. Never opens one.
  [[nodiscard]] DatabaseSession takeIdle() {
    if (idle_.empty())
      return {};
    DatabaseSession session = std::move(idle_.back());
    idle_.pop_back();
    return session;
  }

  /// `session` (taken from this stock, open) is idle again.
  void putBack(DatabaseSession session) { idle_.push_back(std::move(session)); }

  /// Closes `session` (taken from this stock), so another may open in its place.
  void closeOne(DatabaseSession session) {
    session = DatabaseSession();
    --opened_;
  }

  /// Closes every idle session; those in use stay counted until closeOne().
  void closeIdle() {
    opened_ -= static_cast<std::int64_t>(idle_.size());
    idle_.clear();
  }

  [[nodiscard]] bool hasIdle() const noexcept { return !idle_.empty(); }
  /// Sessions open, idle or in use.
  [[nodiscard]] std::int64_t opened() const noexcept { return opened_; }

 private:
  struct NoLock {
    void lock() {}
    void unlock() {}
  };

  const benchd_host_api* api_;
  std::int64_t capacity_ = -1;  // db_pool_size(), read at the first open
  std::int64_t opened_ = 0;
  std::vector<DatabaseSession> idle_;
};

}  // namespace benchd::sdk
