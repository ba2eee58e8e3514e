// `benchd serve` as a test sees it: a real daemon process on an ephemeral loopback port with its
// state in a temporary folder, calls with or without the token, and an event-stream follower.
#pragma once

#include "build_paths.hpp"
#include "http_client.hpp"

#include <benchd/runner/child_process.hpp>

#include <unistd.h>

#include <arpa/inet.h>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <netinet/in.h>
#include <regex>
#include <string>
#include <sys/socket.h>

namespace benchd::control::testing {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using benchd::testing::HttpConnection;
using benchd::testing::HttpResponse;

/// A daemon on an ephemeral loopback port with its state in a temporary folder.
class Daemon {
 public:
  /// `extra_config`: more `key = value` lines for the config file (e.g. plugin_dirs).
  explicit Daemon(const fs::path& dir, const std::string& extra_config = {})
      : config_(dir / "benchd.conf"),
        child_(makeConfig(dir, extra_config), {"serve", "--config", config_.string()}) {
    const auto deadline = std::chrono::steady_clock::now() + 30s;
    while (port_ == 0 && std::chrono::steady_clock::now() < deadline && !child_.stdoutClosed()) {
      for (const std::string& line : child_.readStdoutLines(500ms)) {
        std::smatch match;
        if (std::regex_search(line, match,
                              std::regex(R"(listening on http://127\.0\.0\.1:(\d+))"))) {
          port_ = static_cast<std::uint16_t>(std::stoi(match[1]));
        }
      }
    }
    std::ifstream token_file(dir / "state" / "token");
    std::getline(token_file, token_);
  }

  [[nodiscard]] std::uint16_t port() const { return port_; }
  [[nodiscard]] const std::string& token() const { return token_; }
  runner::ChildProcess& process() { return child_; }

  [[nodiscard]] HttpResponse call(const std::string& method, const std::string& target,
                                  const std::string& body = {}, bool with_token = true) const {
    HttpConnection connection(port_);
    std::map<std::string, std::string> headers;
    if (with_token) {
      headers["Authorization"] = "Bearer " + token_;
    }
    if (!body.empty()) {
      headers["Content-Type"] = "application/json";
    }
    return connection.request(method, target, body, headers);
  }

 private:
  fs::path makeConfig(const fs::path& dir, const std::string& extra_config) {
    std::ofstream(config_) << "port = 0\nstate_dir = " << (dir / "state").string() << "\n"
                           << extra_config;
    return benchd::testing::cliPath();
  }

  fs::path config_;
  runner::ChildProcess child_;
  std::uint16_t port_ = 0;
  std::string token_;
};

/// Follows GET /api/v1/runs/{id}/events until the end event (or `timeout`); the raw stream.
/// `last_event_id`, when given, is sent as the `Last-Event-ID` header (resume after that event).
inline std::string followEvents(std::uint16_t port, const std::string& token, int run,
                                std::chrono::seconds timeout,
                                const std::string& last_event_id = {}) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(port);
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0) {
    ::close(fd);
    return {};
  }
  const timeval receive_timeout{1, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &receive_timeout, sizeof(receive_timeout));
  const std::string request =
      "GET /api/v1/runs/" + std::to_string(run) +
      "/events HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + token + "\r\n" +
      (last_event_id.empty() ? std::string() : "Last-Event-ID: " + last_event_id + "\r\n") + "\r\n";
  ::send(fd, request.data(), request.size(), MSG_NOSIGNAL);
  std::string stream;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  char chunk[4096];
  while (std::chrono::steady_clock::now() < deadline &&
         stream.find("event: end") == std::string::npos) {
    const ssize_t got = ::recv(fd, chunk, sizeof(chunk), 0);
    if (got == 0) {
      break;
    }
    if (got > 0) {
      stream.append(chunk, static_cast<std::size_t>(got));
    }
  }
  ::close(fd);
  return stream;
}

inline std::size_t count(const std::string& text, const std::string& part) {
  std::size_t found = 0;
  for (std::size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) {
    ++found;
  }
  return found;
}

}  // namespace benchd::control::testing
