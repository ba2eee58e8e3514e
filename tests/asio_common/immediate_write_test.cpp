// writeWithoutWaiting: writes what the socket takes at once, never waits for a full send
// buffer, and reports a write error as a write would.
#include <benchd/asio_common/immediate_write.hpp>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read.hpp>
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

namespace benchd::testing {
namespace {

namespace asio = boost::asio;
using asio::ip::tcp;

struct ConnectedPair {
  asio::io_context io;
  tcp::acceptor acceptor{io, tcp::endpoint(asio::ip::address_v4::loopback(), 0)};
  tcp::socket client{io};
  tcp::socket server{io};
  ConnectedPair() {
    client.connect(acceptor.local_endpoint());
    acceptor.accept(server);
  }
};

TEST(ImmediateWrite, ASmallReplyIsWrittenWhole) {
  ConnectedPair pair;
  const std::string reply = "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n";
  boost::system::error_code error;
  EXPECT_EQ(asio_common::writeWithoutWaiting(pair.server, asio::buffer(reply), error),
            reply.size());
  EXPECT_FALSE(error) << error.message();
  std::string received(reply.size(), '\0');
  asio::read(pair.client, asio::buffer(received));
  EXPECT_EQ(received, reply);
}

TEST(ImmediateWrite, AFullSendBufferReturnsWithoutWaiting) {
  ConnectedPair pair;  // the client reads nothing, so the buffers fill up
  const std::vector<char> chunk(1 << 20, 'x');
  boost::system::error_code error;
  const auto started = std::chrono::steady_clock::now();
  std::size_t last = 1;
  for (int i = 0; i < 64 && last > 0; ++i)
    last = asio_common::writeWithoutWaiting(pair.server, asio::buffer(chunk), error);
  EXPECT_EQ(last, 0u) << "64 MiB fit the socket buffers";
  EXPECT_FALSE(error) << error.message();
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(5));
}

TEST(ImmediateWrite, AWriteToAResetPeerReportsTheError) {
  ConnectedPair pair;
  pair.client.set_option(asio::socket_base::linger(true, 0));
  pair.client.close();  // a reset
  const std::string reply(1024, 'x');
  boost::system::error_code error;
  // The first write may still be taken before the reset arrives; the next ones fail.
  for (int i = 0; i < 100 && !error; ++i)
    asio_common::writeWithoutWaiting(pair.server, asio::buffer(reply), error);
  EXPECT_TRUE(error == asio::error::connection_reset || error == asio::error::broken_pipe)
      << error.message();
}

}  // namespace
}  // namespace benchd::testing
