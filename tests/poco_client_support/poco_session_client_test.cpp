// poco_client_support::PocoSessionClient against a scripted loopback server: a nested call on
// a pooled session is sent again only when the server closed that connection before answering.
#include <benchd/poco_client_support/poco_session_client.hpp>
#include <benchd/sdk/limits.hpp>

#include <Poco/Exception.h>
#include <Poco/Net/NetException.h>
#include <Poco/Net/ServerSocket.h>
#include <Poco/Net/SocketAddress.h>
#include <Poco/Net/StreamSocket.h>
#include <gtest/gtest.h>

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <sys/eventfd.h>
#include <thread>
#include <vector>

namespace benchd::poco_client_support {
namespace {

const std::string kTarget = "/threads-poco/epoch-millis?delayCallDepth=0&delayInMillis=0";
const std::string kAnswer =
    "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: keep-alive\r\n\r\nok";

/// Reads one request head from `socket`; false when the peer closed first.
bool readRequest(Poco::Net::StreamSocket& socket) {
  std::string head;
  char byte = 0;
  while (head.find("\r\n\r\n") == std::string::npos) {
    if (socket.receiveBytes(&byte, 1) != 1)
      return false;
    head += byte;
  }
  return true;
}

/// A loopback server that runs `script` for each accepted connection in turn (the connection's
/// index, from 0) on its own thread, counting connections and the requests the scripts read.
class ScriptedServer {
 public:
  using Script = std::function<void(int index, Poco::Net::StreamSocket&, ScriptedServer&)>;

  explicit ScriptedServer(Script script)
      : listener_(Poco::Net::SocketAddress("127.0.0.1", 0)), script_(std::move(script)) {
    thread_ = std::thread([this] { serve(); });
  }
  ~ScriptedServer() {
    stop_ = true;
    thread_.join();
  }
  ScriptedServer(const ScriptedServer&) = delete;
  ScriptedServer& operator=(const ScriptedServer&) = delete;

  [[nodiscard]] std::uint16_t port() const { return listener_.address().port(); }
  /// Reads a request on `socket` and counts it; false when the peer closed first.
  bool read(Poco::Net::StreamSocket& socket) {
    if (!readRequest(socket))
      return false;
    ++requests;
    return true;
  }

  std::atomic<int> connections{0};
  std::atomic<int> requests{0};

 private:
  void serve() {
    while (!stop_) {
      if (!listener_.poll(Poco::Timespan(0, 20'000), Poco::Net::Socket::SELECT_READ))
        continue;
      Poco::Net::StreamSocket socket = listener_.acceptConnection();
      const int index = connections++;
      try {
        script_(index, socket, *this);
      } catch (const Poco::Exception&) {
        // The client went away; the test's expectations say whether that was right.
      }
    }
  }

  Poco::Net::ServerSocket listener_;
  Script script_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

/// The connection of the client whose request makes the nested calls: open until it leaves(),
/// so the pool's wait for an answer sees that client leave only then.
class CallerClient {
 public:
  CallerClient() : listener_(Poco::Net::SocketAddress("127.0.0.1", 0)) {
    client_.connect(listener_.address());
    served_ = listener_.acceptConnection();
  }
  sdk::NestedCallOutcome get(PocoSessionClient& pool, const std::string& target) {
    return pool.get(target, served_.impl()->sockfd());
  }
  void leave() { client_.close(); }

 private:
  Poco::Net::ServerSocket listener_;
  Poco::Net::StreamSocket client_;
  Poco::Net::StreamSocket served_;
};

TEST(PocoSessionClient, ReusedSessionIsNotSentAgainAfterPartOfAnAnswer) {
  // The server took the second request up and died half-way through the answer: sending it
  // again (the old rule: any error on a reused session) would run it twice.
  ScriptedServer server([](int index, Poco::Net::StreamSocket& socket, ScriptedServer& self) {
    if (index == 0) {
      if (self.read(socket))
        socket.sendBytes(kAnswer.data(), static_cast<int>(kAnswer.size()));
      if (self.read(socket)) {
        const std::string part = "HTTP/1.1 200 OK\r\nContent-Le";
        socket.sendBytes(part.data(), static_cast<int>(part.size()));
      }
      socket.close();
      return;
    }
    if (self.read(socket))  // an unwanted second attempt: answer it so the client moves on
      socket.sendBytes(kAnswer.data(), static_cast<int>(kAnswer.size()));
    socket.close();
  });
  PocoSessionClient pool(sdk::kUpstreamResponseMargin, sdk::kUpstreamIdleTimeout);
  pool.setEndpoint("127.0.0.1", server.port());
  CallerClient caller;
  const auto first = caller.get(pool, kTarget);
  ASSERT_TRUE(first.error.empty()) << first.error;
  ASSERT_EQ(first.status, 200U);
  const auto second = caller.get(pool, kTarget);
  EXPECT_FALSE(second.error.empty()) << "status " << second.status;
  EXPECT_EQ(server.requests.load(), 2) << "the second request was sent again";
  EXPECT_EQ(server.connections.load(), 1);
}

TEST(PocoSessionClient, ReusedSessionClosedBeforeAnyAnswerIsSentOnceMoreOnANewConnection) {
  // The keep-alive race: the server closed the pooled connection as the request went out.
  ScriptedServer server([](int index, Poco::Net::StreamSocket& socket, ScriptedServer& self) {
    if (self.read(socket))
      socket.sendBytes(kAnswer.data(), static_cast<int>(kAnswer.size()));
    if (index == 0) {
      readRequest(socket);  // taken, not counted: closed unanswered, as if idle-timed out
      socket.close();
      return;
    }
    readRequest(socket);  // waits for the client to close
  });
  PocoSessionClient pool(sdk::kUpstreamResponseMargin, sdk::kUpstreamIdleTimeout);
  pool.setEndpoint("127.0.0.1", server.port());
  CallerClient caller;
  ASSERT_EQ(caller.get(pool, kTarget).status, 200U);
  const auto second = caller.get(pool, kTarget);
  EXPECT_TRUE(second.error.empty()) << second.error;
  EXPECT_EQ(second.status, 200U);
  EXPECT_EQ(server.connections.load(), 2);
  pool.drain();
}

/// A server that reads each request and never answers, until the client closes.
void neverAnswer(int /*index*/, Poco::Net::StreamSocket& socket, ScriptedServer& self) {
  if (self.read(socket))
    readRequest(socket);
}

TEST(PocoSessionClient, AClientThatLeavesEndsTheWaitAndClosesTheNestedConnection) {
  ScriptedServer server(neverAnswer);
  PocoSessionClient pool(sdk::kUpstreamResponseMargin, sdk::kUpstreamIdleTimeout);
  pool.setEndpoint("127.0.0.1", server.port());
  CallerClient caller;
  std::thread leaving([&caller] {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    caller.leave();
  });
  const auto outcome = caller.get(pool, kTarget);  // would wait 60 s for an answer otherwise
  leaving.join();
  EXPECT_TRUE(outcome.client_gone) << outcome.error;
  EXPECT_EQ(server.requests.load(), 1);
  EXPECT_EQ(pool.connectionsOpen(), 0) << "the nested connection was closed";
}

TEST(PocoSessionClient, TheStopDescriptorEndsTheWait) {
  ScriptedServer server(neverAnswer);
  const int stop_fd = ::eventfd(0, EFD_CLOEXEC);
  ASSERT_GE(stop_fd, 0);
  {
    PocoSessionClient pool(sdk::kUpstreamResponseMargin, sdk::kUpstreamIdleTimeout, stop_fd);
    pool.setEndpoint("127.0.0.1", server.port());
    CallerClient caller;
    std::thread stopping([stop_fd] {
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
      const std::uint64_t one = 1;
      EXPECT_EQ(::write(stop_fd, &one, sizeof one), static_cast<ssize_t>(sizeof one));
    });
    const auto outcome = caller.get(pool, kTarget);
    stopping.join();
    EXPECT_TRUE(outcome.client_gone) << outcome.error;
    EXPECT_EQ(pool.connectionsOpen(), 0);
  }
  ::close(stop_fd);
}

TEST(StaleKeepAlive, OnlyAPeerCloseBeforeAnyAnswerOnAReusedSessionIsResent) {
  const Poco::Net::NoMessageException no_message;
  const Poco::Net::ConnectionResetException reset;
  const Poco::Net::ConnectionAbortedException aborted;
  for (const std::exception* closed :
       std::vector<const std::exception*>{&no_message, &reset, &aborted}) {
    EXPECT_TRUE(staleKeepAlive(true, *closed, false)) << closed->what();
    EXPECT_FALSE(staleKeepAlive(true, *closed, true)) << "part of an answer arrived";
    EXPECT_FALSE(staleKeepAlive(false, *closed, false)) << "a new session is never retried";
  }
  // The callee may still be working on the request: sending it again multiplies the chain.
  EXPECT_FALSE(staleKeepAlive(true, Poco::TimeoutException(), false));
  EXPECT_FALSE(staleKeepAlive(true, Poco::Net::MessageException("malformed"), false));
  EXPECT_FALSE(staleKeepAlive(true, Poco::Net::NetException("other"), false));
}

}  // namespace
}  // namespace benchd::poco_client_support
