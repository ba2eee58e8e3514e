// CONTRACT.md section 1, the `h2` and `h2c` profiles: HTTP/2 over TLS (ALPN, a certificate made
// for each check) and with prior knowledge in clear, checked with an HTTP/2 client
// (http2_client.hpp): the answers, HTTP/1.1 beside HTTP/2 on the port, concurrent streams, a
// reset stream, a connection that ends, a broken frame and the drain.
#include "answer_checks.hpp"
#include "rule_groups.hpp"
#include "worker_identity.hpp"

#include <benchd/conformance/http2_client.hpp>

#include <chrono>
#include <csignal>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace benchd::conformance {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;
using Clock = std::chrono::steady_clock;

/// A worker serving the plugin under `h2` (a certificate made for it) or `h2c`.
struct Http2Server {
  Http2Server(const RuleContext& context, std::string profile_name)
      : profile(std::move(profile_name)),
        identity(profile == "h2" ? std::make_unique<WorkerIdentity>() : nullptr),
        worker(context.serve(identity ? identity->serveArguments(profile)
                                      : std::vector<std::string>{"--profile", profile})) {}

  /// The client's TLS under `h2`, offering `alpn`; none under `h2c`.
  [[nodiscard]] std::optional<ClientTls> tls(std::vector<std::string> alpn = {}) const {
    if (!identity)
      return std::nullopt;
    return identity->client(std::move(alpn));
  }

  /// An HTTP/2 connection (ALPN h2 under `h2`, prior knowledge under `h2c`); fails the rule when
  /// none can be opened.
  [[nodiscard]] std::unique_ptr<Http2Connection> connect() const {
    try {
      return std::make_unique<Http2Connection>(worker->port(), tls());
    } catch (const std::runtime_error& error) {
      fail("could not open an HTTP/2 connection under " + profile + ": " + error.what());
    }
  }

  std::string profile;
  std::unique_ptr<WorkerIdentity> identity;
  std::unique_ptr<WorkerProcess> worker;
};

/// An HTTP/2 answer as a reason shows it.
std::string shown(const Http2Response& response) {
  if (response.status == 0) {
    return response.reset ? "the stream reset (error code " + std::to_string(response.reset_code) +
                                ") without an answer"
                          : "no answer";
  }
  std::string text = std::to_string(response.status);
  if (!response.header("connection").empty())
    text += " connection: " + response.header("connection");
  text += " " + response.body.substr(0, 200);
  return text;
}

/// Waits for `stream`'s answer; fails the rule naming `sent` when none comes.
Http2Response awaitAnswer(Http2Connection& connection, std::int32_t stream,
                          const std::string& sent) {
  try {
    return connection.await(stream);
  } catch (const std::runtime_error& error) {
    fail("sent " + sent + " over HTTP/2: no answer (" + error.what() + ")");
  }
}

Http2Response askHttp2(Http2Connection& connection, const std::string& method,
                       const std::string& target) {
  const std::string sent = method + " " + target;
  std::int32_t stream = 0;
  try {
    stream = connection.submit(method, target);
  } catch (const std::runtime_error& error) {
    fail("could not send " + sent + " over HTTP/2: " + error.what());
  }
  return awaitAnswer(connection, stream, sent);
}

/// Fails unless `response` to `sent` has `status` and `content_type`, and no Connection field.
void expectHttp2Answer(const Http2Response& response, const std::string& sent, unsigned status,
                       const std::string& content_type) {
  require(response.status == status && response.header("content-type") == content_type,
          "sent " + sent + " over HTTP/2: expected " + std::to_string(status) + " with " +
              content_type + ", got " + shown(response) + " (content-type '" +
              response.header("content-type") + "')");
  require(response.header("connection").empty(),
          "sent " + sent + " over HTTP/2: the answer has a Connection field, which HTTP/2 forbids");
}

void answersOverHttp2(RuleContext& context, const std::string& profile) {
  const Http2Server server(context, profile);
  auto connection = server.connect();
  const Http2Response health = askHttp2(*connection, "GET", "/health");
  expectHttp2Answer(health, "GET /health", 200, "application/json");
  require(health.body == R"({"status":"UP"})",
          R"(GET /health over HTTP/2: expected {"status":"UP"}, got )" + shown(health));
  // Depth 2: two nested calls over HTTP/1.1 to the plugin's own port (over TLS under h2).
  const std::string nested = context.epoch(delayQuery(2, 20));
  const Http2Response millis = askHttp2(*connection, "GET", nested);
  expectHttp2Answer(millis, "GET " + nested, 200, "application/json");
  require(!millis.body.empty() && millis.body.find_first_not_of("0123456789") == std::string::npos,
          "GET " + nested + " over HTTP/2: expected epoch milliseconds, got " + shown(millis));
  const std::string movies = context.path("/movies?directorLastName=Allen&") + delayQuery(0, 0);
  const Http2Response found = askHttp2(*connection, "GET", movies);
  expectHttp2Answer(found, "GET " + movies, 200, "application/json");
  require(found.body.starts_with("[{"),
          "GET " + movies + " over HTTP/2: expected a JSON array of movies, got " + shown(found));
  const std::string nowhere = context.path("/nowhere");
  const Http2Response missing = askHttp2(*connection, "GET", nowhere);
  expectHttp2Answer(missing, "GET " + nowhere, 404, "application/json");
  waitForStats(
      *server.worker,
      [](const WorkerStats& stats) { return counter(stats, "upstream_calls") >= 2; },
      "upstream_calls at least 2 after GET " + nested + " over HTTP/2");

  // HTTP/1.1 on the same port: a TLS client offering only http/1.1 under h2, a client without
  // the preface under h2c.
  const std::optional<ClientTls> http11 = server.tls({"http/1.1"});
  std::unique_ptr<HttpConnection> client;
  try {
    client = http11 ? std::make_unique<HttpConnection>(server.worker->port(), *http11)
                    : std::make_unique<HttpConnection>(server.worker->port());
  } catch (const std::runtime_error& error) {
    fail("an HTTP/1.1 client could not connect under " + profile + ": " + error.what());
  }
  const std::string chosen = client->negotiatedProtocol();
  require(
      chosen.empty() || chosen == "http/1.1",
      "offered only http/1.1 in ALPN under h2; expected http/1.1 or none chosen, got " + chosen);
  expectOk(ask(*client, "GET", "/health"), "GET /health over HTTP/1.1 under " + profile);
}

void streamsWaitTogether(RuleContext& context, const std::string& profile) {
  const Http2Server server(context, profile);
  auto connection = server.connect();
  const std::optional<std::uint32_t> announced = connection->maxConcurrentStreams();
  require(announced && *announced >= 100,
          "SETTINGS_MAX_CONCURRENT_STREAMS: expected at least 100, got " +
              (announced ? std::to_string(*announced) : std::string("none (unlimited)")));
  // 100 streams of 500 ms: one after the other they take 50 s; side by side about one delay.
  // The bound, 10 delays, is generous for a slow build and far below the serial time.
  constexpr int kStreams = 100;
  const std::string target = context.epoch(delayQuery(0, 500));
  const auto started = Clock::now();
  std::vector<std::int32_t> streams;
  streams.reserve(kStreams);
  for (int i = 0; i < kStreams; ++i)
    streams.push_back(connection->submit("GET", target));
  for (const std::int32_t stream : streams) {
    const Http2Response response = awaitAnswer(*connection, stream, "GET " + target);
    require(response.status == 200,
            "100 streams of GET " + target + " on one connection: got " + shown(response));
  }
  const auto took = std::chrono::duration_cast<milliseconds>(Clock::now() - started);
  require(took < seconds(5), "100 streams of GET " + target + " on one connection took " +
                                 std::to_string(took.count()) +
                                 " ms: they were not served concurrently (one delay is 500 ms)");
}

void aResetStreamEndsItsWait(RuleContext& context, const std::string& profile) {
  const Http2Server server(context, profile);
  auto connection = server.connect();
  const std::string target = context.epoch(delayQuery(0, 10000));
  const std::int32_t stream = connection->submit("GET", target);
  waitForStats(
      *server.worker,
      [](const WorkerStats& stats) { return counter(stats, "requests_in_flight") >= 1; },
      "GET " + target + " over HTTP/2 in flight");
  connection->reset(stream);
  waitForStats(
      *server.worker,
      [](const WorkerStats& stats) { return counter(stats, "requests_in_flight") == 0; },
      "no request in flight 3 s after RST_STREAM of GET " + target, seconds(3));
  const Http2Response health = askHttp2(*connection, "GET", "/health");
  require(health.status == 200,
          "GET /health on the connection after a reset stream: expected 200, got " + shown(health));
}

void aConnectionThatEndsEndsItsStreamsWaits(RuleContext& context) {
  const Http2Server server(context, "h2");
  const std::string target = context.epoch(delayQuery(1, 10000));
  {
    auto connection = server.connect();
    for (int i = 0; i < 5; ++i)
      connection->submit("GET", target);
    waitForStats(
        *server.worker,
        [](const WorkerStats& stats) { return counter(stats, "requests_in_flight") >= 10; },
        "5 streams of GET " + target + " in flight with their nested calls");
  }
  waitForStats(
      *server.worker,
      [](const WorkerStats& stats) { return counter(stats, "requests_in_flight") == 0; },
      "no request in flight 5 s after the connection of 5 streams of GET " + target + " ended",
      seconds(5));
}

/// A frame's 9-byte header and its payload (RFC 9113 section 4.1).
std::string frame(std::uint8_t type, std::uint8_t flags, std::uint32_t stream,
                  const std::string& payload) {
  std::string bytes;
  const auto length = static_cast<std::uint32_t>(payload.size());
  bytes += static_cast<char>((length >> 16) & 0xff);
  bytes += static_cast<char>((length >> 8) & 0xff);
  bytes += static_cast<char>(length & 0xff);
  bytes += static_cast<char>(type);
  bytes += static_cast<char>(flags);
  for (int shift = 24; shift >= 0; shift -= 8)
    bytes += static_cast<char>((stream >> shift) & 0xff);
  return bytes + payload;
}

void aBrokenFrameGetsAGoAway(RuleContext& context) {
  const Http2Server server(context, "h2");
  {
    auto connection = server.connect();
    // DATA (type 0) on stream 0 is a connection error (RFC 9113 section 6.1).
    connection->sendRaw(frame(0x0, 0, 0, "junk"));
    const std::optional<std::uint32_t> goaway = connection->awaitGoAway(seconds(10));
    require(goaway.has_value(), "sent DATA on stream 0: expected a GOAWAY, none came in 10 s");
    require(connection->closedByServer(seconds(10)),
            "sent DATA on stream 0: the GOAWAY came, but the connection stayed open 10 s");
  }
  auto next = server.connect();
  const Http2Response health = askHttp2(*next, "GET", "/health");
  require(
      health.status == 200,
      "GET /health after a broken frame on another connection: expected 200, got " + shown(health));
}

void theDrainAnswersTheStreamsThenGoesAway(RuleContext& context) {
  const Http2Server server(context, "h2");
  auto connection = server.connect();
  const std::string target = context.epoch(delayQuery(0, 700));
  constexpr int kStreams = 20;
  std::vector<std::int32_t> streams;
  streams.reserve(kStreams);
  for (int i = 0; i < kStreams; ++i)
    streams.push_back(connection->submit("GET", target));
  waitForStats(
      *server.worker,
      [](const WorkerStats& stats) { return counter(stats, "requests_in_flight") >= 20; },
      "20 streams of GET " + target + " in flight");
  server.worker->signal(SIGTERM);
  for (const std::int32_t stream : streams) {
    const Http2Response response =
        awaitAnswer(*connection, stream, "GET " + target + " and then SIGTERM");
    require(response.status == 200, "20 streams of GET " + target +
                                        " in flight at SIGTERM: expected 200 each, got " +
                                        shown(response));
  }
  require(connection->awaitGoAway(seconds(10)).has_value(),
          "the drain answered the streams in flight but sent no GOAWAY");
  const int code = exitCode(*server.worker);
  require(code == 0, "SIGTERM with 20 streams in flight: expected exit 0, got " +
                         std::to_string(code) + "; stderr: " + server.worker->stderrText());
}

}  // namespace

std::vector<Rule> http2Rules() {
  return {
      {"h2.answers",
       "under h2 ALPN chooses h2; each stream is answered as over HTTP/1.1, without Connection, a "
       "depth-2 nested call included; an HTTP/1.1 client is served on the same port",
       "1", [](RuleContext& context) { answersOverHttp2(context, "h2"); }, "h2"},
      {"h2.concurrent-streams",
       "SETTINGS_MAX_CONCURRENT_STREAMS is at least 100; 100 delayed streams of one connection "
       "wait together",
       "1", [](RuleContext& context) { streamsWaitTogether(context, "h2"); }, "h2"},
      {"h2.stream-reset", "a reset stream ends its wait; the connection serves the next stream",
       "1", [](RuleContext& context) { aResetStreamEndsItsWait(context, "h2"); }, "h2"},
      {"h2.connection-ends", "a connection that ends ends the waits of all its streams", "1",
       aConnectionThatEndsEndsItsStreamsWaits, "h2"},
      {"h2.broken-frame", "a broken frame gets a GOAWAY and a close; the server goes on", "1",
       aBrokenFrameGetsAGoAway, "h2"},
      {"h2.drain", "a stop answers the streams in flight, then sends a GOAWAY; exit 0", "1",
       theDrainAnswersTheStreamsThenGoesAway, "h2"},
      {"h2c.answers",
       "under h2c a connection opening with the preface speaks HTTP/2, any other HTTP/1.1, on "
       "one port in clear",
       "1", [](RuleContext& context) { answersOverHttp2(context, "h2c"); }, "h2c"},
      {"h2c.concurrent-streams",
       "SETTINGS_MAX_CONCURRENT_STREAMS is at least 100; 100 delayed streams of one connection "
       "wait together",
       "1", [](RuleContext& context) { streamsWaitTogether(context, "h2c"); }, "h2c"},
      {"h2c.stream-reset", "a reset stream ends its wait; the connection serves the next stream",
       "1", [](RuleContext& context) { aResetStreamEndsItsWait(context, "h2c"); }, "h2c"},
  };
}

}  // namespace benchd::conformance
