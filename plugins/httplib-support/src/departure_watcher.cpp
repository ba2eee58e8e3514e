#include <benchd/httplib_support/departure_watcher.hpp>

#include <unistd.h>

#include <array>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <system_error>

namespace benchd::httplib_support {

namespace {

constexpr std::uint64_t kQuitId = 0;
constexpr std::uint64_t kStopId = 1;
/// How often a departed call that has not ended yet is interrupted again.
constexpr std::chrono::milliseconds kReinterruptInterval{10};

[[noreturn]] void throwErrno(const char* what) {
  throw std::system_error(errno, std::generic_category(), what);
}

void add(int epoll_fd, int fd, std::uint32_t events, std::uint64_t id) {
  epoll_event event{};
  event.events = events;
  event.data.u64 = id;
  if (::epoll_ctl(epoll_fd, EPOLL_CTL_ADD, fd, &event) != 0)
    throwErrno("epoll_ctl");
}

}  // namespace

DepartureWatcher::DepartureWatcher(int stop_fd) : stop_fd_(stop_fd) {
  epoll_fd_ = ::epoll_create1(EPOLL_CLOEXEC);
  if (epoll_fd_ < 0)
    throwErrno("epoll_create1");
  quit_fd_ = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (quit_fd_ < 0) {
    ::close(epoll_fd_);
    throwErrno("eventfd");
  }
  try {
    add(epoll_fd_, quit_fd_, EPOLLIN, kQuitId);
    if (stop_fd_ >= 0)
      add(epoll_fd_, stop_fd_, EPOLLIN | EPOLLONESHOT, kStopId);
  } catch (...) {
    ::close(quit_fd_);
    ::close(epoll_fd_);
    throw;
  }
  thread_ = std::thread([this] { run(); });
}

DepartureWatcher::~DepartureWatcher() {
  const std::uint64_t one = 1;
  [[maybe_unused]] const auto written = ::write(quit_fd_, &one, sizeof one);
  thread_.join();
  ::close(quit_fd_);
  ::close(epoll_fd_);
}

DepartureWatcher::Watch DepartureWatcher::watch(int client_fd, Interrupt interrupt) {
  const std::lock_guard lock(mutex_);
  const std::uint64_t id = next_id_++;
  Entry entry{client_fd, std::move(interrupt), stopping_};
  if (!entry.departed) {
    // One-shot: a departed client's descriptor stays "ready"; it is reported once, and the
    // re-interrupts run from the timer instead.
    epoll_event event{};
    event.events = EPOLLRDHUP | EPOLLONESHOT;
    event.data.u64 = id;
    if (::epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, client_fd, &event) != 0)
      entry.departed = true;  // a descriptor epoll refuses is no client that can be answered
  }
  if (entry.departed)
    ++departed_count_;
  watched_.emplace(id, std::move(entry));
  return {this, id};
}

void DepartureWatcher::end(std::uint64_t id) {
  const std::lock_guard lock(mutex_);
  const auto found = watched_.find(id);
  if (found == watched_.end())
    return;
  ::epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, found->second.fd, nullptr);  // fails if never added
  if (found->second.departed)
    --departed_count_;
  watched_.erase(found);
}

bool DepartureWatcher::departed(std::uint64_t id) {
  const std::lock_guard lock(mutex_);
  const auto found = watched_.find(id);
  return found != watched_.end() && found->second.departed;
}

void DepartureWatcher::departAll() {
  stopping_ = true;
  for (auto& [id, entry] : watched_) {
    if (!entry.departed) {
      entry.departed = true;
      ++departed_count_;
      entry.interrupt();
    }
  }
}

void DepartureWatcher::run() {
  std::array<epoll_event, 64> events{};
  auto last_reinterrupt = std::chrono::steady_clock::now();
  for (;;) {
    int timeout = -1;
    {
      const std::lock_guard lock(mutex_);
      if (departed_count_ != 0)
        timeout = static_cast<int>(kReinterruptInterval.count());
    }
    const int ready =
        ::epoll_wait(epoll_fd_, events.data(), static_cast<int>(events.size()), timeout);
    if (ready < 0 && errno != EINTR)
      return;  // nothing left to wait with; calls end by their own timeouts
    const std::lock_guard lock(mutex_);
    for (int i = 0; i < ready; ++i) {
      const std::uint64_t id = events[static_cast<std::size_t>(i)].data.u64;
      if (id == kQuitId)
        return;
      if (id == kStopId) {
        departAll();
        continue;
      }
      const auto found = watched_.find(id);
      if (found == watched_.end() || found->second.departed)
        continue;  // ended meanwhile
      found->second.departed = true;
      ++departed_count_;
      found->second.interrupt();
    }
    const auto now = std::chrono::steady_clock::now();
    if (departed_count_ != 0 && now - last_reinterrupt >= kReinterruptInterval) {
      last_reinterrupt = now;
      for (auto& [id, entry] : watched_) {
        if (entry.departed)
          entry.interrupt();
      }
    }
  }
}

DepartureWatcher::Watch::Watch(Watch&& other) noexcept : watcher_(other.watcher_), id_(other.id_) {
  other.watcher_ = nullptr;
}

DepartureWatcher::Watch::~Watch() {
  if (watcher_ != nullptr)
    watcher_->end(id_);
}

bool DepartureWatcher::Watch::departed() const {
  return watcher_ != nullptr && watcher_->departed(id_);
}

}  // namespace benchd::httplib_support
