// CONTRACT.md sections 3 and 4: how the target is read (paths, query parameters, numbers, the
// director's name) and the 400, 404 and 405 answers to bad input.
#include "answer_checks.hpp"
#include "rule_groups.hpp"

#include <benchd/sdk/limits.hpp>

#include <chrono>
#include <stdexcept>

namespace benchd::conformance {
namespace {

constexpr int kMaxDepth = sdk::kMaxDelayCallDepth;
constexpr std::int64_t kMaxDelay = sdk::kMaxDelayMillis;
const std::string kNoDelay = "?delayCallDepth=0&delayInMillis=0";

/// A movie whose director's last name has a space, for the percent-decoding rules.
const std::string kVanSantMovie =
    R"([{"title":"Elephant","releaseYear":2003,"genre":"DRAMA",)"
    R"("directors":[{"firstName":"Gus","lastName":"Van Sant","birthday":"1952-07-24"}],)"
    R"("rating":7.2}])";

void parametersAreChecked(RuleContext& context) {
  auto worker = context.serve();
  HttpConnection client(worker->port());
  const std::string epoch = context.path("/epoch-millis");
  expectAnswers(
      client,
      {
          {"GET", epoch + "?delayInMillis=0", 400, "delayCallDepth"},
          {"GET", epoch + "?delayCallDepth=0", 400, "delayInMillis"},
          {"GET", epoch + "?delayCallDepth=x&delayInMillis=0", 400, "delayCallDepth"},
          {"GET", epoch + "?delayCallDepth=-1&delayInMillis=0", 400, "delayCallDepth"},
          {"GET", epoch + "?delayCallDepth=0&delayInMillis=1.5", 400, "delayInMillis"},
          {"GET", epoch + "?delayCallDepth=99999&delayInMillis=0", 400, "delayCallDepth"},
          {"GET", context.path("/movies" + kNoDelay), 400, "directorLastName"},
          {"GET", context.path("/movies?directorLastName=%zz&delayCallDepth=0&delayInMillis=0"),
           400, "directorLastName"},
          {"DELETE", context.path("/movies/abc" + kNoDelay), 400, "movie id"},
      });
}

void pathsAndMethodsAreChecked(RuleContext& context) {
  auto worker = context.serve();
  HttpConnection client(worker->port());
  expectAnswers(client, {
                            {"GET", context.path("/nothing-here" + kNoDelay), 404, "no such path"},
                            {"GET", "/other-approach/epoch-millis" + kNoDelay, 404, "no such path"},
                            {"POST", context.path("/epoch-millis" + kNoDelay), 405, "GET"},
                            {"PUT", context.path("/movies" + kNoDelay), 405, "GET or POST"},
                            {"GET", context.path("/movies/1" + kNoDelay), 405, "DELETE"},
                        });
  const std::string target = context.path("/movies?delayCallDepth=0");
  const HttpResponse wrong_method = ask(client, "DELETE", target);
  require(wrong_method.header("allow") == "GET, POST",
          "sent DELETE " + target + ": expected 405 with Allow 'GET, POST', got Allow '" +
              wrong_method.header("allow") + "'");
}

void badBodyIsRefused(RuleContext& context) {
  auto worker = context.serve();
  HttpConnection client(worker->port());
  const std::string target = context.path("/movies" + kNoDelay);
  expectError(ask(client, "POST", target, R"({"not":"an array"})"),
              "POST " + target + R"( with {"not":"an array"})", 400, "array");
  expectError(ask(client, "POST", target, "[{\"title\": "),
              "POST " + target + " with '[{\"title\": '", 400, "JSON");
  const HttpResponse health = ask(client, "GET", "/health");
  require(health.status == 200,
          "sent GET /health on the same connection after two 400s: expected 200 (the connection " +
              std::string("survives client errors), got ") + shown(health));
}

void numbersAreDecimalDigits(RuleContext& context) {
  auto worker = context.serve();
  HttpConnection client(worker->port());
  expectAnswers(
      client,
      {
          {"GET", context.epoch("delayCallDepth=00&delayInMillis=000"), 200, ""},
          {"GET", context.epoch("delayCallDepth=01&delayInMillis=0"), 200, ""},
          {"GET", context.epoch("delayCallDepth=-0&delayInMillis=-0"), 200, ""},
          {"GET", context.epoch("delayCallDepth=+1&delayInMillis=0"), 400, "delayCallDepth"},
          {"GET", context.epoch("delayCallDepth=0&delayInMillis=+0"), 400, "delayInMillis"},
          {"GET", context.epoch("delayCallDepth=%30&delayInMillis=0"), 400, "delayCallDepth"},
          {"GET", context.epoch("delayCallDepth=0x1&delayInMillis=0"), 400, "delayCallDepth"},
          {"GET", context.epoch("delayCallDepth=0&delayInMillis=1e3"), 400, "delayInMillis"},
          {"GET", context.epoch("delayCallDepth=0+&delayInMillis=0"), 400, "delayCallDepth"},
          {"GET", context.epoch("delayCallDepth=&delayInMillis=0"), 400, "got ''"},
          {"GET", context.epoch("delayCallDepth&delayInMillis=0"), 400, "got ''"},
          {"GET", context.epoch("delayCallDepth=0&delayInMillis="), 400, "delayInMillis"},
      });
}

void rangesAreInclusive(RuleContext& context) {
  auto worker = context.serve();
  HttpConnection client(worker->port());
  expectAnswers(
      client, {
                  {"GET", context.epoch(delayQuery(kMaxDepth + 1, 0)), 400,
                   "from 0 to " + std::to_string(kMaxDepth)},
                  {"GET", context.epoch(delayQuery(0, kMaxDelay + 1)), 400,
                   "from 0 to " + std::to_string(kMaxDelay)},
                  {"GET", context.epoch("delayCallDepth=0&delayInMillis=-1"), 400, "delayInMillis"},
              });

  // The deepest chain: kMaxDepth nested calls.
  const WorkerStats before = quietStats(*worker);
  const std::string deepest = context.epoch(delayQuery(kMaxDepth, 0));
  expectOk(ask(client, "GET", deepest), "GET " + deepest);
  const WorkerStats after = quietStats(*worker);
  const std::int64_t calls = counter(after, "upstream_calls") - counter(before, "upstream_calls");
  require(calls == kMaxDepth, "sent GET " + deepest + ": expected " + std::to_string(kMaxDepth) +
                                  " nested calls, counted " + std::to_string(calls));

  // The longest delay is accepted: the request waits instead of being refused at once.
  const std::string longest = context.epoch(delayQuery(0, kMaxDelay));
  HttpConnection waiting(worker->port(), std::chrono::milliseconds(500));
  bool answered = false;
  std::string answer;
  try {
    answer = shown(waiting.request("GET", longest));
    answered = true;
  } catch (const std::runtime_error&) {
    // No answer within 500 ms: it waits, as it should.
  }
  require(!answered, "sent GET " + longest + ": expected it to wait " + std::to_string(kMaxDelay) +
                         " ms, got " + answer + " at once");
}

void queryNamesAreExact(RuleContext& context) {
  auto worker = context.serve();
  HttpConnection client(worker->port());
  expectAnswers(
      client,
      {
          {"GET", context.epoch("delayCallDepth=0&delayCallDepth=x&delayInMillis=0"), 200, ""},
          {"GET", context.epoch("x=1&delayInMillis=0&other&delayCallDepth=0&directorLastName=%zz"),
           200, ""},
          {"GET", context.epoch("DelayCallDepth=0&delayInMillis=0"), 400,
           "missing query parameter delayCallDepth"},
          {"GET", context.epoch("delay%43allDepth=0&delayInMillis=0"), 400,
           "missing query parameter delayCallDepth"},
          {"GET", context.epoch("delayCallDepth=0;delayInMillis=0"), 400, "delayCallDepth"},
      });
}

void directorNameIsDecoded(RuleContext& context) {
  auto worker = context.serve({"--profile", "read-write"});
  HttpConnection client(worker->port());
  const std::string params = "&delayCallDepth=0&delayInMillis=0";
  auto movies = [&](const std::string& name) {
    return context.path("/movies?directorLastName=" + name + params);
  };
  const std::string post = context.path("/movies" + kNoDelay);
  expectOk(ask(client, "POST", post, kVanSantMovie),
           "POST " + post + " with a movie by 'Van Sant' under read-write");
  for (const std::string name : {"Van+Sant", "Van%20Sant", "V%61n%20Sant"}) {
    const HttpResponse response = ask(client, "GET", movies(name));
    require(response.status == 200 && response.body.find("Elephant") != std::string::npos,
            "sent GET " + movies(name) + " after saving a movie by 'Van Sant': expected it, got " +
                shown(response));
  }
  const HttpResponse plus = ask(client, "GET", movies("V%61n%2bSant"));
  require(plus.status == 200 && plus.body == "[]",
          "sent GET " + movies("V%61n%2bSant") +
              ": expected 200 '[]' (%2B is a literal '+'), got " + shown(plus));
  const HttpResponse hitchcock = ask(client, "GET", movies("Hitchcock"));
  require(hitchcock.status == 200 && hitchcock.body != "[]",
          "sent GET " + movies("Hitchcock") + ": expected his movies, got " + shown(hitchcock));
  for (const std::string name : {"Hitchc%6Fck", "Hitchc%6fck"}) {
    const HttpResponse response = ask(client, "GET", movies(name));
    require(response.body == hitchcock.body, "sent GET " + movies(name) +
                                                 ": expected Hitchcock's movies (hex digits in " +
                                                 "either case), got " + shown(response));
  }
  const HttpResponse lower = ask(client, "GET", movies("hitchcock"));
  require(lower.body == "[]", "sent GET " + movies("hitchcock") +
                                  ": expected '[]' (names are case-sensitive), got " +
                                  shown(lower));
  expectAnswers(client, {
                            {"GET", movies(""), 400, "directorLastName"},
                            {"GET", movies("%"), 400, "directorLastName"},
                            {"GET", movies("Van%2"), 400, "directorLastName"},
                            {"GET", movies("%G0"), 400, "directorLastName"},
                            {"GET", context.path("/movies?directorLastName" + params), 400,
                             "directorLastName"},
                        });
}

void pathsAreMatchedExactly(RuleContext& context) {
  auto worker = context.serve();
  HttpConnection client(worker->port());
  const std::string& q = kNoDelay;
  expectAnswers(client, {
                            {"GET", "/health?anything=1", 200, ""},
                            {"GET", "/health/", 404, "no such path"},
                            {"GET", context.path("/epoch-millis/" + q), 404, "no such path"},
                            {"GET", context.path("/Epoch-Millis" + q), 404, "no such path"},
                            {"GET", context.path("/epoch%2Dmillis" + q), 404, "no such path"},
                            {"GET", context.path(q), 404, "no such path"},
                            {"GET", context.path("/" + q), 404, "no such path"},
                            {"DELETE", context.path("/movies/" + q), 404, "no such path"},
                            {"DELETE", context.path("/movies/1/2" + q), 404, "no such path"},
                            {"GET", context.path("x/epoch-millis" + q), 404, "no such path"},
                        });
}

void movieIdIsA64BitDecimal(RuleContext& context) {
  auto worker = context.serve();
  HttpConnection client(worker->port());
  const std::string& q = kNoDelay;
  expectAnswers(client,
                {
                    {"DELETE", context.path("/movies/007" + q), 200, ""},
                    {"DELETE", context.path("/movies/9223372036854775807" + q), 200, ""},
                    {"DELETE", context.path("/movies/9223372036854775808" + q), 400, "movie id"},
                    {"DELETE", context.path("/movies/-1" + q), 400, "movie id"},
                    {"DELETE", context.path("/movies/+1" + q), 400, "movie id"},
                    {"DELETE", context.path("/movies/%31" + q), 400, "movie id"},
                    {"DELETE", context.path("/movies/1.0" + q), 400, "movie id"},
                });
}

}  // namespace

std::vector<Rule> badInputRules() {
  return {
      {"bad-input.parameters",
       "missing, malformed and out-of-range parameters are 400 naming the parameter", "2, 4",
       parametersAreChecked},
      {"bad-input.paths-and-methods",
       "an unknown path or another plugin's path is 404; a wrong method 405 with Allow", "4, 5",
       pathsAndMethodsAreChecked},
      {"bad-input.body",
       "a body that is not a JSON array of movies is 400; the connection survives", "4, 5",
       badBodyIsRefused},
      {"query.numbers",
       "numbers: digits, leading zeros and -0 accepted; +, %XX, hex, exponent, empty refused", "3",
       numbersAreDecimalDigits},
      {"query.ranges",
       "ranges are inclusive: depth 64 makes 64 nested calls, 65 is 400; delay 3,600,000 waits, "
       "3,600,001 is 400",
       "2, 10", rangesAreInclusive},
      {"query.names", "query: split at &, exact names, first occurrence wins, unknown ignored", "3",
       queryNamesAreExact},
      {"query.director-name",
       "directorLastName: + and %XX decoded, case-sensitive; empty or a bad escape is 400", "3",
       directorNameIsDecoded},
      {"paths.exact", "paths are matched exactly; /health ignores its query", "3",
       pathsAreMatchedExactly},
      {"paths.movie-id",
       "movie id: 0 to 2^63 - 1, leading zeros fine, unknown id a 200 no-op, anything else 400",
       "2, 3", movieIdIsA64BitDecimal},
  };
}

}  // namespace benchd::conformance
