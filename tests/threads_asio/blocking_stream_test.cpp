// BlockingStream: blocking reads and waits that still end at their deadline (a total over
// reads), when the stop gives up, when the drain begins (only while waiting for a request) and
// when the peer or a watched client leaves.
#include "blocking_stream.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/error.hpp>
#include <gtest/gtest.h>

#include <array>
#include <chrono>
#include <future>
#include <thread>

namespace benchd::threads_asio {
namespace {

namespace asio = boost::asio;
using asio::ip::tcp;
using boost::system::error_code;
using std::chrono::milliseconds;
using Clock = std::chrono::steady_clock;

/// Two ends of a loopback TCP connection.
struct SocketPair {
  explicit SocketPair(asio::io_context& io) : near(io), far(io) {
    tcp::acceptor acceptor(io, tcp::endpoint(asio::ip::address_v4::loopback(), 0));
    far.connect(acceptor.local_endpoint());
    near = acceptor.accept();
  }
  tcp::socket near;
  tcp::socket far;
};

class BlockingStreamTest : public ::testing::Test {
 protected:
  asio::io_context io_;
  ServerSignals signals_;
};

TEST_F(BlockingStreamTest, TheDeadlineIsATotalOverEveryRead) {
  SocketPair pair(io_);
  BlockingStream stream(std::move(pair.near), signals_);
  // A peer that sends a byte every 20 ms never lets a single read wait long.
  std::atomic<bool> done{false};
  std::thread trickle([&] {
    while (!done.load()) {
      error_code ignored;
      asio::write(pair.far, asio::buffer("x", 1), ignored);
      std::this_thread::sleep_for(milliseconds(20));
    }
  });
  stream.expiresAfter(milliseconds(300));
  const auto started = Clock::now();
  error_code error;
  std::array<char, 16> scratch{};
  std::size_t bytes = 0;
  while (!error)
    bytes += stream.read_some(asio::buffer(scratch), error);
  const auto took = Clock::now() - started;
  done.store(true);
  trickle.join();
  EXPECT_EQ(error, boost::beast::error::timeout) << error.message();
  EXPECT_GE(bytes, 2U);
  EXPECT_GE(took, milliseconds(300));
  EXPECT_LT(took, milliseconds(5000));
}

TEST_F(BlockingStreamTest, TheStopEndsEveryWait) {
  SocketPair pair(io_);
  BlockingStream stream(std::move(pair.near), signals_);
  auto read = std::async(std::launch::async, [&stream] {
    error_code error;
    std::array<char, 16> scratch{};
    stream.read_some(asio::buffer(scratch), error);
    return error;
  });
  EXPECT_EQ(read.wait_for(milliseconds(100)), std::future_status::timeout);
  signals_.signalStop();
  ASSERT_EQ(read.wait_for(std::chrono::seconds(10)), std::future_status::ready);
  EXPECT_EQ(read.get(), asio::error::operation_aborted);
  EXPECT_TRUE(signals_.stopped());
  // A wait that starts after the stop ends at once too.
  EXPECT_EQ(BlockingStream(std::move(pair.far), signals_).waitReadable(),
            asio::error::operation_aborted);
}

TEST_F(BlockingStreamTest, TheDrainEndsOnlyAWaitForTheNextRequest) {
  SocketPair pair(io_);
  BlockingStream stream(std::move(pair.near), signals_);
  signals_.signalDrain();
  EXPECT_TRUE(signals_.draining());
  stream.expiresAfter(milliseconds(200));
  EXPECT_EQ(stream.waitReadable(), boost::beast::error::timeout)
      << "a request being read is not cut off by the drain";
  stream.waitingForRequest(true);
  stream.expiresAfter(milliseconds(60'000));
  EXPECT_EQ(stream.waitReadable(), asio::error::operation_aborted);
}

TEST_F(BlockingStreamTest, TheSleepEndsWhenThePeerLeavesAndKeepsWhatItSent) {
  SocketPair pair(io_);
  BlockingStream stream(std::move(pair.near), signals_);
  asio::write(pair.far, asio::buffer("GET", 3));  // pipelined bytes do not end the sleep
  EXPECT_EQ(stream.sleepWatchingPeer(milliseconds(100)), BlockingStream::WaitEnd::kElapsed);
  std::array<char, 8> scratch{};
  error_code error;
  EXPECT_EQ(stream.read_some(asio::buffer(scratch), error), 3U);

  pair.far.shutdown(tcp::socket::shutdown_send);
  const auto started = Clock::now();
  EXPECT_EQ(stream.sleepWatchingPeer(milliseconds(60'000)), BlockingStream::WaitEnd::kClientGone);
  EXPECT_LT(Clock::now() - started, std::chrono::seconds(10));
}

TEST_F(BlockingStreamTest, TheStopEndsTheSleep) {
  SocketPair pair(io_);
  BlockingStream stream(std::move(pair.near), signals_);
  std::thread stopper([this] {
    std::this_thread::sleep_for(milliseconds(50));
    signals_.signalStop();
  });
  EXPECT_EQ(stream.sleepWatchingPeer(milliseconds(60'000)), BlockingStream::WaitEnd::kStopped);
  stopper.join();
}

TEST_F(BlockingStreamTest, AWatchedClientLeavingEndsTheWaitOfAnotherConnection) {
  SocketPair client(io_);
  SocketPair upstream(io_);
  BlockingStream client_stream(std::move(client.near), signals_);
  BlockingStream upstream_stream(std::move(upstream.near), signals_);
  upstream_stream.watchClient(client_stream.socket().native_handle());
  client.far.close();
  error_code error;
  std::array<char, 8> scratch{};
  upstream_stream.read_some(asio::buffer(scratch), error);
  EXPECT_EQ(error, asio::error::operation_aborted);
  EXPECT_TRUE(upstream_stream.clientGone());
}

TEST_F(BlockingStreamTest, ConnectsWithinItsDeadlineAndReportsARefusal) {
  tcp::acceptor acceptor(io_, tcp::endpoint(asio::ip::address_v4::loopback(), 0));
  const tcp::endpoint listening = acceptor.local_endpoint();
  BlockingStream stream(tcp::socket(io_), signals_);
  stream.expiresAfter(milliseconds(10'000));
  error_code error;
  stream.connect(listening, error);
  EXPECT_FALSE(error) << error.message();
  EXPECT_TRUE(stream.idleUsable());
  acceptor.close();

  BlockingStream refused(tcp::socket(io_), signals_);
  refused.expiresAfter(milliseconds(10'000));
  refused.connect(listening, error);
  EXPECT_EQ(error, asio::error::connection_refused) << error.message();
}

}  // namespace
}  // namespace benchd::threads_asio
