#include "counter_delta.hpp"
#include "proc_files.hpp"

#include <benchd/sampling/proc_parsers.hpp>
#include <benchd/sampling/process_sampler.hpp>

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <chrono>
#include <cstddef>
#include <ctime>
#include <optional>
#include <string>
#include <string_view>
#include <sys/stat.h>
#include <tuple>
#include <utility>
#include <vector>

namespace benchd::sampling {

namespace {

using detail::counterDelta;
using detail::UniqueFd;

/// One thread's cumulative context switches at one read.
struct ThreadSwitches {
  pid_t tid = 0;
  std::uint64_t voluntary = 0;
  std::uint64_t involuntary = 0;
};

/// The process-wide values of one read (the per-thread ones go to Impl::current_threads).
struct Reading {
  std::chrono::steady_clock::time_point at;
  std::uint64_t cpu_nanos = 0;  ///< user + system, all threads, the exited ones too
  std::uint64_t rss_bytes = 0;
  std::uint64_t threads = 0;
  std::uint64_t open_fds = 0;
};

/// The CPU-time clock of process `pid`, or none where the kernel gives none.
std::optional<clockid_t> processCpuClock(pid_t pid) {
  clockid_t clock{};
  return ::clock_getcpuclockid(pid, &clock) == 0 ? std::optional<clockid_t>(clock) : std::nullopt;
}

std::optional<pid_t> parseTid(std::string_view name) {
  pid_t tid = 0;
  const char* const end = name.data() + name.size();
  const auto [ptr, ec] = std::from_chars(name.data(), end, tid);
  if (name.empty() || ec != std::errc{} || ptr != end) {
    return std::nullopt;
  }
  return tid;
}

}  // namespace

struct ProcessSampler::Impl {
  Impl(pid_t process_id, ProcessSamplerOptions options)
      : pid(process_id),
        clock(std::move(options.clock)),
        context_switches(options.context_switches),
        ticks_per_second(static_cast<std::uint64_t>(std::max(1L, ::sysconf(_SC_CLK_TCK)))),
        cpu_clock(options.proc_root == "/proc" ? processCpuClock(process_id) : std::nullopt),
        proc_dir((options.proc_root / std::to_string(process_id)).string()),
        stat_source(proc_dir + "/stat"),
        status_source(proc_dir + "/status"),
        thread_status_source(proc_dir + "/task/<tid>/status"),
        pid_dir(::open(proc_dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC)) {}

  /// Fills `reading` and current_threads; false when the process is gone or unreadable.
  bool read(Reading& reading) {
    reading.at = clock->steadyNow();
    if (detail::readFileAt(pid_dir.get(), "stat", buffer) != 0) {
      return false;
    }
    const ProcessStat stat = parsePidStat(buffer, stat_source);
    if (stat.state == 'Z' || stat.state == 'X') {
      return false;  // exited (not yet reaped), or its main thread has exited
    }
    if (cpu_clock) {
      timespec used{};
      if (::clock_gettime(*cpu_clock, &used) != 0) {
        return false;  // gone since its stat was read
      }
      reading.cpu_nanos = static_cast<std::uint64_t>(used.tv_sec) * 1'000'000'000U +
                          static_cast<std::uint64_t>(used.tv_nsec);
    } else {
      reading.cpu_nanos = (stat.utime_ticks + stat.stime_ticks) * 1'000'000'000U / ticks_per_second;
    }

    if (detail::readFileAt(pid_dir.get(), "status", buffer) != 0) {
      return false;
    }
    const ProcessStatus status = parsePidStatus(buffer, status_source);
    reading.rss_bytes = status.rss_bytes;
    reading.threads = status.threads;

    const std::optional<std::uint64_t> fds = countOpenFds();
    if (!fds) {
      return false;
    }
    reading.open_fds = *fds;
    return !context_switches || readThreads();
  }

  /// Since Linux 6.2 the size of /proc/<pid>/fd is the number of open descriptors, one stat()
  /// instead of listing 20,000 entries. Older kernels report 0, and so would a process with no
  /// descriptors; listing the directory is right (and cheap) in both cases.
  std::optional<std::uint64_t> countOpenFds() {
    struct stat fd_dir_stat {};
    if (::fstatat(pid_dir.get(), "fd", &fd_dir_stat, 0) != 0) {
      return std::nullopt;
    }
    if (fd_dir_stat.st_size > 0) {
      return static_cast<std::uint64_t>(fd_dir_stat.st_size);
    }
    const UniqueFd fd_dir(::openat(pid_dir.get(), "fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (!fd_dir.valid()) {
      return std::nullopt;
    }
    std::uint64_t count = 0;
    const bool listed = forEachEntry(fd_dir.get(), [&count](std::string_view name) {
      if (parseTid(name)) {
        ++count;
      }
    });
    return listed ? std::optional<std::uint64_t>(count) : std::nullopt;
  }

  /// Reads every live thread's context switches into current_threads, sorted by tid.
  bool readThreads() {
    const UniqueFd task_dir(::openat(pid_dir.get(), "task", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (!task_dir.valid()) {
      return false;
    }
    current_threads.clear();
    const bool listed = forEachEntry(task_dir.get(), [this, &task_dir](std::string_view name) {
      const std::optional<pid_t> tid = parseTid(name);
      if (!tid) {
        return;  // "." and ".."
      }
      // "<tid>/status" relative to the task directory, built without allocating.
      std::array<char, 32> path{};
      const std::string_view suffix = "/status";
      char* end = std::copy(name.begin(), name.end(), path.data());
      end = std::copy(suffix.begin(), suffix.end(), end);
      *end = '\0';
      if (detail::readFileAt(task_dir.get(), path.data(), buffer) != 0) {
        return;  // the thread exited since the listing: it simply is not alive any more
      }
      const ProcessStatus status = parsePidStatus(buffer, thread_status_source);
      current_threads.push_back(ThreadSwitches{*tid, status.voluntary_context_switches,
                                               status.involuntary_context_switches});
    });
    std::sort(current_threads.begin(), current_threads.end(),
              [](const ThreadSwitches& a, const ThreadSwitches& b) { return a.tid < b.tid; });
    return listed;
  }

  /// Calls on_entry(name) for each entry of the open directory `dir_fd` (with "." and "..").
  template <typename OnEntry>
  bool forEachEntry(int dir_fd, OnEntry&& on_entry) {
    for (;;) {
      const ssize_t bytes = ::getdents64(dir_fd, dirents.data(), dirents.size());
      if (bytes < 0) {
        return false;
      }
      if (bytes == 0) {
        return true;
      }
      for (std::size_t offset = 0; offset < static_cast<std::size_t>(bytes);) {
        const auto* entry = reinterpret_cast<const dirent64*>(dirents.data() + offset);
        on_entry(std::string_view(entry->d_name));
        offset += entry->d_reclen;
      }
    }
  }

  /// Context switches over the interval: each live thread's rise since the previous read, or
  /// its whole count when it was born since (not in previous_threads).
  [[nodiscard]] std::pair<std::uint64_t, std::uint64_t> switchesSincePrevious() const {
    std::uint64_t voluntary = 0;
    std::uint64_t involuntary = 0;
    auto before = previous_threads.begin();
    for (const ThreadSwitches& now : current_threads) {
      while (before != previous_threads.end() && before->tid < now.tid) {
        ++before;
      }
      if (before != previous_threads.end() && before->tid == now.tid) {
        voluntary += counterDelta(before->voluntary, now.voluntary);
        involuntary += counterDelta(before->involuntary, now.involuntary);
      } else {
        voluntary += now.voluntary;
        involuntary += now.involuntary;
      }
    }
    return {voluntary, involuntary};
  }

  void markGone() {
    pid_dir.reset();
    previous_threads = {};
    current_threads = {};
  }

  pid_t pid;
  std::shared_ptr<const Clock> clock;
  bool context_switches;
  std::uint64_t ticks_per_second;
  /// The process's CPU-time clock (clock_getcpuclockid): nanoseconds, where /proc/<pid>/stat
  /// counts clock ticks (10 ms); none for a /proc other than the kernel's (the tests' trees).
  std::optional<clockid_t> cpu_clock;
  std::string proc_dir;
  // File names for error messages, built once so that a sample does not allocate.
  std::string stat_source;
  std::string status_source;
  std::string thread_status_source;
  UniqueFd pid_dir;  // invalid once the process is known to be gone
  std::string buffer;
  alignas(dirent64) std::array<char, std::size_t{64} * 1024> dirents{};
  std::vector<ThreadSwitches> previous_threads;
  std::vector<ThreadSwitches> current_threads;
  Reading previous;
};

ProcessSampler::ProcessSampler(pid_t pid, ProcessSamplerOptions options)
    : impl_(std::make_unique<Impl>(pid, std::move(options))) {
  if (impl_->pid_dir.valid()) {
    if (impl_->read(impl_->previous)) {
      std::swap(impl_->previous_threads, impl_->current_threads);
    } else {
      impl_->markGone();
    }
  }
}

ProcessSampler::~ProcessSampler() = default;
ProcessSampler::ProcessSampler(ProcessSampler&&) noexcept = default;
ProcessSampler& ProcessSampler::operator=(ProcessSampler&&) noexcept = default;

pid_t ProcessSampler::pid() const noexcept {
  return impl_->pid;
}

ProcessSample ProcessSampler::sample() {
  Impl& impl = *impl_;
  if (!impl.pid_dir.valid()) {
    return {};
  }
  Reading now;
  if (!impl.read(now)) {
    impl.markGone();
    return {};
  }
  ProcessSample sample;
  sample.present = true;
  sample.cpu_micros = counterDelta(impl.previous.cpu_nanos, now.cpu_nanos) / 1000U;
  const double seconds = std::chrono::duration<double>(now.at - impl.previous.at).count();
  sample.cpu_percent =
      seconds > 0.0 ? 100.0 * static_cast<double>(sample.cpu_micros) / 1e6 / seconds : 0.0;
  sample.rss_bytes = now.rss_bytes;
  sample.threads = now.threads;
  sample.open_fds = now.open_fds;
  std::tie(sample.voluntary_context_switches, sample.involuntary_context_switches) =
      impl.switchesSincePrevious();

  impl.previous = now;
  std::swap(impl.previous_threads, impl.current_threads);
  return sample;
}

}  // namespace benchd::sampling
