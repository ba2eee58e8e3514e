// threads_poco::BufferedServerSession over a loopback connection: a head is read and checked
// on its own, the body and the pipelined request behind it stay for the reads that follow,
// and a malformed, oversized or cut-off head is reported as such.
#include "buffered_session.hpp"

#include <benchd/sdk/limits.hpp>

#include <Poco/Net/HTTPFixedLengthStream.h>
#include <Poco/Net/HTTPServerParams.h>
#include <Poco/Net/ServerSocket.h>
#include <Poco/Net/SocketAddress.h>
#include <Poco/Net/StreamSocket.h>
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <thread>

namespace benchd::threads_poco {
namespace {

using Outcome = HeadRead::Outcome;

/// A connected loopback pair: `client` writes what the server-side `session` reads.
class Loopback {
 public:
  Loopback() : listener_(Poco::Net::SocketAddress("127.0.0.1", 0)) {
    client.connect(listener_.address());
    session = std::make_unique<BufferedServerSession>(listener_.acceptConnection(),
                                                      new Poco::Net::HTTPServerParams);
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

}  // namespace
}  // namespace benchd::threads_poco
