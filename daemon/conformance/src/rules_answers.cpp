// CONTRACT.md sections 4, 5 and 9: which check answers first, when the body is read and the
// save done, what every answer carries, and the counters every plugin reports.
#include "answer_checks.hpp"
#include "rule_groups.hpp"

#include <benchd/sdk/limits.hpp>

#include <chrono>
#include <future>
#include <tuple>
#include <utility>

namespace benchd::conformance {
namespace {

using std::chrono::milliseconds;
const std::string kNoDelay = "?delayCallDepth=0&delayInMillis=0";

const std::string kVanSantMovie =
    R"([{"title":"Elephant","releaseYear":2003,"genre":"DRAMA",)"
    R"("directors":[{"firstName":"Gus","lastName":"Van Sant","birthday":"1952-07-24"}],)"
    R"("rating":7.2}])";

void checksRunInOrder(RuleContext& context) {
  auto worker = context.serve();
  HttpConnection client(worker->port());
  // Routing and parameters are the plugin's under every contract exception.
  strictly([&] {
    expectAnswers(
        client,
        {
            {"POST", context.path("/nothing"), 404, "no such path"},
            {"POST", context.path("/epoch-millis"), 405, "GET"},
            {"GET", context.path("/movies/abc"), 405, "DELETE"},
            {"DELETE", context.path("/movies/abc"), 400, "movie id"},
            {"GET", context.epoch("delayCallDepth=x&delayInMillis=y"), 400, "delayCallDepth"},
            {"GET", context.epoch("delayInMillis=y"), 400, "delayCallDepth"},
            {"GET", context.path("/movies?delayCallDepth=0&delayInMillis=y"), 400, "delayInMillis"},
            {"GET", context.path("/movies?directorLastName=%zz&delayCallDepth=0"), 400,
             "delayInMillis"},
        });
  });
  // The transport's refusals come before routing: a path that does not exist gets them too.
  for (const auto& [head, status] : std::vector<std::pair<std::string, unsigned>>{
           {"Content-Length: 100000000\r\n", 413},
           {"Content-Length: 2x\r\n", 400},
       }) {
    HttpConnection raw(worker->port(), std::chrono::seconds(5));
    const std::string bytes =
        "PUT " + context.path("/nothing") + " HTTP/1.1\r\nHost: t\r\n" + head + "\r\n[]";
    const HttpResponse response = askRaw(raw, bytes);
    const std::string sent = "'" + printableBytes(bytes) + "'";
    expectError(response, sent, status, "");
    require(!response.keep_alive, "sent " + sent +
                                      ": expected the framing refusal to end the connection, got " +
                                      shown(response) + " keeping it");
  }
}

void badBodyIsRefusedAfterTheWait(RuleContext& context) {
  auto worker = context.serve();
  HttpConnection client(worker->port());
  const WorkerStats before = quietStats(*worker);
  const std::string target = context.path("/movies?delayCallDepth=1&delayInMillis=300");
  const HttpResponse response = ask(client, "POST", target, "[{");
  const std::string sent = "POST " + target + " with '[{'";
  expectError(response, sent, 400, "JSON");
  require(response.elapsed >= milliseconds(300),
          "sent " + sent + ": answered 400 after " +
              std::to_string(std::chrono::duration_cast<milliseconds>(response.elapsed).count()) +
              " ms, before the 300 ms wait was over (the body is read after the wait)");
  const WorkerStats after = quietStats(*worker);
  const std::int64_t calls = counter(after, "upstream_calls") - counter(before, "upstream_calls");
  require(calls == 1, "sent " + sent + ": expected the nested call made before the refusal, " +
                          "counted " + std::to_string(calls) + " nested calls");
}

void saveHappensAfterTheWait(RuleContext& context) {
  auto worker = context.serve({"--profile", "read-write"});
  const std::string read =
      context.path("/movies?directorLastName=Van+Sant&delayCallDepth=0&delayInMillis=0");
  const std::string post = context.path("/movies?delayCallDepth=0&delayInMillis=2000");
  const std::uint16_t port = worker->port();
  auto saving = std::async(std::launch::async, [port, post] {
    HttpConnection writer(port);
    return writer.request("POST", post, kVanSantMovie);
  });
  waitForStats(
      *worker, [](const WorkerStats& stats) { return counter(stats, "requests_in_flight") >= 1; },
      "the POST in flight");
  HttpConnection reader(worker->port());
  const HttpResponse during = ask(reader, "GET", read);
  require(during.body == "[]",
          "sent GET " + read + " while POST " + post +
              " waited: expected '[]' (the save happens after the wait), got " + shown(during));
  HttpResponse saved;
  try {
    saved = saving.get();
  } catch (const std::runtime_error& error) {
    fail("sent POST " + post + ": no answer (" + error.what() + ")");
  }
  expectOk(saved, "POST " + post);
  const HttpResponse after = ask(reader, "GET", read);
  require(after.body.find("Elephant") != std::string::npos,
          "sent GET " + read + " after the POST was answered: expected the saved movie, got " +
              shown(after));
}

void requireHeader(const HttpResponse& response, const std::string& sent, const std::string& name,
                   const std::string& expected) {
  require(response.header(name) == expected, "sent " + sent + ": expected " + name + " '" +
                                                 expected + "', got '" + response.header(name) +
                                                 "' in " + shown(response));
}

void answersCarryHeadersAndBodies(RuleContext& context) {
  auto worker = context.serve();
  HttpConnection client(worker->port());
  const std::string& q = kNoDelay;

  const HttpResponse health = ask(client, "GET", "/health");
  requireHeader(health, "GET /health", "content-type", "application/json");

  const std::string epoch = context.path("/epoch-millis" + q);
  const HttpResponse millis = ask(client, "GET", epoch);
  requireHeader(millis, "GET " + epoch, "content-type", "application/json");

  const std::string movies = context.path("/movies?directorLastName=Allen&" + q.substr(1));
  requireHeader(ask(client, "GET", movies), "GET " + movies, "content-type", "application/json");
  const std::string post = context.path("/movies" + q);
  const HttpResponse saved = ask(client, "POST", post, "[]");
  require(saved.status == 200 && saved.body == "[]",
          "sent POST " + post + " with '[]': expected 200 '[]', got " + shown(saved));
  requireHeader(saved, "POST " + post, "content-type", "application/json");

  const std::string remove = context.path("/movies/1" + q);
  const HttpResponse deleted = ask(client, "DELETE", remove);
  require(deleted.status == 200 && deleted.body.empty() && deleted.header("content-length") == "0",
          "sent DELETE " + remove + ": expected 200 with Content-Length 0, got " + shown(deleted));
  require(deleted.headers.count("content-type") == 0,
          "sent DELETE " + remove + ": expected no Content-Type on an empty 200, got '" +
              deleted.header("content-type") + "'");

  for (const auto& [method, target, allow] :
       std::vector<std::tuple<std::string, std::string, std::string>>{
           {"POST", "/health", "GET"},
           {"DELETE", context.path("/epoch-millis" + q), "GET"},
           {"PUT", context.path("/movies" + q), "GET, POST"},
           {"POST", context.path("/movies/1" + q), "DELETE"},
       }) {
    const HttpResponse refused = ask(client, method, target);
    const std::string sent = method + " " + target;
    expectError(refused, sent, 405, "use ");
    requireHeader(refused, sent, "allow", allow);
    require(refused.keep_alive,
            "sent " + sent + ": expected the connection kept after a 405, got " + shown(refused));
  }
  const std::string nothing = context.path("/nothing");
  const HttpResponse missing = ask(client, "GET", nothing);
  expectError(missing, "GET " + nothing, 404, "no such path");
  require(
      missing.keep_alive,
      "sent GET " + nothing + ": expected the connection kept after a 404, got " + shown(missing));

  HttpConnection big(worker->port(), std::chrono::seconds(5));
  const std::string sent_big = "POST " + post + " with a body of " +
                               std::to_string(sdk::kMaxRequestBodyBytes + 1) + " bytes";
  const HttpResponse too_large =
      ask(big, "POST", post, std::string(sdk::kMaxRequestBodyBytes + 1, ' '));
  expectError(too_large, sent_big, 413, "exceeds");
  require(!too_large.keep_alive,
          "sent " + sent_big + ": expected Connection: close on the 413, got " + shown(too_large));
  require(big.closedByServer(), "sent " + sent_big + ": expected the connection closed after " +
                                    "the 413, it stayed open");
}

void requiredCounters(RuleContext& context) {
  auto worker = context.serve();
  const WorkerStats before = quietStats(*worker);
  for (const char* name :
       {"requests_served", "requests_in_flight", "upstream_calls", "connections_open"}) {
    counter(before, name);
  }
  const std::string target = context.epoch("delayCallDepth=1&delayInMillis=1000");
  const std::uint16_t port = worker->port();
  auto answer =
      std::async(std::launch::async, [port, target] { return askOnce(port, "GET", target); });
  waitForStats(
      *worker,
      [](const WorkerStats& stats) {
        return counter(stats, "requests_in_flight") == 2 && counter(stats, "connections_open") >= 2;
      },
      "while GET " + target + " waits: requests_in_flight 2 (it and its nested request) and " +
          "connections_open at least 2");
  expectOk(answer.get(), "GET " + target);
  const WorkerStats after = quietStats(*worker);
  const std::int64_t served =
      counter(after, "requests_served") - counter(before, "requests_served");
  const std::int64_t calls = counter(after, "upstream_calls") - counter(before, "upstream_calls");
  require(served == 2 && calls == 1,
          "after GET " + target + ": expected requests_served +2 and upstream_calls +1, " +
              "counted +" + std::to_string(served) + " and +" + std::to_string(calls));
}

}  // namespace

std::vector<Rule> answerRules() {
  return {
      {"order.checks",
       "checks run in order: framing and size, path (404), method (405), movie id, "
       "delayCallDepth, delayInMillis, directorLastName",
       "4", checksRunInOrder},
      {"order.body-after-wait", "a bad body is refused after the wait and the nested call", "4",
       badBodyIsRefusedAfterTheWait},
      {"order.save-after-wait", "read-write: the save happens after the wait", "4",
       saveHappensAfterTheWait},
      {"answers.headers-and-bodies",
       "content types, the error body, DELETE's empty body without Content-Type, Allow of every "
       "405, which errors keep the connection",
       "5", answersCarryHeadersAndBodies},
      {"counters.required",
       "requests_served, requests_in_flight, upstream_calls and connections_open mean what "
       "section 9 says",
       "9", requiredCounters},
  };
}

}  // namespace benchd::conformance
