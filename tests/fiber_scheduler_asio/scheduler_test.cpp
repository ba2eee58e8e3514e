// AsioScheduler, in both ways of running a thread: fibers and Asio completions share one OS
// thread; fiber timers work while the io_context is idle; other threads can wake a fiber; a
// thousand sleeping fibers overlap; fibers run inside io_context::run when the main fiber runs
// it; an operation that completes inside its initiation returns at once.
#include "fiber_test_support.hpp"

#include <benchd/fiber_scheduler_asio/asio_scheduler.hpp>
#include <benchd/fiber_scheduler_asio/use_fiber.hpp>

#include <boost/asio/dispatch.hpp>
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

class AsioSchedulerTest : public FiberThreadTest {};

using std::chrono::milliseconds;
using std::chrono::steady_clock;

TEST_P(AsioSchedulerTest, FiberSleepWakesUpWhileTheIoContextIsIdle) {
  boost::asio::io_context io;
  const auto started = steady_clock::now();
  runInFiberThread(io, GetParam(), [] { boost::this_fiber::sleep_for(milliseconds(50)); });
  EXPECT_GE(steady_clock::now() - started, milliseconds(50));
}

TEST_P(AsioSchedulerTest, ThousandSleepingFibersOverlapOnOneThread) {
  boost::asio::io_context io;
  int finished = 0;
  const auto started = steady_clock::now();
  runInFiberThread(io, GetParam(), [&] {
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

TEST_P(AsioSchedulerTest, CompletionHandlersRunOnTheFibersThread) {
  boost::asio::io_context io;
  std::thread::id handler_thread;
  std::thread::id fiber_thread;
  runInFiberThread(io, GetParam(), [&] {
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

TEST_P(AsioSchedulerTest, AnotherThreadCanWakeAWaitingFiber) {
  boost::asio::io_context io;
  boost::fibers::promise<int> answer;
  std::thread producer;
  int received = 0;
  runInFiberThread(io, GetParam(), [&] {
    producer = std::thread([&] {
      std::this_thread::sleep_for(milliseconds(30));
      answer.set_value(42);  // makes the fiber ready from a foreign thread: notify()
    });
    received = answer.get_future().get();
  });
  producer.join();
  EXPECT_EQ(received, 42);
}

TEST_P(AsioSchedulerTest, TimerThroughUseFiberFromThisTranslationUnit) {
  boost::asio::io_context io;
  boost::system::error_code result = boost::asio::error::fault;
  const auto started = steady_clock::now();
  runInFiberThread(io, GetParam(), [&] {
    boost::asio::steady_timer timer(io, milliseconds(20));
    result = timer.async_wait(fiber_scheduler_asio::use_fiber);
  });
  EXPECT_FALSE(result) << result.message();
  EXPECT_GE(steady_clock::now() - started, milliseconds(20));
}

TEST_P(AsioSchedulerTest, FibersRunInsideIoContextRunOnlyWhenTheMainFiberRunsIt) {
  // Inside io_context::run, Asio recycles operation memory per thread and posts without a
  // lock: the reason the main fiber runs the io_context in the plugin.
  boost::asio::io_context io;
  bool inside_before = true;
  bool inside_after = true;
  runInFiberThread(io, GetParam(), [&] {
    inside_before = io.get_executor().running_in_this_thread();
    boost::asio::steady_timer timer(io, milliseconds(1));
    timer.async_wait(fiber_scheduler_asio::use_fiber);
    inside_after = io.get_executor().running_in_this_thread();
  });
  const bool expected = GetParam() == FiberThreadMode::kMainFiberRunsIo;
  EXPECT_EQ(inside_before, expected);
  EXPECT_EQ(inside_after, expected);
}

TEST_P(AsioSchedulerTest, AnOperationCompletedInsideItsInitiationReturnsAtOnce) {
  // dispatch() runs its handler at once where the io_context is running, i.e. on the waiting
  // fiber itself when the main fiber runs the io_context; the fiber must not schedule itself.
  boost::asio::io_context io;
  int dispatched = 0;
  boost::system::error_code later = boost::asio::error::fault;
  runInFiberThread(io, GetParam(), [&] {
    for (int i = 0; i < 3; ++i) {
      boost::asio::dispatch(io.get_executor(), fiber_scheduler_asio::use_fiber);
      // A running fiber in the ready queue would be resumed while it runs.
      EXPECT_FALSE(boost::fibers::context::active()->ready_is_linked());
      ++dispatched;
    }
    // The fiber still waits and resumes normally afterwards.
    boost::asio::steady_timer timer(io, milliseconds(5));
    later = timer.async_wait(fiber_scheduler_asio::use_fiber);
  });
  EXPECT_EQ(dispatched, 3);
  EXPECT_FALSE(later) << later.message();
}

INSTANTIATE_TEST_SUITE_P(BothModes, AsioSchedulerTest,
                         ::testing::Values(FiberThreadMode::kMainFiberWaits,
                                           FiberThreadMode::kMainFiberRunsIo),
                         fiberThreadModeName);

}  // namespace
}  // namespace benchd::testing
