// use_fiber: Asio operations read as blocking calls inside a fiber and suspend only that
// fiber; results and errors come back as values; the operation's state lives on the fiber's
// stack. This second translation unit also includes the integration headers, so the program
// would not link if they defined non-inline objects.
#include "fiber_test_support.hpp"

#include <benchd/fiber_scheduler_asio/asio_scheduler.hpp>
#include <benchd/fiber_scheduler_asio/use_fiber.hpp>

#include <boost/asio/associated_allocator.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/write.hpp>
#include <boost/fiber/fiber.hpp>
#include <boost/fiber/operations.hpp>
#include <gtest/gtest.h>

#include <array>
#include <cstdlib>
#include <memory>
#include <string>
#include <system_error>

namespace benchd::testing {
namespace {

class UseFiberTest : public FiberThreadTest {};

namespace asio = boost::asio;
using asio::ip::tcp;
using fiber_scheduler_asio::use_fiber;

TEST_P(UseFiberTest, EchoRoundTripBetweenTwoFibersOnOneThread) {
  asio::io_context io;
  std::string echoed;
  runInFiberThread(io, GetParam(), [&] {
    tcp::acceptor acceptor(io, {asio::ip::address_v4::loopback(), 0});
    const auto endpoint = acceptor.local_endpoint();
    boost::fibers::fiber server([&] {
      auto [accept_error, peer] = acceptor.async_accept(use_fiber);
      ASSERT_FALSE(accept_error) << accept_error.message();
      std::array<char, 5> data{};
      auto [read_error, read] = asio::async_read(peer, asio::buffer(data), use_fiber);
      ASSERT_FALSE(read_error);
      auto [write_error, written] = asio::async_write(peer, asio::buffer(data, read), use_fiber);
      ASSERT_FALSE(write_error);
    });
    tcp::socket client(io);
    const boost::system::error_code connect_error = client.async_connect(endpoint, use_fiber);
    ASSERT_FALSE(connect_error) << connect_error.message();
    auto [write_error, written] = asio::async_write(client, asio::buffer("hello", 5), use_fiber);
    ASSERT_FALSE(write_error);
    std::array<char, 5> reply{};
    auto [read_error, read] = asio::async_read(client, asio::buffer(reply), use_fiber);
    ASSERT_FALSE(read_error);
    echoed.assign(reply.data(), read);
    server.join();
  });
  EXPECT_EQ(echoed, "hello");
}

TEST_P(UseFiberTest, ErrorsComeBackAsValues) {
  asio::io_context io;
  boost::system::error_code connect_error;
  runInFiberThread(io, GetParam(), [&] {
    // A port that was just free: nothing listens there.
    tcp::endpoint closed;
    {
      tcp::acceptor probe(io, {asio::ip::address_v4::loopback(), 0});
      closed = probe.local_endpoint();
    }
    tcp::socket client(io);
    connect_error = client.async_connect(closed, use_fiber);
  });
  EXPECT_EQ(connect_error, asio::error::connection_refused);
}

TEST_P(UseFiberTest, WaitingSuspendsOnlyTheCallingFiber) {
  asio::io_context io;
  int ticks_while_waiting = 0;
  runInFiberThread(io, GetParam(), [&] {
    bool waiting = true;
    boost::fibers::fiber ticker([&] {
      while (waiting) {
        ++ticks_while_waiting;
        boost::this_fiber::sleep_for(std::chrono::milliseconds(5));
      }
    });
    asio::steady_timer timer(io, std::chrono::milliseconds(100));
    const boost::system::error_code result = timer.async_wait(use_fiber);
    waiting = false;
    ticker.join();
    EXPECT_FALSE(result);
  });
  EXPECT_GE(ticks_while_waiting, 5) << "the other fiber must keep running during the wait";
}

TEST_P(UseFiberTest, OperationStateLivesOnTheWaitingFibersStack) {
  // What an operation allocates through its handler (Asio's and Beast's state) comes from the
  // waiting fiber's stack, one block at a time; a second block at once comes from the heap.
  asio::io_context io;
  std::ptrdiff_t first_distance = -1;
  bool second_is_elsewhere = false;
  bool storage_reused = false;
  runInFiberThread(io, GetParam(), [&] {
    const auto initiation = [&](auto handler) {
      const char local = 0;
      using Traits = std::allocator_traits<typename std::allocator_traits<
          asio::associated_allocator_t<decltype(handler)>>::template rebind_alloc<char>>;
      typename Traits::allocator_type allocator(asio::get_associated_allocator(handler));
      char* const first = Traits::allocate(allocator, 200);
      first_distance = std::abs(first - &local);
      char* const second = Traits::allocate(allocator, 200);
      second_is_elsewhere = second != first && std::abs(second - &local) != first_distance;
      Traits::deallocate(allocator, second, 200);
      Traits::deallocate(allocator, first, 200);
      char* const again = Traits::allocate(allocator, 200);
      storage_reused = again == first;
      Traits::deallocate(allocator, again, 200);
      asio::post(io, [handler = std::move(handler)]() mutable { handler(std::error_code{}); });
    };
    asio::async_initiate<const fiber_scheduler_asio::UseFiber&, void(std::error_code)>(initiation,
                                                                                       use_fiber);
  });
  // Both addresses lie on the fiber's stack: Boost's default fiber stack, 128 KiB.
  EXPECT_GE(first_distance, 0);
  EXPECT_LT(first_distance, 128 * 1024) << "the block is not on the waiting fiber's stack";
  EXPECT_TRUE(second_is_elsewhere);
  EXPECT_TRUE(storage_reused);
}

INSTANTIATE_TEST_SUITE_P(BothModes, UseFiberTest,
                         ::testing::Values(FiberThreadMode::kMainFiberWaits,
                                           FiberThreadMode::kMainFiberRunsIo),
                         fiberThreadModeName);

}  // namespace
}  // namespace benchd::testing
