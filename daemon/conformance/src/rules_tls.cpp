// CONTRACT.md section 1, the `tls` profile: HTTP/1.1 over TLS on the one port, checked with a
// client that verifies the worker's certificate (made for each check): the answers and a nested
// call inside the TLS stream, ALPN, nothing served in clear, a client that leaves, a handshake
// held to the header deadline, the drain, and a key that is not the certificate's.
#include "answer_checks.hpp"
#include "rule_groups.hpp"
#include "worker_identity.hpp"

#include <benchd/conformance/loopback_socket.hpp>

#include <chrono>
#include <csignal>
#include <future>
#include <memory>
#include <string>
#include <vector>

namespace benchd::conformance {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;
using Clock = std::chrono::steady_clock;

/// A worker serving the plugin under `tls` with a certificate made for it.
struct TlsServer {
  explicit TlsServer(const RuleContext& context)
      : worker(context.serve(identity.serveArguments("tls"))) {}

  /// A verifying client connection offering `alpn`; fails the rule when the handshake fails.
  [[nodiscard]] std::unique_ptr<HttpConnection> connect(std::vector<std::string> alpn = {}) const {
    try {
      return std::make_unique<HttpConnection>(worker->port(), identity.client(std::move(alpn)));
    } catch (const std::runtime_error& error) {
      fail(std::string("a client trusting the worker's certificate could not connect: ") +
           error.what());
    }
  }

  WorkerIdentity identity;
  std::unique_ptr<WorkerProcess> worker;
};

void answersInsideTheTlsStream(RuleContext& context) {
  const TlsServer server(context);
  auto client = server.connect({"http/1.1"});
  const std::string chosen = client->negotiatedProtocol();
  require(chosen.empty() || chosen == "http/1.1",
          "offered http/1.1 in ALPN; expected http/1.1 or none chosen, got " + chosen);
  // One connection, kept alive: a depth-2 call goes to the plugin's own port over TLS twice.
  const std::string nested = context.epoch(delayQuery(2, 20));
  const std::string movies = context.path("/movies?directorLastName=Allen&") + delayQuery(0, 0);
  expectAnswers(*client, {{"GET", "/health", 200, ""},
                          {"GET", nested, 200, ""},
                          {"GET", movies, 200, ""},
                          {"GET", context.path("/nowhere"), 404, "no such path"}});
  const HttpResponse health = ask(*client, "GET", "/health");
  require(health.body == R"({"status":"UP"})",
          R"(GET /health over TLS: expected {"status":"UP"}, got )" + shown(health));
  waitForStats(
      *server.worker,
      [](const WorkerStats& stats) { return counter(stats, "upstream_calls") >= 2; },
      "upstream_calls at least 2 after GET " + nested + " over TLS");
}

void alpnChoosesHttp11(RuleContext& context) {
  const TlsServer server(context);
  // A client offering HTTP/2 first, as browsers and curl --http2 do: a `tls` server must still
  // choose HTTP/1.1 (or nothing), and then serve it.
  auto client = server.connect({"h2", "http/1.1"});
  const std::string chosen = client->negotiatedProtocol();
  require(
      chosen.empty() || chosen == "http/1.1",
      "offered h2 and http/1.1 in ALPN under tls; expected http/1.1 or none chosen, got " + chosen);
  expectOk(ask(*client, "GET", "/health"), "GET /health after offering h2");
}

void nothingServedInClear(RuleContext& context) {
  const TlsServer server(context);
  {
    LoopbackSocket plain(server.worker->port());
    require(plain.send("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"),
            "could not send plain HTTP to the TLS port");
    std::string received;
    const auto end = plain.readToEnd(received, Clock::now() + seconds(10));
    require(end != LoopbackSocket::ReadEnd::kTimeout,
            "plain HTTP to the TLS port: the connection stayed open 10 s");
    require(!received.starts_with("HTTP/"), "plain HTTP to the TLS port was answered in clear: " +
                                                received.substr(0, received.find('\r')));
  }
  auto client = server.connect();
  expectOk(ask(*client, "GET", "/health"), "GET /health over TLS after plain HTTP");
}

void aClientThatLeavesEndsItsWait(RuleContext& context) {
  const TlsServer server(context);
  const std::string target = context.epoch(delayQuery(1, 10000));
  // The client gives up after 1 s of the 10 s wait and closes its connection without a
  // close_notify (an end of stream under TLS).
  bool answered = false;
  {
    HttpConnection client(server.worker->port(), server.identity.client(), milliseconds(1000));
    try {
      client.request("GET", target);
      answered = true;
    } catch (const std::runtime_error&) {
      // The client's own timeout: it closes the connection and leaves, which is the point.
    }
  }
  require(!answered, "GET " + target + " over TLS was answered before its 10 s delay");
  waitForStats(
      *server.worker,
      [](const WorkerStats& stats) {
        return counter(stats, "requests_in_flight") == 0 && counter(stats, "upstream_calls") >= 1;
      },
      "no request in flight 5 s after the client of GET " + target +
          " (with its nested call made) left",
      seconds(5));
}

void theHandshakeHasTheHeaderDeadline(RuleContext& context) {
  const WorkerIdentity identity;
  std::vector<std::string> arguments = identity.serveArguments("tls");
  arguments.insert(arguments.end(), {"--option", "header_deadline_ms=1500"});
  auto worker = context.serve(arguments);
  {
    // A TLS record header that announces a 200-byte ClientHello, and nothing after it: a
    // handshake that never ends must not hold the connection past the header deadline.
    LoopbackSocket stalled(worker->port());
    const auto sent_at = Clock::now();
    require(stalled.send(std::string("\x16\x03\x01\x00\xc8", 5)),
            "could not send the first bytes of a TLS handshake");
    std::string received;
    const auto end = stalled.readToEnd(received, sent_at + seconds(10));
    const auto open_for = std::chrono::duration_cast<milliseconds>(Clock::now() - sent_at);
    require(end != LoopbackSocket::ReadEnd::kTimeout,
            "a TLS handshake stalled after 5 bytes, with header_deadline_ms=1500: the connection "
            "stayed open 10 s");
    require(open_for >= milliseconds(1000),
            "a TLS handshake stalled after 5 bytes was closed after " +
                std::to_string(open_for.count()) + " ms, before its header deadline of 1500 ms");
  }
  try {
    HttpConnection client(worker->port(), identity.client());
    expectOk(ask(client, "GET", "/health"), "GET /health over TLS after a stalled handshake");
  } catch (const std::runtime_error& error) {
    fail(std::string("after a stalled handshake, a client trusting the worker's certificate could "
                     "not connect: ") +
         error.what());
  }
}

void theDrainAnswersOverTls(RuleContext& context) {
  const TlsServer server(context);
  auto client = server.connect();
  const std::string target = context.epoch(delayQuery(0, 600));
  auto answer =
      std::async(std::launch::async, [&client, &target] { return client->request("GET", target); });
  waitForStats(
      *server.worker,
      [](const WorkerStats& stats) { return counter(stats, "requests_in_flight") >= 1; },
      "GET " + target + " over TLS in flight");
  server.worker->signal(SIGTERM);
  HttpResponse response;
  try {
    response = answer.get();
  } catch (const std::runtime_error& error) {
    fail("GET " + target + " over TLS, then SIGTERM: no answer (" + error.what() + ")");
  }
  expectOk(response, "GET " + target + " over TLS, then SIGTERM");
  require(exitCode(*server.worker) == 0,
          "SIGTERM with a request over TLS in flight: expected exit 0; stderr: " +
              server.worker->stderrText());
}

void aKeyThatIsNotTheCertificatesIsRefused(RuleContext& context) {
  const WorkerIdentity mine;
  const WorkerIdentity other;
  auto worker = context.start({"--port", "0", "--profile", "tls", "--tls-cert",
                               mine.files().certificate.string(), "--tls-key",
                               other.files().private_key.string()});
  if (const auto port = worker->waitReady(seconds(10))) {
    fail("a key that is not the certificate's was accepted: the worker serves on port " +
         std::to_string(*port) + "; expected exit 2 naming the file");
  }
  const int code = exitCode(*worker);
  const std::string said = worker->stderrText();
  require(code == 2, "a key that is not the certificate's: expected exit 2, got " +
                         std::to_string(code) + "; stderr: " + said);
  require(said.find(other.files().private_key.string()) != std::string::npos ||
              said.find(mine.files().certificate.string()) != std::string::npos,
          "a key that is not the certificate's was refused without naming either file: " + said);
}

}  // namespace

std::vector<Rule> tlsRules() {
  return {
      {"tls.answers",
       "under tls a verifying client gets the answers over TLS, a depth-2 nested "
       "call included",
       "1", answersInsideTheTlsStream, "tls"},
      {"tls.alpn", "under tls ALPN chooses http/1.1 or nothing, even when the client offers h2",
       "1", alpnChoosesHttp11, "tls"},
      {"tls.nothing-in-clear", "plain HTTP to the TLS port is not answered; the server goes on",
       "1", nothingServedInClear, "tls"},
      {"tls.client-leaves", "a client that resets its TLS connection ends its wait", "1",
       aClientThatLeavesEndsItsWait, "tls"},
      {"tls.handshake-deadline",
       "a TLS handshake that stalls is closed at the header deadline (header_deadline_ms)", "1, 7",
       theHandshakeHasTheHeaderDeadline, "tls"},
      {"tls.drain", "a stop answers the request in flight over TLS, exit 0", "1, 8",
       theDrainAnswersOverTls, "tls"},
      {"tls.key-mismatch", "a key that is not the certificate's is refused naming the file, exit 2",
       "1", aKeyThatIsNotTheCertificatesIsRefused, "tls"},
  };
}

}  // namespace benchd::conformance
