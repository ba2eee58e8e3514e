// Test fixture: a real, minimal plugin that misbehaves in one of six ways, chosen at compile
// time (BENCHD_TEST_PLUGIN_BEHAVIOUR, BENCHD_TEST_PLUGIN_NAME; see CMakeLists.txt):
//   crash-on-request  GET /health answers 200 {"status":"UP"}, any other request abort()s: a
//                     worker that dies after it became healthy;
//   wrong-answers     GET /health answers 200, any other request 200 "[]" at once: the fast
//                     but wrong approach that must not win;
//   never-healthy     GET /health answers 503, any other request 200 "[]": a worker that never
//                     becomes ready;
//   deep-answers      GET /health answers 200, any other request 200 with JSON nested 300,000
//                     arrays deep: an answer that would overflow a recursive reader's stack;
//   hang-on-request   GET /health answers 200, any other request is never answered and its
//                     thread never returns, so stop() never returns either: a hung worker that
//                     its own stop watchdog (or the runner's SIGKILL) ends.
//   claims-tls        lists `tls`, `h2` and `h2c` but ignores the certificate and serves
//                     every connection plain HTTP/1.1 as wrong-answers does: what verify-plugin's
//                     `tls.*`, `h2.*` and `h2c.*` rules must catch.
//
// One accept thread serves one connection at a time with plain blocking sockets: read one
// request head, answer, close. stop() wakes the thread through a pipe, so it never waits on a
// client. Not a benchmark approach: built with benchd_configure_plugin, not added to the
// conformance suite.
#include <benchd/plugin.h>
#include <benchd/sdk/plugin_entry.hpp>
#include <benchd/sdk/plugin_support.hpp>

#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <netinet/in.h>
#include <span>
#include <string>
#include <string_view>
#include <sys/socket.h>
#include <thread>

namespace {

using benchd::sdk::PluginError;

/// How long the one thread waits for a client's request head before giving up on it.
constexpr int kRequestTimeoutMillis = 5000;
/// A request head longer than this is not one of ours; the connection is dropped.
constexpr std::size_t kMaxHeadBytes = std::size_t{16} * 1024;

enum Behaviour {
  kCrashOnRequest = 1,
  kWrongAnswers = 2,
  kNeverHealthy = 3,
  kDeepAnswers = 4,
  kHangOnRequest = 5,
  kClaimsTls = 6
};
constexpr Behaviour kBehaviour = static_cast<Behaviour>(BENCHD_TEST_PLUGIN_BEHAVIOUR);

constexpr std::string_view kHealthResponse =
    "HTTP/1.1 200 OK\r\n"
    "Content-Type: application/json\r\n"
    "Content-Length: 15\r\n"
    "Connection: close\r\n"
    "\r\n"
    "{\"status\":\"UP\"}";

constexpr std::string_view kUnhealthyResponse =
    "HTTP/1.1 503 Service Unavailable\r\n"
    "Content-Type: application/json\r\n"
    "Content-Length: 17\r\n"
    "Connection: close\r\n"
    "\r\n"
    "{\"status\":\"DOWN\"}";

/// Fast and wrong: every movie list is empty, every epoch is "[]".
constexpr std::string_view kWrongResponse =
    "HTTP/1.1 200 OK\r\n"
    "Content-Type: application/json\r\n"
    "Content-Length: 2\r\n"
    "Connection: close\r\n"
    "\r\n"
    "[]";

/// The deep-answers answer, made once.
const std::string& deepResponse() {
  static const std::string response = [] {
    constexpr std::size_t kDepth = 300'000;
    const std::string body = std::string(kDepth, '[') + std::string(kDepth, ']');
    return "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: " +
           std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n" + body;
  }();
  return response;
}

std::string errnoText(const char* what) {
  return std::string(what) + ": " + std::strerror(errno);
}

class Server {
 public:
  Server(const benchd_host_api* host, benchd::sdk::ServerSettings settings)
      : host_(host), settings_(std::move(settings)) {}

  ~Server() {
    wakeAndJoin();
    closeAll();
  }
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  void start() {
    listen_fd_ = openListener();
    if (::pipe2(wake_.data(), O_CLOEXEC) != 0)
      throw PluginError(BENCHD_ERR_IO, errnoText("pipe"));
    thread_ = std::thread([this] { acceptLoop(); });
  }

  [[nodiscard]] std::uint16_t boundPort() const { return port_; }

  bool stop(std::chrono::milliseconds /*timeout*/) {
    wakeAndJoin();  // the one request being served (if any) is answered or dropped at once
    closeAll();
    return true;
  }

  void reportCounters(benchd_counter_sink sink, void* sink_context) const {
    sink(sink_context, "requests_served", served_.load());
    sink(sink_context, "requests_in_flight", in_flight_.load());
  }

 private:
  int openListener() {
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV | AI_PASSIVE;
    addrinfo* found = nullptr;
    const std::string port = std::to_string(settings_.port);
    if (const int error =
            ::getaddrinfo(settings_.bind_address.c_str(), port.c_str(), &hints, &found);
        error != 0) {
      throw PluginError(BENCHD_ERR_INVALID_ARGUMENT,
                        "bind address '" + settings_.bind_address + "': " + ::gai_strerror(error));
    }
    const int fd = ::socket(found->ai_family, found->ai_socktype | SOCK_CLOEXEC, 0);
    if (fd < 0) {
      ::freeaddrinfo(found);
      throw PluginError(BENCHD_ERR_IO, errnoText("socket"));
    }
    const int yes = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
    const int bound = ::bind(fd, found->ai_addr, found->ai_addrlen);
    const int bind_error = errno;
    ::freeaddrinfo(found);
    if (bound != 0) {
      ::close(fd);
      if (bind_error == EADDRINUSE) {
        throw PluginError(BENCHD_ERR_ADDRESS_IN_USE,
                          "port " + port + " on " + settings_.bind_address + " is already in use");
      }
      throw PluginError(BENCHD_ERR_IO, std::string("bind: ") + std::strerror(bind_error));
    }
    if (::listen(fd, 64) != 0) {
      const std::string reason = errnoText("listen");
      ::close(fd);
      throw PluginError(BENCHD_ERR_IO, reason);
    }
    sockaddr_storage address{};
    socklen_t size = sizeof(address);
    ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &size);
    port_ = ntohs(address.ss_family == AF_INET6
                      ? reinterpret_cast<const sockaddr_in6*>(&address)->sin6_port
                      : reinterpret_cast<const sockaddr_in*>(&address)->sin_port);
    return fd;
  }

  /// Waits until `fd` is readable or stop() wakes us; false on wake-up or timeout.
  [[nodiscard]] bool waitReadable(int fd, int timeout_millis) const {
    std::array<pollfd, 2> fds{{{fd, POLLIN, 0}, {wake_[0], POLLIN, 0}}};
    int ready = 0;
    do {
      ready = ::poll(fds.data(), fds.size(), timeout_millis);
    } while (ready < 0 && errno == EINTR);
    return ready > 0 && fds[1].revents == 0 && fds[0].revents != 0;
  }

  void acceptLoop() {
    while (waitReadable(listen_fd_, -1)) {
      const int client = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
      if (client < 0)
        continue;
      serve(client);
      ::close(client);
    }
  }

  void serve(int client) {
    std::string head;
    std::array<char, 2048> chunk{};
    while (head.find("\r\n\r\n") == std::string::npos && head.size() < kMaxHeadBytes) {
      if (!waitReadable(client, kRequestTimeoutMillis))
        return;
      const ssize_t got = ::recv(client, chunk.data(), chunk.size(), 0);
      if (got <= 0)
        return;  // closed without a request (a port probe): nothing to answer
      head.append(chunk.data(), static_cast<std::size_t>(got));
    }
    const std::string_view request_line = std::string_view(head).substr(0, head.find("\r\n"));
    const bool health =
        request_line == "GET /health HTTP/1.1" || request_line == "GET /health HTTP/1.0";
    if (!health && kBehaviour == kCrashOnRequest) {
      const std::string message =
          "crash-on-request: aborting on '" + std::string(request_line) + "', as designed";
      host_->log(host_->host_context, BENCHD_LOG_ERROR, message.data(), message.size());
      std::abort();
    }
    if (!health && kBehaviour == kHangOnRequest) {
      const std::string message =
          "hang-on-request: hanging on '" + std::string(request_line) + "' for good, as designed";
      host_->log(host_->host_context, BENCHD_LOG_ERROR, message.data(), message.size());
      for (;;) {
        ::pause();
      }
    }
    const std::string_view response =
        health ? (kBehaviour == kNeverHealthy ? kUnhealthyResponse : kHealthResponse)
        : kBehaviour == kDeepAnswers ? std::string_view(deepResponse())
                                     : kWrongResponse;
    in_flight_.store(1);
    std::size_t sent = 0;
    while (sent < response.size()) {
      const ssize_t wrote =
          ::send(client, response.data() + sent, response.size() - sent, MSG_NOSIGNAL);
      if (wrote <= 0)
        break;
      sent += static_cast<std::size_t>(wrote);
    }
    in_flight_.store(0);
    served_.fetch_add(1);
  }

  void wakeAndJoin() {
    if (!thread_.joinable())
      return;
    const char byte = 1;
    [[maybe_unused]] const ssize_t ignored = ::write(wake_[1], &byte, 1);
    thread_.join();
  }

  void closeAll() {
    for (int* fd : {&listen_fd_, &wake_[0], &wake_[1]}) {
      if (*fd >= 0)
        ::close(*fd);
      *fd = -1;
    }
  }

  const benchd_host_api* host_;
  benchd::sdk::ServerSettings settings_;
  int listen_fd_ = -1;
  std::array<int, 2> wake_{-1, -1};
  std::uint16_t port_ = 0;
  std::thread thread_;
  std::atomic<std::int64_t> served_{0};
  std::atomic<std::int64_t> in_flight_{0};
};

/// What claims-tls lists and does not serve.
constexpr const char* kClaimedProfiles[] = {"no-keep-alive", "tls", "h2", "h2c"};

constexpr benchd::sdk::PluginFacts kFacts = {
    .name = BENCHD_TEST_PLUGIN_NAME,
    .version = "0.1.0",
    .description = "Test fixture that misbehaves on purpose (see misbehaving_plugin.cpp)",
    .concurrency_model = BENCHD_MODEL_OS_THREADS,
    .io_stack = "POSIX blocking sockets",
    .implemented_profiles = kBehaviour == kClaimsTls
                                ? std::span<const char* const>(kClaimedProfiles)
                                : std::span<const char* const>(benchd::sdk::kTransportProfiles),
};

}  // namespace

// The name is fixed by the ABI (BENCHD_PLUGIN_ENTRY_SYMBOL).
// NOLINTNEXTLINE(readability-identifier-naming)
extern "C" BENCHD_PLUGIN_EXPORT const benchd_plugin_descriptor* benchd_plugin_entry(void) {
  return benchd::sdk::PluginAdapter<Server>::describe(kFacts);
}
