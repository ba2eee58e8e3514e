// sdk::pollUntil on a pipe the test controls: ready, timed out at its deadline, and
// not ended early by a signal.
#include <benchd/sdk/poll_until.hpp>

#include <gtest/gtest.h>

#include <unistd.h>

#include <array>
#include <atomic>
#include <chrono>
#include <csignal>
#include <ctime>

namespace benchd::sdk {
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

std::atomic<int> g_signals{0};

void countSignal(int /*signal*/) {
  g_signals.fetch_add(1);
}

TEST(PollUntil, ASignalDoesNotEndTheWait) {
  // A handler without SA_RESTART: poll() fails with EINTR when the signal arrives.
  struct sigaction action {};
  action.sa_handler = countSignal;
  struct sigaction previous {};
  ASSERT_EQ(::sigaction(SIGUSR1, &action, &previous), 0);
  g_signals.store(0);
  // A timer aimed at this thread delivers the signal 50 ms into the wait, while poll() blocks.
  sigevent event{};
  event.sigev_notify = SIGEV_THREAD_ID;
  event.sigev_signo = SIGUSR1;
  event._sigev_un._tid = static_cast<int>(::gettid());  // no sigev_notify_thread_id in glibc 2.36
  timer_t timer{};
  ASSERT_EQ(::timer_create(CLOCK_MONOTONIC, &event, &timer), 0);
  itimerspec in_50_ms{};
  in_50_ms.it_value.tv_nsec = 50'000'000;
  Pipe pipe;
  pollfd watched = pipe.readable();
  const auto started = steady_clock::now();
  ASSERT_EQ(::timer_settime(timer, 0, &in_50_ms, nullptr), 0);
  const PollResult result = pollUntil(std::span(&watched, 1), started + milliseconds(300));
  const auto elapsed = steady_clock::now() - started;
  ::timer_delete(timer);
  ::sigaction(SIGUSR1, &previous, nullptr);
  EXPECT_EQ(g_signals.load(), 1);  // the wait was interrupted once
  EXPECT_EQ(result, PollResult::kTimedOut);
  EXPECT_GE(elapsed, milliseconds(300));
}

}  // namespace
}  // namespace benchd::sdk
