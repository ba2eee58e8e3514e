#include <benchd/http/router.hpp>

#include <gtest/gtest.h>

#include <stdexcept>

namespace benchd::http {
namespace {

Handler answering(std::string text) {
  return [text = std::move(text)](const Request&) { return Response::text(200, text); };
}

std::string call(const Router::Match& match) {
  Request request;
  return (*match.handler)(request).body;
}

class RouterTest : public ::testing::Test {
 protected:
  RouterTest() {
    router.add("GET", "/api/v1/runs", answering("list"));
    router.add("POST", "/api/v1/runs", answering("create"));
    router.add("GET", "/api/v1/runs/{id}", answering("get"));
    router.add("DELETE", "/api/v1/runs/{id}", answering("delete"));
    router.add("GET", "/api/v1/runs/latest", answering("latest"));
    router.add("GET", "/api/v1/runs/{id}/events", answering("events"));
    router.add("GET", "/api/v1/health", answering("health"), {.is_public = true});
    router.add("GET", "/dir/", answering("dir"));
  }

  Router router;
};

TEST_F(RouterTest, BindsParameters) {
  const auto match = router.match("GET", {"api", "v1", "runs", "r 42", "events"}, false);
  ASSERT_EQ(match.kind, Router::Match::Kind::Found);
  EXPECT_EQ(call(match), "events");
  ASSERT_EQ(match.params.size(), 1U);
  EXPECT_EQ(match.params[0].first, "id");
  EXPECT_EQ(match.params[0].second, "r 42");
}

TEST_F(RouterTest, PicksTheRouteByMethod) {
  EXPECT_EQ(call(router.match("POST", {"api", "v1", "runs"}, false)), "create");
  EXPECT_EQ(call(router.match("DELETE", {"api", "v1", "runs", "7"}, false)), "delete");
}

TEST_F(RouterTest, LiteralBeatsParameter) {
  EXPECT_EQ(call(router.match("GET", {"api", "v1", "runs", "latest"}, false)), "latest");
  EXPECT_EQ(call(router.match("GET", {"api", "v1", "runs", "late"}, false)), "get");
}

TEST_F(RouterTest, UnknownPathIsNotFound) {
  EXPECT_EQ(router.match("GET", {"api", "v2", "runs"}, false).kind, Router::Match::Kind::NotFound);
  EXPECT_EQ(router.match("GET", {"api", "v1", "runs"}, true).kind, Router::Match::Kind::NotFound);
  EXPECT_EQ(router.match("GET", {}, false).kind, Router::Match::Kind::NotFound);
}

TEST_F(RouterTest, WrongMethodListsTheAllowedOnes) {
  const auto match = router.match("PUT", {"api", "v1", "runs", "9"}, false);
  ASSERT_EQ(match.kind, Router::Match::Kind::MethodNotAllowed);
  EXPECT_EQ(match.allow, "DELETE, GET, HEAD");
  EXPECT_FALSE(match.options.is_public);
  // The literal "latest" shape has only GET: its Allow does not mix in DELETE of {id}.
  EXPECT_EQ(router.match("POST", {"api", "v1", "runs", "latest"}, false).allow, "GET, HEAD");
}

TEST_F(RouterTest, HeadFallsBackToGet) {
  const auto match = router.match("HEAD", {"api", "v1", "runs"}, false);
  ASSERT_EQ(match.kind, Router::Match::Kind::Found);
  EXPECT_EQ(call(match), "list");
}

TEST_F(RouterTest, TrailingSlashIsSignificant) {
  EXPECT_EQ(call(router.match("GET", {"dir"}, true)), "dir");
  EXPECT_EQ(router.match("GET", {"dir"}, false).kind, Router::Match::Kind::NotFound);
}

TEST_F(RouterTest, CarriesThePublicFlag) {
  EXPECT_TRUE(router.match("GET", {"api", "v1", "health"}, false).options.is_public);
  EXPECT_TRUE(router.match("POST", {"api", "v1", "health"}, false).options.is_public);
  EXPECT_FALSE(router.match("GET", {"api", "v1", "runs"}, false).options.is_public);
}

TEST(Router, RejectsMalformedPatternsAndDuplicates) {
  Router router;
  EXPECT_THROW(router.add("GET", "api", answering("")), std::invalid_argument);
  EXPECT_THROW(router.add("GET", "/a//b", answering("")), std::invalid_argument);
  EXPECT_THROW(router.add("GET", "/a/{}", answering("")), std::invalid_argument);
  EXPECT_THROW(router.add("GET", "/a/{x", answering("")), std::invalid_argument);
  EXPECT_THROW(router.add("GET", "/a/{x}/{x}", answering("")), std::invalid_argument);
  EXPECT_THROW(router.add("GET", "/a/b%2f", answering("")), std::invalid_argument);
  EXPECT_THROW(router.add("GET", "/a", Handler()), std::invalid_argument);
  router.add("GET", "/a/{x}", answering(""));
  EXPECT_THROW(router.add("GET", "/a/{y}", answering("")), std::invalid_argument);
  EXPECT_NO_THROW(router.add("POST", "/a/{y}", answering("")));
}

}  // namespace
}  // namespace benchd::http
