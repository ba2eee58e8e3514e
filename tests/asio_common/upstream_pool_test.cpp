// asio_common::UpstreamPool against loopback peers the test controls: which idle connections
// it hands out, and which failed nested calls may be sent again.
#include <benchd/asio_common/event_loop_group.hpp>
#include <benchd/asio_common/upstream_pool.hpp>

#include <boost/asio/error.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/error.hpp>
#include <boost/beast/http/error.hpp>
#include <gtest/gtest.h>

#include <poll.h>

#include <memory>

namespace benchd::asio_common {
namespace {

namespace asio = boost::asio;
using asio::ip::tcp;

sdk::ServerSettings oneLoop() {
  sdk::ServerSettings settings;
  settings.threads = 1;
  settings.bind_address = "127.0.0.1";
  return settings;
}

/// A loop of a group that never listens: the pool needs one, not a server. The test's thread
/// plays the loop thread.
class UpstreamPoolTest : public ::testing::Test {
 protected:
  UpstreamPoolTest() : acceptor_(io_, tcp::endpoint(asio::ip::address_v4::loopback(), 0)) {}

  EventLoop& loop() { return *group_.loops().front(); }
  UpstreamPool& pool() { return loop().upstream; }

  /// A pooled connection to a peer the test holds (`peer`), connected synchronously.
  std::unique_ptr<UpstreamConnection> connectedPair(tcp::socket& peer) {
    auto connection = pool().open();
    EXPECT_NE(connection, nullptr);
    connection->stream.socket().connect(acceptor_.local_endpoint());
    acceptor_.accept(peer);
    return connection;
  }

  /// Blocks until `socket` is readable or hung up, so a close by the peer has arrived.
  static void waitReadable(tcp::socket& socket) {
    pollfd poll_fd{};
    poll_fd.fd = socket.native_handle();
    poll_fd.events = POLLIN | POLLRDHUP;
    ASSERT_EQ(::poll(&poll_fd, 1, 10'000), 1) << "the peer's close never arrived";
  }

  EventLoopGroup group_{oneLoop(), nullptr};
  asio::io_context io_;
  tcp::acceptor acceptor_;
};

TEST_F(UpstreamPoolTest, HandsOutAnOpenIdleConnection) {
  tcp::socket peer(io_);
  pool().giveBack(connectedPair(peer));
  EXPECT_NE(pool().takeIdle(), nullptr);
  EXPECT_EQ(pool().takeIdle(), nullptr);
}

TEST_F(UpstreamPoolTest, ConnectionClosedByThePeerIsNotHandedOut) {
  // The server closed a pooled keep-alive connection (it drains, or its idle timeout struck):
  // the client side sits in CLOSE_WAIT, and a request sent on it would fail. It must be closed,
  // not handed out.
  tcp::socket peer(io_);
  auto connection = connectedPair(peer);
  auto* raw = connection.get();
  pool().giveBack(std::move(connection));
  peer.close();
  waitReadable(raw->stream.socket());
  EXPECT_EQ(pool().takeIdle(), nullptr);
  EXPECT_EQ(loop().counters.upstream_connections_open.load(), 0)
      << "the closed connection should have been closed on the client side too";
}

TEST_F(UpstreamPoolTest, ConnectionWithUnexpectedBytesIsNotHandedOut) {
  // Bytes after the last answer: the connection is out of step with its peer.
  tcp::socket peer(io_);
  auto connection = connectedPair(peer);
  auto* raw = connection.get();
  pool().giveBack(std::move(connection));
  asio::write(peer, asio::buffer(std::string_view("HTTP/1.1 200 OK\r\n")));
  waitReadable(raw->stream.socket());
  EXPECT_EQ(pool().takeIdle(), nullptr);
}

TEST_F(UpstreamPoolTest, OnlyTheMostRecentOfTwoOpenConnectionsIsTakenWhenTheOtherIsClosed) {
  tcp::socket first_peer(io_);
  tcp::socket second_peer(io_);
  auto first = connectedPair(first_peer);
  auto second = connectedPair(second_peer);
  auto* second_raw = second.get();
  pool().giveBack(std::move(first));
  pool().giveBack(std::move(second));
  second_peer.close();
  waitReadable(second_raw->stream.socket());
  auto taken = pool().takeIdle();
  ASSERT_NE(taken, nullptr);
  EXPECT_NE(taken.get(), second_raw);
  EXPECT_EQ(pool().takeIdle(), nullptr);
}

TEST(StaleKeepAlive, OnlyAPeerCloseBeforeAnyAnswerOnAReusedConnectionIsResent) {
  namespace http = boost::beast::http;
  for (const boost::system::error_code closed :
       {boost::system::error_code(http::error::end_of_stream),
        boost::system::error_code(asio::error::eof),
        boost::system::error_code(asio::error::connection_reset),
        boost::system::error_code(asio::error::broken_pipe)}) {
    EXPECT_TRUE(staleKeepAlive(true, closed, false)) << closed.message();
    EXPECT_FALSE(staleKeepAlive(true, closed, true)) << "part of an answer arrived";
    EXPECT_FALSE(staleKeepAlive(false, closed, false)) << "a new connection is never retried";
  }
  // The callee may still be working on the request: sending it again multiplies the chain.
  EXPECT_FALSE(staleKeepAlive(true, boost::beast::error::timeout, false));
  EXPECT_FALSE(staleKeepAlive(true, asio::error::timed_out, false));
  EXPECT_FALSE(staleKeepAlive(true, asio::error::operation_aborted, false));
  EXPECT_FALSE(staleKeepAlive(true, http::error::partial_message, false));
  EXPECT_FALSE(staleKeepAlive(true, http::error::bad_version, false));
}

}  // namespace
}  // namespace benchd::asio_common
