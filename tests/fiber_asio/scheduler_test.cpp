// AsioScheduler: fibers and Asio completions share one OS thread; fiber timers work while the
// io_context is idle; other threads can wake a fiber; a thousand sleeping fibers overlap.
#include "fiber_test_support.hpp"

#include <benchd/fiber_asio/asio_scheduler.hpp>
#include <benchd/fiber_asio/use_fiber.hpp>

#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/fiber/fiber.hpp>
#include <boost/fiber/future.hpp>
#include <boost/fiber/operations.hpp>
#include <gtest/gtest.h>

#include <chrono>
#include <thread>
#include <vector>

namespace benchd::testing {
namespace {

using std::chrono::milliseconds;
using std::chrono::steady_clock;

TEST(AsioScheduler, FiberSleepWakesUpWhileTheIoContextIsIdle) {
  boost::asio::io_context io;
  const auto started = steady_clock::now();
  runInFiberThread(io, [] { boost::this_fiber::sleep_for(milliseconds(50)); });
  EXPECT_GE(steady_clock::now() - started, milliseconds(50));
}

TEST(AsioScheduler, ThousandSleepingFibersOverlapOnOneThread) {
  boost::asio::io_context io;
  int finished = 0;
  const auto started = steady_clock::now();
  runInFiberThread(io, [&] {
    std::vector<boost::fibers::fiber> sleepers;
    for (int i = 0; i < 1000; ++i) {
      sleepers.emplace_back([&] {
        boost::this_fiber::sleep_for(milliseconds(100));
        ++finished;
      });
    }
    for (auto& sleeper : sleepers)
      sleeper.join();
  });
  EXPECT_EQ(finished, 1000);
  // Serially this would take 100 s; overlapped it takes about 0.1 s.
  EXPECT_LT(steady_clock::now() - started, std::chrono::seconds(10));
}

TEST(AsioScheduler, CompletionHandlersRunOnTheFibersThread) {
  boost::asio::io_context io;
  std::thread::id handler_thread;
  std::thread::id fiber_thread;
  runInFiberThread(io, [&] {
    fiber_thread = std::this_thread::get_id();
    boost::fibers::promise<void> done;
    boost::asio::post(io, [&] {
      handler_thread = std::this_thread::get_id();
      done.set_value();
    });
    done.get_future().get();
  });
  EXPECT_EQ(handler_thread, fiber_thread);
}

TEST(AsioScheduler, AnotherThreadCanWakeAWaitingFiber) {
  boost::asio::io_context io;
  boost::fibers::promise<int> answer;
  std::thread producer;
  int received = 0;
  runInFiberThread(io, [&] {
    producer = std::thread([&] {
      std::this_thread::sleep_for(milliseconds(30));
      answer.set_value(42);  // makes the fiber ready from a foreign thread: notify()
    });
    received = answer.get_future().get();
  });
  producer.join();
  EXPECT_EQ(received, 42);
}

TEST(AsioScheduler, TimerThroughUseFiberFromThisTranslationUnit) {
  boost::asio::io_context io;
  boost::system::error_code result = boost::asio::error::fault;
  const auto started = steady_clock::now();
  runInFiberThread(io, [&] {
    boost::asio::steady_timer timer(io, milliseconds(20));
    result = timer.async_wait(fiber_asio::use_fiber);
  });
  EXPECT_FALSE(result) << result.message();
  EXPECT_GE(steady_clock::now() - started, milliseconds(20));
}

}  // namespace
}  // namespace benchd::testing
