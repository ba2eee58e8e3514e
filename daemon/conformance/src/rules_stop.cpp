// CONTRACT.md section 8: a stop (SIGTERM to the worker) finishes the requests in flight, their
// nested calls included, marks their answers as the connection's last, treats connections
// accepted during the drain as allowed, and gives up at the stop timeout.
#include "answer_checks.hpp"
#include "rule_groups.hpp"

#include <benchd/conformance/loopback_socket.hpp>

#include <boost/algorithm/string/predicate.hpp>

#include <chrono>
#include <csignal>
#include <future>
#include <optional>
#include <thread>

namespace benchd::conformance {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;
using Clock = std::chrono::steady_clock;

/// Sends a request that waits `delay_millis` and, once the worker has it in flight, SIGTERM: the
/// stop begins with that request in flight. The future holds its answer.
std::future<HttpResponse> stopWithARequestInFlight(const RuleContext& context,
                                                   WorkerProcess& worker, int delay_millis) {
  const std::uint16_t port = worker.port();
  const std::string target = context.epoch(delayQuery(0, delay_millis));
  auto answer = std::async(std::launch::async, [port, target] {
    HttpConnection client(port);
    return client.request("GET", target);
  });
  waitForStats(
      worker, [](const WorkerStats& stats) { return counter(stats, "requests_in_flight") >= 1; },
      "GET " + target + " in flight");
  worker.signal(SIGTERM);
  return answer;
}

HttpResponse answerOf(std::future<HttpResponse>& answer, const std::string& sent) {
  try {
    return answer.get();
  } catch (const std::runtime_error& error) {
    fail("sent " + sent + " and then SIGTERM: no answer (" + error.what() + ")");
  }
}

void requireStoppedDrained(WorkerProcess& worker, const std::string& what) {
  const int code = exitCode(worker);
  const std::vector<std::string> lines = worker.stdoutLines();
  const std::string last = lines.empty() ? "(nothing)" : lines.back();
  require(code == 0 && last == R"({"event":"stopped","drained":true})",
          what + R"(: expected exit 0 after {"event":"stopped","drained":true}, got exit )" +
              std::to_string(code) + " after " + last + "; stderr: " + worker.stderrText());
}

void stopFinishesRequestsInFlight(RuleContext& context) {
  auto worker = context.serve();
  const std::string target = context.epoch(delayQuery(1, 600));
  const std::uint16_t port = worker->port();
  auto pending =
      std::async(std::launch::async, [port, target] { return concurrentGets(port, target, 50); });
  waitForStats(
      *worker, [](const WorkerStats& stats) { return counter(stats, "requests_in_flight") >= 100; },
      "50 x GET " + target + ": requests_in_flight at least 100 (each with its nested request)");
  worker->signal(SIGTERM);
  const auto results = pending.get();
  for (const BatchResult& result : results) {
    require(result.status == 200,
            "sent 50 x GET " + target + ", then SIGTERM: expected 200 each, " + "got " +
                (result.status == 0 ? result.error : std::to_string(result.status)));
  }
  requireStoppedDrained(*worker, "SIGTERM with 50 requests of depth 1 in flight");
}

void lastAnswerClosesTheConnection(RuleContext& context) {
  auto worker = context.serve();
  auto answer = stopWithARequestInFlight(context, *worker, 800);
  const std::string sent = "GET " + context.epoch(delayQuery(0, 800));
  const HttpResponse response = answerOf(answer, sent);
  require(response.status == 200 && !response.keep_alive &&
              boost::iequals(response.header("connection"), "close"),
          "sent " + sent + " and then SIGTERM: expected 200 with Connection: close, got " +
              shown(response) + " with Connection '" + response.header("connection") + "'");
  requireStoppedDrained(*worker, "SIGTERM with one request in flight");
}

void newConnectionsDuringTheDrain(RuleContext& context) {
  auto worker = context.serve();
  auto in_flight = stopWithARequestInFlight(context, *worker, 3000);
  bool drain_seen = false;
  std::string outcomes;
  const auto give_up = Clock::now() + milliseconds(2500);
  while (!drain_seen && Clock::now() < give_up) {
    try {
      HttpConnection client(worker->port(), milliseconds(5000));
      const HttpResponse response = client.request("GET", "/health");
      require(response.status == 200,
              "sent GET /health on a connection made during the drain: "
              "expected 200 with Connection: close or no answer, got " +
                  shown(response));
      drain_seen = !response.keep_alive;
      outcomes += drain_seen ? "200 close; " : "200 keep-alive; ";
    } catch (const RuleFailure&) {
      throw;
    } catch (const std::runtime_error& error) {
      // Refused, or closed without an answer: allowed once the drain has begun.
      drain_seen = true;
      outcomes += std::string("no answer (") + error.what() + "); ";
    }
    std::this_thread::sleep_for(milliseconds(20));
  }
  require(drain_seen,
          "new connections were still served as usual 2.5 s into the drain: " + outcomes);
  const std::string sent = "GET " + context.epoch(delayQuery(0, 3000));
  expectOk(answerOf(in_flight, sent), sent + " in flight at the stop");
  requireStoppedDrained(*worker, "SIGTERM with one request in flight");
}

void stopTimeoutCutsOffSleepingRequests(RuleContext& context) {
  auto worker = context.serve({"--stop-timeout-ms", "2000"});
  const std::string request_of_depth[] = {
      "GET " + context.epoch(delayQuery(0, 3'600'000)) + " HTTP/1.1\r\nHost: t\r\n\r\n",
      "GET " + context.epoch(delayQuery(1, 3'600'000)) + " HTTP/1.1\r\nHost: t\r\n\r\n"};
  std::vector<std::unique_ptr<LoopbackSocket>> clients;
  for (int i = 0; i < 30; ++i) {
    clients.push_back(std::make_unique<LoopbackSocket>(worker->port()));
    require(clients.back()->connected() && clients.back()->send(request_of_depth[i < 20 ? 0 : 1]),
            "could not connect and send a request");
  }
  waitForStats(
      *worker, [](const WorkerStats& stats) { return counter(stats, "requests_in_flight") >= 40; },
      "20 requests of depth 0 and 10 of depth 1, waiting an hour: requests_in_flight 40");
  const auto signalled = Clock::now();
  worker->signal(SIGTERM);
  const std::optional<int> code = worker->waitExit(seconds(15));
  require(code.has_value(), "SIGTERM with --stop-timeout-ms 2000 and 30 requests sleeping an " +
                                std::string("hour: still running 15 s later"));
  const auto elapsed = std::chrono::duration_cast<milliseconds>(Clock::now() - signalled).count();
  const std::vector<std::string> lines = worker->stdoutLines();
  const std::string last = lines.empty() ? "(nothing)" : lines.back();
  require(*code == 5 && last == R"({"event":"stopped","drained":false})",
          R"(SIGTERM with --stop-timeout-ms 2000 and requests sleeping an hour: expected exit 5 )"
          R"(after {"event":"stopped","drained":false}, got exit )" +
              std::to_string(*code) + " after " + last + "; stderr: " + worker->stderrText());
  require(elapsed >= 1900, "SIGTERM with --stop-timeout-ms 2000: the worker exited after " +
                               std::to_string(elapsed) +
                               " ms, before the requests were given their stop timeout");
}

}  // namespace

std::vector<Rule> stopRules() {
  return {
      {"stop.drains-in-flight",
       "a stop finishes the requests in flight, their nested calls included: drained, exit 0", "8",
       stopFinishesRequestsInFlight},
      {"stop.last-answer-closes",
       "a request in flight at the stop is answered with Connection: close", "8",
       lastAnswerClosesTheConnection},
      {"stop.new-connections",
       "a connection accepted during the drain is answered with Connection: close or closed "
       "unanswered, never an error",
       "8", newConnectionsDuringTheDrain},
      {"stop.timeout",
       "the stop timeout holds for sleeping requests: drained false, exit 5, not before it", "8",
       stopTimeoutCutsOffSleepingRequests},
  };
}

}  // namespace benchd::conformance
