// Server-Sent Events end to end: a handler opens streams, the test pushes from its own threads.
#include "http_client.hpp"
#include "http_test_support.hpp"

#include <benchd/http/server.hpp>

#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <thread>

namespace benchd::http {
namespace {

using namespace testing;

/// The application side: keeps every sink it is given and records how streams ended.
class Hub {
 public:
  Response open(const Request& request) {
    {
      std::lock_guard lock(mutex_);
      last_event_id_ = std::string(request.lastEventId().value_or("<none>"));
    }
    return Response::eventStream({[this](EventSink sink) {
                                    std::lock_guard lock(mutex_);
                                    sinks_.push_back(std::move(sink));
                                  },
                                  [this](StreamEnd end) {
                                    std::lock_guard lock(mutex_);
                                    ends_.push_back(end);
                                  }});
  }

  std::size_t sinkCount() {
    std::lock_guard lock(mutex_);
    return sinks_.size();
  }
  EventSink sink(std::size_t index) {
    std::lock_guard lock(mutex_);
    return sinks_.at(index);
  }
  std::vector<StreamEnd> ends() {
    std::lock_guard lock(mutex_);
    return ends_;
  }
  std::string lastEventId() {
    std::lock_guard lock(mutex_);
    return last_event_id_;
  }

 private:
  std::mutex mutex_;
  std::vector<EventSink> sinks_;
  std::vector<StreamEnd> ends_;
  std::string last_event_id_;
};

class EventStreamTest : public ::testing::Test {
 protected:
  void start(const ServerOptions& options = {}) {
    Router router;
    router.add("GET", "/runs/{id}/events",
               [this](const Request& request) { return hub.open(request); });
    router.add("GET", "/health", [](const Request&) { return Response::text(200, "ok"); });
    router.add("GET", "/slow", [this](const Request&) {
      slow_entered = true;
      // Blocks its loop on purpose (the test's stand-in for a request in flight during stop).
      waitFor([this] { return slow_release.load(); }, 2s);
      return Response::text(200, "done");
    });
    server = std::make_unique<HttpServer>(std::move(router), options);
  }

  std::unique_ptr<SseClient> openStream(const std::map<std::string, std::string>& headers = {}) {
    const auto before = hub.sinkCount();
    auto client = std::make_unique<SseClient>(server->port(), "/runs/r1/events", headers);
    EXPECT_EQ(client->status(), 200U) << client->head();
    EXPECT_TRUE(waitFor([&] { return hub.sinkCount() > before; }));
    return client;
  }

  Hub hub;
  std::atomic<bool> slow_entered{false};
  std::atomic<bool> slow_release{false};
  std::unique_ptr<HttpServer> server;
};

TEST_F(EventStreamTest, SendsEventStreamHeadersAndPassesLastEventId) {
  start();
  auto client = openStream({{"Last-Event-ID", "r1-41"}});
  EXPECT_NE(client->head().find("Content-Type: text/event-stream\r\n"), std::string::npos);
  EXPECT_NE(client->head().find("Cache-Control: no-cache\r\n"), std::string::npos);
  EXPECT_NE(client->head().find("Transfer-Encoding: chunked\r\n"), std::string::npos);
  EXPECT_EQ(hub.lastEventId(), "r1-41");
  EXPECT_EQ(server->stats().open_streams, 1U);
}

TEST_F(EventStreamTest, EventsArriveInOrderWithTheirIds) {
  start();
  auto client = openStream();
  auto sink = hub.sink(0);
  for (int i = 0; i < 200; ++i) {
    ASSERT_TRUE(sink.push(
        {"r1-" + std::to_string(i), "snapshot", "{\"seq\":" + std::to_string(i) + "}", {}}));
  }
  for (int i = 0; i < 200; ++i) {
    const auto event = client->next();
    ASSERT_TRUE(event) << "event " << i;
    EXPECT_EQ(event->id, "r1-" + std::to_string(i));
    EXPECT_EQ(event->event, "snapshot");
    EXPECT_EQ(event->data, "{\"seq\":" + std::to_string(i) + "}");
  }
}

TEST_F(EventStreamTest, MultiLineDataArrivesIntact) {
  start();
  auto client = openStream();
  const std::string json = "{\n  \"rps\": 12.5,\r\n  \"errors\": {\"timeout\": 1}\n}";
  ASSERT_TRUE(hub.sink(0).push({"1", "row", json, {}}));
  const auto event = client->next();
  ASSERT_TRUE(event);
  EXPECT_EQ(event->data, "{\n  \"rps\": 12.5,\n  \"errors\": {\"timeout\": 1}\n}");
  rapidjson::Document document;
  document.Parse(event->data.c_str());
  EXPECT_FALSE(document.HasParseError());
}

TEST_F(EventStreamTest, PushesFromManyThreadsKeepEachThreadsOrder) {
  start();
  auto client = openStream();
  auto sink = hub.sink(0);
  std::vector<std::thread> pushers;
  pushers.reserve(4);
  for (int t = 0; t < 4; ++t) {
    pushers.emplace_back([sink, t]() mutable {
      for (int i = 0; i < 250; ++i)
        sink.push({std::to_string(t) + "-" + std::to_string(i), "", "x", {}});
    });
  }
  for (auto& pusher : pushers)
    pusher.join();
  std::vector<int> next_of(4, 0);
  for (int received = 0; received < 1000; ++received) {
    const auto event = client->next();
    ASSERT_TRUE(event) << "after " << received;
    const auto dash = event->id.find('-');
    const auto thread = static_cast<std::size_t>(std::stoi(event->id.substr(0, dash)));
    EXPECT_EQ(std::stoi(event->id.substr(dash + 1)), next_of.at(thread)++);
  }
}

TEST_F(EventStreamTest, HeartbeatsArrive) {
  ServerOptions options;
  options.streams.heartbeat_interval = 50ms;
  start(options);
  auto client = openStream();
  EXPECT_TRUE(client->waitComments(3));
}

TEST_F(EventStreamTest, ClientLeavingIsNoticedAndLaterPushesAreHarmless) {
  start();
  auto client = openStream();
  auto sink = hub.sink(0);
  ASSERT_TRUE(sink.push({"1", "", "before", {}}));
  ASSERT_TRUE(client->next());
  client.reset();  // the client goes away
  ASSERT_TRUE(waitFor([&] { return hub.ends().size() == 1; }));
  EXPECT_EQ(hub.ends()[0], StreamEnd::ClientLeft);
  EXPECT_FALSE(sink.isOpen());
  EXPECT_FALSE(sink.push({"2", "", "after", {}}));
  sink.close();
  EXPECT_TRUE(waitFor([&] { return server->stats().open_streams == 0; }));
  EXPECT_EQ(hub.ends().size(), 1U);
}

TEST_F(EventStreamTest, ApplicationCloseFlushesAndEndsTheStream) {
  start();
  auto client = openStream();
  auto sink = hub.sink(0);
  sink.push({"1", "end", "{}", {}});
  sink.close();
  EXPECT_FALSE(sink.push({"2", "", "late", {}}));
  const auto event = client->next();
  ASSERT_TRUE(event);
  EXPECT_EQ(event->event, "end");
  EXPECT_TRUE(client->waitEnd());
  EXPECT_TRUE(client->raw().waitClosed());
  ASSERT_TRUE(waitFor([&] { return hub.ends().size() == 1; }));
  EXPECT_EQ(hub.ends()[0], StreamEnd::ClosedByApplication);
}

TEST_F(EventStreamTest, StreamsBeyondTheLimitGet503) {
  ServerOptions options;
  options.streams.max_streams = 2;
  start(options);
  auto first = openStream();
  auto second = openStream();
  SseClient third(server->port(), "/runs/r1/events");
  EXPECT_EQ(third.status(), 503U);
  EXPECT_NE(third.head().find("application/problem+json"), std::string::npos);
  rapidjson::Document problem;
  problem.Parse(third.plainBody().c_str());
  ASSERT_FALSE(problem.HasParseError()) << third.plainBody();
  EXPECT_STREQ(problem["reason"].GetString(), "too-many-streams");
  EXPECT_EQ(problem["status"].GetInt(), 503);
  EXPECT_EQ(hub.sinkCount(), 2U);

  first.reset();
  ASSERT_TRUE(waitFor([&] { return server->stats().open_streams == 1; }));
  auto again = openStream();
  EXPECT_EQ(server->stats().open_streams, 2U);
}

TEST_F(EventStreamTest, PlainRequestsStayFastWithManyBusyStreams) {
  ServerOptions options;
  options.streams.max_streams = 64;
  start(options);
  std::vector<std::unique_ptr<SseClient>> clients;
  clients.reserve(40);
  for (int i = 0; i < 40; ++i)
    clients.push_back(openStream());
  std::atomic<bool> pushing{true};
  std::thread pusher([&] {
    // ~100 events/s per stream: busy, yet well within what unread socket buffers absorb.
    const std::string data(256, 'd');
    while (pushing) {
      for (std::size_t i = 0; i < clients.size(); ++i)
        hub.sink(i).push({"x", "snapshot", data, {}});
      std::this_thread::sleep_for(10ms);
    }
  });
  benchd::testing::HttpConnection kept(server->port(), 10s);
  auto slowest = std::chrono::steady_clock::duration::zero();
  for (int i = 0; i < 50; ++i) {
    const auto response = kept.request("GET", "/health");
    ASSERT_EQ(response.status, 200U);
    slowest = std::max(slowest, response.elapsed);
    const auto fresh = benchd::testing::httpRequest(server->port(), "GET", "/health");
    ASSERT_EQ(fresh.status, 200U);
    slowest = std::max(slowest, fresh.elapsed);
  }
  pushing = false;
  pusher.join();
  // Typically a millisecond; the bound only guards against being queued behind the streams.
  EXPECT_LT(slowest, 1s);
  EXPECT_EQ(server->stats().open_streams, 40U);
}

TEST_F(EventStreamTest, ASlowReaderIsDisconnectedInsteadOfBuffered) {
  ServerOptions options;
  options.streams.max_queued_bytes = std::size_t{64} * 1024;
  start(options);
  // A client with a tiny receive window that never reads after the header.
  SseClient client(server->port(), "/runs/r1/events", {}, 4096);
  ASSERT_EQ(client.status(), 200U);
  ASSERT_TRUE(waitFor([&] { return hub.sinkCount() == 1; }));
  auto sink = hub.sink(0);
  const std::string data(8192, 's');
  std::size_t pushed_bytes = 0;
  bool refused = false;
  const auto deadline = std::chrono::steady_clock::now() + 20s;
  while (!refused && std::chrono::steady_clock::now() < deadline) {
    if (sink.push({"", "", data, {}}))
      pushed_bytes += data.size();
    else
      refused = true;
  }
  ASSERT_TRUE(refused);
  // What was accepted fits in the queue bound plus the kernel's socket buffers, nowhere near
  // "unbounded".
  EXPECT_LT(pushed_bytes, 32U * 1024 * 1024);
  ASSERT_TRUE(waitFor([&] { return hub.ends().size() == 1; }));
  EXPECT_EQ(hub.ends()[0], StreamEnd::ClientTooSlow);
  EXPECT_TRUE(waitFor([&] { return server->stats().open_streams == 0; }));
  EXPECT_EQ(benchd::testing::httpRequest(server->port(), "GET", "/health").status, 200U);
}

TEST_F(EventStreamTest, StopWithOpenStreamsAndARequestInFlightEndsCleanly) {
  ServerOptions options;
  options.stop_grace = 3s;
  start(options);
  std::vector<std::unique_ptr<SseClient>> clients;
  clients.reserve(3);
  for (int i = 0; i < 3; ++i)
    clients.push_back(openStream());
  hub.sink(0).push({"1", "", "queued before stop", {}});

  unsigned slow_status = 0;
  std::thread in_flight([&] {
    try {
      slow_status = benchd::testing::httpRequest(server->port(), "GET", "/slow").status;
    } catch (const std::exception&) {
      slow_status = 1;  // the request in flight was not answered
    }
  });
  EXPECT_TRUE(waitFor([&] { return slow_entered.load(); }));
  std::thread releaser([&] {
    std::this_thread::sleep_for(100ms);  // lets stop() begin while the handler still runs
    slow_release = true;
  });
  const auto started = std::chrono::steady_clock::now();
  server->stop();
  const auto took = std::chrono::steady_clock::now() - started;
  releaser.join();
  in_flight.join();
  EXPECT_LT(took, 10s);
  EXPECT_EQ(slow_status, 200U);
  const auto ends = hub.ends();
  ASSERT_EQ(ends.size(), 3U);
  for (const auto end : ends)
    EXPECT_EQ(end, StreamEnd::ServerStopping);
  const auto event = clients[0]->next(5s);
  ASSERT_TRUE(event);
  EXPECT_EQ(event->data, "queued before stop");
  for (auto& client : clients)
    EXPECT_TRUE(client->waitEnd(5s));
  EXPECT_FALSE(hub.sink(1).push({"2", "", "after stop", {}}));
}

}  // namespace
}  // namespace benchd::http
