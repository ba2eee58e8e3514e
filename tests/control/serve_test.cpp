// `benchd serve` as a real process: the token, the API's first resources, a run driven through
// the API to completion while its events stream, and a clean stop on SIGTERM.
#include "http_client.hpp"
#include "temp_dir.hpp"

#include <benchd/runner/child_process.hpp>

#include <gtest/gtest.h>

#include <unistd.h>

#include <arpa/inet.h>
#include <csignal>
#include <fstream>
#include <netinet/in.h>
#include <regex>
#include <sys/socket.h>
#include <sys/stat.h>

namespace benchd::control {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using benchd::testing::HttpConnection;
using benchd::testing::HttpResponse;

/// A daemon on an ephemeral loopback port with its state in a temporary folder.
class Daemon {
 public:
  explicit Daemon(const fs::path& dir)
      : config_(dir / "benchd.conf"),
        child_(makeConfig(dir), {"serve", "--config", config_.string()}) {
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
  fs::path makeConfig(const fs::path& dir) {
    std::ofstream(config_) << "port = 0\nstate_dir = " << (dir / "state").string() << "\n";
    return BENCHD_CLI_PATH;
  }

  fs::path config_;
  runner::ChildProcess child_;
  std::uint16_t port_ = 0;
  std::string token_;
};

/// Follows GET /api/v1/runs/{id}/events until the end event (or `timeout`); the raw stream.
std::string followEvents(std::uint16_t port, const std::string& token, int run,
                         std::chrono::seconds timeout) {
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
  const std::string request = "GET /api/v1/runs/" + std::to_string(run) +
                              "/events HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " +
                              token + "\r\n\r\n";
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

std::size_t count(const std::string& text, const std::string& part) {
  std::size_t found = 0;
  for (std::size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) {
    ++found;
  }
  return found;
}

TEST(BenchdServe, MakesAPrivateTokenAndGuardsEveryEndpointButHealth) {
  const benchd::testing::TempDir dir;
  Daemon daemon(dir.path());
  ASSERT_NE(daemon.port(), 0) << daemon.process().stderrText();
  struct stat status {};
  ASSERT_EQ(::stat((dir.path() / "state" / "token").c_str(), &status), 0);
  EXPECT_EQ(status.st_mode & 0777, 0600U);
  EXPECT_EQ(daemon.token().size(), 64U);

  EXPECT_EQ(daemon.call("GET", "/api/v1/health", {}, false).status, 200U);
  const HttpResponse anonymous = daemon.call("GET", "/api/v1/version", {}, false);
  EXPECT_EQ(anonymous.status, 401U);
  EXPECT_EQ(anonymous.header("content-type"), "application/problem+json");
  EXPECT_EQ(daemon.call("GET", "/api/v1/version").status, 200U);
  const HttpResponse approaches = daemon.call("GET", "/api/v1/approaches");
  EXPECT_EQ(approaches.status, 200U);
  EXPECT_NE(approaches.body.find("\"name\":\"callbacks-asio\""), std::string::npos);

  // Bad requests name the field.
  const HttpResponse not_json = daemon.call("POST", "/api/v1/runs", "{oops");
  EXPECT_EQ(not_json.status, 400U);
  EXPECT_NE(not_json.body.find("\"field\":\"body\""), std::string::npos) << not_json.body;
  const HttpResponse traversal =
      daemon.call("POST", "/api/v1/runs", R"({"scenarioFile":"../../etc/passwd"})");
  EXPECT_EQ(traversal.status, 400U);
  EXPECT_NE(traversal.body.find("\"field\":\"scenarioFile\""), std::string::npos);
  const HttpResponse unknown = daemon.call(
      "POST", "/api/v1/runs", R"({"scenarioFile":"scenarios-ci.csv","approaches":["nope"]})");
  EXPECT_EQ(unknown.status, 400U);
  EXPECT_NE(unknown.body.find("\"field\":\"approaches\""), std::string::npos);
  const HttpResponse negative = daemon.call(
      "POST", "/api/v1/runs", R"({"scenarioFile":"scenarios-ci.csv","testSeconds":-1})");
  EXPECT_EQ(negative.status, 400U);
  EXPECT_EQ(daemon.call("GET", "/api/v1/runs/12345").status, 404U);

  daemon.process().signal(SIGTERM);
  const auto ended = daemon.process().waitExit(30s);
  ASSERT_TRUE(ended);
  EXPECT_TRUE(ended->succeeded()) << ended->describe();
}

TEST(BenchdServe, RunsAScenarioFileThroughTheApiWhileItsEventsStream) {
  const benchd::testing::TempDir dir;
  Daemon daemon(dir.path());
  ASSERT_NE(daemon.port(), 0) << daemon.process().stderrText();
  const HttpResponse created = daemon.call(
      "POST", "/api/v1/runs",
      R"({"scenarioFile":"scenarios-ci.csv","approaches":["callbacks-asio"],"warmupSeconds":0,"testSeconds":2})");
  ASSERT_EQ(created.status, 202U) << created.body;
  EXPECT_EQ(created.header("location"), "/api/v1/runs/1");

  const std::string events = followEvents(daemon.port(), daemon.token(), 1, 120s);
  EXPECT_NE(events.find("text/event-stream"), std::string::npos) << events.substr(0, 500);
  EXPECT_GE(count(events, "event: snapshot"), 4U) << "four 2 s test phases, a snapshot a second";
  EXPECT_GE(count(events, "event: row"), 3U);
  EXPECT_NE(events.find("\"status\":\"completed\""), std::string::npos) << events;

  const HttpResponse run = daemon.call("GET", "/api/v1/runs/1");
  EXPECT_EQ(run.status, 200U);
  EXPECT_NE(run.body.find("\"status\":\"completed\""), std::string::npos) << run.body;
  EXPECT_TRUE(fs::exists(dir.path() / "state" / "results" / "scenarios-ci" / "results.md"));
  EXPECT_EQ(daemon.call("POST", "/api/v1/runs/1/stop").status, 409U);
  // A finished run's stream ends at once with its status.
  EXPECT_NE(followEvents(daemon.port(), daemon.token(), 1, 10s).find("event: end"),
            std::string::npos);

  daemon.process().signal(SIGTERM);
  const auto ended = daemon.process().waitExit(30s);
  ASSERT_TRUE(ended);
  EXPECT_TRUE(ended->succeeded()) << ended->describe();
}

}  // namespace
}  // namespace benchd::control
