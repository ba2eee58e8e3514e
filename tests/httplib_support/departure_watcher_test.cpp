// httplib_support::DepartureWatcher on real socket pairs: one end is "the client's connection"
// a pool thread serves, the other the client, which leaves by closing or shutting down.
#include <benchd/httplib_support/departure_watcher.hpp>

#include <gtest/gtest.h>

#include <unistd.h>

#include <array>
#include <atomic>
#include <chrono>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <thread>

namespace benchd::httplib_support {
namespace {

using namespace std::chrono_literals;

/// A connected pair: `server` is watched, `client` leaves.
struct SocketPair {
  SocketPair() {
    std::array<int, 2> fds{};
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds.data()) != 0)
      throw std::runtime_error("socketpair failed");
    server = fds[0];
    client = fds[1];
  }
  ~SocketPair() {
    ::close(server);
    if (client >= 0)
      ::close(client);
  }
  SocketPair(const SocketPair&) = delete;
  SocketPair& operator=(const SocketPair&) = delete;
  void clientLeaves() {
    ::close(client);
    client = -1;
  }
  int server = -1;
  int client = -1;
};

/// Waits (generously) until `count` reaches at least `at_least`.
bool waitFor(const std::atomic<int>& count, int at_least) {
  const auto give_up = std::chrono::steady_clock::now() + 10s;
  while (count.load() < at_least && std::chrono::steady_clock::now() < give_up)
    std::this_thread::sleep_for(2ms);
  return count.load() >= at_least;
}

TEST(DepartureWatcher, AClientThatLeavesInterruptsItsCallAndNoOther) {
  DepartureWatcher watcher;
  SocketPair leaving;
  SocketPair staying;
  std::atomic<int> leaving_interrupts{0};
  std::atomic<int> staying_interrupts{0};
  const auto leaving_watch =
      watcher.watch(leaving.server, [&leaving_interrupts] { leaving_interrupts.fetch_add(1); });
  const auto staying_watch =
      watcher.watch(staying.server, [&staying_interrupts] { staying_interrupts.fetch_add(1); });
  EXPECT_FALSE(leaving_watch.departed());
  leaving.clientLeaves();
  ASSERT_TRUE(waitFor(leaving_interrupts, 1));
  EXPECT_TRUE(leaving_watch.departed());
  EXPECT_FALSE(staying_watch.departed());
  EXPECT_EQ(staying_interrupts.load(), 0);
}

TEST(DepartureWatcher, PipelinedBytesAreNoDeparture) {
  DepartureWatcher watcher;
  SocketPair pair;
  std::atomic<int> interrupts{0};
  const auto watch = watcher.watch(pair.server, [&interrupts] { interrupts.fetch_add(1); });
  ASSERT_EQ(::write(pair.client, "GET / HTTP/1.1\r\n", 16), 16);
  std::this_thread::sleep_for(100ms);
  EXPECT_FALSE(watch.departed());
  EXPECT_EQ(interrupts.load(), 0);
  ASSERT_EQ(::shutdown(pair.client, SHUT_WR), 0);  // the client is done sending: it left
  ASSERT_TRUE(waitFor(interrupts, 1));
  EXPECT_TRUE(watch.departed());
}

TEST(DepartureWatcher, ADepartedCallIsInterruptedAgainUntilItsWatchEnds) {
  // A call that had not blocked yet when the client left (httplib still connecting) is
  // interrupted once it has; after the watch ends, never again.
  DepartureWatcher watcher;
  SocketPair pair;
  std::atomic<int> interrupts{0};
  {
    const auto watch = watcher.watch(pair.server, [&interrupts] { interrupts.fetch_add(1); });
    pair.clientLeaves();
    ASSERT_TRUE(waitFor(interrupts, 3));
  }
  const int at_end = interrupts.load();
  std::this_thread::sleep_for(100ms);
  EXPECT_EQ(interrupts.load(), at_end);
}

TEST(DepartureWatcher, TheStopDescriptorDepartsEveryCallInFlightAndEveryLaterOne) {
  const int stop_fd = ::eventfd(0, EFD_CLOEXEC);
  ASSERT_GE(stop_fd, 0);
  {
    DepartureWatcher watcher(stop_fd);
    SocketPair first;
    SocketPair second;
    std::atomic<int> interrupts{0};
    const auto first_watch =
        watcher.watch(first.server, [&interrupts] { interrupts.fetch_add(1); });
    const auto second_watch =
        watcher.watch(second.server, [&interrupts] { interrupts.fetch_add(1); });
    const std::uint64_t one = 1;
    ASSERT_EQ(::write(stop_fd, &one, sizeof one), static_cast<ssize_t>(sizeof one));
    ASSERT_TRUE(waitFor(interrupts, 2));
    EXPECT_TRUE(first_watch.departed());
    EXPECT_TRUE(second_watch.departed());
    SocketPair later;
    const auto later_watch = watcher.watch(later.server, [] {});
    EXPECT_TRUE(later_watch.departed()) << "a call after the stop must not start";
  }
  ::close(stop_fd);
}

TEST(DepartureWatcher, AnUnwatchableDescriptorCountsAsDeparted) {
  DepartureWatcher watcher;
  const auto watch = watcher.watch(-1, [] {});
  EXPECT_TRUE(watch.departed());
}

}  // namespace
}  // namespace benchd::httplib_support
