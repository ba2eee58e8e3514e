// ConnectionThreadPool: one thread per connection, grown on demand up to its maximum, then a
// bounded queue, then refusal; idle threads beyond the starting ones end; the stop closes what
// is queued and joins every thread.
#include "connection_thread_pool.hpp"

#include <boost/asio/io_context.hpp>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>

namespace benchd::threads_asio {
namespace {

using boost::asio::ip::tcp;
using std::chrono::milliseconds;

/// Serves connections by blocking until release(), counting what it served.
class BlockingServe {
 public:
  void operator()(tcp::socket /*socket*/) {
    std::unique_lock lock(mutex_);
    released_.wait(lock, [this] { return open_; });
    ++served_;
  }
  void release() {
    const std::lock_guard lock(mutex_);
    open_ = true;
    released_.notify_all();
  }
  int served() {
    const std::lock_guard lock(mutex_);
    return served_;
  }

 private:
  std::mutex mutex_;
  std::condition_variable released_;
  bool open_ = false;
  int served_ = 0;
};

sdk::ThreadPoolSettings poolOf(int min_threads, int max_threads, int max_queued) {
  sdk::ThreadPoolSettings settings;
  settings.min_threads = min_threads;
  settings.max_threads = max_threads;
  settings.max_queued = max_queued;
  return settings;
}

/// Waits up to 10 s for `condition`, polling.
bool eventually(const std::function<bool()>& condition) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!condition()) {
    if (std::chrono::steady_clock::now() > deadline)
      return false;
    std::this_thread::sleep_for(milliseconds(2));
  }
  return true;
}

class ConnectionThreadPoolTest : public ::testing::Test {
 protected:
  tcp::socket openSocket() {
    tcp::socket socket(io_);
    socket.open(tcp::v4());
    return socket;
  }

  boost::asio::io_context io_;
  BlockingServe serve_;
};

TEST_F(ConnectionThreadPoolTest, GrowsOneThreadPerConnectionThenQueuesThenRefuses) {
  ConnectionThreadPool pool(poolOf(2, 4, 1), milliseconds(60'000),
                            [this](tcp::socket socket) { serve_(std::move(socket)); });
  pool.start();
  EXPECT_EQ(pool.counters().allocated, 2);
  for (int i = 0; i < 4; ++i)
    EXPECT_TRUE(pool.dispatch(openSocket()));
  ASSERT_TRUE(eventually([&] { return pool.counters().busy == 4; }));
  EXPECT_EQ(pool.counters().allocated, 4);
  EXPECT_TRUE(pool.dispatch(openSocket()));  // queued: the pool is at its maximum
  EXPECT_EQ(pool.counters().queued, 1);
  EXPECT_FALSE(pool.dispatch(openSocket()));  // the queue is full too
  EXPECT_EQ(pool.counters().refused, 1);

  serve_.release();
  ASSERT_TRUE(eventually([&] { return serve_.served() == 5; }));
  ASSERT_TRUE(eventually([&] { return pool.counters().busy == 0; }));
  EXPECT_EQ(pool.counters().queued, 0);
  EXPECT_EQ(pool.counters().allocated, 4);  // idle threads stay until their idle timeout
}

TEST_F(ConnectionThreadPoolTest, IdleThreadsBeyondTheStartingOnesEnd) {
  ConnectionThreadPool pool(poolOf(1, 3, 10), milliseconds(50),
                            [this](tcp::socket socket) { serve_(std::move(socket)); });
  pool.start();
  for (int i = 0; i < 3; ++i)
    ASSERT_TRUE(pool.dispatch(openSocket()));
  ASSERT_TRUE(eventually([&] { return pool.counters().busy == 3; }));
  serve_.release();
  EXPECT_TRUE(eventually([&] { return pool.counters().allocated == 1; }))
      << pool.counters().allocated << " threads still allocated";
  // The pool grows again after shrinking (and joins the ended threads on the way).
  for (int i = 0; i < 3; ++i)
    ASSERT_TRUE(pool.dispatch(openSocket()));
  EXPECT_TRUE(eventually([&] { return serve_.served() == 6; }));
}

TEST_F(ConnectionThreadPoolTest, StopClosesTheQueuedConnectionsAndJoinsEveryThread) {
  std::atomic<int> served{0};
  std::atomic<bool> stop{false};
  ConnectionThreadPool pool(poolOf(1, 1, 5), milliseconds(60'000), [&](tcp::socket /*socket*/) {
    while (!stop.load())
      std::this_thread::sleep_for(milliseconds(1));
    served.fetch_add(1);
  });
  pool.start();
  for (int i = 0; i < 3; ++i)
    ASSERT_TRUE(pool.dispatch(openSocket()));
  ASSERT_TRUE(eventually([&] { return pool.counters().busy == 1; }));
  EXPECT_EQ(pool.counters().queued, 2);
  stop.store(true);
  pool.stopAndJoin();
  // The busy connection finished; the two queued ones may have been taken up before the stop
  // (the serve returned at once), or closed unserved, never both.
  EXPECT_GE(served.load(), 1);
  EXPECT_LE(served.load(), 3);
  EXPECT_EQ(pool.counters().allocated, 0);
  EXPECT_EQ(pool.counters().busy, 0);
  EXPECT_FALSE(pool.dispatch(openSocket()));
}

/// HTTP/2 streams: a task gets an idle thread or a new one up to max_threads, never a queue
/// place (tryRun() says false, and its caller runs it), and a task taken before the stop runs.
TEST_F(ConnectionThreadPoolTest, TasksTakeThreadsUpToTheMaximumAndAreNeverQueued) {
  ConnectionThreadPool pool(poolOf(1, 3, 10), milliseconds(60'000),
                            [this](tcp::socket socket) { serve_(std::move(socket)); });
  pool.start();
  ASSERT_TRUE(pool.dispatch(openSocket()));  // a connection holds one thread
  ASSERT_TRUE(eventually([&] { return pool.counters().busy == 1; }));

  std::mutex mutex;
  std::condition_variable released;
  bool open = false;
  std::atomic<int> ran{0};
  const auto task = [&] {
    std::unique_lock lock(mutex);
    released.wait(lock, [&] { return open; });
    ran.fetch_add(1);
  };
  EXPECT_TRUE(pool.tryRun(task));
  EXPECT_TRUE(pool.tryRun(task));
  ASSERT_TRUE(eventually([&] { return pool.counters().busy == 3; }));
  EXPECT_FALSE(pool.tryRun(task)) << "a task beyond max_threads must not wait in the queue";
  EXPECT_EQ(pool.counters().queued, 0);

  {
    const std::lock_guard lock(mutex);
    open = true;
  }
  released.notify_all();
  ASSERT_TRUE(eventually([&] { return ran.load() == 2; }));
  ASSERT_TRUE(eventually([&] { return pool.counters().busy == 1; }));
  EXPECT_TRUE(pool.tryRun([&] { ran.fetch_add(1); }));  // a freed thread takes the next
  ASSERT_TRUE(eventually([&] { return ran.load() == 3; }));

  // Taken, then the stop: it still runs before the threads are joined.
  std::atomic<bool> last_ran{false};
  ASSERT_TRUE(pool.tryRun([&] {
    std::this_thread::sleep_for(milliseconds(50));
    last_ran.store(true);
  }));
  serve_.release();
  pool.stopAndJoin();
  EXPECT_TRUE(last_ran.load());
  EXPECT_FALSE(pool.tryRun([] {})) << "a stopped pool takes no task";
}

}  // namespace
}  // namespace benchd::threads_asio
