#include "child_helper.hpp"

#include <benchd/sampling/proc_parsers.hpp>
#include <benchd/sampling/process_sampler.hpp>

#include <gtest/gtest.h>

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <latch>
#include <mutex>
#include <sstream>
#include <string>
#include <sys/syscall.h>
#include <thread>
#include <vector>

namespace benchd::sampling {
namespace {

using namespace std::chrono_literals;

void expectAbsent(const ProcessSample& sample) {
  EXPECT_FALSE(sample.present);
  EXPECT_EQ(sample.cpu_percent, 0.0);
  EXPECT_EQ(sample.cpu_micros, 0U);
  EXPECT_EQ(sample.rss_bytes, 0U);
  EXPECT_EQ(sample.threads, 0U);
  EXPECT_EQ(sample.voluntary_context_switches, 0U);
  EXPECT_EQ(sample.involuntary_context_switches, 0U);
  EXPECT_EQ(sample.open_fds, 0U);
}

std::chrono::nanoseconds processCpuTime() {
  timespec now{};
  ::clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
  return std::chrono::seconds(now.tv_sec) + std::chrono::nanoseconds(now.tv_nsec);
}

ProcessStatus readStatus(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return parsePidStatus(text.str(), path);
}

/// Threads that block until released, all started when the constructor returns.
class BlockedThreads {
 public:
  explicit BlockedThreads(int count) : started_(count) {
    for (int i = 0; i < count; ++i) {
      threads_.emplace_back([this] {
        started_.count_down();
        std::unique_lock lock(mutex_);
        released_cv_.wait(lock, [this] { return released_; });
      });
    }
    started_.wait();
  }
  ~BlockedThreads() {
    {
      const std::lock_guard lock(mutex_);
      released_ = true;
    }
    released_cv_.notify_all();
    for (std::thread& thread : threads_) {
      thread.join();
    }
  }

 private:
  std::latch started_;
  std::mutex mutex_;
  std::condition_variable released_cv_;
  bool released_ = false;
  std::vector<std::thread> threads_;
};

TEST(ProcessSampler, ThisProcessIsPresentWithPlausibleLevels) {
  ProcessSampler sampler(::getpid());
  const ProcessSample sample = sampler.sample();
  EXPECT_TRUE(sample.present);
  EXPECT_GT(sample.rss_bytes, 1024U * 1024U);  // a gtest binary maps more than 1 MiB
  EXPECT_GE(sample.threads, 1U);
  EXPECT_GE(sample.open_fds, 3U);  // stdin, stdout, stderr at least
}

TEST(ProcessSampler, ThreadCountFollowsStartedThreadsExactly) {
  // A first thread, so the runtime's own threads (kRuntimeThreads) are running before the count.
  std::thread([] {}).join();
  ProcessSampler sampler(::getpid());
  const std::uint64_t before = sampler.sample().threads;
  {
    const BlockedThreads threads(5);
    EXPECT_EQ(sampler.sample().threads, before + 5);
  }
  EXPECT_EQ(sampler.sample().threads, before);
}

TEST(ProcessSampler, OpenFdCountFollowsOpenedFilesExactly) {
  ProcessSampler sampler(::getpid());
  const std::uint64_t before = sampler.sample().open_fds;
  std::vector<int> fds;
  for (int i = 0; i < 7; ++i) {
    fds.push_back(::open("/dev/null", O_RDONLY | O_CLOEXEC));
    ASSERT_GE(fds.back(), 0);
  }
  EXPECT_EQ(sampler.sample().open_fds, before + 7);
  for (const int fd : fds) {
    ::close(fd);
  }
  EXPECT_EQ(sampler.sample().open_fds, before);
}

TEST(ProcessSampler, OpenFdCountEqualsTheFdDirectoryListing) {
  // On Linux >= 6.2 the count comes from the fd directory's size; it must agree with a listing.
  ProcessSampler sampler(::getpid());
  std::uint64_t listed = 0;
  for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator("/proc/self/fd")) {
    ++listed;
  }
  EXPECT_EQ(sampler.sample().open_fds, listed - 1);  // less the listing's own descriptor
}

/// `spent` of this process's CPU time in a busy loop; returns what it took.
std::chrono::nanoseconds spinFor(std::chrono::nanoseconds spent) {
  const std::chrono::nanoseconds start = processCpuTime();
  volatile std::uint64_t sink = 0;
  while (processCpuTime() - start < spent) {
    for (int i = 0; i < 1000; ++i) {
      sink = sink + static_cast<std::uint64_t>(i);
    }
  }
  return processCpuTime() - start;
}

TEST(ProcessSampler, CpuTimeRisesAfterABusyLoop) {
  const std::chrono::nanoseconds before_construction = processCpuTime();
  ProcessSampler sampler(::getpid());
  const std::chrono::nanoseconds busy = spinFor(200ms);
  const ProcessSample sample = sampler.sample();
  const std::chrono::nanoseconds upper = processCpuTime() - before_construction;

  const auto micros = std::chrono::microseconds(sample.cpu_micros);
  EXPECT_GE(micros, std::chrono::duration_cast<std::chrono::microseconds>(busy) - 1us);
  EXPECT_LE(micros, std::chrono::duration_cast<std::chrono::microseconds>(upper));
  EXPECT_GT(sample.cpu_percent, 0.0);
  EXPECT_LE(sample.cpu_percent, 100.0 * std::max(1U, std::thread::hardware_concurrency()));
}

/// A worker's CPU per request is milliseconds over a run's second: the sampler must see a few
/// milliseconds as what they are, where /proc/<pid>/stat would say 0 or 10 ms (a clock tick).
TEST(ProcessSampler, CpuTimeIsMeasuredToTheMicrosecondNotInClockTicks) {
  for (const std::chrono::nanoseconds spent : {3ms, 7ms, 13ms}) {
    const std::chrono::nanoseconds before_construction = processCpuTime();
    ProcessSampler sampler(::getpid());
    const std::chrono::nanoseconds busy = spinFor(spent);
    const ProcessSample sample = sampler.sample();
    const std::chrono::nanoseconds upper = processCpuTime() - before_construction;
    const auto micros = std::chrono::microseconds(sample.cpu_micros);
    EXPECT_GE(micros, std::chrono::duration_cast<std::chrono::microseconds>(busy) - 1us)
        << "spinning " << spent.count() << " ns";
    EXPECT_LE(micros, std::chrono::duration_cast<std::chrono::microseconds>(upper))
        << "spinning " << spent.count() << " ns";
  }
}

/// A thread that sleeps `sleeps` times (each a voluntary switch) and then stays alive, blocked,
/// until destruction; its tid for reading its own status.
class SleepingThread {
 public:
  explicit SleepingThread(int sleeps) {
    thread_ = std::thread([this, sleeps] {
      for (int i = 0; i < sleeps; ++i) {
        std::this_thread::sleep_for(50us);
      }
      std::unique_lock lock(mutex_);
      tid_ = static_cast<pid_t>(::syscall(SYS_gettid));
      done_ = true;
      cv_.notify_all();
      cv_.wait(lock, [this] { return release_; });
    });
    std::unique_lock lock(mutex_);
    cv_.wait(lock, [this] { return done_; });
  }
  ~SleepingThread() {
    {
      const std::lock_guard lock(mutex_);
      release_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }
  [[nodiscard]] pid_t tid() const { return tid_; }

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
  bool done_ = false;
  bool release_ = false;
  pid_t tid_ = 0;
  std::thread thread_;
};

TEST(ProcessSampler, ContextSwitchesOfEveryThreadAreSummed) {
  ProcessSampler sampler(::getpid());
  const std::string own_status = "/proc/self/status";
  const ProcessStatus main_before = readStatus(own_status);

  const SleepingThread sleeper(200);
  const ProcessSample sample = sampler.sample();
  const ProcessStatus main_after = readStatus(own_status);
  const ProcessStatus sleeper_status =
      readStatus("/proc/self/task/" + std::to_string(sleeper.tid()) + "/status");

  EXPECT_GE(sleeper_status.voluntary_context_switches, 200U);
  EXPECT_GE(sample.voluntary_context_switches, 200U);
  // The kernel fact the sampler works around: /proc/<pid>/status counts the main thread only.
  // The main thread blocked just a few times meanwhile, nowhere near the sleeper's 200.
  EXPECT_LT(main_after.voluntary_context_switches - main_before.voluntary_context_switches, 100U);
}

TEST(ProcessSampler, ContextSwitchesCanBeLeftOut) {
  ProcessSamplerOptions options;
  options.context_switches = false;
  ProcessSampler sampler(::getpid(), options);
  const SleepingThread sleeper(20);
  const ProcessSample sample = sampler.sample();
  EXPECT_TRUE(sample.present);
  EXPECT_EQ(sample.voluntary_context_switches, 0U);
  EXPECT_EQ(sample.involuntary_context_switches, 0U);
  EXPECT_GE(sample.threads, 2U);  // everything else is still sampled
}

TEST(ProcessSampler, HelperProcessHasExactlyItsThreadsAndFds) {
  const testing::LoadHelper helper(50, 300);
  ProcessSampler sampler(helper.pid());
  const ProcessSample sample = sampler.sample();
  EXPECT_TRUE(sample.present);
  EXPECT_EQ(sample.threads, 51U + testing::kRuntimeThreads);
  EXPECT_EQ(sample.open_fds, helper.openFds());
  EXPECT_GE(sample.open_fds, 300U);
}

TEST(ProcessSampler, ExitedChildIsAbsentAsZombieAndAfterReaping) {
  testing::LoadHelper helper(3, 0);
  ProcessSampler sampler(helper.pid());
  EXPECT_TRUE(sampler.sample().present);

  helper.exitWithoutReaping();
  expectAbsent(sampler.sample());  // zombie

  helper.reap();
  expectAbsent(sampler.sample());
  expectAbsent(ProcessSampler(helper.pid()).sample());  // absent at construction
}

TEST(ProcessSampler, NonexistentPidIsAbsent) {
  // Above the largest pid_max Linux allows (4194304), so no process can have it.
  ProcessSampler sampler(4'194'305 + 1000);
  expectAbsent(sampler.sample());
  expectAbsent(sampler.sample());
}

}  // namespace
}  // namespace benchd::sampling
