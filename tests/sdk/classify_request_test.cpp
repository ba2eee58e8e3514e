// sdk::classifyRequest, the router of every C++ plugin, on its own and without sockets: each
// endpoint of CONTRACT.md section 2 with its parameters; how the target is read (section 3);
// that of several faults the earliest check of section 4 answers; and the answers' status,
// Allow and canonical message (section 5). The conformance suite sees all this only through
// whole requests to running plugins; the percent-decoding and query splitting underneath have
// their own tests (query_string_test.cpp).
#include <benchd/sdk/service_request.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace benchd::sdk {
namespace {

using namespace std::string_literals;
using namespace std::string_view_literals;

/// The plugin whose requests are classified: the first path segment of its endpoints.
constexpr std::string_view kApproach = "threads-poco";
/// Valid values of the two parameters every /{a}/... endpoint requires.
constexpr std::string_view kDelays = "delayCallDepth=0&delayInMillis=0";

/// The request classifyRequest makes of `method` and `target`; a test failure (and a default
/// request) when it answers instead.
ServiceRequest accepted(std::string_view method, std::string_view target) {
  auto result = classifyRequest(method, target, kApproach);
  if (const Reply* reply = std::get_if<Reply>(&result)) {
    ADD_FAILURE() << method << ' ' << target << " was answered " << reply->status << ' '
                  << reply->body;
    return {};
  }
  return std::get<ServiceRequest>(std::move(result));
}

/// The reply classifyRequest gives `method` and `target`; a test failure when it accepts them.
Reply refused(std::string_view method, std::string_view target) {
  auto result = classifyRequest(method, target, kApproach);
  if (std::holds_alternative<ServiceRequest>(result)) {
    ADD_FAILURE() << method << ' ' << target << " was accepted";
    return {};
  }
  return std::get<Reply>(std::move(result));
}

/// The error body of section 5, spelled out here rather than made by errorReply(), so that a
/// change to its shape shows. `message` is as it appears inside the JSON string (escaped).
std::string errorBody(int status, std::string_view message) {
  const std::string_view reason = status == 400   ? "Bad Request"
                                  : status == 404 ? "Not Found"
                                  : status == 405 ? "Method Not Allowed"
                                                  : "(a status classifyRequest does not give)";
  return R"({"status":)" + std::to_string(status) + R"(,"error":")" + std::string(reason) +
         R"(","message":")" + std::string(message) + R"("})";
}

/// Expects `method target` to be answered `status` with exactly `message` and, for a 405 only,
/// the Allow value `allow`.
void expectAnswer(std::string_view method, std::string_view target, int status,
                  std::string_view message, std::string_view allow = {}) {
  SCOPED_TRACE(std::string(method) + " " + std::string(target));
  const Reply reply = refused(method, target);
  EXPECT_EQ(reply.status, status);
  EXPECT_EQ(reply.content_type, "application/json");
  EXPECT_EQ(reply.body, errorBody(status, message));
  EXPECT_EQ(reply.allow, allow);
}

/// One request and the answer expected of it.
struct Refusal {
  std::string_view method;
  std::string target;
  int status;
  std::string message;
  std::string_view allow = {};
};

void expectAnswers(const std::vector<Refusal>& refusals) {
  for (const Refusal& refusal : refusals) {
    expectAnswer(refusal.method, refusal.target, refusal.status, refusal.message, refusal.allow);
  }
}

/// `/threads-poco` followed by `rest`.
std::string ours(std::string_view rest) {
  return "/" + std::string(kApproach) + std::string(rest);
}

// ---- The endpoints (section 2) -------------------------------------------------------------

TEST(ClassifyRequest, HealthIsAGetThatTakesNoParametersAndIgnoresItsQuery) {
  EXPECT_EQ(accepted("GET", "/health").operation, Operation::kHealth);
  EXPECT_EQ(accepted("GET", "/health?delayCallDepth=oops&directorLastName=%zz").operation,
            Operation::kHealth);
  // Not under the plugin's name: the same for every plugin.
  EXPECT_TRUE(
      std::holds_alternative<ServiceRequest>(classifyRequest("GET", "/health", "callbacks-asio")));
}

TEST(ClassifyRequest, EpochMillisCarriesItsDelays) {
  const ServiceRequest request =
      accepted("GET", ours("/epoch-millis?delayCallDepth=3&delayInMillis=250"));
  EXPECT_EQ(request.operation, Operation::kEpochMillis);
  EXPECT_EQ(request.delay_call_depth, 3);
  EXPECT_EQ(request.delay_millis, 250);
  EXPECT_EQ(request.director_last_name, "");
  EXPECT_EQ(request.movie_id, 0);
}

TEST(ClassifyRequest, GetMoviesCarriesTheDecodedDirectorAndItsDelays) {
  const ServiceRequest request =
      accepted("GET", ours("/movies?directorLastName=Van+Sant&delayCallDepth=1&delayInMillis=10"));
  EXPECT_EQ(request.operation, Operation::kGetMovies);
  EXPECT_EQ(request.director_last_name, "Van Sant");
  EXPECT_EQ(request.delay_call_depth, 1);
  EXPECT_EQ(request.delay_millis, 10);
}

TEST(ClassifyRequest, PostMoviesCarriesItsDelaysAndNeedsNoDirector) {
  const ServiceRequest request =
      accepted("POST", ours("/movies?delayInMillis=7&delayCallDepth=2"));  // any order
  EXPECT_EQ(request.operation, Operation::kPostMovies);
  EXPECT_EQ(request.delay_call_depth, 2);
  EXPECT_EQ(request.delay_millis, 7);
  EXPECT_EQ(request.director_last_name, "");
}

TEST(ClassifyRequest, DeleteMovieCarriesTheIdFromThePathAndItsDelays) {
  const ServiceRequest request =
      accepted("DELETE", ours("/movies/42?delayCallDepth=0&delayInMillis=5"));
  EXPECT_EQ(request.operation, Operation::kDeleteMovie);
  EXPECT_EQ(request.movie_id, 42);
  EXPECT_EQ(request.delay_call_depth, 0);
  EXPECT_EQ(request.delay_millis, 5);
}

// ---- Paths and methods (sections 3 and 4, steps 2 and 3) -----------------------------------

TEST(ClassifyRequest, AnyOtherPathIs404WhateverTheMethodNamingThePathWithoutItsQuery) {
  // The path is compared byte for byte: not decoded, not case-folded, no trailing slash; the
  // plugin's name is a whole segment; another plugin's endpoints are not this one's.
  const std::string query = "?"s + std::string(kDelays);
  for (const std::string_view method : {"GET", "POST", "DELETE", "PUT"}) {
    expectAnswers({
        {method, "", 404, "no such path: "},
        {method, "/", 404, "no such path: /"},
        {method, "/HEALTH", 404, "no such path: /HEALTH"},
        {method, "/health/", 404, "no such path: /health/"},
        {method, ours(""), 404, "no such path: /threads-poco"},
        {method, ours("/"), 404, "no such path: /threads-poco/"},
        {method, ours("/unknown" + query), 404, "no such path: /threads-poco/unknown"},
        {method, ours("/epoch-millis/" + query), 404, "no such path: /threads-poco/epoch-millis/"},
        {method, ours("/epoch%2Dmillis" + query), 404,
         "no such path: /threads-poco/epoch%2Dmillis"},
        {method, ours("/Movies" + query), 404, "no such path: /threads-poco/Movies"},
        {method, ours("/movies/" + query), 404, "no such path: /threads-poco/movies/"},
        {method, ours("/movies/1/2" + query), 404, "no such path: /threads-poco/movies/1/2"},
        {method, "/callbacks-asio/epoch-millis" + query, 404,
         "no such path: /callbacks-asio/epoch-millis"},
        {method, "/threads/epoch-millis" + query, 404, "no such path: /threads/epoch-millis"},
        {method, "/threads-poco2/epoch-millis" + query, 404,
         "no such path: /threads-poco2/epoch-millis"},
        {method, "threads-poco/epoch-millis" + query, 404,
         "no such path: threads-poco/epoch-millis"},
    });
  }
}

TEST(ClassifyRequest, AWrongMethodIs405WithTheAllowTheContractNames) {
  const std::string query = "?"s + std::string(kDelays);
  expectAnswers({
      {"POST", "/health", 405, "use GET on /health", "GET"},
      {"HEAD", "/health", 405, "use GET on /health", "GET"},
      {"POST", ours("/epoch-millis" + query), 405, "use GET on /threads-poco/epoch-millis", "GET"},
      {"DELETE", ours("/movies" + query), 405, "use GET or POST on /threads-poco/movies",
       "GET, POST"},
      {"PUT", ours("/movies" + query), 405, "use GET or POST on /threads-poco/movies", "GET, POST"},
      {"OPTIONS", ours("/movies" + query), 405, "use GET or POST on /threads-poco/movies",
       "GET, POST"},
      {"GET", ours("/movies/7" + query), 405, "use DELETE on /threads-poco/movies/7", "DELETE"},
      {"POST", ours("/movies/7" + query), 405, "use DELETE on /threads-poco/movies/7", "DELETE"},
      // Methods are compared exactly.
      {"get", ours("/epoch-millis" + query), 405, "use GET on /threads-poco/epoch-millis", "GET"},
      {"Delete", ours("/movies/7" + query), 405, "use DELETE on /threads-poco/movies/7", "DELETE"},
  });
}

// ---- The order of the checks (section 4) ---------------------------------------------------

TEST(ClassifyRequest, OfSeveralFaultsTheEarliestCheckAnswers) {
  // Each request fails the check named and every later one it can.
  expectAnswers({
      // 404 before 405.
      {"PUT", ours("/nowhere"), 404, "no such path: /threads-poco/nowhere"},
      // 405 before a bad movie id, before missing parameters.
      {"GET", ours("/movies/x"), 405, "use DELETE on /threads-poco/movies/x", "DELETE"},
      {"POST", ours("/epoch-millis"), 405, "use GET on /threads-poco/epoch-millis", "GET"},
      // A bad movie id before the parameters.
      {"DELETE", ours("/movies/x?delayCallDepth=x"), 400,
       "movie id must be a non-negative integer"},
      // delayCallDepth, missing then malformed, before delayInMillis.
      {"GET", ours("/epoch-millis?delayInMillis=x"), 400, "missing query parameter delayCallDepth"},
      {"GET", ours("/epoch-millis?delayCallDepth=x&delayInMillis=y"), 400,
       "delayCallDepth must be an integer from 0 to 64, got 'x'"},
      // delayInMillis, missing then malformed, before directorLastName.
      {"GET", ours("/movies?delayCallDepth=0"), 400, "missing query parameter delayInMillis"},
      {"GET", ours("/movies?delayCallDepth=0&delayInMillis=y&directorLastName=%zz"), 400,
       "delayInMillis must be an integer from 0 to 3600000, got 'y'"},
      // directorLastName last.
      {"GET", ours("/movies?delayCallDepth=0&delayInMillis=0"), 400,
       "missing query parameter directorLastName"},
  });
}

// ---- Numbers (section 3) -------------------------------------------------------------------

TEST(ClassifyRequest, DelayCallDepthIsDigitsFrom0To64BothBoundsIncluded) {
  // Leading zeros are fine, and so is "-0": the parser every plugin shares reads it as 0.
  const std::pair<std::string_view, int> valid[] = {
      {"0", 0}, {"64", 64}, {"007", 7}, {"00064", 64}, {"-0", 0}};
  for (const auto& [raw, depth] : valid) {
    const std::string target =
        ours("/epoch-millis?delayCallDepth=" + std::string(raw) + "&delayInMillis=0");
    EXPECT_EQ(accepted("GET", target).delay_call_depth, depth) << raw;
  }
  // Anything else, however many digits, with its raw text quoted (never percent-decoded).
  for (const std::string_view raw : {"", "65", "-1", "+1", " 1", "1 ", "0x10", "1e1", "1.0", "%31",
                                     "99999999999999999999", "1;delayInMillis=0", "a"}) {
    expectAnswer("GET",
                 ours("/epoch-millis?delayCallDepth=" + std::string(raw) + "&delayInMillis=0"), 400,
                 "delayCallDepth must be an integer from 0 to 64, got '" + std::string(raw) + "'");
  }
}

TEST(ClassifyRequest, DelayInMillisIsDigitsFrom0To3600000BothBoundsIncluded) {
  const std::pair<std::string_view, std::int64_t> valid[] = {
      {"0", 0}, {"3600000", 3'600'000}, {"0003600000", 3'600'000}, {"010", 10}, {"-0", 0}};
  for (const auto& [raw, delay] : valid) {
    const std::string target =
        ours("/epoch-millis?delayCallDepth=0&delayInMillis=" + std::string(raw));
    EXPECT_EQ(accepted("GET", target).delay_millis, delay) << raw;
  }
  for (const std::string_view raw :
       {"", "3600001", "-1", "+0", "36e5", "1.5", "%30", "0x1", "9223372036854775808"}) {
    expectAnswer(
        "GET", ours("/epoch-millis?delayCallDepth=0&delayInMillis=" + std::string(raw)), 400,
        "delayInMillis must be an integer from 0 to 3600000, got '" + std::string(raw) + "'");
  }
}

TEST(ClassifyRequest, MovieIdIsDigitsFrom0ToTheLargest64BitInteger) {
  const std::string query = "?"s + std::string(kDelays);
  const std::pair<std::string_view, std::int64_t> valid[] = {
      {"0", 0},
      {"007", 7},
      {"-0", 0},
      {"9223372036854775807", std::numeric_limits<std::int64_t>::max()}};
  for (const auto& [raw, id] : valid) {
    EXPECT_EQ(accepted("DELETE", ours("/movies/" + std::string(raw) + query)).movie_id, id) << raw;
  }
  for (const std::string_view raw :
       {"-1", "+1", " 1", "0x1", "1e3", "1.0", "%31", "abc", "9223372036854775808"}) {
    expectAnswer("DELETE", ours("/movies/" + std::string(raw) + query), 400,
                 "movie id must be a non-negative integer");
  }
}

// ---- The query (section 3) -----------------------------------------------------------------

TEST(ClassifyRequest, AParameterWithoutEqualsSignIsPresentWithAnEmptyValue) {
  expectAnswers({
      {"GET", ours("/epoch-millis?delayCallDepth&delayInMillis=0"), 400,
       "delayCallDepth must be an integer from 0 to 64, got ''"},
      {"GET", ours("/epoch-millis?delayCallDepth=0&delayInMillis"), 400,
       "delayInMillis must be an integer from 0 to 3600000, got ''"},
      {"GET", ours("/movies?directorLastName&") + std::string(kDelays), 400,
       "directorLastName must be a non-empty, correctly encoded string"},
  });
}

TEST(ClassifyRequest, TheFirstPairWithANameCountsAndLaterOnesAreIgnored) {
  const ServiceRequest request =
      accepted("GET", ours("/movies?delayCallDepth=2&delayInMillis=5&directorLastName=Lynch"
                           "&delayCallDepth=x&delayInMillis=y&directorLastName=%zz"));
  EXPECT_EQ(request.delay_call_depth, 2);
  EXPECT_EQ(request.delay_millis, 5);
  EXPECT_EQ(request.director_last_name, "Lynch");

  expectAnswers({
      {"GET", ours("/epoch-millis?delayCallDepth=x&delayCallDepth=2&delayInMillis=0"), 400,
       "delayCallDepth must be an integer from 0 to 64, got 'x'"},
      {"GET", ours("/movies?directorLastName=%zz&directorLastName=Lynch&") + std::string(kDelays),
       400, "directorLastName must be a non-empty, correctly encoded string"},
  });
}

TEST(ClassifyRequest, NamesAreComparedExactlyAndUnknownOnesAreIgnored) {
  const ServiceRequest request =
      accepted("GET", ours("/epoch-millis?cache=off&&=9&DelayCallDepth=9&delay%43allDepth=9"
                           "&delayCallDepth=1&flag&delayInMillis=2"));
  EXPECT_EQ(request.delay_call_depth, 1);
  EXPECT_EQ(request.delay_millis, 2);

  // A name that differs in case or is percent-encoded is not the parameter.
  expectAnswers({
      {"GET", ours("/epoch-millis?DelayCallDepth=1&delayInMillis=0"), 400,
       "missing query parameter delayCallDepth"},
      {"GET", ours("/epoch-millis?delay%43allDepth=1&delayInMillis=0"), 400,
       "missing query parameter delayCallDepth"},
      {"GET", ours("/movies?directorlastname=Lynch&") + std::string(kDelays), 400,
       "missing query parameter directorLastName"},
  });
}

TEST(ClassifyRequest, DirectorLastNameIsIgnoredWhereItIsNotAParameter) {
  const std::string query = "?"s + std::string(kDelays) + "&directorLastName=%zz";
  EXPECT_EQ(accepted("GET", ours("/epoch-millis" + query)).operation, Operation::kEpochMillis);
  const ServiceRequest post = accepted("POST", ours("/movies" + query));
  EXPECT_EQ(post.operation, Operation::kPostMovies);
  EXPECT_EQ(post.director_last_name, "") << "kGetMovies only";
  EXPECT_EQ(accepted("DELETE", ours("/movies/3" + query)).operation, Operation::kDeleteMovie);
}

TEST(ClassifyRequest, TheTargetIsSplitAtTheFirstQuestionMarkOnly) {
  // A second '?' is part of the query, here of delayInMillis's value.
  expectAnswer("GET", ours("/epoch-millis?delayCallDepth=0&delayInMillis=0?x"), 400,
               "delayInMillis must be an integer from 0 to 3600000, got '0?x'");
  EXPECT_EQ(accepted("GET", "/health?a?b").operation, Operation::kHealth);
}

// ---- directorLastName (section 3) ----------------------------------------------------------

TEST(ClassifyRequest, DirectorLastNameIsPercentDecodedWithPlusAsASpace) {
  // Raw value and what it decodes to: the name is compared byte for byte with the stored ones,
  // so any byte may come out, NUL included.
  const std::pair<std::string_view, std::string_view> names[] = {
      {"Lynch", "Lynch"},
      {"Van+Sant", "Van Sant"},
      {"Van%20Sant", "Van Sant"},
      {"Van%2BSant", "Van+Sant"},
      {"Van%2bSant", "Van+Sant"},
      {"%C3%a9", "\xC3\xA9"},
      {"O'Brien;Jr.", "O'Brien;Jr."},
      {"%25", "%"},
      {"+", " "},
      {"a%00b", "a\0b"sv},
  };
  for (const auto& [raw, decoded] : names) {
    const std::string target =
        ours("/movies?directorLastName=" + std::string(raw) + "&" + std::string(kDelays));
    EXPECT_EQ(accepted("GET", target).director_last_name, decoded) << raw;
  }
}

TEST(ClassifyRequest, DirectorLastNameEmptyOrBadlyEncodedIs400) {
  for (const std::string_view raw : {"", "%", "%4", "%zz", "%G1", "Van%2", "Lynch%"}) {
    expectAnswer("GET",
                 ours("/movies?directorLastName=" + std::string(raw) + "&" + std::string(kDelays)),
                 400, "directorLastName must be a non-empty, correctly encoded string");
  }
}

// ---- The bytes of a message (section 5) ----------------------------------------------------

TEST(ClassifyRequest, ClientBytesInAMessageAreJsonEscapedOrCopiedRaw) {
  // '"' and '\' escaped, TAB as \t, other bytes below 0x20 as \u00XX, 0x80 and above raw.
  expectAnswers({
      {"GET", "/\"quoted\"\\path", 404, R"(no such path: /\"quoted\"\\path)"},
      {"GET", "/\x01\t", 404, R"(no such path: /\u0001\t)"},
      {"GET", "/\xFF", 404, "no such path: /\xFF"},
      {"GET", ours("/epoch-millis?delayCallDepth=\"&delayInMillis=0"), 400,
       R"(delayCallDepth must be an integer from 0 to 64, got '\"')"},
  });
}

}  // namespace
}  // namespace benchd::sdk
