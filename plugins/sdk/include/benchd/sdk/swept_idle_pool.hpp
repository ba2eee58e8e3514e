#pragma once
// The idle half of a blocking client's connection pool, shared by every pool thread: the
// connections waiting for their next nested call, handed out last in, first out (IdleList says
// why), closed once idle for the idle timeout, and a sweeper thread that closes them even when
// no call comes along to notice, so the rest of a burst goes without traffic.
//
// The thread-per-connection plugins' clients (threads-asio's Beast client, threads-poco's
// Poco sessions, the libcurl client) each keep one; the event-loop plugins sweep on their loop
// instead. The sweeper starts with the first connection put back: a worker whose rows never use
// this client (another client profile) runs no thread for it.

#include <benchd/sdk/idle_list.hpp>
#include <benchd/sdk/request_deadline.hpp>

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <mutex>
#include <optional>
#include <stop_token>
#include <thread>
#include <utility>
#include <vector>

namespace benchd::sdk {

/// Idle connections (`Item`, typically a unique_ptr whose destruction closes the connection).
/// Items are destroyed outside the lock, so closing one may take its time or touch its owner.
///
/// Thread-safety: every member may be called from any thread at once. The destructor stops the
/// sweeper and closes what is idle; no other call may run then.
template <typename Item>
class SweptIdlePool {
 public:
  /// Idle connections are closed once idle for `idle_timeout`; the sweeper looks every
  /// upstreamIdleSweepInterval(idle_timeout).
  explicit SweptIdlePool(std::chrono::milliseconds idle_timeout)
      : sweep_interval_(upstreamIdleSweepInterval(idle_timeout)), idle_(idle_timeout) {}

  ~SweptIdlePool() {
    if (sweeper_.joinable()) {
      sweeper_.request_stop();
      sweeper_.join();
    }
    closeIdle();
  }

  SweptIdlePool(const SweptIdlePool&) = delete;
  SweptIdlePool& operator=(const SweptIdlePool&) = delete;

  /// The most recently returned idle connection that has not expired and for which
  /// `usable(item)` holds (e.g. its peer has not closed it); the others met on the way are
  /// closed. nullopt when none is left: the caller opens a new one.
  template <typename Usable>
  [[nodiscard]] std::optional<Item> take(Usable&& usable) {
    std::vector<Item> dropped;  // destroyed after the lock is released
    const std::lock_guard lock(mutex_);
    return idle_.take(Clock::now(), std::forward<Usable>(usable), dropped);
  }

  /// Keeps `item` for a later call, or closes it once the drain has begun.
  void put(Item item) {
    std::unique_lock lock(mutex_);
    if (draining_) {
      lock.unlock();
      return;  // `item` is destroyed here, outside the lock
    }
    idle_.put(std::move(item), Clock::now());
    if (!sweeper_.joinable())
      sweeper_ = std::jthread([this](const std::stop_token& stop) { sweepUntil(stop); });
  }

  /// Closes every idle connection, and from now on every connection put back (the server
  /// drains: an idle pooled connection would hold a serving thread of the callee).
  void drain() {
    {
      const std::lock_guard lock(mutex_);
      draining_ = true;
    }
    closeIdle();
  }

  /// Closes every idle connection.
  void closeIdle() {
    std::vector<Item> closing;
    const std::lock_guard lock(mutex_);
    idle_.clear(closing);
  }

  /// Closes the idle connections that have expired (the sweeper calls this).
  void closeExpired() {
    std::vector<Item> closing;
    const std::lock_guard lock(mutex_);
    idle_.expire(Clock::now(), closing);
  }

  [[nodiscard]] std::size_t size() {
    const std::lock_guard lock(mutex_);
    return idle_.size();
  }

  /// Whether the sweeper thread runs (it starts with the first put()).
  [[nodiscard]] bool sweeping() {
    const std::lock_guard lock(mutex_);
    return sweeper_.joinable();
  }

 private:
  using Clock = std::chrono::steady_clock;

  void sweepUntil(const std::stop_token& stop) {
    std::mutex wait_mutex;
    std::unique_lock wait_lock(wait_mutex);
    // wait_for wakes early only when the stop is requested, and then returns true.
    while (!sweep_wakeup_.wait_for(wait_lock, stop, sweep_interval_,
                                   [&stop] { return stop.stop_requested(); }))
      closeExpired();
  }

  const std::chrono::milliseconds sweep_interval_;
  std::mutex mutex_;
  IdleList<Item> idle_;    // guarded by mutex_
  bool draining_ = false;  // guarded by mutex_
  std::condition_variable_any sweep_wakeup_;
  std::jthread sweeper_;  // started under mutex_; stopped and joined by the destructor
};

}  // namespace benchd::sdk
