#pragma once
// Notices that the client of a blocking nested call has left, for a client library whose calls
// cannot watch a second descriptor themselves (cpp-httplib blocks in its own poll on its own
// socket). One thread per worker waits in epoll on the client connections of every call in
// flight and, when one leaves (its sending side closed, reset, hung up), interrupts that call
// from outside; a stop descriptor interrupts them all.

#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <unordered_map>

namespace benchd::httplib_support {

/// Thread-safe: any number of pool threads watch at once. Interrupts run on the watcher's
/// thread under its lock, so a Watch that has ended (its destructor returned) is never
/// interrupted again, and what the interrupt touches may be destroyed right after it.
class DepartureWatcher {
 public:
  /// What interrupts a call: it must make the blocked call return soon, and may run while the
  /// call has not yet blocked, so it is run again every kReinterruptInterval until the watch
  /// ends (a call that had not connected yet when the client left is interrupted once it has).
  using Interrupt = std::function<void()>;

  /// `stop_fd`: -1, or a descriptor that becomes readable, and stays so, when the server
  /// stops: then every call in flight and every later one counts as departed. Throws
  /// std::system_error when the kernel refuses epoll or eventfd.
  explicit DepartureWatcher(int stop_fd = -1);
  /// Ends the thread; no Watch may be alive.
  ~DepartureWatcher();
  DepartureWatcher(const DepartureWatcher&) = delete;
  DepartureWatcher& operator=(const DepartureWatcher&) = delete;

  /// One call's watch, from watch() until destroyed (by the thread that made it).
  class Watch {
   public:
    Watch(Watch&& other) noexcept;
    Watch& operator=(Watch&&) = delete;
    Watch(const Watch&) = delete;
    Watch& operator=(const Watch&) = delete;
    ~Watch();
    /// The client left (or the server stops): nobody is left to answer.
    [[nodiscard]] bool departed() const;

   private:
    friend class DepartureWatcher;
    Watch(DepartureWatcher* watcher, std::uint64_t id) : watcher_(watcher), id_(id) {}
    DepartureWatcher* watcher_;
    std::uint64_t id_;
  };

  /// Watches the client on `client_fd` (a connected socket the caller keeps open until the
  /// Watch ends, and that nobody else polls meanwhile) and calls `interrupt` when it leaves.
  [[nodiscard]] Watch watch(int client_fd, Interrupt interrupt);

 private:
  struct Entry {
    int fd;
    Interrupt interrupt;
    bool departed;
  };

  void run();
  void departAll();
  void end(std::uint64_t id);
  [[nodiscard]] bool departed(std::uint64_t id);

  int epoll_fd_ = -1;
  int quit_fd_ = -1;
  int stop_fd_;
  std::mutex mutex_;
  std::unordered_map<std::uint64_t, Entry> watched_;  // guarded by mutex_
  std::uint64_t next_id_ = 2;                         // 0 and 1 name quit_fd_ and stop_fd_
  std::size_t departed_count_ = 0;                    // guarded by mutex_
  bool stopping_ = false;                             // guarded by mutex_
  std::thread thread_;                                // last: uses the members above
};

}  // namespace benchd::httplib_support
