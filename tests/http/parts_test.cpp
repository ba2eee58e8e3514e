// The socket-free parts: SSE encoding, problem bodies, JSON responses, headers and policies.
#include <benchd/http/event_stream.hpp>
#include <benchd/http/json_response.hpp>
#include <benchd/http/policies.hpp>
#include <benchd/http/problem.hpp>

#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <stdexcept>

namespace benchd::http {
namespace {

TEST(EncodeEvent, WritesIdEventAndData) {
  EXPECT_EQ(encodeEvent({"run-1-7", "snapshot", "{\"rps\":10}", std::nullopt}),
            "id: run-1-7\nevent: snapshot\ndata: {\"rps\":10}\n\n");
}

TEST(EncodeEvent, SplitsEveryKindOfLineBreakIntoDataLines) {
  EXPECT_EQ(encodeEvent({"", "", "{\n  \"a\": 1\r\n}\rend", std::nullopt}),
            "data: {\ndata:   \"a\": 1\ndata: }\ndata: end\n\n");
  EXPECT_EQ(encodeEvent({"", "", "trailing\n", std::nullopt}), "data: trailing\ndata:\n\n");
}

TEST(EncodeEvent, EmptyDataAndRetry) {
  EXPECT_EQ(encodeEvent({"", "ping", "", std::chrono::milliseconds(3000)}),
            "event: ping\nretry: 3000\ndata:\n\n");
}

TEST(EncodeEvent, RejectsLineBreaksInSingleLineFields) {
  EXPECT_THROW((void)encodeEvent({"a\nb", "", "x", std::nullopt}), std::invalid_argument);
  EXPECT_THROW((void)encodeEvent({"", "a\rb", "x", std::nullopt}), std::invalid_argument);
  EXPECT_THROW((void)encodeEvent({std::string("a\0b", 3), "", "x", std::nullopt}),
               std::invalid_argument);
}

TEST(EventSink, DetachedSinkRefusesQuietly) {
  EventSink sink;
  EXPECT_FALSE(sink.push({"1", "", "x", std::nullopt}));
  EXPECT_FALSE(sink.isOpen());
  sink.close();
}

rapidjson::Document parse(const std::string& text) {
  rapidjson::Document document;
  document.Parse(text.c_str());
  EXPECT_FALSE(document.HasParseError()) << text;
  return document;
}

TEST(Problem, HasTheRfc9457MembersAndExtensions) {
  const auto response = Problem(400, "warmup_seconds must not be negative")
                            .type("https://benchd.example/problems/validation-error")
                            .instance("urn:benchd:request:12")
                            .extension("field", std::string("warmup_seconds"))
                            .extension("retry_after_seconds", std::int64_t{5})
                            .extensionJson("errors", R"([{"pointer":"/x","detail":"bad"}])")
                            .toResponse();
  EXPECT_EQ(response.status, 400U);
  EXPECT_EQ(response.headers.get("content-type"), "application/problem+json");
  const auto body = parse(response.body);
  EXPECT_STREQ(body["type"].GetString(), "https://benchd.example/problems/validation-error");
  EXPECT_STREQ(body["title"].GetString(), "Bad Request");
  EXPECT_EQ(body["status"].GetInt(), 400);
  EXPECT_STREQ(body["detail"].GetString(), "warmup_seconds must not be negative");
  EXPECT_STREQ(body["instance"].GetString(), "urn:benchd:request:12");
  EXPECT_STREQ(body["field"].GetString(), "warmup_seconds");
  EXPECT_EQ(body["retry_after_seconds"].GetInt(), 5);
  EXPECT_STREQ(body["errors"][0]["pointer"].GetString(), "/x");
}

TEST(Problem, EscapesTextAndDefaultsToAboutBlank) {
  const auto body = parse(problemResponse(404, "unknown-route", "no \"x\"\n\\ here").body);
  EXPECT_STREQ(body["type"].GetString(), "about:blank");
  EXPECT_STREQ(body["title"].GetString(), "Not Found");
  EXPECT_STREQ(body["detail"].GetString(), "no \"x\"\n\\ here");
  EXPECT_STREQ(body["reason"].GetString(), "unknown-route");
}

TEST(JsonResponse, SerialisesADocument) {
  rapidjson::Document document(rapidjson::kObjectType);
  document.AddMember("ok", true, document.GetAllocator());
  const auto response = jsonResponse(201, document);
  EXPECT_EQ(response.status, 201U);
  EXPECT_EQ(response.body, R"({"ok":true})");
  EXPECT_EQ(response.headers.get("Content-Type"), "application/json");
}

TEST(HeaderList, LooksUpCaseInsensitivelyAndReplaces) {
  HeaderList headers;
  headers.add("Link", "<a>");
  headers.add("link", "<b>");
  headers.set("X-Thing", "1");
  headers.set("x-thing", "2");
  EXPECT_EQ(headers.get("LINK"), "<a>");
  EXPECT_EQ(headers.get("X-THING"), "2");
  EXPECT_EQ(headers.fields().size(), 3U);
  headers.erase("LiNk");
  EXPECT_FALSE(headers.contains("link"));
}

TEST(ConstantTimeEquals, ComparesWholeSecrets) {
  EXPECT_TRUE(constantTimeEquals("secret", "secret"));
  EXPECT_FALSE(constantTimeEquals("secreT", "secret"));
  EXPECT_FALSE(constantTimeEquals("secret1", "secret"));
  EXPECT_FALSE(constantTimeEquals("secre", "secret"));
  EXPECT_FALSE(constantTimeEquals("", "secret"));
}

Request requestWithHost(std::string host, std::string local_address = "127.0.0.1") {
  Request request;
  request.local_address = std::move(local_address);
  request.local_port = 7878;
  if (!host.empty())
    request.headers.add("Host", std::move(host));
  return request;
}

TEST(HostCheckPolicy, AcceptsLocalNamesWithOrWithoutOurPort) {
  const auto policy = hostCheckPolicy({"benchd.local"});
  for (const char* host : {"localhost", "LOCALHOST:7878", "127.0.0.1", "127.0.0.1:7878", "[::1]",
                           "[::1]:7878", "benchd.local:7878"}) {
    EXPECT_FALSE(policy(requestWithHost(host), {})) << host;
  }
  EXPECT_FALSE(policy(requestWithHost("10.0.0.5:7878", "10.0.0.5"), {}));
  EXPECT_FALSE(policy(requestWithHost("[fe80::1]:7878", "fe80::1"), {}));
}

TEST(HostCheckPolicy, MisdirectsOtherNamesAndPorts) {
  const auto policy = hostCheckPolicy();
  for (const char* host : {"evil.example", "evil.example:7878", "localhost:80", "127.0.0.2",
                           "localhost.", "10.0.0.5"}) {
    const auto refusal = policy(requestWithHost(host), {});
    ASSERT_TRUE(refusal) << host;
    EXPECT_EQ(refusal->status, 421U) << host;
    EXPECT_EQ(refusal->headers.get("Content-Type"), "application/problem+json");
  }
}

TEST(HostCheckPolicy, RejectsMissingDuplicateOrBrokenHost) {
  const auto policy = hostCheckPolicy();
  EXPECT_EQ(policy(requestWithHost(""), {})->status, 400U);
  auto twice = requestWithHost("localhost");
  twice.headers.add("host", "localhost");
  EXPECT_EQ(policy(twice, {})->status, 400U);
  for (const char* host : {"localhost:", "localhost:99999", "localhost:7x", "[::1", "[::1]x", "a b",
                           "user@localhost"}) {
    EXPECT_EQ(policy(requestWithHost(host), {})->status, 400U) << host;
  }
}

TEST(BearerTokenPolicy, AcceptsOnlyTheRightTokenAndSkipsPublicRoutes) {
  const auto policy = bearerTokenPolicy("s3cret", "benchd");
  Request request;
  const RouteTraits route{true, false};
  const auto missing = policy(request, route);
  ASSERT_TRUE(missing);
  EXPECT_EQ(missing->status, 401U);
  EXPECT_EQ(missing->headers.get("WWW-Authenticate"), "Bearer realm=\"benchd\"");
  for (const char* value :
       {"Bearer wrong", "Bearer s3cret2", "Basic s3cret", "Bearer", "s3cret", "Bearers3cret"}) {
    request.headers.set("Authorization", value);
    const auto refusal = policy(request, route);
    ASSERT_TRUE(refusal) << value;
    // Same answer whatever was wrong: nothing to learn from it.
    EXPECT_EQ(refusal->body, missing->body) << value;
    EXPECT_EQ(refusal->headers.get("WWW-Authenticate"), missing->headers.get("WWW-Authenticate"));
  }
  for (const char* value : {"Bearer s3cret", "bearer s3cret", "Bearer   s3cret"}) {
    request.headers.set("Authorization", value);
    EXPECT_FALSE(policy(request, route)) << value;
  }
  request.headers.erase("Authorization");
  EXPECT_FALSE(policy(request, RouteTraits{true, true}));
  EXPECT_THROW((void)bearerTokenPolicy(""), std::invalid_argument);
}

TEST(RequireContentType, AcceptsParametersAndCaseAndRefusesOthers) {
  Request request;
  EXPECT_EQ(requireJson(request)->status, 415U);
  request.headers.set("Content-Type", "Application/JSON; charset=utf-8");
  EXPECT_FALSE(requireJson(request));
  request.headers.set("Content-Type", "text/csv");
  const auto refusal = requireJson(request);
  ASSERT_TRUE(refusal);
  EXPECT_EQ(refusal->status, 415U);
  EXPECT_EQ(refusal->headers.get("Content-Type"), "application/problem+json");
  EXPECT_FALSE(requireContentType(request, "text/csv"));
}

}  // namespace
}  // namespace benchd::http
