#include "thread_cpu_clock.hpp"

#include <pthread.h>
#include <sched.h>

#include <ctime>

namespace benchd::loadgen {

ThreadCpuClock::ThreadCpuClock(std::thread& thread)
    : valid_(::pthread_getcpuclockid(thread.native_handle(), &clock_id_) == 0) {}

std::chrono::nanoseconds ThreadCpuClock::used() const noexcept {
  timespec time{};
  if (!valid_ || ::clock_gettime(clock_id_, &time) != 0) {
    return std::chrono::nanoseconds(0);
  }
  return std::chrono::seconds(time.tv_sec) + std::chrono::nanoseconds(time.tv_nsec);
}

unsigned cpusAvailable() noexcept {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (::sched_getaffinity(0, sizeof(set), &set) != 0) {
    return 1;
  }
  const int count = CPU_COUNT(&set);
  return count > 0 ? static_cast<unsigned>(count) : 1;
}

}  // namespace benchd::loadgen
