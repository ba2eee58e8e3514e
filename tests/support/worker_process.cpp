#include "worker_process.hpp"

#include "build_paths.hpp"
#include "child_process.hpp"

#include <signal.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <sys/wait.h>

namespace benchd::testing {

std::int64_t WorkerStats::counter(const std::string& name) const {
  const auto it = counters.find(name);
  if (it == counters.end())
    throw std::out_of_range("no counter named " + name);
  return it->second;
}

std::string pluginPath(const std::string& name) {
  std::string path = pluginDir();
  path += '/';
  path += name;
  path += ".so";
  return path;
}

WorkerProcess::WorkerProcess(const std::vector<std::string>& args) {
  const SpawnedChild child = spawnWithPipes(workerPath(), args);
  pid_ = child.pid;
  stdout_reader_ = std::thread([this, fd = child.stdout_fd] { readStdout(fd); });
  stderr_reader_ = std::thread([this, fd = child.stderr_fd] { readStderr(fd); });
}

WorkerProcess::~WorkerProcess() {
  if (!exit_code_) {
    ::kill(pid_, SIGKILL);
    waitExit(std::chrono::seconds(10));
  }
  if (stdout_reader_.joinable())
    stdout_reader_.join();
  if (stderr_reader_.joinable())
    stderr_reader_.join();
}

std::unique_ptr<WorkerProcess> WorkerProcess::serve(const std::string& plugin,
                                                    std::vector<std::string> extra_args) {
  std::vector<std::string> args;
  args.reserve(6 + extra_args.size());
  args.emplace_back("--plugin");
  args.push_back(pluginPath(plugin));
  for (const char* fixed : {"--port", "0", "--stats-interval-ms", "50"})
    args.emplace_back(fixed);
  for (auto& arg : extra_args)
    args.push_back(std::move(arg));
  auto worker = std::make_unique<WorkerProcess>(std::move(args));
  if (!worker->waitReady()) {
    throw std::runtime_error("worker for " + plugin +
                             " did not get ready: " + worker->stderrText());
  }
  return worker;
}

void WorkerProcess::readStdout(int fd) {
  std::string pending;
  std::array<char, 4096> chunk{};
  for (;;) {
    const ssize_t n = ::read(fd, chunk.data(), chunk.size());
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      break;
    pending.append(chunk.data(), static_cast<std::size_t>(n));
    std::size_t newline = 0;
    while ((newline = pending.find('\n')) != std::string::npos) {
      {
        const std::lock_guard lock(mutex_);
        stdout_lines_.push_back(pending.substr(0, newline));
      }
      changed_.notify_all();
      pending.erase(0, newline + 1);
    }
  }
  ::close(fd);
  {
    const std::lock_guard lock(mutex_);
    stdout_closed_ = true;
  }
  changed_.notify_all();
}

void WorkerProcess::readStderr(int fd) {
  std::array<char, 4096> chunk{};
  for (;;) {
    const ssize_t n = ::read(fd, chunk.data(), chunk.size());
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      break;
    const std::lock_guard lock(mutex_);
    stderr_text_.append(chunk.data(), static_cast<std::size_t>(n));
  }
  ::close(fd);
}

std::optional<std::uint16_t> WorkerProcess::waitReady(std::chrono::milliseconds timeout) {
  std::unique_lock lock(mutex_);
  std::optional<std::uint16_t> port;
  changed_.wait_for(lock, timeout, [&] {
    for (const auto& line : stdout_lines_) {
      rapidjson::Document event;
      event.Parse(line.c_str());
      if (!event.HasParseError() && event.IsObject() && event.HasMember("event") &&
          std::string(event["event"].GetString()) == "ready") {
        port = static_cast<std::uint16_t>(event["port"].GetUint());
        return true;
      }
    }
    return stdout_closed_;
  });
  if (port)
    port_ = *port;
  return port;
}

std::optional<WorkerStats> WorkerProcess::waitStats(
    const std::function<bool(const WorkerStats&)>& accept, std::chrono::milliseconds timeout) {
  std::unique_lock lock(mutex_);
  std::size_t next = stdout_lines_.size();
  std::optional<WorkerStats> found;
  changed_.wait_for(lock, timeout, [&] {
    for (; next < stdout_lines_.size(); ++next) {
      rapidjson::Document event;
      event.Parse(stdout_lines_[next].c_str());
      if (event.HasParseError() || !event.IsObject() || !event.HasMember("event") ||
          std::string(event["event"].GetString()) != "stats") {
        continue;
      }
      WorkerStats stats;
      stats.epoch_millis = event["epoch_millis"].GetInt64();
      stats.heap_bytes = event["heap_bytes"].GetInt64();
      for (const auto& member : event["counters"].GetObject()) {
        stats.counters[member.name.GetString()] = member.value.GetInt64();
      }
      if (accept(stats)) {
        found = std::move(stats);
        return true;
      }
    }
    return stdout_closed_;
  });
  return found;
}

std::optional<WorkerStats> WorkerProcess::waitQuiet(std::chrono::milliseconds timeout) {
  return waitStats(
      [](const WorkerStats& stats) { return stats.counter("requests_in_flight") == 0; }, timeout);
}

void WorkerProcess::signal(int signal_number) const {
  ::kill(pid_, signal_number);
}

std::optional<int> WorkerProcess::waitExit(std::chrono::milliseconds timeout) {
  if (exit_code_)
    return exit_code_;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    int status = 0;
    const pid_t done = ::waitpid(pid_, &status, WNOHANG);
    if (done == pid_) {
      exit_code_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      if (stdout_reader_.joinable())
        stdout_reader_.join();
      if (stderr_reader_.joinable())
        stderr_reader_.join();
      return exit_code_;
    }
    if (std::chrono::steady_clock::now() >= deadline)
      return std::nullopt;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

std::string WorkerProcess::stderrText() const {
  const std::lock_guard lock(mutex_);
  return stderr_text_;
}

std::vector<std::string> WorkerProcess::stdoutLines() const {
  const std::lock_guard lock(mutex_);
  return stdout_lines_;
}

}  // namespace benchd::testing
