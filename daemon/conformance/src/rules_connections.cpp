// CONTRACT.md sections 6 and 7: keep-alive, the no-keep-alive profile, and waits that do not
// block each other.
#include "answer_checks.hpp"
#include "rule_groups.hpp"

#include <boost/algorithm/string/predicate.hpp>

#include <chrono>

namespace benchd::conformance {
namespace {

using std::chrono::milliseconds;

void keepAliveServesManyRequests(RuleContext& context) {
  auto worker = context.serve();
  HttpConnection client(worker->port());
  const std::string target = context.epoch(delayQuery(1, 0));
  for (int i = 0; i < 20; ++i) {
    const HttpResponse response = ask(client, "GET", target);
    const std::string sent =
        "GET " + target + " (request " + std::to_string(i + 1) + " of 20 on one connection)";
    expectOk(response, sent);
    require(response.keep_alive,
            "sent " + sent + ": expected the connection kept, got " + shown(response));
  }
  // A server that says keep-alive and closes anyway would make every client reconnect.
  require(!client.closedByServer(milliseconds(200)),
          "after 20 requests on one connection, each answered keep-alive, the server closed it");
  const WorkerStats stats = waitForStats(
      *worker,
      [](const WorkerStats& now) {
        return counter(now, "requests_served") >= 40 && counter(now, "requests_in_flight") == 0;
      },
      "requests_served at least 40 (20 requests and their nested ones)");
  // One client connection plus the pooled nested-call connection(s), not one per request.
  require(counter(stats, "connections_open") <= 3,
          "after 20 requests of depth 1 on one connection: expected at most 3 connections open "
          "(it and the nested calls' pooled ones), counted " +
              std::to_string(counter(stats, "connections_open")));
}

void noKeepAliveClosesAfterEachAnswer(RuleContext& context) {
  auto worker = context.serve({"--profile", "no-keep-alive"});
  for (int depth = 0; depth <= 1; ++depth) {
    HttpConnection client(worker->port());
    const std::string target = context.epoch(delayQuery(depth, 0));
    const std::string sent = "GET " + target + " under no-keep-alive";
    const HttpResponse response = ask(client, "GET", target);
    expectOk(response, sent);
    require(!response.keep_alive && boost::iequals(response.header("connection"), "close"),
            "sent " + sent + ": expected Connection: close, got '" + response.header("connection") +
                "'");
    require(client.closedByServer(),
            "sent " + sent + ": expected the server to close the connection after the answer");
  }
}

void concurrentDelayedRequestsAllSucceed(RuleContext& context) {
  raiseOpenFileLimit();
  auto worker = context.serve();
  const std::string target = context.epoch(delayQuery(0, 100));
  const auto results = concurrentGets(worker->port(), target, 2000);
  std::size_t ok = 0;
  std::string first_failure;
  for (const BatchResult& result : results) {
    if (result.status == 200 && result.elapsed >= milliseconds(100)) {
      ++ok;
    } else if (first_failure.empty()) {
      first_failure = result.status == 200 ? "200 before the 100 ms delay was over"
                      : result.status == 0 ? result.error
                                           : std::to_string(result.status);
    }
  }
  require(ok == results.size(), "sent 2,000 x GET " + target + " at once, each on its own " +
                                    "connection: expected 200 after 100 ms each, " +
                                    std::to_string(results.size() - ok) +
                                    " were not (first: " + first_failure + ")");
}

}  // namespace

std::vector<Rule> connectionRules() {
  return {
      {"connections.keep-alive", "keep-alive serves many requests on one connection", "6, 7",
       keepAliveServesManyRequests},
      {"connections.no-keep-alive",
       "no-keep-alive: Connection: close and a close after every answer", "1, 7",
       noKeepAliveClosesAfterEachAnswer, "no-keep-alive"},
      {"concurrency.delayed-requests",
       "waits do not block each other: 2,000 concurrent delayed requests all succeed", "6",
       concurrentDelayedRequestsAllSucceed},
  };
}

}  // namespace benchd::conformance
