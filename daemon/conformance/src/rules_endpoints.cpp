// CONTRACT.md section 2: every endpoint, for every delayCallDepth x delayInMillis the checks
// combine (0, 1, 2 x 0, 50 ms): the answers, the waits, the nested calls, and the read-write
// save -> cached read -> delete cycle (the original study's MovieControllerIT).
#include "answer_checks.hpp"
#include "rule_groups.hpp"

#include <benchd/microservice/movie_service.hpp>

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <chrono>
#include <functional>
#include <utility>

namespace benchd::conformance {
namespace {

using std::chrono::milliseconds;

constexpr int kDepths[] = {0, 1, 2};
constexpr int kDelays[] = {0, 50};

/// Two movies of a director the core does not have, without ids.
const std::string kLynchMovies =
    R"([{"title":"Mulholland Drive","releaseYear":2001,"genre":"MYSTERY",)"
    R"("directors":[{"firstName":"David","lastName":"Lynch","birthday":"1946-01-20"}],)"
    R"("rating":7.9},{"title":"The Straight Story","releaseYear":1999,"genre":"DRAMA",)"
    R"("directors":[{"firstName":"David","lastName":"Lynch","birthday":"1946-01-20"}],)"
    R"("rating":8.0}])";

std::int64_t nowMillis() {
  return std::chrono::duration_cast<milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

/// Runs `check(depth, delay)` for every combination; a failure names the combination.
void forEveryCombination(const std::function<void(int, int)>& check) {
  for (const int depth : kDepths) {
    for (const int delay : kDelays) {
      try {
        check(depth, delay);
      } catch (const RuleFailure& failure) {
        fail("delayCallDepth=" + std::to_string(depth) + " delayInMillis=" + std::to_string(delay) +
             ": " + failure.what());
      }
    }
  }
}

/// Stats once every request so far, `min_served` at least, has been answered.
WorkerStats settledStats(WorkerProcess& worker, std::int64_t min_served) {
  return waitForStats(
      worker,
      [min_served](const WorkerStats& stats) {
        return counter(stats, "requests_in_flight") == 0 &&
               counter(stats, "requests_served") >= min_served;
      },
      "requests_in_flight 0 and requests_served at least " + std::to_string(min_served));
}

void requireWaited(const HttpResponse& response, const std::string& sent, int delay) {
  require(response.elapsed >= milliseconds(delay),
          "sent " + sent + ": answered after " +
              std::to_string(std::chrono::duration_cast<milliseconds>(response.elapsed).count()) +
              " ms, before the " + std::to_string(delay) + " ms delay was over");
}

/// The same movies, each without its ids: what a save must return apart from the ids.
std::string withoutIds(const std::string& json) {
  rapidjson::Document document;
  document.Parse(json.c_str(), json.size());
  if (document.HasParseError())
    return json;
  std::function<void(rapidjson::Value&)> strip = [&](rapidjson::Value& value) {
    if (value.IsObject()) {
      if (value.HasMember("id"))
        value.EraseMember("id");  // keeps the member order
      for (auto& member : value.GetObject())
        strip(member.value);
    } else if (value.IsArray()) {
      for (auto& element : value.GetArray())
        strip(element);
    }
  };
  strip(document);
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
  document.Accept(writer);
  return buffer.GetString();
}

void healthIsUp(RuleContext& context) {
  auto worker = context.serve();
  const HttpResponse response = askOnce(worker->port(), "GET", "/health");
  require(response.status == 200 && response.body == R"({"status":"UP"})",
          R"(sent GET /health: expected 200 {"status":"UP"}, got )" + shown(response));
}

void epochMillisWaitsAtTheLeaf(RuleContext& context) {
  forEveryCombination([&context](int depth, int delay) {
    auto worker = context.serve();
    const WorkerStats before = settledStats(*worker, 0);
    const std::string target = context.epoch(delayQuery(depth, delay));
    const std::int64_t start = nowMillis();
    const HttpResponse response = askOnce(worker->port(), "GET", target);
    const std::int64_t end = nowMillis();
    const std::string sent = "GET " + target;
    expectOk(response, sent);
    require(response.header("content-type") == "application/json",
            "sent " + sent + ": expected Content-Type application/json, got '" +
                response.header("content-type") + "'");
    const bool digits = !response.body.empty() &&
                        response.body.find_first_not_of("0123456789") == std::string::npos &&
                        response.body.size() <= 18;
    require(digits, "sent " + sent + ": expected the epoch milliseconds as a decimal number, got " +
                        shown(response));
    const std::int64_t answered = std::stoll(response.body);
    require(answered >= start && answered <= end,
            "sent " + sent + ": expected the time of the answer (between " + std::to_string(start) +
                " and " + std::to_string(end) + "), got " + response.body);
    requireWaited(response, sent, delay);
    const std::int64_t served_before = counter(before, "requests_served");
    const WorkerStats after = settledStats(*worker, served_before + depth + 1);
    const std::int64_t calls = counter(after, "upstream_calls") - counter(before, "upstream_calls");
    require(calls == depth, "sent " + sent + ": expected " + std::to_string(depth) +
                                " nested calls (upstream_calls), counted " + std::to_string(calls));
    const std::int64_t served = counter(after, "requests_served") - served_before;
    require(served == depth + 1,
            "sent " + sent + ": expected " + std::to_string(depth + 1) +
                " requests served (the request and its nested ones), counted " +
                std::to_string(served));
  });
}

void getMoviesAnswersTheCore(RuleContext& context) {
  forEveryCombination([&context](int depth, int delay) {
    microservice::MovieService reference(microservice::ServiceProfile{});
    auto worker = context.serve();
    const WorkerStats before = settledStats(*worker, 0);
    const std::vector<std::string> directors = {"Allen", "Hitchcock", "Kubrick", "Lynch"};
    for (const std::string& director : directors) {
      const std::string target =
          context.path("/movies?directorLastName=" + director + "&" + delayQuery(depth, delay));
      const HttpResponse response = askOnce(worker->port(), "GET", target);
      const std::string expected = *reference.moviesByDirector(director);
      require(response.status == 200 && response.body == expected,
              "sent GET " + target + ": expected 200 '" + printableBytes(expected, 200) +
                  "', got " + shown(response));
      requireWaited(response, "GET " + target, delay);
    }
    const auto count = static_cast<std::int64_t>(directors.size());
    const WorkerStats after =
        settledStats(*worker, counter(before, "requests_served") + count * (depth + 1));
    const std::int64_t calls = counter(after, "upstream_calls") - counter(before, "upstream_calls");
    require(calls == count * depth, "expected " + std::to_string(count * depth) +
                                        " nested calls for " + std::to_string(count) +
                                        " requests, counted " + std::to_string(calls));
  });
}

void postEchoesWhenReadOnly(RuleContext& context) {
  forEveryCombination([&context](int depth, int delay) {
    microservice::MovieService reference(microservice::ServiceProfile{});
    auto worker = context.serve();
    const std::string target = context.path("/movies?" + delayQuery(depth, delay));
    const HttpResponse saved = askOnce(worker->port(), "POST", target, kLynchMovies);
    const std::string expected = reference.saveMovies(kLynchMovies);
    require(saved.status == 200 && saved.body == expected,
            "sent POST " + target + " with two movies: expected 200 and the input re-serialised '" +
                printableBytes(expected, 200) + "', got " + shown(saved));
    const std::string read = context.path("/movies?directorLastName=Lynch&" + delayQuery(0, 0));
    const HttpResponse lynch = askOnce(worker->port(), "GET", read);
    require(lynch.status == 200 && lynch.body == "[]",
            "sent GET " + read +
                " after the POST: expected 200 '[]' (read-only: nothing stored), " + "got " +
                shown(lynch));
  });
}

void readWriteCycle(RuleContext& context) {
  forEveryCombination([&context](int depth, int delay) {
    auto worker = context.serve({"--profile", "read-write"});
    HttpConnection client(worker->port());
    std::int64_t served = 0;
    const std::string query = delayQuery(depth, delay);
    const std::string read = context.path("/movies?directorLastName=Lynch&" + query);
    auto step = [&](const std::string& method, const std::string& target,
                    const std::string& body = {}) {
      HttpResponse response = ask(client, method, target, body);
      served += depth + 1;
      return std::make_pair(response, settledStats(*worker, served));
    };

    auto [empty, initial] = step("GET", read);
    require(empty.status == 200 && empty.body == "[]",
            "sent GET " + read + ": expected 200 '[]', got " + shown(empty));

    const std::string post = context.path("/movies?" + query);
    auto [saved, after_save] = step("POST", post, kLynchMovies);
    rapidjson::Document saved_movies;
    saved_movies.Parse(saved.body.c_str(), saved.body.size());
    const std::string sent_post = "sent POST " + post + " with two movies under read-write: ";
    require(saved.status == 200 && !saved_movies.HasParseError() && saved_movies.IsArray() &&
                saved_movies.Size() == 2,
            sent_post + "expected 200 and the two stored movies, got " + shown(saved));
    std::vector<std::int64_t> ids;
    for (const auto& movie : saved_movies.GetArray()) {
      require(movie.IsObject() && movie.HasMember("id") && movie["id"].IsInt64(),
              sent_post + "expected each movie with its id, got " + shown(saved));
      ids.push_back(movie["id"].GetInt64());
    }
    microservice::MovieService echo(microservice::ServiceProfile{});
    require(withoutIds(saved.body) == withoutIds(echo.saveMovies(kLynchMovies)),
            sent_post + "expected the input with ids added, got " + shown(saved));

    auto [first_read, after_first_read] = step("GET", read);
    require(first_read.status == 200 &&
                first_read.body.find("Mulholland Drive") != std::string::npos &&
                first_read.body.find("The Straight Story") != std::string::npos,
            "sent GET " + read + " after the save: expected both saved movies, got " +
                shown(first_read));
    require(
        counter(after_first_read, "database_queries") - counter(after_save, "database_queries") ==
            1,
        "sent GET " + read + " after the save: expected one database query (the save " +
            "evicted the cache), the core counted " +
            std::to_string(counter(after_first_read, "database_queries") -
                           counter(after_save, "database_queries")));

    auto [second_read, after_second_read] = step("GET", read);
    require(second_read.body == first_read.body,
            "sent GET " + read + " again: expected the same answer, got " + shown(second_read));
    require(
        counter(after_second_read, "database_queries") ==
                counter(after_first_read, "database_queries") &&
            counter(after_second_read, "cache_hits") - counter(after_first_read, "cache_hits") == 1,
        "sent GET " + read + " again: expected an answer from the cache (no query, one hit)");

    for (const std::int64_t id : ids) {
      const std::string target = context.path("/movies/" + std::to_string(id) + "?" + query);
      auto [deleted, unused] = step("DELETE", target);
      require(deleted.status == 200,
              "sent DELETE " + target + ": expected 200, got " + shown(deleted));
    }
    auto [final_read, after_final_read] = step("GET", read);
    require(final_read.body == "[]",
            "sent GET " + read + " after deleting both: expected '[]', got " + shown(final_read));
    require(counter(after_final_read, "database_queries") -
                    counter(after_second_read, "database_queries") ==
                1,
            "sent GET " + read + " after deleting both: expected one database query (the " +
                "delete evicted the cache)");
  });
}

}  // namespace

std::vector<Rule> endpointRules() {
  return {
      {"endpoints.health", R"(GET /health answers 200 {"status":"UP"})", "2", healthIsUp},
      {"endpoints.epoch-millis",
       "epoch-millis answers the time after the wait, waited at the leaf after depth nested calls",
       "2, 6", epochMillisWaitsAtTheLeaf},
      {"endpoints.get-movies", "GET movies answers the core's JSON, after the wait", "2",
       getMoviesAnswersTheCore},
      {"endpoints.post-echoes", "POST movies echoes its input when read-only", "2",
       postEchoesWhenReadOnly},
      {"endpoints.read-write-cycle", "read-write: save with ids, cached read, delete", "2",
       readWriteCycle},
  };
}

}  // namespace benchd::conformance
