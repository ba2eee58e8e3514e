#pragma once

#include <atomic>

namespace benchd::threads_asio {

/// The two moments of a stop that every blocked pool thread must notice at once: the drain
/// begins (connections waiting for their next request close) and the stop gives up (every
/// wait ends). Each is an eventfd that becomes readable once and stays so, so any number of
/// threads polling it wake, however late they start polling.
///
/// Thread-safety: the signal calls come from the host thread, once each; the descriptors and
/// draining() are read by every thread.
class ServerSignals {
 public:
  ServerSignals();
  ~ServerSignals();
  ServerSignals(const ServerSignals&) = delete;
  ServerSignals& operator=(const ServerSignals&) = delete;

  void signalDrain() noexcept;
  void signalStop() noexcept;

  [[nodiscard]] int drainFd() const noexcept { return drain_fd_; }
  [[nodiscard]] int stopFd() const noexcept { return stop_fd_; }
  [[nodiscard]] bool draining() const noexcept { return draining_.load(std::memory_order_relaxed); }
  [[nodiscard]] bool stopped() const noexcept { return stopped_.load(std::memory_order_relaxed); }

 private:
  int drain_fd_;
  int stop_fd_;
  std::atomic<bool> draining_{false};
  std::atomic<bool> stopped_{false};
};

}  // namespace benchd::threads_asio
