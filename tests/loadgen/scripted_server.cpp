#include "scripted_server.hpp"

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <arpa/inet.h>
#include <cctype>
#include <netinet/in.h>
#include <stdexcept>
#include <sys/socket.h>

namespace benchd::loadgen::testing {
namespace {

/// How often blocked threads look at the stop flag.
constexpr int kPollMillis = 20;

int listenOnLoopback(int backlog, std::uint16_t& port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof(address);
  if (fd < 0 || ::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0 ||
      ::listen(fd, backlog) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
    throw std::runtime_error("cannot listen on 127.0.0.1");
  }
  port = ntohs(address.sin_port);
  return fd;
}

bool waitReadable(int fd, const std::atomic<bool>& stopping) {
  while (!stopping.load()) {
    pollfd entry{fd, POLLIN, 0};
    if (::poll(&entry, 1, kPollMillis) > 0) {
      return true;
    }
  }
  return false;
}

/// The Content-Length of a request head (0 when absent).
std::size_t contentLength(std::string_view head) {
  std::string lower(head);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  const std::size_t at = lower.find("\r\ncontent-length:");
  if (at == std::string::npos) {
    return 0;
  }
  return std::stoul(lower.substr(at + 17));
}

bool writeAll(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t written = ::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (written <= 0) {
      return false;
    }
    bytes.remove_prefix(static_cast<std::size_t>(written));
  }
  return true;
}

}  // namespace

ScriptedServer::ScriptedServer(Script script) : script_(std::move(script)) {
  listen_fd_ = listenOnLoopback(SOMAXCONN, port_);
  acceptor_ = std::thread([this] { acceptLoop(); });
}

ScriptedServer::~ScriptedServer() {
  stopping_.store(true);
  acceptor_.join();
  for (std::thread& thread : connection_threads_) {
    thread.join();
  }
  ::close(listen_fd_);
}

std::vector<std::string> ScriptedServer::requestLines() const {
  const std::lock_guard lock(mutex_);
  return request_lines_;
}

std::string ScriptedServer::okResponse() {
  return "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Type: text/plain\r\n\r\nok";
}

void ScriptedServer::acceptLoop() {
  std::uint64_t connection = 0;
  while (waitReadable(listen_fd_, stopping_)) {
    const int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) {
      continue;
    }
    // Only the acceptor adds threads, and the destructor joins them after the acceptor.
    connection_threads_.emplace_back([this, fd, number = connection++] { serve(fd, number); });
  }
}

void ScriptedServer::serve(int fd, std::uint64_t connection) {
  std::string buffer;
  std::uint64_t request_number = 0;
  char chunk[4096];
  for (;;) {
    const std::size_t head_end = buffer.find("\r\n\r\n");
    if (head_end != std::string::npos) {
      const std::size_t total = head_end + 4 + contentLength(buffer.substr(0, head_end + 2));
      if (buffer.size() >= total) {
        const std::string request = buffer.substr(0, total);
        buffer.erase(0, total);
        {
          const std::lock_guard lock(mutex_);
          request_lines_.push_back(request.substr(0, request.find("\r\n")));
        }
        ++requests_;
        const Action action = script_(connection, request_number++, request);
        if (action.wait.count() > 0) {
          std::this_thread::sleep_for(action.wait);
        }
        if (!action.reply || !writeAll(fd, *action.reply) || action.close_after) {
          break;
        }
        continue;
      }
    }
    if (!waitReadable(fd, stopping_)) {
      break;
    }
    const ssize_t got = ::recv(fd, chunk, sizeof(chunk), 0);
    if (got <= 0) {
      break;
    }
    buffer.append(chunk, static_cast<std::size_t>(got));
  }
  ::close(fd);
}

UnansweredListener::UnansweredListener() {
  // Backlog 0: the accept queue is full after a connection or two, and Linux then drops every
  // further SYN, so a connect neither succeeds nor is refused.
  listen_fd_ = listenOnLoopback(0, port_);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = htons(port_);
  for (int filler = 0; filler < 4; ++filler) {
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
      throw std::runtime_error("cannot create a socket");
    }
    // EINPROGRESS is expected: the later fillers never complete.
    (void)::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address));
    fillers_.push_back(fd);
  }
  // The first filler is queued once its connect completes; later connects find the queue full.
  pollfd first{fillers_.front(), POLLOUT, 0};
  (void)::poll(&first, 1, 1000);
}

UnansweredListener::~UnansweredListener() {
  for (const int fd : fillers_) {
    ::close(fd);
  }
  ::close(listen_fd_);
}

}  // namespace benchd::loadgen::testing
