// The rules of plugins/sdk/CONTRACT.md that the other conformance files do not check yet, held
// against every approach plugin in a real benchd-worker: how parameters are parsed, which
// check answers first, what every answer carries, when the body is read and the save done,
// the 502 of a failed nested call, the required counters, and the answer to a request in
// flight at a stop. Every wait is on the worker's stats or on the socket.
#include "approach_plugins.hpp"
#include "http_client.hpp"
#include "sanitizer.hpp"
#include "worker_process.hpp"

#include <benchd/plugin.h>
#include <benchd/sdk/limits.hpp>
#include <benchd/sdk/plugin_support.hpp>

#include <boost/algorithm/string/predicate.hpp>
#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <future>
#include <set>
#include <stdexcept>
#include <string>
#include <sys/resource.h>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

namespace benchd::testing {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

// The bounds of CONTRACT.md, "Limits", from the SDK header that defines them once.
constexpr int kMaxDepth = sdk::kMaxDelayCallDepth;
constexpr std::int64_t kMaxDelay = sdk::kMaxDelayMillis;

/// A movie whose director's last name has a space, for the percent-decoding rules.
const std::string kVanSantMovie =
    R"([{"title":"Elephant","releaseYear":2003,"genre":"DRAMA",)"
    R"("directors":[{"firstName":"Gus","lastName":"Van Sant","birthday":"1952-07-24"}],)"
    R"("rating":7.2}])";

class ContractConformance : public ::testing::TestWithParam<std::string> {
 protected:
  static void SetUpTestSuite() { raiseOpenFileLimit(); }

  [[nodiscard]] std::string path(const std::string& resource) const {
    return "/" + GetParam() + resource;
  }
  [[nodiscard]] std::string epoch(const std::string& query) const {
    return path("/epoch-millis?" + query);
  }

  /// Sends a request that waits `delay_millis`, and once the worker has it in flight, SIGTERM:
  /// the stop begins with that request in flight. The future holds its answer.
  std::future<HttpResponse> stopWithARequestInFlight(WorkerProcess& worker, int delay_millis) {
    auto answer = std::async(std::launch::async, [&worker, delay_millis, this] {
      HttpConnection client(worker.port());
      return client.request(
          "GET", epoch("delayCallDepth=0&delayInMillis=" + std::to_string(delay_millis)));
    });
    EXPECT_TRUE(worker.waitStats(
        [](const WorkerStats& s) { return s.counter("requests_in_flight") >= 1; }));
    worker.signal(SIGTERM);
    return answer;
  }
};

/// The error body every plugin sends: a JSON object with exactly status, error (the reason
/// phrase) and message, the message naming `fragment`; Content-Type application/json.
void expectErrorBody(const HttpResponse& response, unsigned status, const std::string& fragment) {
  EXPECT_EQ(response.status, status) << response.body;
  EXPECT_EQ(response.header("content-type"), "application/json");
  rapidjson::Document body;
  body.Parse(response.body.c_str());
  ASSERT_TRUE(body.IsObject()) << response.body;
  EXPECT_EQ(body.MemberCount(), 3U) << response.body;
  ASSERT_TRUE(body.HasMember("status") && body["status"].IsInt()) << response.body;
  ASSERT_TRUE(body.HasMember("error") && body["error"].IsString()) << response.body;
  ASSERT_TRUE(body.HasMember("message") && body["message"].IsString()) << response.body;
  EXPECT_EQ(body["status"].GetInt(), static_cast<int>(status));
  const std::string reason = [status] {
    switch (status) {
      case 400:
        return "Bad Request";
      case 404:
        return "Not Found";
      case 405:
        return "Method Not Allowed";
      case 413:
        return "Payload Too Large";
      case 502:
        return "Bad Gateway";
      default:
        return "?";
    }
  }();
  EXPECT_EQ(std::string(body["error"].GetString()), reason);
  EXPECT_NE(std::string(body["message"].GetString()).find(fragment), std::string::npos)
      << "message '" << body["message"].GetString() << "' should mention '" << fragment << "'";
}

struct Case {
  std::string method;
  std::string target;
  unsigned status;
  std::string fragment;  ///< in the error message; empty for a 200
};

void expectAnswers(HttpConnection& client, const std::vector<Case>& cases) {
  for (const auto& c : cases) {
    SCOPED_TRACE(c.method + " " + c.target);
    const HttpResponse response = client.request(c.method, c.target);
    if (c.status == 200) {
      EXPECT_EQ(response.status, 200U) << response.body;
    } else {
      expectErrorBody(response, c.status, c.fragment);
    }
  }
}

/// The stats line once every request so far has been answered.
WorkerStats quietStats(WorkerProcess& worker) {
  auto stats = worker.waitQuiet();
  if (!stats)
    throw std::runtime_error("requests still in flight: " + worker.stderrText());
  return *stats;
}

/// Numbers are plain decimal digits: leading zeros are fine; a sign other than '-' on a zero,
/// a percent-encoded digit, hex, blanks and empty values are not.
TEST_P(ContractConformance, NumbersAreDecimalDigitsWithLeadingZerosAllowed) {
  auto worker = WorkerProcess::serve(GetParam());
  HttpConnection client(worker->port());
  expectAnswers(client,
                {
                    {"GET", epoch("delayCallDepth=00&delayInMillis=000"), 200, ""},
                    {"GET", epoch("delayCallDepth=01&delayInMillis=0"), 200, ""},
                    {"GET", epoch("delayCallDepth=-0&delayInMillis=-0"), 200, ""},
                    {"GET", epoch("delayCallDepth=+1&delayInMillis=0"), 400, "delayCallDepth"},
                    {"GET", epoch("delayCallDepth=0&delayInMillis=+0"), 400, "delayInMillis"},
                    {"GET", epoch("delayCallDepth=%30&delayInMillis=0"), 400, "delayCallDepth"},
                    {"GET", epoch("delayCallDepth=0x1&delayInMillis=0"), 400, "delayCallDepth"},
                    {"GET", epoch("delayCallDepth=0&delayInMillis=1e3"), 400, "delayInMillis"},
                    {"GET", epoch("delayCallDepth=0+&delayInMillis=0"), 400, "delayCallDepth"},
                    {"GET", epoch("delayCallDepth=&delayInMillis=0"), 400, "got ''"},
                    {"GET", epoch("delayCallDepth&delayInMillis=0"), 400, "got ''"},
                    {"GET", epoch("delayCallDepth=0&delayInMillis="), 400, "delayInMillis"},
                });
}

/// Both ends of each range are accepted, one past them is refused.
TEST_P(ContractConformance, ParameterRangesAreInclusive) {
  auto worker = WorkerProcess::serve(GetParam());
  HttpConnection client(worker->port());
  const std::string too_deep = std::to_string(kMaxDepth + 1);
  const std::string too_long = std::to_string(kMaxDelay + 1);
  expectAnswers(client,
                {
                    {"GET", epoch("delayCallDepth=" + too_deep + "&delayInMillis=0"), 400,
                     "from 0 to " + std::to_string(kMaxDepth)},
                    {"GET", epoch("delayCallDepth=0&delayInMillis=" + too_long), 400,
                     "from 0 to " + std::to_string(kMaxDelay)},
                    {"GET", epoch("delayCallDepth=0&delayInMillis=-1"), 400, "delayInMillis"},
                });

  // The deepest chain: 64 nested calls, 65 requests served.
  const WorkerStats before = quietStats(*worker);
  const HttpResponse deepest = client.request(
      "GET", epoch("delayCallDepth=" + std::to_string(kMaxDepth) + "&delayInMillis=0"));
  EXPECT_EQ(deepest.status, 200U) << deepest.body;
  const WorkerStats after = quietStats(*worker);
  EXPECT_EQ(after.counter("upstream_calls") - before.counter("upstream_calls"), kMaxDepth);

  // The longest delay is accepted: the request waits instead of being refused at once.
  HttpConnection waiting(worker->port(), milliseconds(500));
  EXPECT_THROW(
      waiting.request("GET", epoch("delayCallDepth=0&delayInMillis=" + std::to_string(kMaxDelay))),
      std::runtime_error)
      << "a request with the longest delay was answered at once";
}

/// A parameter's first occurrence counts; names are exact (case, no decoding); unknown
/// parameters are ignored; only '&' separates parameters.
TEST_P(ContractConformance, QueryParametersAreMatchedByExactNameFirstOccurrenceWins) {
  auto worker = WorkerProcess::serve(GetParam());
  HttpConnection client(worker->port());
  expectAnswers(
      client, {
                  {"GET", epoch("delayCallDepth=0&delayCallDepth=x&delayInMillis=0"), 200, ""},
                  {"GET", epoch("x=1&delayInMillis=0&other&delayCallDepth=0&directorLastName=%zz"),
                   200, ""},
                  {"GET", epoch("DelayCallDepth=0&delayInMillis=0"), 400,
                   "missing query parameter delayCallDepth"},
                  {"GET", epoch("delay%43allDepth=0&delayInMillis=0"), 400,
                   "missing query parameter delayCallDepth"},
                  {"GET", epoch("delayCallDepth=0;delayInMillis=0"), 400, "delayCallDepth"},
              });
}

/// directorLastName is percent-decoded ('+' is a space, hex in either case), must not be
/// empty, and is compared exactly (case-sensitive) with the stored last names.
TEST_P(ContractConformance, DirectorNameIsPercentDecodedWithPlusAsSpace) {
  auto worker = WorkerProcess::serve(GetParam(), {"--profile", "read-write"});
  HttpConnection client(worker->port());
  const std::string params = "&delayCallDepth=0&delayInMillis=0";
  auto movies = [&](const std::string& name) {
    return path("/movies?directorLastName=" + name + params);
  };
  ASSERT_EQ(client.request("POST", path("/movies?delayCallDepth=0&delayInMillis=0"), kVanSantMovie)
                .status,
            200U);
  for (const std::string name : {"Van+Sant", "Van%20Sant", "V%61n%20Sant", "V%61n%2bSant"}) {
    SCOPED_TRACE(name);
    const HttpResponse response = client.request("GET", movies(name));
    ASSERT_EQ(response.status, 200U) << response.body;
    if (name == "V%61n%2bSant") {
      EXPECT_EQ(response.body, "[]") << "%2B is a literal '+', not a space";
    } else {
      EXPECT_NE(response.body.find("Elephant"), std::string::npos) << response.body;
    }
  }
  const HttpResponse hitchcock = client.request("GET", movies("Hitchcock"));
  ASSERT_EQ(hitchcock.status, 200U);
  EXPECT_NE(hitchcock.body, "[]");
  EXPECT_EQ(client.request("GET", movies("Hitchc%6Fck")).body, hitchcock.body);
  EXPECT_EQ(client.request("GET", movies("Hitchc%6fck")).body, hitchcock.body);
  EXPECT_EQ(client.request("GET", movies("hitchcock")).body, "[]") << "names are case-sensitive";
  expectAnswers(client,
                {
                    {"GET", movies(""), 400, "directorLastName"},
                    {"GET", movies("%"), 400, "directorLastName"},
                    {"GET", movies("Van%2"), 400, "directorLastName"},
                    {"GET", movies("%G0"), 400, "directorLastName"},
                    {"GET", path("/movies?directorLastName" + params), 400, "directorLastName"},
                });
}

/// Paths are compared byte for byte: no decoding, no trailing slash, no case folding; the
/// query of /health is ignored.
TEST_P(ContractConformance, PathsAreMatchedExactly) {
  auto worker = WorkerProcess::serve(GetParam());
  HttpConnection client(worker->port());
  const std::string q = "?delayCallDepth=0&delayInMillis=0";
  expectAnswers(client, {
                            {"GET", "/health?anything=1", 200, ""},
                            {"GET", "/health/", 404, "no such path"},
                            {"GET", path("/epoch-millis/" + q), 404, "no such path"},
                            {"GET", path("/Epoch-Millis" + q), 404, "no such path"},
                            {"GET", path("/epoch%2Dmillis" + q), 404, "no such path"},
                            {"GET", path(q), 404, "no such path"},
                            {"GET", path("/" + q), 404, "no such path"},
                            {"DELETE", path("/movies/" + q), 404, "no such path"},
                            {"DELETE", path("/movies/1/2" + q), 404, "no such path"},
                            {"GET", "/" + GetParam() + "x/epoch-millis" + q, 404, "no such path"},
                        });
}

/// A movie id is 1 to 19 decimal digits up to 2^63 - 1; an id nothing has is deleted as a
/// no-op with 200.
TEST_P(ContractConformance, MovieIdIsANonNegative64BitDecimal) {
  auto worker = WorkerProcess::serve(GetParam());
  HttpConnection client(worker->port());
  const std::string q = "?delayCallDepth=0&delayInMillis=0";
  expectAnswers(client, {
                            {"DELETE", path("/movies/007" + q), 200, ""},
                            {"DELETE", path("/movies/9223372036854775807" + q), 200, ""},
                            {"DELETE", path("/movies/9223372036854775808" + q), 400, "movie id"},
                            {"DELETE", path("/movies/-1" + q), 400, "movie id"},
                            {"DELETE", path("/movies/+1" + q), 400, "movie id"},
                            {"DELETE", path("/movies/%31" + q), 400, "movie id"},
                            {"DELETE", path("/movies/1.0" + q), 400, "movie id"},
                        });
}

/// Which check answers when a request breaks several rules: framing and body size (read
/// before anything is routed), then the path (404), the method (405), the movie id, then the
/// parameters in the order delayCallDepth, delayInMillis, directorLastName.
TEST_P(ContractConformance, ChecksRunInTheDocumentedOrder) {
  auto worker = WorkerProcess::serve(GetParam());
  HttpConnection client(worker->port());
  expectAnswers(
      client,
      {
          {"POST", path("/nothing"), 404, "no such path"},
          {"POST", path("/epoch-millis"), 405, "GET"},
          {"GET", path("/movies/abc"), 405, "DELETE"},
          {"DELETE", path("/movies/abc"), 400, "movie id"},
          {"GET", epoch("delayCallDepth=x&delayInMillis=y"), 400, "delayCallDepth"},
          {"GET", epoch("delayInMillis=y"), 400, "delayCallDepth"},
          {"GET", path("/movies?delayCallDepth=0&delayInMillis=y"), 400, "delayInMillis"},
          {"GET", path("/movies?directorLastName=%zz&delayCallDepth=0"), 400, "delayInMillis"},
      });
  // The transport's refusals come before routing: a path that does not exist gets them too.
  for (const auto& [head, status] : std::vector<std::pair<std::string, unsigned>>{
           {"Content-Length: 100000000\r\n", 413},
           {"Content-Length: 2x\r\n", 400},
       }) {
    SCOPED_TRACE(head);
    HttpConnection raw(worker->port(), seconds(5));
    const HttpResponse response =
        raw.rawRequest("PUT " + path("/nothing") + " HTTP/1.1\r\nHost: t\r\n" + head + "\r\n[]");
    expectErrorBody(response, status, "");
    EXPECT_FALSE(response.keep_alive) << "a framing refusal ends the connection";
  }
}

/// The body is handed to the core only after the delay and the nested calls: a bad body is
/// refused after the wait, with the nested call made.
TEST_P(ContractConformance, BadBodyIsRefusedAfterTheDelayAndTheNestedCall) {
  auto worker = WorkerProcess::serve(GetParam());
  HttpConnection client(worker->port());
  const WorkerStats before = quietStats(*worker);
  const HttpResponse response =
      client.request("POST", path("/movies?delayCallDepth=1&delayInMillis=300"), "[{");
  expectErrorBody(response, 400, "JSON");
  EXPECT_GE(response.elapsed, milliseconds(300));
  const WorkerStats after = quietStats(*worker);
  EXPECT_EQ(after.counter("upstream_calls") - before.counter("upstream_calls"), 1);
}

/// Under read-write, a POST stores its movies after its wait, not before: a read during the
/// wait does not see them, a read after the answer does.
TEST_P(ContractConformance, SaveHappensAfterTheWait) {
  auto worker = WorkerProcess::serve(GetParam(), {"--profile", "read-write"});
  const std::string read =
      path("/movies?directorLastName=Van+Sant&delayCallDepth=0&delayInMillis=0");
  auto saving = std::async(std::launch::async, [&worker, this] {
    HttpConnection writer(worker->port());
    return writer.request("POST", path("/movies?delayCallDepth=0&delayInMillis=2000"),
                          kVanSantMovie);
  });
  ASSERT_TRUE(
      worker->waitStats([](const WorkerStats& s) { return s.counter("requests_in_flight") >= 1; }));
  HttpConnection reader(worker->port());
  EXPECT_EQ(reader.request("GET", read).body, "[]") << "saved before the wait was over";
  EXPECT_EQ(saving.get().status, 200U);
  EXPECT_NE(reader.request("GET", read).body.find("Elephant"), std::string::npos);
}

/// Content types, bodies and headers of the answers that are not errors, and the Allow header
/// of every 405; client errors keep the connection, framing errors end it.
TEST_P(ContractConformance, AnswersCarryTheDocumentedHeadersAndBodies) {
  auto worker = WorkerProcess::serve(GetParam());
  HttpConnection client(worker->port());
  const std::string q = "?delayCallDepth=0&delayInMillis=0";

  const HttpResponse health = client.request("GET", "/health");
  EXPECT_EQ(health.status, 200U);
  EXPECT_EQ(health.header("content-type"), "application/json");
  EXPECT_EQ(health.body, R"({"status":"UP"})");

  const HttpResponse millis = client.request("GET", path("/epoch-millis" + q));
  EXPECT_EQ(millis.header("content-type"), "application/json");
  EXPECT_FALSE(millis.body.empty());
  EXPECT_EQ(millis.body.find_first_not_of("0123456789"), std::string::npos) << millis.body;

  const HttpResponse movies =
      client.request("GET", path("/movies?directorLastName=Allen&" + q.substr(1)));
  EXPECT_EQ(movies.header("content-type"), "application/json");
  const HttpResponse saved = client.request("POST", path("/movies" + q), "[]");
  EXPECT_EQ(saved.status, 200U);
  EXPECT_EQ(saved.header("content-type"), "application/json");
  EXPECT_EQ(saved.body, "[]");

  const HttpResponse deleted = client.request("DELETE", path("/movies/1" + q));
  EXPECT_EQ(deleted.status, 200U);
  EXPECT_EQ(deleted.body, "");
  EXPECT_EQ(deleted.header("content-length"), "0");
  EXPECT_EQ(deleted.headers.count("content-type"), 0U) << "an empty 200 has no Content-Type";

  for (const auto& [method, target, allow] :
       std::vector<std::tuple<std::string, std::string, std::string>>{
           {"POST", "/health", "GET"},
           {"DELETE", path("/epoch-millis" + q), "GET"},
           {"PUT", path("/movies" + q), "GET, POST"},
           {"POST", path("/movies/1" + q), "DELETE"},
       }) {
    SCOPED_TRACE(method + " " + target);
    const HttpResponse refused = client.request(method, target);
    expectErrorBody(refused, 405, "use ");
    EXPECT_EQ(refused.header("allow"), allow);
    EXPECT_TRUE(refused.keep_alive) << "a client error keeps the connection";
  }
  const HttpResponse missing = client.request("GET", path("/nothing"));
  expectErrorBody(missing, 404, "no such path");
  EXPECT_TRUE(missing.keep_alive);

  HttpConnection big(worker->port(), seconds(5));
  const HttpResponse too_large =
      big.request("POST", path("/movies" + q), std::string(sdk::kMaxRequestBodyBytes + 1, ' '));
  expectErrorBody(too_large, 413, "exceeds");
  EXPECT_FALSE(too_large.keep_alive) << "a 413 ends the connection";
  EXPECT_TRUE(big.closedByServer());
}

/// The lowest descriptor number the process `pid` has free: where its next socket would go.
int lowestFreeDescriptor(pid_t pid) {
  std::set<int> open;
  for (const auto& entry :
       std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/fd")) {
    open.insert(std::stoi(entry.path().filename().string()));
  }
  int lowest = 0;
  while (open.contains(lowest))
    ++lowest;
  return lowest;
}

/// A nested call that fails (here: the worker may open no further descriptor, so it cannot
/// connect to itself) answers 502 with the JSON error body; the connection and the server stay
/// usable. The soft limit is the lowest free descriptor number rather than 0 so that poll()
/// on the descriptors already open still works (it refuses more descriptors than the limit).
/// Poco's socket waits each open a descriptor of their own (an epoll queue per wait), so under
/// threads-poco one descriptor more is left: enough to read the request, and taken by the
/// nested call's socket, whose connect then cannot wait.
TEST_P(ContractConformance, FailedNestedCallIsAnswered502) {
  if (kAddressSanitizer)
    GTEST_SKIP() << kNoDescriptorsUnderSanitizers;
  auto worker = WorkerProcess::serve(GetParam());
  HttpConnection client(worker->port());
  ASSERT_EQ(client.request("GET", "/health").status, 200U);  // accepted before the limit
  const pid_t pid = worker->pid();
  rlimit original{};
  ASSERT_EQ(::prlimit(pid, RLIMIT_NOFILE, nullptr, &original), 0);
  const int spare = GetParam() == "threads-poco" ? 1 : 0;
  const auto tight = static_cast<rlim_t>(lowestFreeDescriptor(pid) + spare);
  const rlimit lowered{tight, original.rlim_max};  // the soft limit only
  ASSERT_EQ(::prlimit(pid, RLIMIT_NOFILE, &lowered, nullptr), 0) << std::strerror(errno);
  HttpResponse failed;
  try {
    failed = client.request("GET", epoch("delayCallDepth=1&delayInMillis=0"));
  } catch (const std::runtime_error& e) {
    ADD_FAILURE() << "no answer: " << e.what() << "\n" << worker->stderrText();
  }
  ASSERT_EQ(::prlimit(pid, RLIMIT_NOFILE, &original, nullptr), 0);
  expectErrorBody(failed, 502, "nested call");
  HttpConnection again(worker->port());
  const HttpResponse after = again.request("GET", epoch("delayCallDepth=1&delayInMillis=0"));
  EXPECT_EQ(after.status, 200U) << after.body;
}

/// Every plugin reports the four counters the runner reads, with their meaning: a request
/// waiting behind a nested call is two requests in flight on two inbound connections.
TEST_P(ContractConformance, EveryPluginReportsTheRequiredCounters) {
  auto worker = WorkerProcess::serve(GetParam());
  const WorkerStats before = quietStats(*worker);
  for (const char* name :
       {"requests_served", "requests_in_flight", "upstream_calls", "connections_open"}) {
    EXPECT_EQ(before.counters.count(name), 1U) << name;
  }
  auto answer = std::async(std::launch::async, [&worker, this] {
    return httpRequest(worker->port(), "GET", epoch("delayCallDepth=1&delayInMillis=1000"));
  });
  const auto waiting = worker->waitStats([](const WorkerStats& s) {
    return s.counter("requests_in_flight") == 2 && s.counter("connections_open") >= 2;
  });
  EXPECT_TRUE(waiting) << "one request and its nested request should be in flight";
  EXPECT_EQ(answer.get().status, 200U);
  const WorkerStats after = quietStats(*worker);
  EXPECT_EQ(after.counter("requests_served") - before.counter("requests_served"), 2);
  EXPECT_EQ(after.counter("upstream_calls") - before.counter("upstream_calls"), 1);
}

/// A request in flight when the stop begins gets its answer, marked as the connection's last.
TEST_P(ContractConformance, RequestInFlightAtTheStopIsAnsweredWithConnectionClose) {
  auto worker = WorkerProcess::serve(GetParam());
  const HttpResponse response = stopWithARequestInFlight(*worker, 800).get();
  EXPECT_EQ(response.status, 200U) << response.body;
  EXPECT_FALSE(response.keep_alive);
  EXPECT_TRUE(boost::iequals(response.header("connection"), "close"))
      << response.header("connection");
  EXPECT_EQ(worker->waitExit(), 0) << worker->stderrText();
}

/// A request on a connection accepted during the drain may be closed unanswered or answered
/// with `Connection: close` (section 8: nothing marks a nested call, so a plugin cannot tell it
/// from a new client). New connections are tried one after the other from the SIGTERM on: until
/// the drain begins they are served as usual (200, keep-alive); from then on each one must get
/// one of the two allowed outcomes, never an error status or a hang, and the request in flight
/// is still answered.
TEST_P(ContractConformance, NewConnectionDuringTheDrainIsAnsweredWithCloseOrClosedUnanswered) {
  auto worker = WorkerProcess::serve(GetParam());
  auto in_flight = stopWithARequestInFlight(*worker, 3000);
  bool drain_seen = false;
  std::string outcomes;
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::milliseconds(2500);
  while (!drain_seen && std::chrono::steady_clock::now() < give_up) {
    try {
      HttpConnection client(worker->port(), std::chrono::milliseconds(5000));
      const HttpResponse response = client.request("GET", "/health");
      ASSERT_EQ(response.status, 200U) << "a new connection during the drain: " << response.body;
      drain_seen = !response.keep_alive;
      outcomes += drain_seen ? "200 close; " : "200 keep-alive; ";
    } catch (const std::runtime_error& e) {
      // Refused, or closed without an answer: allowed once the drain has begun.
      drain_seen = true;
      outcomes += std::string("no answer (") + e.what() + "); ";
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_TRUE(drain_seen) << "new connections were served as usual 2.5 s into the drain: "
                          << outcomes;
  EXPECT_EQ(in_flight.get().status, 200U);
  EXPECT_EQ(worker->waitExit(), 0) << worker->stderrText();
}

/// benchd_error belongs to the caller, which sets struct_size; the callee writes a message only
/// within it, NUL included, and nothing when it does not reach the message. Checked on the SDK's
/// setError() and guardedCall(), which the host table and the C++ plugins use on either side.
TEST(ContractErrorBuffer, TheCalleeWritesOnlyWithinTheStructSizeItIsHanded) {
  benchd_error error{};
  std::memset(error.message, 'x', sizeof(error.message));
  error.struct_size = offsetof(benchd_error, message) + 8;  // a caller with a shorter message
  sdk::setError(&error, "longer than eight bytes");
  EXPECT_EQ(std::string(error.message), "longer ");
  EXPECT_EQ(error.message[8], 'x') << "written beyond struct_size";

  std::memset(error.message, 'x', sizeof(error.message));
  error.struct_size = offsetof(benchd_error, message);  // no room for a message at all
  sdk::setError(&error, "anything");
  EXPECT_EQ(error.message[0], 'x');

  error.struct_size = sizeof(error);
  const std::string long_message(2 * sizeof(error.message), 'm');
  const benchd_status status = sdk::guardedCall(
      &error, [&] { throw sdk::PluginError(BENCHD_ERR_INVALID_ARGUMENT, long_message); });
  EXPECT_EQ(status, BENCHD_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(std::string(error.message), long_message.substr(0, sizeof(error.message) - 1))
      << "cut to the buffer, NUL-terminated";
}

INSTANTIATE_TEST_SUITE_P(AllApproaches, ContractConformance, ::testing::ValuesIn(approachPlugins()),
                         [](const auto& param_info) { return testNameOf(param_info.param); });

}  // namespace
}  // namespace benchd::testing
