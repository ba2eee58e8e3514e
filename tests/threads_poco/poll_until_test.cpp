// threads_poco::pollUntil on a pipe the test controls: ready, timed out at its deadline, and
// not ended early by a signal.
#include "poll_until.hpp"

#include <gtest/gtest.h>

#include <pthread.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <csignal>
#include <future>
#include <thread>

namespace benchd::threads_poco {
namespace {

using std::chrono::milliseconds;
using std::chrono::steady_clock;

class Pipe {
 public:
  Pipe() { EXPECT_EQ(::pipe(fds_.data()), 0); }
  ~Pipe() {
    ::close(fds_[0]);
    ::close(fds_[1]);
  }
  Pipe(const Pipe&) = delete;
  Pipe& operator=(const Pipe&) = delete;

  [[nodiscard]] pollfd readable() const { return pollfd{fds_[0], POLLIN, 0}; }
  void write() const { ASSERT_EQ(::write(fds_[1], "x", 1), 1); }

 private:
  std::array<int, 2> fds_{};
};

TEST(PollUntil, ReportsADescriptorThatIsReady) {
  Pipe pipe;
  pipe.write();
  pollfd watched = pipe.readable();
  EXPECT_EQ(pollUntil(std::span(&watched, 1), steady_clock::now() + milliseconds(5000)),
            PollResult::kReady);
  EXPECT_NE(watched.revents & POLLIN, 0);
}

TEST(PollUntil, TimesOutAtItsDeadlineNotBefore) {
  Pipe pipe;
  pollfd watched = pipe.readable();
  const auto started = steady_clock::now();
  EXPECT_EQ(pollUntil(std::span(&watched, 1), started + milliseconds(100)), PollResult::kTimedOut);
  EXPECT_GE(steady_clock::now() - started, milliseconds(100));
}

TEST(PollUntil, APassedDeadlineReturnsAtOnce) {
  Pipe pipe;
  pollfd watched = pipe.readable();
  EXPECT_EQ(pollUntil(std::span(&watched, 1), steady_clock::now() - milliseconds(1)),
            PollResult::kTimedOut);
}

void ignoreSignal(int /*signal*/) {}

TEST(PollUntil, ASignalDoesNotEndTheWait) {
  // A handler without SA_RESTART: poll() fails with EINTR when the signal arrives.
  struct sigaction action {};
  action.sa_handler = ignoreSignal;
  struct sigaction previous {};
  ASSERT_EQ(::sigaction(SIGUSR1, &action, &previous), 0);
  Pipe pipe;
  std::promise<pthread_t> waiter_thread;
  auto waited = std::async(std::launch::async, [&] {
    waiter_thread.set_value(::pthread_self());
    pollfd watched = pipe.readable();
    const auto started = steady_clock::now();
    const PollResult result = pollUntil(std::span(&watched, 1), started + milliseconds(300));
    return std::make_pair(result, steady_clock::now() - started);
  });
  const pthread_t waiter = waiter_thread.get_future().get();
  std::this_thread::sleep_for(milliseconds(50));
  ASSERT_EQ(::pthread_kill(waiter, SIGUSR1), 0);
  const auto [result, elapsed] = waited.get();
  EXPECT_EQ(result, PollResult::kTimedOut);
  EXPECT_GE(elapsed, milliseconds(300));
  ::sigaction(SIGUSR1, &previous, nullptr);
}

}  // namespace
}  // namespace benchd::threads_poco
