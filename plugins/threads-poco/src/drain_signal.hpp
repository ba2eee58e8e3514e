#pragma once

#include <benchd/sdk/plugin_support.hpp>

#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <string>
#include <sys/eventfd.h>

namespace benchd::threads_poco {

/// The drain's start as a descriptor that becomes readable once and stays so, for the threads
/// that wait in poll() rather than on a read (HTTP/2 connections, whose idle ones close then).
/// Thread-safety: raise() from the host thread; fd() polled by any thread.
class DrainSignal {
 public:
  DrainSignal() : fd_(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) {
    if (fd_ < 0)
      throw sdk::PluginError(BENCHD_ERR_IO, std::string("eventfd: ") + std::strerror(errno));
  }
  ~DrainSignal() { ::close(fd_); }
  DrainSignal(const DrainSignal&) = delete;
  DrainSignal& operator=(const DrainSignal&) = delete;

  void raise() noexcept {
    const std::uint64_t one = 1;
    [[maybe_unused]] const auto written = ::write(fd_, &one, sizeof one);
  }
  [[nodiscard]] int fd() const noexcept { return fd_; }

 private:
  int fd_;
};

}  // namespace benchd::threads_poco
