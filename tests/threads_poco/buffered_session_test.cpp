// threads_poco::BufferedServerSession over a loopback connection: a head is read and checked
// on its own, the body and the pipelined request behind it stay for the reads that follow,
// and a malformed, oversized or cut-off head is reported as such.
#include "buffered_session.hpp"

#include "sanitizer.hpp"

#include <benchd/sdk/limits.hpp>

#include <Poco/Net/HTTPFixedLengthStream.h>
#include <Poco/Net/HTTPServerParams.h>
#include <Poco/Net/ServerSocket.h>
#include <Poco/Net/SocketAddress.h>
#include <Poco/Net/StreamSocket.h>
#include <gtest/gtest.h>

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <memory>
#include <string>
#include <sys/resource.h>
#include <thread>
#include <vector>

namespace benchd::threads_poco {
namespace {

using Outcome = HeadRead::Outcome;

/// A connected loopback pair: `client` writes what the server-side `session` reads.
class Loopback {
 public:
  /// `max_keep_alive_requests`: HTTPServerParams' maximum per connection (0: none, Poco's
  /// default).
  explicit Loopback(int max_keep_alive_requests = 0)
      : listener_(Poco::Net::SocketAddress("127.0.0.1", 0)) {
    client.connect(listener_.address());
    Poco::Net::HTTPServerParams::Ptr params = new Poco::Net::HTTPServerParams;
    params->setMaxKeepAliveRequests(max_keep_alive_requests);
    session = std::make_unique<BufferedServerSession>(listener_.acceptConnection(), params);
  }

  void send(const std::string& bytes) {
    for (std::size_t sent = 0; sent < bytes.size();) {
      sent += static_cast<std::size_t>(
          client.sendBytes(bytes.data() + sent, static_cast<int>(bytes.size() - sent)));
    }
  }

  Poco::Net::StreamSocket client;
  std::unique_ptr<BufferedServerSession> session;

 private:
  Poco::Net::ServerSocket listener_;
};

/// Reads exactly `bytes` from the session, as the plugin's body reader does.
std::string readBody(BufferedServerSession& session, std::size_t bytes) {
  Poco::Net::HTTPFixedLengthInputStream in(
      session, static_cast<Poco::Net::HTTPFixedLengthStreamBuf::ContentLength>(bytes));
  std::string body(bytes, '\0');
  in.read(body.data(), static_cast<std::streamsize>(bytes));
  body.resize(static_cast<std::size_t>(in.gcount()));
  return body;
}

TEST(BufferedSession, HeadBodyAndPipelinedRequestAreReadInTurnFromOneArrival) {
  Loopback loopback;
  const std::string first = "POST /a HTTP/1.1\r\nContent-Length: 5\r\n\r\n";
  const std::string second = "GET /b HTTP/1.1\r\nHost: t\r\n\r\n";
  loopback.send(first + "hello" + second);

  ASSERT_TRUE(loopback.session->awaitRequest());
  const HeadRead head = loopback.session->readHead();
  ASSERT_EQ(head.outcome, Outcome::kHead) << head.problem;
  EXPECT_EQ(head.head, first);
  EXPECT_EQ(readBody(*loopback.session, 5), "hello");

  // The pipelined request is in the buffer: no wait on the socket for it.
  EXPECT_EQ(loopback.session->unreadBytes(), second.size());
  ASSERT_TRUE(loopback.session->awaitRequest());
  const HeadRead next = loopback.session->readHead();
  ASSERT_EQ(next.outcome, Outcome::kHead) << next.problem;
  EXPECT_EQ(next.head, second);
  EXPECT_EQ(loopback.session->unreadBytes(), 0u);

  loopback.client.shutdownSend();
  ASSERT_TRUE(loopback.session->awaitRequest());  // the end of input is readable
  EXPECT_EQ(loopback.session->readHead().outcome, Outcome::kClosed);
}

TEST(BufferedSession, HeadSentByteByByteIsReadWhole) {
  Loopback loopback;
  const std::string head = "GET /health HTTP/1.1\r\nHost: t\r\nX-A: b\r\n\r\n";
  for (const char byte : head)
    loopback.send(std::string(1, byte));
  const HeadRead read = loopback.session->readHead();
  ASSERT_EQ(read.outcome, Outcome::kHead) << read.problem;
  EXPECT_EQ(read.head, head);
}

TEST(BufferedSession, ABodyLargerThanTheBufferIsReadWhole) {
  Loopback loopback;
  const std::string body(100'000, 'b');
  const std::string head =
      "POST /a HTTP/1.1\r\nContent-Length: " + std::to_string(body.size()) + "\r\n\r\n";
  std::thread writer([&] { loopback.send(head + body + "GET /c HTTP/1.1\r\n\r\n"); });
  const HeadRead read = loopback.session->readHead();
  ASSERT_EQ(read.outcome, Outcome::kHead) << read.problem;
  EXPECT_EQ(readBody(*loopback.session, body.size()), body);
  const HeadRead next = loopback.session->readHead();
  writer.join();
  ASSERT_EQ(next.outcome, Outcome::kHead) << next.problem;
  EXPECT_EQ(next.head, "GET /c HTTP/1.1\r\n\r\n");
}

TEST(BufferedSession, MalformedHeadIsRefusedWithItsReason) {
  Loopback loopback;
  loopback.send("GET /health HTTP/1.1\nHost: t\n\n");
  const HeadRead read = loopback.session->readHead();
  EXPECT_EQ(read.outcome, Outcome::kRefused);
  EXPECT_NE(read.problem.find("bare LF"), std::string::npos) << read.problem;
}

TEST(BufferedSession, HeadOverTheLimitIsRefusedWithoutReadingItsEnd) {
  Loopback loopback;
  // Never ends: the refusal cannot come from waiting for the end.
  loopback.send("GET /health HTTP/1.1\r\nX-Big: " +
                std::string(2 * sdk::kMaxRequestHeaderBytes, 'a'));
  const HeadRead read = loopback.session->readHead();
  EXPECT_EQ(read.outcome, Outcome::kRefused);
  EXPECT_NE(read.problem.find("header section over"), std::string::npos) << read.problem;
}

TEST(BufferedSession, PeerClosingInsideAHeadEndsItEarly) {
  Loopback loopback;
  loopback.send("GET /health HTTP/1.1\r\nHo");
  loopback.client.shutdownSend();
  EXPECT_EQ(loopback.session->readHead().outcome, Outcome::kEndedEarly);
}

/// Takes every free descriptor of the process for its lifetime, so what needs one more fails
/// with EMFILE meanwhile. The soft open-file limit is lowered first (and put back after), so a
/// large limit does not mean opening a million files.
class AllDescriptorsTaken {
 public:
  AllDescriptorsTaken() {
    ::getrlimit(RLIMIT_NOFILE, &original_);
    const int probe = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (probe >= 0) {
      ::close(probe);
      rlimit lowered = original_;
      lowered.rlim_cur = std::min<rlim_t>(original_.rlim_cur, static_cast<rlim_t>(probe) + 64);
      ::setrlimit(RLIMIT_NOFILE, &lowered);
    }
    for (;;) {
      const int fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
      if (fd < 0) {
        exhausted_ = errno == EMFILE;
        break;
      }
      taken_.push_back(fd);
    }
  }
  ~AllDescriptorsTaken() {
    for (const int fd : taken_)
      ::close(fd);
    ::setrlimit(RLIMIT_NOFILE, &original_);
  }
  AllDescriptorsTaken(const AllDescriptorsTaken&) = delete;
  AllDescriptorsTaken& operator=(const AllDescriptorsTaken&) = delete;

  [[nodiscard]] bool exhausted() const { return exhausted_; }

 private:
  rlimit original_{};
  std::vector<int> taken_;
  bool exhausted_ = false;
};

TEST(BufferedSession, WaitsForRequestsWithoutADescriptorOfItsOwn) {
  // Run by CI on the ci build (scripts/test.sh runs there what the asan build skipped).
  if (testing::kAddressSanitizer)
    GTEST_SKIP() << testing::kNoDescriptorsUnderSanitizers;
  Loopback loopback;
  const std::string request = "GET /a HTTP/1.1\r\nHost: t\r\n\r\n";
  {
    const AllDescriptorsTaken taken;
    ASSERT_TRUE(taken.exhausted());
    loopback.send(request);
    // The first wait (Poco's hasMoreRequests() would create an epoll instance here).
    ASSERT_TRUE(loopback.session->awaitRequest());
    ASSERT_EQ(loopback.session->readHead().outcome, Outcome::kHead);
    loopback.session->setKeepAlive(true);
    loopback.send(request);
    EXPECT_TRUE(loopback.session->awaitRequest());
  }
}

TEST(BufferedSession, KeepsAliveForTheMaximumOfRequestsPerConnection) {
  Loopback loopback(2);
  const std::string request = "GET /a HTTP/1.1\r\nHost: t\r\n\r\n";
  loopback.send(request + request + request);

  ASSERT_TRUE(loopback.session->awaitRequest());
  ASSERT_EQ(loopback.session->readHead().outcome, Outcome::kHead);
  EXPECT_TRUE(loopback.session->mayKeepAlive());  // one more may follow
  loopback.session->setKeepAlive(true);
  ASSERT_TRUE(loopback.session->awaitRequest());
  ASSERT_EQ(loopback.session->readHead().outcome, Outcome::kHead);
  EXPECT_FALSE(loopback.session->mayKeepAlive());  // the second is the last
  // The third, pipelined, is not served on this connection.
  EXPECT_FALSE(loopback.session->awaitRequest());
}

TEST(BufferedSession, WithoutAMaximumEveryRequestMayKeepAlive) {
  Loopback loopback;  // no maximum
  const std::string request = "GET /a HTTP/1.1\r\nHost: t\r\n\r\n";
  for (int served = 0; served < 5; ++served) {
    loopback.send(request);
    ASSERT_TRUE(loopback.session->awaitRequest()) << served;
    ASSERT_EQ(loopback.session->readHead().outcome, Outcome::kHead);
    EXPECT_TRUE(loopback.session->mayKeepAlive()) << served;
    loopback.session->setKeepAlive(true);
  }
}

}  // namespace
}  // namespace benchd::threads_poco
