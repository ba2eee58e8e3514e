#include <benchd/curl_support/blocking_curl_client.hpp>
#include <benchd/sdk/limits.hpp>
#include <benchd/sdk/request_deadline.hpp>
#include <benchd/sdk/service_request.hpp>

#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <sys/socket.h>
#include <utility>
#include <vector>

namespace benchd::curl_support {

using Clock = std::chrono::steady_clock;

/// One pooled connection: an easy handle in a multi handle of its own whose cache keeps at
/// most one connection. Used by one thread at a time (the pool hands it out under its lock).
class BlockingCurlClient::Handle {
 public:
  Handle(sdk::ConnectionBudget& budget, curl_slist* headers, std::chrono::milliseconds idle_timeout,
         bool tls)
      : budget_(budget), multi_(curl_multi_init()), easy_(curl_easy_init()) {
    if (multi_ == nullptr || easy_ == nullptr) {
      release();
      throw std::runtime_error("libcurl could not make a handle");
    }
    curl_multi_setopt(multi_, CURLMOPT_SOCKETFUNCTION, &Handle::onSocket);
    curl_multi_setopt(multi_, CURLMOPT_SOCKETDATA, this);
    curl_multi_setopt(multi_, CURLMOPT_TIMERFUNCTION, &Handle::onTimer);
    curl_multi_setopt(multi_, CURLMOPT_TIMERDATA, this);
    curl_multi_setopt(multi_, CURLMOPT_MAXCONNECTS, 1L);
    setNestedCallOptions(easy_, headers, answer_, idle_timeout);
    if (tls)
      setTlsOptions(easy_);
    curl_easy_setopt(easy_, CURLOPT_OPENSOCKETFUNCTION, &Handle::openSocket);
    curl_easy_setopt(easy_, CURLOPT_OPENSOCKETDATA, this);
    curl_easy_setopt(easy_, CURLOPT_CLOSESOCKETFUNCTION, &Handle::closeSocket);
    curl_easy_setopt(easy_, CURLOPT_CLOSESOCKETDATA, this);
  }

  ~Handle() { release(); }
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;

  sdk::NestedCallOutcome run(const std::string& url, std::chrono::milliseconds response_timeout,
                             int client_fd, int stop_fd) {
    answer_ = {};
    no_capacity_ = false;
    setCallOptions(easy_, url, response_timeout);
    if (curl_multi_add_handle(multi_, easy_) != CURLM_OK) {
      return {"libcurl refused the transfer", 0, {}, false};
    }
    int running = 1;
    while (running != 0) {
      std::vector<pollfd> watched;
      watched.reserve(sockets_.size() + 2);
      // POLLRDHUP, not POLLIN, on the client: pipelined bytes must not wake the wait, only the
      // end of the client's sending side (or POLLHUP/POLLERR, which poll always reports).
      watched.push_back(pollfd{client_fd, POLLRDHUP, 0});
      if (stop_fd >= 0) {
        watched.push_back(pollfd{stop_fd, POLLIN, 0});
      }
      const std::size_t first_socket = watched.size();
      for (const auto& [fd, what] : sockets_) {
        const auto events = static_cast<short>(((what & CURL_POLL_IN) != 0 ? POLLIN : 0) |
                                               ((what & CURL_POLL_OUT) != 0 ? POLLOUT : 0));
        watched.push_back(pollfd{fd, events, 0});
      }
      if (::poll(watched.data(), watched.size(), pollTimeout()) < 0) {
        if (errno == EINTR) {
          continue;
        }
        const std::string reason = std::strerror(errno);
        curl_multi_remove_handle(multi_, easy_);
        return {"poll failed: " + reason, 0, {}, false};
      }
      const bool client_left =
          (watched[0].revents & (POLLRDHUP | POLLHUP | POLLERR | POLLNVAL)) != 0;
      if (client_left || (stop_fd >= 0 && watched[1].revents != 0)) {
        // Removed mid-way, the transfer's connection is closed: the callee's own wait ends.
        curl_multi_remove_handle(multi_, easy_);
        return {"the client left", 0, {}, true};
      }
      for (std::size_t i = first_socket; i < watched.size(); ++i) {
        const short revents = watched[i].revents;
        if (revents == 0) {
          continue;
        }
        const int events = ((revents & (POLLIN | POLLHUP)) != 0 ? CURL_CSELECT_IN : 0) |
                           ((revents & POLLOUT) != 0 ? CURL_CSELECT_OUT : 0) |
                           ((revents & (POLLERR | POLLNVAL)) != 0 ? CURL_CSELECT_ERR : 0);
        curl_multi_socket_action(multi_, watched[i].fd, events, &running);
      }
      if (deadline_ && Clock::now() >= *deadline_) {
        deadline_.reset();
        curl_multi_socket_action(multi_, CURL_SOCKET_TIMEOUT, 0, &running);
      }
    }
    CURLcode code = CURLE_OK;
    int queued = 0;
    while (const CURLMsg* message = curl_multi_info_read(multi_, &queued)) {
      if (message->msg == CURLMSG_DONE) {
        code = message->data.result;
      }
    }
    curl_multi_remove_handle(multi_, easy_);
    if (code == CURLE_OK) {
      long status = 0;
      curl_easy_getinfo(easy_, CURLINFO_RESPONSE_CODE, &status);
      return {{}, static_cast<unsigned>(status), std::move(answer_.body), false};
    }
    if (no_capacity_) {
      return {"upstream pool exhausted", 0, {}, false};
    }
    if (answer_.too_large) {
      return {"answer larger than " + std::to_string(kMaxAnswerBytes) + " bytes", 0, {}, false};
    }
    return {curl_easy_strerror(code), 0, {}, false};
  }

 private:
  /// Milliseconds until libcurl's timer, rounded up; -1 (none) when it has none.
  [[nodiscard]] int pollTimeout() const {
    if (!deadline_) {
      return -1;
    }
    const auto left = *deadline_ - Clock::now();
    if (left <= Clock::duration::zero()) {
      return 0;
    }
    return static_cast<int>(std::chrono::ceil<std::chrono::milliseconds>(left).count());
  }

  void release() noexcept {
    if (multi_ != nullptr) {
      curl_multi_cleanup(multi_);  // closes its cached connection through closeSocket
    }
    if (easy_ != nullptr) {
      curl_easy_cleanup(easy_);
    }
    multi_ = nullptr;
    easy_ = nullptr;
  }

  static curl_socket_t openSocket(void* data, curlsocktype purpose, curl_sockaddr* address) {
    auto* handle = static_cast<Handle*>(data);
    if (purpose != CURLSOCKTYPE_IPCXN) {
      return CURL_SOCKET_BAD;
    }
    if (!handle->budget_.tryReserve()) {
      handle->no_capacity_ = true;
      return CURL_SOCKET_BAD;
    }
    const int fd = ::socket(address->family, address->socktype | SOCK_CLOEXEC, address->protocol);
    if (fd < 0) {
      handle->budget_.release();
      return CURL_SOCKET_BAD;
    }
    return fd;
  }

  static int closeSocket(void* data, curl_socket_t fd) {
    auto* handle = static_cast<Handle*>(data);
    handle->budget_.release();
    return ::close(fd);
  }

  static int onSocket(CURL* /*easy*/, curl_socket_t fd, int what, void* data, void* /*socketp*/) {
    auto& sockets = static_cast<Handle*>(data)->sockets_;
    std::erase_if(sockets, [fd](const auto& entry) { return entry.first == fd; });
    if (what != CURL_POLL_REMOVE) {
      sockets.emplace_back(fd, what);
    }
    return 0;
  }

  static int onTimer(CURLM* /*multi*/, long timeout_millis, void* data) {
    auto* handle = static_cast<Handle*>(data);
    if (timeout_millis < 0) {
      handle->deadline_.reset();
    } else {
      handle->deadline_ = Clock::now() + std::chrono::milliseconds(timeout_millis);
    }
    return 0;
  }

  sdk::ConnectionBudget& budget_;
  CURLM* multi_;
  CURL* easy_;
  AnswerSink answer_;
  bool no_capacity_ = false;
  /// The sockets libcurl wants watched, and for what (CURL_POLL_IN / CURL_POLL_OUT bits).
  std::vector<std::pair<curl_socket_t, int>> sockets_;
  std::optional<Clock::time_point> deadline_;  ///< libcurl's timer
};

void BlockingCurlClient::HandleDeleter::operator()(Handle* handle) const {
  delete handle;
}

BlockingCurlClient::BlockingCurlClient(std::chrono::milliseconds response_margin,
                                       std::chrono::milliseconds idle_timeout, int stop_fd,
                                       bool tls)
    : response_margin_(response_margin),
      idle_timeout_(idle_timeout),
      stop_fd_(stop_fd),
      tls_(tls),
      headers_((initialiseCurlOnce(), nestedCallHeaders())),
      idle_(idle_timeout) {}

BlockingCurlClient::~BlockingCurlClient() {
  idle_.closeIdle();  // their easy handles point at headers_
  curl_slist_free_all(headers_);
}

void BlockingCurlClient::setEndpoint(const std::string& address, std::uint16_t port) {
  base_url_ = baseUrlOf(address, port, tls_);
}

sdk::NestedCallOutcome BlockingCurlClient::get(const std::string& target, int client_fd) {
  HandlePtr handle = takeIdle();
  if (!handle) {
    try {
      handle.reset(new Handle(budget_, headers_, idle_timeout_, tls_));
    } catch (const std::exception& error) {
      return {error.what(), 0, {}, false};
    }
  }
  sdk::NestedCallOutcome outcome =
      handle->run(base_url_ + target, sdk::upstreamResponseTimeoutFor(target, response_margin_),
                  client_fd, stop_fd_);
  if (!outcome.client_gone) {
    idle_.put(std::move(handle));
  }
  return outcome;
}

BlockingCurlClient::HandlePtr BlockingCurlClient::takeIdle() {
  // libcurl checks a kept connection itself before it reuses it, and connects anew if it died.
  auto handle = idle_.take([](const HandlePtr&) { return true; });
  return handle ? std::move(*handle) : HandlePtr();
}

}  // namespace benchd::curl_support
