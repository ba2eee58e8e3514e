#include "counter_delta.hpp"
#include "proc_files.hpp"

#include <benchd/sampling/proc_parsers.hpp>
#include <benchd/sampling/process_tree_sampler.hpp>

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <string>
#include <string_view>

namespace benchd::sampling {

namespace {

/// The kB value of the first line of `text` starting with `prefix` ("Pss:"), in bytes; 0 when
/// there is none.
std::uint64_t kilobytesOf(std::string_view text, std::string_view prefix) {
  std::size_t at = 0;
  while (at < text.size()) {
    const std::size_t end = std::min(text.find('\n', at), text.size());
    const std::string_view line = text.substr(at, end - at);
    if (line.starts_with(prefix)) {
      std::string_view rest = line.substr(prefix.size());
      rest.remove_prefix(std::min(rest.find_first_not_of(' '), rest.size()));
      std::uint64_t kilobytes = 0;
      std::from_chars(rest.data(), rest.data() + rest.size(), kilobytes);
      return kilobytes * 1024;
    }
    at = end + 1;
  }
  return 0;
}

}  // namespace

struct ProcessTreeSampler::Impl {
  struct Reading {
    std::chrono::steady_clock::time_point at;
    std::uint64_t cpu_ticks = 0;
    std::uint64_t memory_bytes = 0;
    std::uint64_t processes = 0;
    bool root_alive = false;
  };

  Impl(pid_t root_pid, ProcessSamplerOptions options)
      : root(root_pid),
        proc_root(std::move(options.proc_root)),
        clock(std::move(options.clock)),
        ticks_per_second(static_cast<std::uint64_t>(std::max(1L, ::sysconf(_SC_CLK_TCK)))) {}

  /// Every process of the tree, from one pass over /proc.
  Reading read() {
    Reading reading;
    reading.at = clock->steadyNow();
    DIR* folder = ::opendir(proc_root.c_str());
    if (folder == nullptr) {
      return reading;
    }
    while (const dirent* entry = ::readdir(folder)) {
      const std::string_view name = entry->d_name;
      pid_t pid = 0;
      const auto [end, error] = std::from_chars(name.data(), name.data() + name.size(), pid);
      if (error != std::errc{} || end != name.data() + name.size()) {
        continue;
      }
      const std::string folder_path = (proc_root / name).string();
      if (detail::readFileAt(AT_FDCWD, (folder_path + "/stat").c_str(), text) != 0) {
        continue;  // gone since the listing
      }
      ProcessStat stat;
      try {
        stat = parsePidStat(text, folder_path + "/stat");
      } catch (const ProcFormatError&) {
        continue;
      }
      if (stat.pid != root && stat.ppid != root) {
        continue;
      }
      // An exited child still shows its times until the root reaps it; then they are in the
      // root's cutime and cstime. Counted either way, so the total never dips.
      reading.cpu_ticks +=
          stat.utime_ticks + stat.stime_ticks + stat.cutime_ticks + stat.cstime_ticks;
      if (stat.state == 'Z' || stat.state == 'X') {
        continue;
      }
      reading.root_alive |= stat.pid == root;
      ++reading.processes;
      if (detail::readFileAt(AT_FDCWD, (folder_path + "/smaps_rollup").c_str(), text) == 0) {
        reading.memory_bytes += kilobytesOf(text, "Pss:");
      } else if (detail::readFileAt(AT_FDCWD, (folder_path + "/status").c_str(), text) == 0) {
        reading.memory_bytes += kilobytesOf(text, "VmRSS:");
      }
    }
    ::closedir(folder);
    return reading;
  }

  pid_t root;
  std::filesystem::path proc_root;
  std::shared_ptr<const Clock> clock;
  std::uint64_t ticks_per_second;
  std::string text;  // reused read buffer
  Reading previous;
};

ProcessTreeSampler::ProcessTreeSampler(pid_t root, ProcessSamplerOptions options)
    : impl_(std::make_unique<Impl>(root, std::move(options))) {
  impl_->previous = impl_->read();
}

ProcessTreeSampler::~ProcessTreeSampler() = default;
ProcessTreeSampler::ProcessTreeSampler(ProcessTreeSampler&&) noexcept = default;
ProcessTreeSampler& ProcessTreeSampler::operator=(ProcessTreeSampler&&) noexcept = default;

ProcessSample ProcessTreeSampler::sample() {
  const Impl::Reading now = impl_->read();
  if (!now.root_alive) {
    impl_->previous = now;
    return {};
  }
  ProcessSample sample;
  sample.present = true;
  // The total dips only when a process leaves the tree without being reaped by its root (a
  // child re-parented elsewhere): counterDelta() takes that as no time rather than as a wrap.
  const std::uint64_t ticks = detail::counterDelta(impl_->previous.cpu_ticks, now.cpu_ticks);
  sample.cpu_micros = ticks * 1'000'000 / impl_->ticks_per_second;
  const double seconds = std::chrono::duration<double>(now.at - impl_->previous.at).count();
  sample.cpu_percent =
      seconds > 0.0 ? 100.0 * static_cast<double>(sample.cpu_micros) / 1e6 / seconds : 0.0;
  sample.rss_bytes = now.memory_bytes;
  sample.threads = now.processes;
  impl_->previous = now;
  return sample;
}

}  // namespace benchd::sampling
