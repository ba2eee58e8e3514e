#include "client_watch.hpp"

#include <benchd/sdk/poll_until.hpp>

namespace benchd::threads_poco {

ClientWatch::ClientWatch(const Poco::Net::StreamSocket& client)
    : client_fd_(client.impl()->sockfd()) {}

bool ClientWatch::sleepFor(std::chrono::milliseconds delay) {
  gone_ = !sdk::sleepWatchingClient(client_fd_, delay);
  return !gone_;
}

}  // namespace benchd::threads_poco
