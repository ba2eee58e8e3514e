#include "answer_check.hpp"

#include <benchd/common/epoch_time.hpp>
#include <benchd/microservice/movie_service.hpp>
#include <benchd/microservice/service_profile.hpp>
#include <benchd/runner/http_probe.hpp>
#include <benchd/scenario/json_nesting.hpp>
#include <benchd/scenario/path_template.hpp>
#include <benchd/sdk/service_request.hpp>

#include <rapidjson/document.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <set>
#include <tuple>
#include <variant>

namespace benchd::runner {
namespace {

/// Longer than any nested chain of the row should take.
std::chrono::milliseconds answerTimeout(const scenario::ScenarioRow& row) {
  return std::chrono::milliseconds(10'000) +
         std::chrono::milliseconds(std::int64_t{row.delay_millis} * (row.delay_call_depth + 1));
}

std::string excerpt(const std::string& body) {
  constexpr std::size_t kMaximum = 120;
  if (body.empty()) {
    return "an empty body";
  }
  return "'" + (body.size() > kMaximum ? body.substr(0, kMaximum) + "..." : body) + "'";
}

/// The path without its query, and one query parameter's value (not percent-decoded: the
/// workloads' director names are plain letters).
std::string pathOf(const std::string& target) {
  return target.substr(0, target.find('?'));
}

void removeIds(rapidjson::Value& value) {
  if (value.IsObject()) {
    value.RemoveMember("id");
    for (auto& member : value.GetObject()) {
      removeIds(member.value);
    }
  } else if (value.IsArray()) {
    for (auto& element : value.GetArray()) {
      removeIds(element);
    }
  }
}

/// Deeper JSON than any answer of the microservice (an array of movie objects) is wrong, and is
/// refused before it is parsed: comparing and walking values recurses, and a plugin must not be
/// able to overflow benchd's stack with its answer.
constexpr int kMaxAnswerDepth = 16;

/// True when both texts are JSON and equal as values (ids removed first when asked).
bool sameJson(const std::string& actual, const std::string& expected, bool ignore_ids) {
  constexpr unsigned kFlags =
      rapidjson::kParseIterativeFlag | rapidjson::kParseValidateEncodingFlag;
  if (scenario::nestsDeeperThan(actual, kMaxAnswerDepth) ||
      scenario::nestsDeeperThan(expected, kMaxAnswerDepth)) {
    return false;
  }
  rapidjson::Document actual_document;
  rapidjson::Document expected_document;
  if (actual_document.Parse<kFlags>(actual.c_str(), actual.size()).HasParseError() ||
      expected_document.Parse<kFlags>(expected.c_str(), expected.size()).HasParseError()) {
    return false;
  }
  if (ignore_ids) {
    removeIds(actual_document);
    removeIds(expected_document);
  }
  return actual_document == expected_document;
}

std::optional<std::string> checkEpochMillis(const std::string& body, std::int64_t sent,
                                            std::int64_t received) {
  std::int64_t value = 0;
  const auto [end, error] = std::from_chars(body.data(), body.data() + body.size(), value);
  if (error != std::errc{} || end != body.data() + body.size()) {
    return "expected the epoch milliseconds as an integer, got " + excerpt(body);
  }
  if (value < sent || value > received) {
    return "expected epoch milliseconds between " + std::to_string(sent) + " and " +
           std::to_string(received) + ", got " + std::to_string(value);
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> findWrongAnswer(std::uint16_t port, const std::string& approach,
                                           const scenario::ScenarioRow& row,
                                           const scenario::Workload& workload) {
  const microservice::ServiceProfile profile =
      microservice::ServiceProfile::fromNames(row.server_profiles);
  microservice::MovieService expected_service(profile);
  const scenario::PathValues values{approach, row.delay_call_depth, row.delay_millis};
  const std::string prefix = "/" + approach + "/";
  // HTTP/1.1 over TLS also under `h2`, whose ALPN lets an HTTP/1.1 client in; `h2c` serves
  // HTTP/1.1 in clear beside HTTP/2.
  const ProbeTransport transport =
      std::any_of(row.server_profiles.begin(), row.server_profiles.end(),
                  [](const std::string& name) { return microservice::needsCertificate(name); })
          ? ProbeTransport::kTls
          : ProbeTransport::kPlain;
  std::set<std::tuple<std::string, std::string, std::string>> checked;
  for (const scenario::SubScenario& sub : workload.sub_scenarios) {
    for (const scenario::RequestTemplate& request : sub.requests) {
      const std::string target = scenario::renderPath(request.path_template, values);
      if (!checked.emplace(request.method, target, request.body).second) {
        continue;
      }
      const std::string what = request.method + " " + target;
      const std::int64_t sent = common::epochMillisNow();
      HttpReply reply;
      try {
        reply =
            probeHttp(port, request.method, target, request.body, answerTimeout(row), transport);
      } catch (const HttpProbeError& error) {
        return std::string("wrong answer: ") + error.what();
      }
      const std::int64_t received = common::epochMillisNow();
      if (reply.status < 200 || reply.status > 299) {
        return "wrong answer: " + what + ": expected a 2xx status, got " +
               std::to_string(reply.status) + " with " + excerpt(reply.body);
      }
      const std::string path = pathOf(target);
      std::optional<std::string> problem;
      if (path == prefix + "epoch-millis" && request.method == "GET") {
        problem = checkEpochMillis(reply.body, sent, received);
      } else if (path == prefix + "movies" && request.method == "GET") {
        // The director as the plugin read it: the SDK's own parse, decoding included.
        const auto classified = sdk::classifyRequest(request.method, target, approach);
        const auto* parsed = std::get_if<sdk::ServiceRequest>(&classified);
        const std::string director = parsed != nullptr ? parsed->director_last_name : "";
        const std::string expected = *expected_service.moviesByDirector(director);
        if (!sameJson(reply.body, expected, false)) {
          problem = "expected the movies of '" + director + "' (" +
                    std::to_string(expected.size()) + " bytes of JSON), got " + excerpt(reply.body);
        }
      } else if (path == prefix + "movies" && request.method == "POST") {
        std::string expected;
        try {
          expected = expected_service.saveMovies(request.body);
        } catch (const microservice::InvalidMoviesError&) {
          continue;  // the workload posts something else than movies: the status is all we know
        }
        if (!sameJson(reply.body, expected, !profile.read_only)) {
          problem = std::string("expected the ") +
                    (profile.read_only ? "posted movies echoed" : "saved movies") + ", got " +
                    excerpt(reply.body);
        }
      }
      if (problem) {
        return "wrong answer: " + what + ": " + *problem;
      }
    }
  }
  return std::nullopt;
}

}  // namespace benchd::runner
