#include "client_watch.hpp"

#include <benchd/sdk/poll_until.hpp>

#include <span>

namespace benchd::threads_poco {

ClientWatch::ClientWatch(const Poco::Net::StreamSocket& client)
    : client_fd_(client.impl()->sockfd()) {}

bool ClientWatch::sleepFor(std::chrono::milliseconds delay) {
  // POLLRDHUP, not POLLIN: pipelined bytes must not wake the wait, only the end of the
  // client's sending side (or POLLHUP/POLLERR, which poll always reports).
  pollfd watched{client_fd_, POLLRDHUP, 0};
  switch (sdk::pollUntil(std::span(&watched, 1), std::chrono::steady_clock::now() + delay)) {
    case sdk::PollResult::kTimedOut:
      return true;
    case sdk::PollResult::kFailed:
      gone_ = true;  // the descriptor is unusable: nobody can be answered on it
      return false;
    case sdk::PollResult::kReady:
      break;
  }
  gone_ = (watched.revents & (POLLRDHUP | POLLHUP | POLLERR | POLLNVAL)) != 0;
  return !gone_;
}

}  // namespace benchd::threads_poco
