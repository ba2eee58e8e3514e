// How long a request may hold the server, whatever the plugin: a request whose client hangs up
// stops waiting at once (its delay or its nested call), a header that trickles in is cut off at
// the header deadline (a total from its first byte, not a timeout per read), and a stop ends
// sleeping requests within --stop-timeout-ms. Real-time tests: every bound is generous and
// every wait is on the worker's stats or on the socket, never a fixed sleep.
#include "approach_plugins.hpp"
#include "http_client.hpp"
#include "worker_process.hpp"

#include <gtest/gtest.h>

#include <poll.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <future>
#include <netinet/in.h>
#include <stdexcept>
#include <string>
#include <string_view>
#include <sys/socket.h>
#include <vector>

namespace benchd::testing {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;
using Clock = std::chrono::steady_clock;

/// A delay no test waits out: a request that ends in time was ended by the server.
constexpr const char* kHourDelay = "3600000";

/// A plain loopback TCP client that sends raw bytes and never reads unless asked, so a test can
/// leave a request waiting and hang up on it. Closes the socket when destroyed.
class RawClient {
 public:
  explicit RawClient(std::uint16_t port) : fd_(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) {
    if (fd_ < 0)
      throw std::runtime_error(std::string("socket: ") + std::strerror(errno));
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(port);
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::connect(fd_, reinterpret_cast<const sockaddr*>(&address), sizeof(address)) != 0) {
      const std::string reason = std::strerror(errno);
      ::close(fd_);
      throw std::runtime_error("connect: " + reason);
    }
  }
  ~RawClient() { hangUp(); }
  RawClient(const RawClient&) = delete;
  RawClient& operator=(const RawClient&) = delete;

  /// False when the server has closed or reset the connection.
  bool send(const std::string& bytes) const {
    return ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL) ==
           static_cast<ssize_t>(bytes.size());
  }

  /// Waits up to `wait` for the server to end the connection: true once a read sees the end of
  /// the stream or a reset. Whatever the server sent before is read and dropped.
  bool closedByServerWithin(milliseconds wait) const {
    const auto deadline = Clock::now() + wait;
    for (;;) {
      const auto left = std::chrono::duration_cast<milliseconds>(deadline - Clock::now());
      if (left.count() <= 0)
        return false;
      pollfd watched{fd_, POLLIN, 0};
      if (::poll(&watched, 1, static_cast<int>(left.count())) <= 0)
        continue;
      char scratch[512];
      const ssize_t n = ::recv(fd_, scratch, sizeof(scratch), MSG_DONTWAIT);
      if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR))
        return true;
    }
  }

  /// Ends the sending side only (a half-close); the connection stays open for reading.
  void shutDownSending() const { ::shutdown(fd_, SHUT_WR); }

  void hangUp() {
    if (fd_ >= 0)
      ::close(fd_);
    fd_ = -1;
  }

 private:
  int fd_;
};

class RequestLifetimeConformance : public ::testing::TestWithParam<std::string> {
 protected:
  static void SetUpTestSuite() { raiseOpenFileLimit(); }

  /// A complete GET of the delayed endpoint, `depth` nested calls deep.
  [[nodiscard]] std::string delayedRequest(int depth) const {
    return "GET /" + GetParam() + "/epoch-millis?delayCallDepth=" + std::to_string(depth) +
           "&delayInMillis=" + kHourDelay + " HTTP/1.1\r\nHost: t\r\n\r\n";
  }

  /// Opens `count` connections, each sending `request`, and waits until the worker counts at
  /// least `in_flight` requests in flight.
  [[nodiscard]] std::vector<std::unique_ptr<RawClient>> startWaiting(WorkerProcess& worker,
                                                                     int count,
                                                                     const std::string& request,
                                                                     std::int64_t in_flight) const {
    std::vector<std::unique_ptr<RawClient>> clients;
    clients.reserve(static_cast<std::size_t>(count));
    for (int i = 0; i < count; ++i) {
      clients.push_back(std::make_unique<RawClient>(worker.port()));
      EXPECT_TRUE(clients.back()->send(request));
    }
    const auto waiting = worker.waitStats(
        [in_flight](const WorkerStats& s) { return s.counter("requests_in_flight") >= in_flight; },
        seconds(30));
    EXPECT_TRUE(waiting) << count << " requests should be waiting: " << worker.stderrText();
    return clients;
  }
};

/// The counters that show a request, a connection or a unit of concurrency still held. Poco's
/// dispatcher keeps one pool thread waiting for connections once it has had one, so one busy
/// pool thread is the idle state of threads-poco.
bool nothingHeld(const WorkerStats& stats) {
  for (const char* name : {"requests_in_flight", "connections_open", "upstream_connections_open",
                           "live_coroutines", "live_fibers"}) {
    const auto it = stats.counters.find(name);
    if (it != stats.counters.end() && it->second != 0)
      return false;
  }
  const auto busy = stats.counters.find("pool_threads_busy");
  return busy == stats.counters.end() || busy->second <= 1;
}

std::string countersText(const std::vector<std::string>& lines) {
  for (auto it = lines.rbegin(); it != lines.rend(); ++it) {
    if (it->find("\"stats\"") != std::string::npos)
      return *it;
  }
  return "(no stats line)";
}

/// 200 requests that would wait an hour, whose clients hang up at once: the server notices
/// each departure while the request waits and frees it (timer, coroutine, fiber or thread).
TEST_P(RequestLifetimeConformance, HungUpClientsFreeTheirWaitingRequests) {
  auto worker = WorkerProcess::serve(GetParam());
  auto clients = startWaiting(*worker, 200, delayedRequest(0), 200);
  clients.clear();  // every client hangs up
  const auto freed = worker->waitStats(nothingHeld, seconds(10));
  EXPECT_TRUE(freed) << "still held 10 s after the clients left: "
                     << countersText(worker->stdoutLines());
}

/// The same through nested calls: a departing client ends its request's nested call, which
/// ends the nested request's wait in turn, down the whole chain.
TEST_P(RequestLifetimeConformance, HungUpClientsEndTheirNestedCalls) {
  auto worker = WorkerProcess::serve(GetParam());
  // 50 chains of three requests each: depth 2 calls depth 1 calls depth 0, which waits.
  auto clients = startWaiting(*worker, 50, delayedRequest(2), 150);
  clients.clear();
  const auto freed = worker->waitStats(nothingHeld, seconds(10));
  EXPECT_TRUE(freed) << "still held 10 s after the clients left: "
                     << countersText(worker->stdoutLines());
}

/// A client that hangs up only its sending side (shutdown(SHUT_WR)) counts as gone too, and a
/// client that stays gets its answer: only departures end a wait.
TEST_P(RequestLifetimeConformance, OnlyTheDepartedRequestIsDropped) {
  auto worker = WorkerProcess::serve(GetParam());
  auto leaving = startWaiting(*worker, 1, delayedRequest(1), 2);
  auto answer = std::async(std::launch::async, [&worker, this] {
    HttpConnection client(worker->port(), seconds(20));
    return client.request("GET",
                          "/" + GetParam() + "/epoch-millis?delayCallDepth=1&delayInMillis=1500");
  });
  ASSERT_TRUE(worker->waitStats(
      [](const WorkerStats& s) { return s.counter("requests_in_flight") >= 4; }, seconds(10)));
  leaving.front()->shutDownSending();
  ASSERT_TRUE(worker->waitStats(
      [](const WorkerStats& s) { return s.counter("requests_in_flight") == 2; }, seconds(10)))
      << countersText(worker->stdoutLines());
  EXPECT_EQ(answer.get().status, 200U);
}

/// Bytes a client pipelines behind a waiting request are kept: the next request is served
/// after the first, on the same connection.
TEST_P(RequestLifetimeConformance, PipelinedRequestBehindAWaitingOneIsServed) {
  auto worker = WorkerProcess::serve(GetParam());
  HttpConnection client(worker->port(), seconds(20));
  const HttpResponse first = client.rawRequest(
      "GET /" + GetParam() + "/epoch-millis?delayCallDepth=1&delayInMillis=300 HTTP/1.1\r\n" +
      "Host: t\r\n\r\nGET /health HTTP/1.1\r\nHost: t\r\n\r\n");
  EXPECT_EQ(first.status, 200U) << first.body;
  const HttpResponse second = client.rawRequest("");
  EXPECT_EQ(second.status, 200U);
  EXPECT_EQ(second.body, R"({"status":"UP"})");
}

/// A header sent one byte at a time, each byte well within any per-read timeout, is cut off
/// once the header deadline (shortened to 1.5 s here) has passed since its first byte.
TEST_P(RequestLifetimeConformance, TricklingHeaderIsCutOffAtTheHeaderDeadline) {
  auto worker = WorkerProcess::serve(GetParam(), {"--option", "header_deadline_ms=1500"});
  RawClient client(worker->port());
  const std::string header =
      "GET /health HTTP/1.1\r\nHost: t\r\nX-Padding: " + std::string(200, 'x') + "\r\n\r\n";
  const auto first_byte = Clock::now();
  bool cut_off = false;
  // One byte about every 300 ms, each wait ending early if the server closes meanwhile.
  for (std::size_t sent = 0; sent < header.size() && !cut_off; ++sent) {
    if (!client.send(header.substr(sent, 1)) || client.closedByServerWithin(milliseconds(300))) {
      cut_off = true;
    }
    if (Clock::now() - first_byte > seconds(15))
      break;
  }
  const auto elapsed = std::chrono::duration_cast<milliseconds>(Clock::now() - first_byte);
  ASSERT_TRUE(cut_off) << "the trickling header was still read after " << elapsed.count() << " ms";
  EXPECT_GE(elapsed.count(), 1400) << "cut off before the deadline";
  EXPECT_LT(elapsed.count(), 10'000);
  // The server itself is fine.
  EXPECT_EQ(httpRequest(worker->port(), "GET", "/health").status, 200U);
}

/// The timeout options are checked like any other: a value the plugin cannot use (none, or
/// longer than the limit it shortens) is refused with a message naming the option.
TEST_P(RequestLifetimeConformance, BadTimeoutOptionsAreRefused) {
  for (const char* option :
       {"header_deadline_ms=0", "header_deadline_ms=20001", "upstream_margin_ms=0",
        "upstream_margin_ms=60001", "upstream_idle_ms=x", "upstream_idle_ms=30001"}) {
    WorkerProcess worker({"--plugin", pluginPath(GetParam()), "--port", "0", "--option", option});
    EXPECT_EQ(worker.waitExit(), 2) << option;
    const std::string name(option, std::string_view(option).find('='));
    EXPECT_NE(worker.stderrText().find(name), std::string::npos) << worker.stderrText();
  }
}

/// SIGTERM while requests sleep for an hour (some behind a nested call): the worker gives them
/// --stop-timeout-ms, then cuts them off and exits (5: requests were cut off) in time.
TEST_P(RequestLifetimeConformance, StopCutsOffSleepingRequestsAtTheStopTimeout) {
  auto worker = WorkerProcess::serve(GetParam(), {"--stop-timeout-ms", "2000"});
  auto sleeping = startWaiting(*worker, 20, delayedRequest(0), 20);
  auto nested = startWaiting(*worker, 10, delayedRequest(1), 40);
  const auto signalled = Clock::now();
  worker->signal(SIGTERM);
  const auto exit_code = worker->waitExit(seconds(15));
  ASSERT_TRUE(exit_code) << "still running 15 s after SIGTERM with a 2 s stop timeout";
  const auto elapsed = std::chrono::duration_cast<milliseconds>(Clock::now() - signalled);
  EXPECT_EQ(*exit_code, 5) << worker->stderrText();
  EXPECT_GE(elapsed.count(), 1900) << "the requests were given their stop timeout";
  const auto lines = worker->stdoutLines();
  ASSERT_FALSE(lines.empty());
  EXPECT_EQ(lines.back(), R"({"event":"stopped","drained":false})");
}

INSTANTIATE_TEST_SUITE_P(AllApproaches, RequestLifetimeConformance,
                         ::testing::ValuesIn(approachPlugins()),
                         [](const auto& param_info) { return testNameOf(param_info.param); });

}  // namespace
}  // namespace benchd::testing
