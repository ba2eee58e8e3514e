#include "client_watch.hpp"

#include "poll_until.hpp"

#include <Poco/Exception.h>

#include <array>

namespace benchd::threads_poco {

ClientWatch::ClientWatch(const Poco::Net::StreamSocket& client)
    : client_fd_(client.impl()->sockfd()) {}

bool ClientWatch::sleepFor(std::chrono::milliseconds delay) {
  return wait(-1, std::chrono::steady_clock::now() + delay) != Outcome::kClientGone;
}

bool ClientWatch::awaitReadable(const Poco::Net::StreamSocket& upstream,
                                const Poco::Timespan& timeout) {
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
  const std::size_t count = other_fd >= 0 ? 2 : 1;
  switch (pollUntil(std::span(watched.data(), count), deadline)) {
    case PollResult::kTimedOut:
      return Outcome::kTimedOut;
    case PollResult::kFailed:
      gone_ = true;  // the descriptor is unusable: nobody can be answered on it
      return Outcome::kClientGone;
    case PollResult::kReady:
      break;
  }
  if ((watched[0].revents & (POLLRDHUP | POLLHUP | POLLERR | POLLNVAL)) != 0) {
    gone_ = true;
    return Outcome::kClientGone;
  }
  return Outcome::kReadable;  // only the other descriptor can be ready otherwise
}

}  // namespace benchd::threads_poco
