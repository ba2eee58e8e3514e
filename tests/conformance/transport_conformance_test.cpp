// HTTP behaviour every approach plugin must share: status codes for bad input, keep-alive and
// the no-keep-alive profile, many concurrent delayed requests, and a graceful stop.
#include "approach_plugins.hpp"
#include "http_client.hpp"
#include "sanitizer.hpp"
#include "worker_process.hpp"

#include <boost/algorithm/string/predicate.hpp>
#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <future>
#include <sstream>
#include <sys/resource.h>
#include <thread>

namespace benchd::testing {
namespace {

class TransportConformance : public ::testing::TestWithParam<std::string> {
 protected:
  static void SetUpTestSuite() { raiseOpenFileLimit(); }
  [[nodiscard]] std::string path(const std::string& resource) const {
    return "/" + GetParam() + resource;
  }
};

/// A JSON error body that names the problem.
void expectJsonError(const HttpResponse& response, unsigned status, const std::string& fragment) {
  EXPECT_EQ(response.status, status) << response.body;
  EXPECT_EQ(response.header("content-type"), "application/json");
  rapidjson::Document body;
  body.Parse(response.body.c_str());
  ASSERT_TRUE(body.IsObject()) << response.body;
  ASSERT_TRUE(body.HasMember("message") && body["message"].IsString()) << response.body;
  EXPECT_EQ(body["status"].GetInt(), static_cast<int>(status));
  EXPECT_NE(std::string(body["message"].GetString()).find(fragment), std::string::npos)
      << "message '" << body["message"].GetString() << "' should mention '" << fragment << "'";
}

TEST_P(TransportConformance, HealthIsUp) {
  auto worker = WorkerProcess::serve(GetParam());
  const HttpResponse response = httpRequest(worker->port(), "GET", "/health");
  EXPECT_EQ(response.status, 200u);
  EXPECT_EQ(response.body, R"({"status":"UP"})");
}

TEST_P(TransportConformance, BadInputGetsAClearError) {
  auto worker = WorkerProcess::serve(GetParam());
  HttpConnection client(worker->port());
  struct Case {
    std::string method;
    std::string target;
    unsigned status;
    std::string fragment;
  };
  const std::vector<Case> cases = {
      {"GET", path("/epoch-millis?delayInMillis=0"), 400, "delayCallDepth"},
      {"GET", path("/epoch-millis?delayCallDepth=0"), 400, "delayInMillis"},
      {"GET", path("/epoch-millis?delayCallDepth=x&delayInMillis=0"), 400, "delayCallDepth"},
      {"GET", path("/epoch-millis?delayCallDepth=-1&delayInMillis=0"), 400, "delayCallDepth"},
      {"GET", path("/epoch-millis?delayCallDepth=0&delayInMillis=1.5"), 400, "delayInMillis"},
      {"GET", path("/epoch-millis?delayCallDepth=99999&delayInMillis=0"), 400, "delayCallDepth"},
      {"GET", path("/movies?delayCallDepth=0&delayInMillis=0"), 400, "directorLastName"},
      {"GET", path("/movies?directorLastName=%zz&delayCallDepth=0&delayInMillis=0"), 400,
       "directorLastName"},
      {"DELETE", path("/movies/abc?delayCallDepth=0&delayInMillis=0"), 400, "movie id"},
      {"GET", path("/nothing-here?delayCallDepth=0&delayInMillis=0"), 404, "no such path"},
      {"GET", "/other-approach/epoch-millis?delayCallDepth=0&delayInMillis=0", 404, "no such path"},
      {"POST", path("/epoch-millis?delayCallDepth=0&delayInMillis=0"), 405, "GET"},
      {"PUT", path("/movies?delayCallDepth=0&delayInMillis=0"), 405, "GET or POST"},
      {"GET", path("/movies/1?delayCallDepth=0&delayInMillis=0"), 405, "DELETE"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.method + " " + c.target);
    expectJsonError(client.request(c.method, c.target), c.status, c.fragment);
  }
  const HttpResponse wrong_method = client.request("DELETE", path("/movies?delayCallDepth=0"));
  EXPECT_EQ(wrong_method.header("allow"), "GET, POST");

  expectJsonError(client.request("POST", path("/movies?delayCallDepth=0&delayInMillis=0"),
                                 R"({"not":"an array"})"),
                  400, "array");
  expectJsonError(
      client.request("POST", path("/movies?delayCallDepth=0&delayInMillis=0"), "[{\"title\": "),
      400, "JSON");
  EXPECT_TRUE(client.request("GET", "/health").status == 200u)
      << "the connection survives client errors";
}

TEST_P(TransportConformance, BodyOverOneMebibyteIsRefusedWith413) {
  auto worker = WorkerProcess::serve(GetParam());
  HttpConnection client(worker->port());
  const std::string huge(1024 * 1024 + 1, ' ');
  expectJsonError(client.request("POST", path("/movies?delayCallDepth=0&delayInMillis=0"), huge),
                  413, "exceeds");
  // The server is still fine afterwards.
  EXPECT_EQ(httpRequest(worker->port(), "GET", "/health").status, 200u);
}

TEST_P(TransportConformance, MalformedHttpIsRefusedWith400) {
  auto worker = WorkerProcess::serve(GetParam());
  for (const std::string request : {"GARBAGE\r\n\r\n", "GET /health HTTP/9.9\r\n\r\n"}) {
    HttpConnection client(worker->port(), std::chrono::seconds(10));
    const HttpResponse response = client.rawRequest(request);
    EXPECT_EQ(response.status, 400u) << request << ": " << response.body;
  }
}

/// The first answer to raw bytes sent on a fresh connection. Status 0 with the error when none
/// came within `timeout`: the server closed without answering or waited for input that a
/// correct reading of the framing would not wait for.
struct RawAnswer {
  unsigned status = 0;
  std::string error;
};

RawAnswer rawAnswer(std::uint16_t port, const std::string& bytes,
                    std::chrono::milliseconds timeout = std::chrono::seconds(5)) {
  try {
    HttpConnection client(port, timeout);
    return {client.rawRequest(bytes).status, {}};
  } catch (const std::runtime_error& e) {
    return {0, e.what()};
  }
}

struct FramingCase {
  std::string name;
  std::string head;  ///< header lines after the request line, each ending in CRLF
  std::string body;  ///< bytes after the blank line
  unsigned status;
};

/// Sends every case as one POST of the same movie list and compares the first answer: the
/// Asio plugins (Beast's parser) set the expected statuses, and every plugin must agree.
void expectFramingStatuses(std::uint16_t port, const std::string& target,
                           const std::vector<FramingCase>& cases) {
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    const RawAnswer answer =
        rawAnswer(port, "POST " + target + " HTTP/1.1\r\nHost: t\r\n" + c.head + "\r\n" + c.body);
    EXPECT_EQ(answer.status, c.status) << answer.error;
  }
}

/// RFC 9112 section 6.3: a request with neither Content-Length nor Transfer-Encoding has no
/// body. Reading to the end of the connection instead would swallow pipelined requests.
TEST_P(TransportConformance, RequestWithoutLengthOrChunkingHasNoBody) {
  auto worker = WorkerProcess::serve(GetParam());
  const std::string next = "GET /health HTTP/1.1\r\nHost: t\r\n\r\n";
  struct Case {
    std::string method;
    unsigned status;  ///< POST: an empty body is not a movie list; PUT: not allowed here
  };
  for (const Case& c : {Case{"POST", 400}, Case{"PUT", 405}}) {
    SCOPED_TRACE(c.method);
    HttpConnection client(worker->port(), std::chrono::seconds(5));
    try {
      const HttpResponse first =
          client.rawRequest(c.method + " " + path("/movies?delayCallDepth=0&delayInMillis=0") +
                            " HTTP/1.1\r\nHost: t\r\n\r\n" + next);
      EXPECT_EQ(first.status, c.status) << first.body;
      const HttpResponse pipelined = client.rawRequest("");
      EXPECT_EQ(pipelined.status, 200U);
      EXPECT_EQ(pipelined.body, R"({"status":"UP"})");
    } catch (const std::runtime_error& e) {
      ADD_FAILURE() << "no answer to the request and the one pipelined after it: " << e.what();
    }
  }
}

/// Conflicting or unparsable lengths are refused (RFC 9112 section 6.3, request smuggling);
/// repeated equal fields and leading zeros are one valid length. A list of equal values in
/// one field (`2, 2`) is left out: RFC 9112 lets a server take or refuse it, Beast takes it
/// and Poco's header parser cannot.
TEST_P(TransportConformance, ConflictingOrMalformedContentLengthIsRefusedWith400) {
  auto worker = WorkerProcess::serve(GetParam());
  expectFramingStatuses(
      worker->port(), path("/movies?delayCallDepth=0&delayInMillis=0"),
      {
          {"two different headers", "Content-Length: 2\r\nContent-Length: 3\r\n", "[]x", 400},
          {"two different values in a list", "Content-Length: 2, 3\r\n", "[]x", 400},
          {"trailing letter", "Content-Length: 2x\r\n", "[]", 400},
          {"plus sign", "Content-Length: +2\r\n", "[]", 400},
          {"minus sign", "Content-Length: -1\r\n", "[]", 400},
          {"space inside", "Content-Length: 1 2\r\n", "[]", 400},
          {"empty", "Content-Length: \r\n", "[]", 400},
          {"over 64 bits", "Content-Length: 99999999999999999999999\r\n", "[]", 400},
          {"two equal headers", "Content-Length: 2\r\nContent-Length: 2\r\n", "[]", 200},
          {"leading zero", "Content-Length: 02\r\n", "[]", 200},
      });
  const RawAnswer get = rawAnswer(
      worker->port(),
      "GET /health HTTP/1.1\r\nHost: t\r\nContent-Length: 0\r\nContent-Length: 1\r\n\r\nx");
  EXPECT_EQ(get.status, 400U) << "any method: " << get.error;
}

/// A declared length over sdk::kMaxRequestBodyBytes is refused as soon as the header says so,
/// not after the body arrived (or never: here it never does).
TEST_P(TransportConformance, LengthOverTheLimitGets413WithoutWaitingForTheBody) {
  auto worker = WorkerProcess::serve(GetParam());
  expectFramingStatuses(
      worker->port(), path("/movies?delayCallDepth=0&delayInMillis=0"),
      {
          {"Content-Length", "Content-Length: 100000000\r\n", "[]", 413},
          {"one chunk of 2 MiB", "Transfer-Encoding: chunked\r\n", "200000\r\n[]", 413},
      });
  const RawAnswer get = rawAnswer(
      worker->port(), "GET /health HTTP/1.1\r\nHost: t\r\nContent-Length: 100000000\r\n\r\n[]");
  EXPECT_EQ(get.status, 413U) << "any method: " << get.error;
}

/// A chunked body whose framing breaks after a valid first chunk is refused, not served as
/// the part read so far.
TEST_P(TransportConformance, InvalidChunkFramingIsRefusedWith400) {
  auto worker = WorkerProcess::serve(GetParam());
  const std::string chunked = "Transfer-Encoding: chunked\r\n";
  const std::string first = "2\r\n[]\r\n";
  expectFramingStatuses(
      worker->port(), path("/movies?delayCallDepth=0&delayInMillis=0"),
      {
          {"letters", chunked, first + "zz\r\n0\r\n\r\n", 400},
          {"minus sign", chunked, first + "-1\r\n0\r\n\r\n", 400},
          {"0x prefix", chunked, first + "0x0\r\n\r\n", 400},
          {"over 64 bits", chunked, first + "fffffffffffffffffff\r\n0\r\n\r\n", 400},
          {"empty size line", chunked, first + "\r\n0\r\n\r\n", 400},
          {"space before the size", chunked, " 2\r\n[]\r\n0\r\n\r\n", 400},
          {"space after the size", chunked, "2 \r\n[]\r\n0\r\n\r\n", 400},
          {"bare LF after the size", chunked, "2\n[]\r\n0\r\n\r\n", 400},
          {"no CRLF after the data", chunked, "2\r\n[]XX0\r\n\r\n", 400},
          {"data shorter than the size", chunked, "5\r\n[]\r\n0\r\n\r\n", 400},
          {"valid", chunked, first + "0\r\n\r\n", 200},
          {"upper-case coding name", "Transfer-Encoding: CHUNKED\r\n", first + "0\r\n\r\n", 200},
          {"extension", chunked, "2 ;a=b\r\n[]\r\n0\r\n\r\n", 200},
          {"leading zeros", chunked, "000000002\r\n[]\r\n0\r\n\r\n", 200},
          {"trailer field", chunked, first + "0\r\nX-Trailer: 1\r\n\r\n", 200},
      });
}

/// Content-Length beside Transfer-Encoding is refused in either order (RFC 9112 section 6.1:
/// a request that a proxy and the server could frame differently).
TEST_P(TransportConformance, ContentLengthWithTransferEncodingIsRefusedWith400) {
  auto worker = WorkerProcess::serve(GetParam());
  expectFramingStatuses(worker->port(), path("/movies?delayCallDepth=0&delayInMillis=0"),
                        {
                            {"length first", "Content-Length: 7\r\nTransfer-Encoding: chunked\r\n",
                             "2\r\n[]\r\n0\r\n\r\n", 400},
                            {"chunked first", "Transfer-Encoding: chunked\r\nContent-Length: 7\r\n",
                             "2\r\n[]\r\n0\r\n\r\n", 400},
                        });
}

TEST_P(TransportConformance, KeepAliveServesManyRequestsOnOneConnection) {
  auto worker = WorkerProcess::serve(GetParam());
  HttpConnection client(worker->port());
  for (int i = 0; i < 20; ++i) {
    const HttpResponse response =
        client.request("GET", path("/epoch-millis?delayCallDepth=1&delayInMillis=0"));
    ASSERT_EQ(response.status, 200u);
    ASSERT_TRUE(response.keep_alive);
  }
  // A server that says keep-alive and closes anyway would make every client reconnect.
  EXPECT_FALSE(client.closedByServer(std::chrono::milliseconds(200)));
  auto stats = worker->waitStats([](const WorkerStats& s) {
    return s.counter("requests_served") >= 40 && s.counter("requests_in_flight") == 0;
  });
  ASSERT_TRUE(stats);
  // One client connection plus the pooled upstream connection(s), not one per request.
  EXPECT_LE(stats->counter("connections_open"), 3);
}

TEST_P(TransportConformance, NoKeepAliveProfileClosesAfterEachResponse) {
  auto worker = WorkerProcess::serve(GetParam(), {"--profile", "no-keep-alive"});
  for (int depth = 0; depth <= 1; ++depth) {
    HttpConnection client(worker->port());
    const HttpResponse response = client.request(
        "GET", path("/epoch-millis?delayCallDepth=" + std::to_string(depth) + "&delayInMillis=0"));
    EXPECT_EQ(response.status, 200u);
    EXPECT_FALSE(response.keep_alive);
    EXPECT_TRUE(boost::iequals(response.header("connection"), "close"))
        << response.header("connection");
    EXPECT_TRUE(client.closedByServer());
  }
}

TEST_P(TransportConformance, TwoThousandConcurrentDelayedRequestsAllSucceed) {
  auto worker = WorkerProcess::serve(GetParam());
  const auto results = concurrentGets(
      worker->port(), path("/epoch-millis?delayCallDepth=0&delayInMillis=100"), 2000);
  std::size_t ok = 0;
  std::string first_failure;
  for (const auto& result : results) {
    if (result.status == 200) {
      ++ok;
      EXPECT_GE(result.elapsed, std::chrono::milliseconds(100));
    } else if (first_failure.empty()) {
      first_failure = std::to_string(result.status) + " " + result.error;
    }
  }
  EXPECT_EQ(ok, results.size()) << "first failure: " << first_failure;
}

TEST_P(TransportConformance, GracefulStopFinishesRequestsInFlight) {
  auto worker = WorkerProcess::serve(GetParam());
  auto pending = std::async(std::launch::async, [port = worker->port(), this] {
    return concurrentGets(port, path("/epoch-millis?delayCallDepth=1&delayInMillis=600"), 50);
  });
  ASSERT_TRUE(worker->waitStats([](const WorkerStats& s) {
    return s.counter("requests_in_flight") >= 100;
  })) << "50 requests with one nested call each should be in flight";
  worker->signal(SIGTERM);
  const auto results = pending.get();
  for (const auto& result : results) {
    EXPECT_EQ(result.status, 200u) << result.error;
  }
  EXPECT_EQ(worker->waitExit(), 0) << worker->stderrText();
  const auto lines = worker->stdoutLines();
  ASSERT_FALSE(lines.empty());
  EXPECT_EQ(lines.back(), R"({"event":"stopped","drained":true})");
}

/// CPU time (user + system) the process has used so far.
std::chrono::milliseconds cpuTimeOf(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
  // Fields after the command name (which may hold spaces) start after the last ')'.
  std::istringstream fields(text.substr(text.rfind(')') + 2));
  std::string field;
  std::uint64_t user = 0;
  std::uint64_t system = 0;
  for (int index = 3; index <= 15 && fields >> field; ++index) {
    if (index == 14) {
      user = std::stoull(field);
    } else if (index == 15) {
      system = std::stoull(field);
    }
  }
  const long ticks_per_second = ::sysconf(_SC_CLK_TCK);
  return std::chrono::milliseconds((user + system) * 1000 /
                                   static_cast<std::uint64_t>(ticks_per_second));
}

std::size_t openDescriptorsOf(pid_t pid) {
  std::size_t count = 0;
  for ([[maybe_unused]] const auto& entry :
       std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/fd")) {
    ++count;
  }
  return count;
}

/// Out of descriptors, the server neither spins on the connections waiting in its backlog nor
/// loses them: once descriptors are free again they are served.
TEST_P(TransportConformance, OutOfDescriptorsItWaitsWithoutSpinningAndThenServes) {
  if (kAddressSanitizer)
    GTEST_SKIP() << kNoDescriptorsUnderSanitizers;
  auto worker = WorkerProcess::serve(GetParam());
  const pid_t pid = worker->pid();
  rlimit original{};
  ASSERT_EQ(::prlimit(pid, RLIMIT_NOFILE, nullptr, &original), 0);
  const rlim_t tight = openDescriptorsOf(pid) + 4;
  // The soft limit only: raising a hard limit again would need privileges.
  const rlimit lowered{tight, original.rlim_max};
  ASSERT_EQ(::prlimit(pid, RLIMIT_NOFILE, &lowered, nullptr), 0) << std::strerror(errno);

  // More connections than descriptors: the kernel completes them into the backlog.
  constexpr int kClients = 20;
  std::vector<std::unique_ptr<HttpConnection>> clients;
  clients.reserve(kClients);
  for (int index = 0; index < kClients; ++index) {
    clients.push_back(std::make_unique<HttpConnection>(worker->port(), std::chrono::seconds(5)));
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  const auto cpu_before = cpuTimeOf(pid);
  const auto wall_before = std::chrono::steady_clock::now();
  std::this_thread::sleep_for(std::chrono::seconds(2));
  const auto cpu_used = cpuTimeOf(pid) - cpu_before;
  const auto wall = std::chrono::duration_cast<std::chrono::milliseconds>(
      std::chrono::steady_clock::now() - wall_before);
  // A spinning accept loop burns a whole core (~2,000 ms here); waiting costs next to nothing.
  EXPECT_LT(cpu_used.count(), wall.count() / 4)
      << "the worker used " << cpu_used.count() << " ms of CPU in " << wall.count()
      << " ms while out of descriptors";

  // Descriptors free again: the waiting connections and new ones are served.
  ASSERT_EQ(::prlimit(pid, RLIMIT_NOFILE, &original, nullptr), 0);
  // None was lost: each waited for a descriptor, in the backlog or accepted (threads-poco once
  // closed a connection it had accepted with the last descriptor, when its first wait for a
  // request needed one more for Poco's epoll-based Socket::poll).
  for (auto& client : clients) {
    const HttpResponse waited = client->request("GET", "/health");
    EXPECT_EQ(waited.status, 200U);
  }
  clients.clear();
  EXPECT_EQ(httpRequest(worker->port(), "GET", "/health").status, 200U);
  const auto stats = worker->waitStats([](const WorkerStats& now) {
    const auto it = now.counters.find("accept_errors");
    return it == now.counters.end() || it->second > 0;
  });
  ASSERT_TRUE(stats) << "the Asio plugins count the failed accepts in accept_errors";
}

INSTANTIATE_TEST_SUITE_P(AllApproaches, TransportConformance,
                         ::testing::ValuesIn(approachPlugins()),
                         [](const auto& param_info) { return testNameOf(param_info.param); });

}  // namespace
}  // namespace benchd::testing
