// The server over loopback with a real HTTP client: routing, decoding, limits, policies.
#include "http_client.hpp"
#include "http_test_support.hpp"

#include <benchd/http/policies.hpp>
#include <benchd/http/problem.hpp>
#include <benchd/http/server.hpp>

#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <atomic>
#include <memory>
#include <stdexcept>

namespace benchd::http {
namespace {

using benchd::testing::HttpConnection;
using benchd::testing::HttpResponse;
using namespace testing;

constexpr const char* kToken = "test-token-0123456789";
const std::string kBearer = std::string("Bearer ") + kToken;

/// Echoes what the handler saw, one `name=value` line per item.
Response echo(const Request& request) {
  std::string body = "method=" + request.method + "\npath=" + request.path + "\n";
  for (const auto& [name, value] : request.path_params)
    body.append("param:").append(name).append("=").append(value).append("\n");
  for (const auto& [name, value] : request.query)
    body.append("query:").append(name).append("=").append(value).append("\n");
  body += "x-custom=" + std::string(request.header("X-CUSTOM").value_or("")) + "\n";
  body += "remote=" + request.remote_address + "\n";
  body += "body=" + request.body + "\n";
  return Response::text(200, body);
}

Router apiRouter() {
  Router router;
  router.add("GET", "/api/v1/health", [](const Request&) { return Response::text(200, "ok"); },
             {.is_public = true});
  router.add("GET", "/api/v1/runs", echo);
  router.add("POST", "/api/v1/runs", [](const Request& request) {
    if (auto refusal = requireJson(request))
      return *refusal;
    return Response::empty(202).header("Location", "/api/v1/runs/1");
  });
  router.add("GET", "/api/v1/runs/{id}", echo);
  router.add("DELETE", "/api/v1/runs/{id}", echo);
  router.add("GET", "/api/v1/runs/{id}/events", echo);
  router.add("PUT", "/api/v1/files/{name}", echo);
  router.add("GET", "/api/v1/throws", [](const Request&) -> Response {
    throw std::runtime_error("/secret/internal/path exploded");
  });
  return router;
}

class ServerTest : public ::testing::Test {
 protected:
  void start(ServerOptions options = {}) {
    options.policies = {hostCheckPolicy(), bearerTokenPolicy(kToken)};
    options.max_body_bytes = std::size_t{64} * 1024;
    options.on_handler_error = [this](const Request&, const std::string& what) {
      last_error = what;
    };
    server = std::make_unique<HttpServer>(apiRouter(), std::move(options));
  }

  HttpResponse get(const std::string& target, std::map<std::string, std::string> headers = {}) {
    headers.emplace("Authorization", kBearer);
    HttpConnection connection(server->port(), 10s);
    return connection.request("GET", target, {}, headers);
  }

  static rapidjson::Document problemOf(const HttpResponse& response) {
    EXPECT_EQ(response.header("content-type"), "application/problem+json");
    rapidjson::Document document;
    document.Parse(response.body.c_str());
    EXPECT_FALSE(document.HasParseError()) << response.body;
    EXPECT_TRUE(document.IsObject());
    if (document.IsObject()) {
      EXPECT_EQ(document["status"].GetUint(), response.status);
      EXPECT_TRUE(document["type"].IsString());
      EXPECT_TRUE(document["title"].IsString());
      EXPECT_TRUE(document["detail"].IsString());
    }
    return document;
  }

  std::unique_ptr<HttpServer> server;
  std::string last_error;
};

TEST_F(ServerTest, ReportsTheBoundEphemeralPort) {
  start();
  EXPECT_NE(server->port(), 0);
  EXPECT_EQ(server->address(), "127.0.0.1");
}

TEST_F(ServerTest, RoutesWithDecodedParametersAndQuery) {
  start();
  const auto response = get("/api/v1/runs/run%20%C3%A9%2B1/events?status=done&name=a+b%26c&flag");
  ASSERT_EQ(response.status, 200U) << response.body;
  EXPECT_NE(response.body.find("param:id=run \xC3\xA9+1\n"), std::string::npos) << response.body;
  EXPECT_NE(response.body.find("query:status=done\n"), std::string::npos);
  EXPECT_NE(response.body.find("query:name=a b&c\n"), std::string::npos);
  EXPECT_NE(response.body.find("query:flag=\n"), std::string::npos);
  EXPECT_NE(response.body.find("remote=127.0.0.1\n"), std::string::npos);
}

TEST_F(ServerTest, HeadersAreCaseInsensitive) {
  start();
  const auto response = get("/api/v1/runs", {{"x-cUsToM", "yes"}});
  EXPECT_NE(response.body.find("x-custom=yes\n"), std::string::npos) << response.body;
}

TEST_F(ServerTest, UnknownPathIs404Problem) {
  start();
  const auto response = get("/api/v1/nothing");
  EXPECT_EQ(response.status, 404U);
  EXPECT_STREQ(problemOf(response)["reason"].GetString(), "unknown-route");
}

TEST_F(ServerTest, WrongMethodIs405WithAllow) {
  start();
  HttpConnection connection(server->port(), 10s);
  const auto response =
      connection.request("PATCH", "/api/v1/runs/7", {}, {{"Authorization", kBearer}});
  EXPECT_EQ(response.status, 405U);
  EXPECT_EQ(response.header("allow"), "DELETE, GET, HEAD");
  problemOf(response);
}

TEST_F(ServerTest, TraversalAttemptsAre400BeforeAnyHandler) {
  start();
  for (const char* target :
       {"/api/v1/files/..", "/api/v1/files/%2e%2e", "/api/v1/files/%2E%2e", "/api/v1/files/.%2E",
        "/api/v1/files/..%2f..%2fetc%2fpasswd", "/api/v1/files/%2fetc%2fpasswd",
        "/api/v1/files/a%5cb", "/api/v1/files/a%00.csv", "/api/v1/files//etc",
        "/api/v1/../v1/files/x", "/api/v1/files/%zz"}) {
    HttpConnection connection(server->port(), 10s);
    const auto response = connection.request(
        "PUT", target, "x", {{"Authorization", kBearer}, {"Content-Type", "text/plain"}});
    EXPECT_EQ(response.status, 400U) << target;
    problemOf(response);
  }
  EXPECT_EQ(server->stats().requests, 11U);
}

TEST_F(ServerTest, KeepsTheConnectionAlive) {
  start();
  HttpConnection connection(server->port(), 10s);
  const std::map<std::string, std::string> auth = {{"Authorization", kBearer}};
  for (int i = 0; i < 5; ++i) {
    const auto response = connection.request("GET", "/api/v1/runs/" + std::to_string(i), {}, auth);
    EXPECT_EQ(response.status, 200U);
    EXPECT_TRUE(response.keep_alive);
  }
  EXPECT_EQ(server->stats().open_connections, 1U);
}

TEST_F(ServerTest, HeadAnswersLikeGetWithoutBody) {
  start();
  RawClient client(server->port());
  client.send(std::string("HEAD /api/v1/health HTTP/1.1\r\nHost: localhost\r\n\r\n"));
  ASSERT_TRUE(client.readUntil(
      [](const std::string& text) { return text.find("\r\n\r\n") != std::string::npos; }));
  EXPECT_EQ(statusOf(client.received()), 200U);
  EXPECT_NE(client.received().find("Content-Length: 2\r\n"), std::string::npos);
  EXPECT_EQ(client.received().substr(client.received().find("\r\n\r\n") + 4), "");
}

TEST_F(ServerTest, BodyOverTheLimitIs413) {
  start();
  const std::map<std::string, std::string> headers = {{"Authorization", kBearer}};
  {  // declared length over the limit: refused before the body is read
    HttpConnection connection(server->port(), 10s);
    const auto response = connection.request("POST", "/api/v1/runs",
                                             std::string(std::size_t{65} * 1024, 'x'), headers);
    EXPECT_EQ(response.status, 413U);
    EXPECT_STREQ(problemOf(response)["reason"].GetString(), "body-too-large");
    EXPECT_FALSE(response.keep_alive);
  }
  {  // chunked body growing over the limit
    RawClient client(server->port());
    std::string request =
        "POST /api/v1/runs HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer " +
        std::string(kToken) + "\r\nTransfer-Encoding: chunked\r\n\r\n";
    for (int i = 0; i < 80; ++i)
      request += "400\r\n" + std::string(1024, 'y') + "\r\n";
    request += "0\r\n\r\n";
    client.send(request);
    const auto response = client.readResponse();
    ASSERT_TRUE(response);
    EXPECT_EQ(statusOf(*response), 413U);
  }
  {  // at the limit: fine
    HttpConnection connection(server->port(), 10s);
    auto with_type = headers;
    with_type["Content-Type"] = "application/json";
    const auto response = connection.request("POST", "/api/v1/runs",
                                             std::string(std::size_t{64} * 1024, ' '), with_type);
    EXPECT_EQ(response.status, 202U);
    EXPECT_EQ(response.header("location"), "/api/v1/runs/1");
  }
}

TEST_F(ServerTest, AcknowledgesExpectContinue) {
  start();
  RawClient client(server->port());
  client.send("POST /api/v1/runs HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer " +
              std::string(kToken) +
              "\r\nContent-Type: application/json\r\nContent-Length: 2\r\n"
              "Expect: 100-continue\r\n\r\n");
  ASSERT_TRUE(client.readUntil([](const std::string& text) {
    return text.find("100 Continue\r\n\r\n") != std::string::npos;
  }));
  client.received().clear();
  client.send("{}");
  const auto response = client.readResponse();
  ASSERT_TRUE(response);
  EXPECT_EQ(statusOf(*response), 202U);
}

TEST_F(ServerTest, WrongContentTypeIs415) {
  start();
  HttpConnection connection(server->port(), 10s);
  const auto response = connection.request(
      "POST", "/api/v1/runs", "a,b", {{"Authorization", kBearer}, {"Content-Type", "text/csv"}});
  EXPECT_EQ(response.status, 415U);
  problemOf(response);
}

TEST_F(ServerTest, TokenIsRequiredExceptOnPublicRoutes) {
  start();
  HttpConnection connection(server->port(), 10s);
  const auto missing = connection.request("GET", "/api/v1/runs");
  EXPECT_EQ(missing.status, 401U);
  EXPECT_EQ(missing.header("www-authenticate"), "Bearer realm=\"api\"");
  problemOf(missing);
  const auto wrong =
      connection.request("GET", "/api/v1/runs", {}, {{"Authorization", "Bearer nope"}});
  EXPECT_EQ(wrong.status, 401U);
  EXPECT_EQ(wrong.body, missing.body);
  // Unknown routes need the token too: no mapping the API without it.
  EXPECT_EQ(connection.request("GET", "/api/v1/unknown").status, 401U);
  EXPECT_EQ(connection.request("GET", "/api/v1/health").status, 200U);
  EXPECT_EQ(connection.request("GET", "/api/v1/runs", {}, {{"Authorization", kBearer}}).status,
            200U);
}

TEST_F(ServerTest, ForeignHostIsMisdirected) {
  start();
  const auto port = std::to_string(server->port());
  for (const std::string& host :
       std::vector<std::string>{"localhost:" + port, "127.0.0.1", "[::1]:" + port}) {
    RawClient client(server->port());
    client.send("GET /api/v1/health HTTP/1.1\r\nHost: " + host + "\r\n\r\n");
    const auto response = client.readResponse();
    ASSERT_TRUE(response) << host;
    EXPECT_EQ(statusOf(*response), 200U) << host;
  }
  for (const std::string& host :
       {std::string("attacker.example"), "attacker.example:" + port, std::string("localhost:1")}) {
    RawClient client(server->port());
    client.send("GET /api/v1/health HTTP/1.1\r\nHost: " + host + "\r\n\r\n");
    const auto response = client.readResponse();
    ASSERT_TRUE(response) << host;
    EXPECT_EQ(statusOf(*response), 421U) << host;
  }
  RawClient client(server->port());
  client.send("GET /api/v1/health HTTP/1.1\r\n\r\n");
  const auto response = client.readResponse();
  ASSERT_TRUE(response);
  EXPECT_EQ(statusOf(*response), 400U);
}

TEST_F(ServerTest, HandlerExceptionIs500WithoutInternals) {
  start();
  const auto response = get("/api/v1/throws");
  EXPECT_EQ(response.status, 500U);
  EXPECT_EQ(response.body.find("secret"), std::string::npos);
  problemOf(response);
  EXPECT_EQ(last_error, "/secret/internal/path exploded");
  EXPECT_EQ(get("/api/v1/runs").status, 200U);
}

TEST_F(ServerTest, BindFailureNamesTheAddress) {
  start();
  ServerOptions options;
  options.port = server->port();
  options.address = "127.0.0.1";
  try {
    HttpServer second{Router{}, options};
    FAIL() << "binding a used port succeeded";
  } catch (const std::system_error& error) {
    EXPECT_NE(std::string(error.what()).find("127.0.0.1 port " + std::to_string(server->port())),
              std::string::npos)
        << error.what();
  }
  options.address = "not-an-address";
  EXPECT_THROW((void)HttpServer(Router(), options), std::invalid_argument);
}

TEST_F(ServerTest, StopIsIdempotentAndCallableFromAnotherThread) {
  start();
  std::thread other([this] { server->stop(); });
  other.join();
  server->stop();
  EXPECT_THROW(HttpConnection(server->port(), 2s).request("GET", "/api/v1/health"),
               std::runtime_error);
}

}  // namespace
}  // namespace benchd::http
