// The microservice contract, checked against every approach plugin in a real benchd-worker
// over real HTTP, for each delayCallDepth x delayInMillis: answers, delays, nested calls, and
// the read-write save -> cached read -> delete cycle (the original's MovieControllerIT).
#include "approach_plugins.hpp"
#include "build_paths.hpp"
#include "http_client.hpp"
#include "worker_process.hpp"

#include <benchd/microservice/movie_service.hpp>

#include <gtest/gtest.h>
#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <tuple>

namespace benchd::testing {
namespace {

using Clock = std::chrono::system_clock;

std::int64_t nowMillis() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now().time_since_epoch())
      .count();
}

std::string readFile(const std::string& path) {
  std::ifstream file(path);
  std::stringstream content;
  content << file.rdbuf();
  return content.str();
}

/// The same movies, each without its ids: what a save must return apart from the ids.
std::string withoutIds(const std::string& json) {
  rapidjson::Document document;
  document.Parse(json.c_str());
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

class ServiceConformance : public ::testing::TestWithParam<std::tuple<std::string, int, int>> {
 protected:
  [[nodiscard]] const std::string& plugin() const { return std::get<0>(GetParam()); }
  [[nodiscard]] int depth() const { return std::get<1>(GetParam()); }
  [[nodiscard]] int delay() const { return std::get<2>(GetParam()); }

  [[nodiscard]] std::string query() const {
    return "delayCallDepth=" + std::to_string(depth()) +
           "&delayInMillis=" + std::to_string(delay());
  }
  [[nodiscard]] std::string path(const std::string& resource) const {
    return "/" + plugin() + resource;
  }
  [[nodiscard]] std::string moviesOf(const std::string& director) const {
    return path("/movies?directorLastName=" + director + "&" + query());
  }

  /// Stats once every request so far (and its nested calls) has been answered.
  static WorkerStats settledStats(WorkerProcess& worker, std::int64_t min_served) {
    auto stats = worker.waitStats([&](const WorkerStats& s) {
      return s.counter("requests_in_flight") == 0 && s.counter("requests_served") >= min_served;
    });
    if (!stats)
      throw std::runtime_error("worker never settled: " + worker.stderrText());
    return *stats;
  }
};

TEST_P(ServiceConformance, EpochMillisWaitsAtTheLeafAfterDepthNestedCalls) {
  auto worker = WorkerProcess::serve(plugin());
  const WorkerStats before = settledStats(*worker, 0);

  const std::int64_t start = nowMillis();
  const HttpResponse response =
      httpRequest(worker->port(), "GET", path("/epoch-millis?" + query()));
  const std::int64_t end = nowMillis();

  ASSERT_EQ(response.status, 200u) << response.body;
  EXPECT_EQ(response.header("content-type"), "application/json");
  const std::int64_t answered = std::stoll(response.body);
  EXPECT_GE(answered, start);
  EXPECT_LE(answered, end);
  EXPECT_GE(response.elapsed, std::chrono::milliseconds(delay()));

  const std::int64_t served_before = before.counter("requests_served");
  const WorkerStats after = settledStats(*worker, served_before + depth() + 1);
  EXPECT_EQ(after.counter("upstream_calls") - before.counter("upstream_calls"), depth());
  EXPECT_EQ(after.counter("requests_served") - served_before, depth() + 1);
}

TEST_P(ServiceConformance, GetMoviesAnswersTheRepositoryContent) {
  microservice::MovieService reference(microservice::ServiceProfile{});
  auto worker = WorkerProcess::serve(plugin());
  const WorkerStats before = settledStats(*worker, 0);
  const std::vector<std::string> directors = {"Allen", "Hitchcock", "Kubrick", "Lynch"};
  for (const auto& director : directors) {
    const HttpResponse response = httpRequest(worker->port(), "GET", moviesOf(director));
    ASSERT_EQ(response.status, 200u) << director << ": " << response.body;
    EXPECT_EQ(response.body, *reference.moviesByDirector(director)) << director;
    EXPECT_GE(response.elapsed, std::chrono::milliseconds(delay()));
  }
  const auto count = static_cast<std::int64_t>(directors.size());
  const WorkerStats after =
      settledStats(*worker, before.counter("requests_served") + count * (depth() + 1));
  EXPECT_EQ(after.counter("upstream_calls") - before.counter("upstream_calls"), count * depth());
}

TEST_P(ServiceConformance, PostEchoesItsInputWhenReadOnly) {
  const std::string movies = readFile(sourceDir() + "/scenarios/movies.json");
  microservice::MovieService reference(microservice::ServiceProfile{});
  auto worker = WorkerProcess::serve(plugin());

  const HttpResponse saved =
      httpRequest(worker->port(), "POST", path("/movies?" + query()), movies);
  ASSERT_EQ(saved.status, 200u) << saved.body;
  EXPECT_EQ(saved.body, reference.saveMovies(movies));
  EXPECT_EQ(saved.body.find("\"id\""), std::string::npos) << "read-only saves assign no ids";

  const HttpResponse allen = httpRequest(worker->port(), "GET", moviesOf("Allen"));
  EXPECT_EQ(allen.body, *reference.moviesByDirector("Allen")) << "read-only: nothing stored";
}

TEST_P(ServiceConformance, ReadWriteSaveCachedReadDeleteCycle) {
  auto worker = WorkerProcess::serve(plugin(), {"--profile", "read-write"});
  HttpConnection client(worker->port());
  std::int64_t served = 0;
  auto step = [&](const std::string& method, const std::string& target,
                  const std::string& body = {}) {
    HttpResponse response = client.request(method, target, body);
    served += depth() + 1;
    return std::make_pair(response, settledStats(*worker, served));
  };

  auto [empty, initial] = step("GET", moviesOf("Lynch"));
  ASSERT_EQ(empty.status, 200u);
  EXPECT_EQ(empty.body, "[]");

  const std::string lynch_movies =
      R"([{"title":"Mulholland Drive","releaseYear":2001,"genre":"MYSTERY",)"
      R"("directors":[{"firstName":"David","lastName":"Lynch","birthday":"1946-01-20"}],)"
      R"("rating":7.9},{"title":"The Straight Story","releaseYear":1999,"genre":"DRAMA",)"
      R"("directors":[{"firstName":"David","lastName":"Lynch","birthday":"1946-01-20"}],)"
      R"("rating":8.0}])";
  auto [saved, after_save] = step("POST", path("/movies?" + query()), lynch_movies);
  ASSERT_EQ(saved.status, 200u) << saved.body;
  rapidjson::Document saved_movies;
  saved_movies.Parse(saved.body.c_str());
  ASSERT_TRUE(saved_movies.IsArray()) << saved.body;
  ASSERT_EQ(saved_movies.Size(), 2u);
  std::vector<std::int64_t> ids;
  for (const auto& movie : saved_movies.GetArray()) {
    ASSERT_TRUE(movie.HasMember("id") && movie["id"].IsInt64()) << saved.body;
    ids.push_back(movie["id"].GetInt64());
  }
  microservice::MovieService echo(microservice::ServiceProfile{});
  EXPECT_EQ(withoutIds(saved.body), withoutIds(echo.saveMovies(lynch_movies)));

  auto [first_read, after_first_read] = step("GET", moviesOf("Lynch"));
  ASSERT_EQ(first_read.status, 200u);
  EXPECT_NE(first_read.body.find("Mulholland Drive"), std::string::npos) << first_read.body;
  EXPECT_NE(first_read.body.find("The Straight Story"), std::string::npos) << first_read.body;
  EXPECT_EQ(after_first_read.counter("database_queries") - after_save.counter("database_queries"),
            1)
      << "the save evicted the cache, so the first read queries";

  auto [second_read, after_second_read] = step("GET", moviesOf("Lynch"));
  EXPECT_EQ(second_read.body, first_read.body);
  EXPECT_EQ(after_second_read.counter("database_queries"),
            after_first_read.counter("database_queries"))
      << "the second read is served from the cache";
  EXPECT_EQ(after_second_read.counter("cache_hits") - after_first_read.counter("cache_hits"), 1);

  for (const std::int64_t id : ids) {
    auto [deleted, unused] = step("DELETE", path("/movies/" + std::to_string(id) + "?" + query()));
    EXPECT_EQ(deleted.status, 200u) << deleted.body;
  }
  auto [final_read, after_final_read] = step("GET", moviesOf("Lynch"));
  EXPECT_EQ(final_read.body, "[]");
  EXPECT_EQ(
      after_final_read.counter("database_queries") - after_second_read.counter("database_queries"),
      1)
      << "the delete evicted the cache";
}

INSTANTIATE_TEST_SUITE_P(AllApproaches, ServiceConformance,
                         ::testing::Combine(::testing::ValuesIn(approachPlugins()),
                                            ::testing::Values(0, 1, 2), ::testing::Values(0, 50)),
                         [](const auto& param_info) {
                           return testNameOf(std::get<0>(param_info.param)) + "_depth" +
                                  std::to_string(std::get<1>(param_info.param)) + "_delay" +
                                  std::to_string(std::get<2>(param_info.param));
                         });

}  // namespace
}  // namespace benchd::testing
