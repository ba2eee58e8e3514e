#include "client_watch.hpp"

#include <Poco/Exception.h>

#include <poll.h>

#include <algorithm>
#include <array>
#include <cerrno>

namespace benchd::threads_poco {

ClientWatch::ClientWatch(const Poco::Net::StreamSocket& client)
    : client_fd_(client.impl()->sockfd()) {}

bool ClientWatch::sleepFor(std::chrono::milliseconds delay) {
  return wait(-1, std::chrono::steady_clock::now() + delay) != Outcome::kClientGone;
}

bool ClientWatch::awaitReadable(const Poco::Net::StreamSocket& upstream, Poco::Timespan timeout) {
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::microseconds(timeout.totalMicroseconds());
  switch (wait(upstream.impl()->sockfd(), deadline)) {
    case Outcome::kReadable:
      return true;
    case Outcome::kClientGone:
      return false;
    case Outcome::kTimedOut:
      break;
  }
  throw Poco::TimeoutException("no answer to the nested call in time");
}

ClientWatch::Outcome ClientWatch::wait(int other_fd,
                                       std::chrono::steady_clock::time_point deadline) {
  // POLLRDHUP, not POLLIN, on the client: pipelined bytes must not wake the wait, only the end
  // of the client's sending side (or POLLHUP/POLLERR, which poll always reports).
  std::array<pollfd, 2> watched{pollfd{client_fd_, POLLRDHUP, 0}, pollfd{other_fd, POLLIN, 0}};
  const nfds_t count = other_fd >= 0 ? 2 : 1;
  for (;;) {
    const auto left =
        std::chrono::ceil<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0)
      return Outcome::kTimedOut;
    // poll() takes an int of milliseconds: long waits go round in steps.
    const int step = static_cast<int>(std::min<std::int64_t>(left.count(), 3'600'000));
    const int ready = ::poll(watched.data(), count, step);
    if (ready < 0 && errno != EINTR) {
      gone_ = true;  // the descriptor is unusable: nobody can be answered on it
      return Outcome::kClientGone;
    }
    if (ready <= 0)
      continue;
    if ((watched[0].revents & (POLLRDHUP | POLLHUP | POLLERR | POLLNVAL)) != 0) {
      gone_ = true;
      return Outcome::kClientGone;
    }
    if (count == 2 && watched[1].revents != 0)
      return Outcome::kReadable;
  }
}

}  // namespace benchd::threads_poco
