#pragma once
// The bookkeeping of idle pooled upstream connections that every plugin's pool shares (the
// Asio plugins' per-loop UpstreamPool, threads-poco's UpstreamSessionPool): which idle
// connection to hand out, and when an idle one is too old to keep. Pure logic with the time
// passed in, so it is tested without sockets or sleeps; the pools add the sockets and locks.
//
// Order: last in, first out, plus expiry. The most recently returned connection is handed out
// first, so a steady load keeps reusing the same few warm connections and the rest of a burst
// stays untouched until it is kUpstreamIdleTimeout old and is closed: the pool shrinks back to
// what the load needs. First in, first out would instead cycle every connection of the burst
// and keep them all alive as long as any nested call comes along, and would always hand out
// the connection idle the longest, the one the server most likely closed meanwhile.

#include <chrono>
#include <cstddef>
#include <deque>
#include <optional>
#include <utility>
#include <vector>

namespace benchd::sdk {

/// Idle items (connections) with the time each was returned. Not thread-safe: the owner
/// locks or confines it to one thread.
template <typename Item, typename Clock = std::chrono::steady_clock>
class IdleList {
 public:
  using TimePoint = typename Clock::time_point;
  using Duration = typename Clock::duration;

  /// Items idle for `idle_timeout` or longer are expired.
  explicit IdleList(Duration idle_timeout) : idle_timeout_(idle_timeout) {}

  /// Adds an item returned at `now`. Callers pass non-decreasing times (a clock read at the
  /// call); an earlier time only makes that item expire a little early.
  void put(Item item, TimePoint now) { idle_.push_back(Entry{std::move(item), now}); }

  /// Removes and returns the most recently returned item that is not expired at `now` and for
  /// which `usable(item)` holds (e.g. its peer has not closed it). Expired items and unusable
  /// ones met on the way are removed and appended to `dropped`, for the caller to close.
  /// nullopt when none is left.
  template <typename Usable>
  std::optional<Item> take(TimePoint now, Usable&& usable, std::vector<Item>& dropped) {
    expire(now, dropped);
    while (!idle_.empty()) {
      Item item = std::move(idle_.back().item);
      idle_.pop_back();
      if (usable(item))
        return item;
      dropped.push_back(std::move(item));
    }
    return std::nullopt;
  }

  /// Removes every item idle for idle_timeout or longer at `now` into `dropped` (the oldest
  /// sit at the front, so this stops at the first fresh one).
  void expire(TimePoint now, std::vector<Item>& dropped) {
    while (!idle_.empty() && now - idle_.front().since >= idle_timeout_) {
      dropped.push_back(std::move(idle_.front().item));
      idle_.pop_front();
    }
  }

  /// Removes every item into `dropped`.
  void clear(std::vector<Item>& dropped) {
    for (auto& entry : idle_)
      dropped.push_back(std::move(entry.item));
    idle_.clear();
  }

  [[nodiscard]] std::size_t size() const noexcept { return idle_.size(); }
  [[nodiscard]] bool empty() const noexcept { return idle_.empty(); }
  [[nodiscard]] Duration idleTimeout() const noexcept { return idle_timeout_; }

 private:
  struct Entry {
    Item item;
    TimePoint since;
  };

  Duration idle_timeout_;
  std::deque<Entry> idle_;
};

}  // namespace benchd::sdk
