// What hostile or broken clients do: malformed requests, slow and idle connections, floods.
#include "hostile_requests.hpp"
#include "http_client.hpp"
#include "http_test_support.hpp"

#include <benchd/http/server.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <vector>

namespace benchd::http {
namespace {

using namespace testing;

Router healthRouter() {
  Router router;
  router.add("GET", "/health", [](const Request&) { return Response::text(200, "ok"); });
  router.add("POST", "/echo",
             [](const Request& request) { return Response::text(200, request.body); });
  return router;
}

ServerOptions shortTimeouts() {
  ServerOptions options;
  options.header_timeout = 300ms;
  options.body_timeout = 300ms;
  options.idle_timeout = 300ms;
  options.write_timeout = 2s;
  options.max_body_bytes = 4096;
  options.max_header_bytes = 2048;
  return options;
}

bool answersHealth(const HttpServer& server) {
  benchd::testing::HttpConnection connection(server.port(), 5s);
  return connection.request("GET", "/health").status == 200;
}

TEST(Robustness, MalformedRequestsGet400AndTheServerGoesOn) {
  HttpServer server(healthRouter(), shortTimeouts());
  for (const std::string& request :
       {std::string("GARBAGE\r\n\r\n"), std::string("GET\r\n\r\n"),
        std::string("GET / HTTP/2.5\r\nHost: x\r\n\r\n"),
        std::string("GET / HTTP/1.1 extra\r\nHost: x\r\n\r\n"),
        std::string("G(T / HTTP/1.1\r\nHost: x\r\n\r\n"),
        std::string("GET / HTTP/1.1\r\nHost: x\r\nNo colon here\r\n\r\n"),
        std::string("GET / HTTP/1.1\r\nHost: x\r\nBad Name: v\r\n\r\n"),
        std::string("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n"),
        std::string(
            "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n"),
        std::string("POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n"),
        std::string("\x01\x02\x03\xff / HTTP/1.1\r\n\r\n")}) {
    RawClient client(server.port());
    client.send(request);
    const auto response = client.readResponse(5s);
    ASSERT_TRUE(response) << request;
    EXPECT_EQ(statusOf(*response), 400U) << request;
    EXPECT_NE(response->find("application/problem+json"), std::string::npos);
    EXPECT_TRUE(client.waitClosed(5s)) << "connection kept after a malformed request";
  }
  EXPECT_TRUE(answersHealth(server));
}

TEST(Robustness, OversizedHeaderIs431) {
  HttpServer server(healthRouter(), shortTimeouts());
  RawClient client(server.port());
  client.send("GET /health HTTP/1.1\r\nHost: x\r\nX-Big: " + std::string(4096, 'a') + "\r\n\r\n");
  const auto response = client.readResponse(5s);
  ASSERT_TRUE(response);
  EXPECT_EQ(statusOf(*response), 431U);
  EXPECT_TRUE(answersHealth(server));
}

TEST(Robustness, TricklingHeaderIsCutOffByTheHeaderTimeout) {
  HttpServer server(healthRouter(), shortTimeouts());
  RawClient client(server.port());
  const auto started = std::chrono::steady_clock::now();
  client.send("GET /health HTTP/1.1\r\n");
  // One header byte every 50 ms: each read makes progress, only the deadline can stop it.
  bool closed = false;
  for (int i = 0; i < 200 && !closed; ++i) {
    closed = !client.send("X") || client.waitClosed(50ms);
  }
  EXPECT_TRUE(closed);
  EXPECT_GE(std::chrono::steady_clock::now() - started, 250ms);
  EXPECT_TRUE(waitFor([&] { return server.stats().open_connections == 0; }));
  EXPECT_TRUE(answersHealth(server));
}

TEST(Robustness, SilentAndIdleConnectionsAreClosed) {
  HttpServer server(healthRouter(), shortTimeouts());
  RawClient silent(server.port());
  EXPECT_TRUE(silent.waitClosed(10s));

  RawClient idle(server.port());
  idle.send("GET /health HTTP/1.1\r\nHost: x\r\n\r\n");
  const auto response = idle.readResponse(5s);
  ASSERT_TRUE(response);
  EXPECT_EQ(statusOf(*response), 200U);
  EXPECT_TRUE(idle.waitClosed(10s));
}

TEST(Robustness, StalledBodyIsCutOffByTheBodyTimeout) {
  HttpServer server(healthRouter(), shortTimeouts());
  RawClient client(server.port());
  client.send("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\nonly part");
  EXPECT_TRUE(client.waitClosed(10s));
}

TEST(Robustness, PipelinedRequestsAreAnsweredInOrder) {
  HttpServer server(healthRouter(), shortTimeouts());
  RawClient client(server.port());
  client.send(
      "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\none"
      "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\ntwo");
  const auto first = client.readResponse(5s);
  const auto second = client.readResponse(5s);
  ASSERT_TRUE(first && second);
  EXPECT_EQ(first->substr(first->size() - 3), "one");
  EXPECT_EQ(second->substr(second->size() - 3), "two");
}

TEST(Robustness, ConnectionsBeyondTheLimitAreClosed) {
  auto options = shortTimeouts();
  options.max_connections = 2;
  options.header_timeout = 10s;
  HttpServer server(healthRouter(), options);
  RawClient first(server.port());
  RawClient second(server.port());
  ASSERT_TRUE(waitFor([&] { return server.stats().open_connections == 2; }));
  RawClient third(server.port());
  EXPECT_TRUE(third.waitClosed(5s));
  first.close();
  ASSERT_TRUE(waitFor([&] { return server.stats().open_connections == 1; }));
  RawClient fourth(server.port());
  fourth.send("GET /health HTTP/1.1\r\nHost: x\r\n\r\n");
  const auto response = fourth.readResponse(5s);
  ASSERT_TRUE(response);
  EXPECT_EQ(statusOf(*response), 200U);
}

/// The server of these tests as the hostile corpus aims at it.
benchd::testing::HostileTarget healthRouterTarget(const HttpServer& server,
                                                  const ServerOptions& options) {
  benchd::testing::HostileTarget target;
  target.port = server.port();
  target.host = "127.0.0.1:" + std::to_string(server.port());
  target.max_head_bytes = options.max_header_bytes;
  target.max_body_bytes = options.max_body_bytes;
  target.public_path = "/health";
  target.answering_paths = {"/health"};
  target.other_paths = {"/echo", "/", "/a/b"};
  target.body = benchd::testing::BodyResource{"POST", "/echo", "text/plain", false, {}, "hello"};
  return target;
}

TEST(Robustness, ThousandsOfHostileRequestsLeaveTheServerServing) {
  auto options = shortTimeouts();
  std::atomic<int> handler_errors{0};
  options.on_handler_error = [&](const Request&, const std::string&) { ++handler_errors; };
  HttpServer server(healthRouter(), options);
  const std::vector<benchd::testing::HostileRequest> corpus =
      benchd::testing::hostileCorpus(healthRouterTarget(server, options), 20240531, 3000);
  const std::vector<int> statuses = benchd::testing::firstStatuses(server.port(), corpus, 5s, 4);
  std::size_t answered = 0;
  for (std::size_t index = 0; index < corpus.size(); ++index) {
    const int status = statuses[index];
    answered += status > 0 ? 1 : 0;
    EXPECT_NE(status, -1) << "request " << index << " neither answered nor closed within 5 s ("
                          << benchd::testing::familyName(corpus[index].family)
                          << "): " << benchd::testing::printable(corpus[index].bytes);
    EXPECT_LT(status, 500) << "request " << index << " ("
                           << benchd::testing::familyName(corpus[index].family)
                           << "): " << benchd::testing::printable(corpus[index].bytes);
  }
  EXPECT_GT(answered, corpus.size() / 2);
  EXPECT_EQ(handler_errors.load(), 0);
  EXPECT_TRUE(answersHealth(server));
  EXPECT_TRUE(waitFor([&] { return server.stats().open_connections == 0; }));
}

}  // namespace
}  // namespace benchd::http
