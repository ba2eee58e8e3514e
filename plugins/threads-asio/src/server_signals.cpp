#include "server_signals.hpp"

#include <benchd/sdk/plugin_support.hpp>

#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <string>
#include <sys/eventfd.h>

namespace benchd::threads_asio {

namespace {

int newEventFd() {
  const int fd = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (fd < 0)
    throw sdk::PluginError(BENCHD_ERR_IO, std::string("eventfd: ") + std::strerror(errno));
  return fd;
}

void raise(int fd) noexcept {
  const std::uint64_t one = 1;
  // Cannot fail short of a counter overflow, which one write per signal never reaches.
  [[maybe_unused]] const auto written = ::write(fd, &one, sizeof one);
}

}  // namespace

ServerSignals::ServerSignals() : drain_fd_(newEventFd()), stop_fd_(-1) {
  try {
    stop_fd_ = newEventFd();
  } catch (...) {
    ::close(drain_fd_);
    throw;
  }
}

ServerSignals::~ServerSignals() {
  ::close(drain_fd_);
  ::close(stop_fd_);
}

void ServerSignals::signalDrain() noexcept {
  draining_.store(true, std::memory_order_relaxed);
  raise(drain_fd_);
}

void ServerSignals::signalStop() noexcept {
  stopped_.store(true, std::memory_order_relaxed);
  raise(stop_fd_);
}

}  // namespace benchd::threads_asio
