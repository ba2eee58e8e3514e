#include <benchd/conformance/worker_process.hpp>

#include <rapidjson/document.h>

#include <stdexcept>

namespace benchd::conformance {

std::int64_t WorkerStats::counter(const std::string& name) const {
  const auto it = counters.find(name);
  if (it == counters.end())
    throw std::out_of_range("no counter named " + name);
  return it->second;
}

WorkerProcess::WorkerProcess(const std::filesystem::path& worker,
                             const std::vector<std::string>& args)
    : child_(worker, args), reader_([this] { readOutput(); }) {}

WorkerProcess::~WorkerProcess() {
  if (!exit_code_) {
    child_.kill();
  }
  if (reader_.joinable())
    reader_.join();
}

std::unique_ptr<WorkerProcess> WorkerProcess::serve(const std::filesystem::path& worker,
                                                    const std::filesystem::path& plugin,
                                                    std::vector<std::string> extra_args) {
  std::vector<std::string> args;
  args.reserve(6 + extra_args.size());
  args.emplace_back("--plugin");
  args.push_back(plugin.string());
  for (const char* fixed : {"--port", "0", "--stats-interval-ms", "50"})
    args.emplace_back(fixed);
  for (auto& arg : extra_args)
    args.push_back(std::move(arg));
  auto served = std::make_unique<WorkerProcess>(worker, args);
  if (!served->waitReady()) {
    throw std::runtime_error("benchd-worker serving " + plugin.string() +
                             " did not get ready: " + served->stderrText());
  }
  return served;
}

void WorkerProcess::readOutput() {
  constexpr std::chrono::milliseconds kPollInterval{100};
  while (!child_.outputClosed()) {
    // Once stdout has closed, readStdoutLines returns at once without reading stderr.
    std::vector<std::string> lines;
    if (child_.stdoutClosed()) {
      child_.drainOutput(kPollInterval);
    } else {
      lines = child_.readStdoutLines(kPollInterval);
    }
    {
      const std::lock_guard lock(mutex_);
      for (std::string& line : lines)
        stdout_lines_.push_back(std::move(line));
      stderr_text_ = child_.stderrText();
    }
    changed_.notify_all();
  }
  {
    const std::lock_guard lock(mutex_);
    stdout_closed_ = true;
  }
  changed_.notify_all();
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
      stats.epoch_millis = event["epochMillis"].GetInt64();
      stats.heap_bytes = event["heapBytes"].GetInt64();
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
  child_.signal(signal_number);
}

std::optional<int> WorkerProcess::waitExit(std::chrono::milliseconds timeout) {
  if (exit_code_)
    return exit_code_;
  const std::optional<common::ExitStatus> status = child_.waitExit(timeout);
  if (!status)
    return std::nullopt;
  exit_code_ = status->exited() ? status->exit_code : 128 + status->signal_number;
  if (reader_.joinable())
    reader_.join();
  return exit_code_;
}

std::string WorkerProcess::stderrText() const {
  const std::lock_guard lock(mutex_);
  return stderr_text_;
}

std::vector<std::string> WorkerProcess::stdoutLines() const {
  const std::lock_guard lock(mutex_);
  return stdout_lines_;
}

}  // namespace benchd::conformance
