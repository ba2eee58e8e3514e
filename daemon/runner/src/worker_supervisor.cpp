#include <benchd/results/summary_row.hpp>
#include <benchd/runner/http_probe.hpp>
#include <benchd/runner/worker_supervisor.hpp>

#include <rapidjson/document.h>

#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <sstream>

namespace benchd::runner {
namespace {

/// A stopping worker gets its own stop timeout plus this to exit before SIGKILL.
constexpr std::chrono::milliseconds kStopMargin{5'000};
constexpr std::chrono::milliseconds kHealthPollPeriod{100};
constexpr std::size_t kStderrLinesShown = 5;

std::vector<std::string> workerArguments(const WorkerLaunch& launch) {
  std::vector<std::string> arguments = {
      "--plugin",
      launch.plugin.string(),
      "--port",
      std::to_string(launch.port),
      "--stats-interval-ms",
      "1000",
      "--stop-timeout-ms",
      std::to_string(launch.stop_timeout.count()),
  };
  for (const std::string& profile : launch.profiles) {
    arguments.emplace_back("--profile");
    arguments.push_back(profile);
  }
  if (launch.threads) {
    arguments.emplace_back("--threads");
    arguments.push_back(std::to_string(*launch.threads));
  }
  for (const std::string& option : launch.plugin_options) {
    arguments.emplace_back("--option");
    arguments.push_back(option);
  }
  if (!launch.postgres.empty()) {
    arguments.insert(arguments.end(),
                     {"--postgres", launch.postgres, "--db-pool", std::to_string(launch.db_pool)});
  }
  if (!launch.bind.empty())
    arguments.insert(arguments.end(), {"--bind", launch.bind});
  if (launch.tls) {
    arguments.insert(arguments.end(), {"--tls-cert", launch.tls->certificate.string(), "--tls-key",
                                       launch.tls->private_key.string()});
  }
  return arguments;
}

common::SpawnOptions spawnOptions(const WorkerLaunch& launch, const MemoryCapGroup* cap) {
  common::SpawnOptions options;
  options.cpu_affinity = launch.cpus;
  options.own_process_group = true;
  options.cgroup_procs_fd = cap != nullptr ? cap->procsFd() : -1;
  return options;
}

/// A capped cgroup for one worker, named after this process and a counter (a daemon runs many
/// workers over its life, one at a time); none without a cap.
std::unique_ptr<MemoryCapGroup> capGroupFor(const WorkerLaunch& launch) {
  if (!launch.memory_cap_bytes) {
    return nullptr;
  }
  static std::atomic<std::uint64_t> next{1};
  return std::make_unique<MemoryCapGroup>(
      detectMemoryCapSupport(),
      "benchd-worker-" + std::to_string(::getpid()) + "-" + std::to_string(next++),
      *launch.memory_cap_bytes);
}

}  // namespace

WorkerSupervisor::WorkerSupervisor(const WorkerLaunch& launch)
    : memory_cap_(capGroupFor(launch)),
      child_(launch.worker, workerArguments(launch), spawnOptions(launch, memory_cap_.get())),
      stop_timeout_(launch.stop_timeout),
      health_transport_(launch.tls ? ProbeTransport::kTls : ProbeTransport::kPlain),
      health_address_(launch.bind.empty() || launch.bind == "0.0.0.0" || launch.bind == "::"
                          ? "127.0.0.1"
                          : launch.bind) {
  reader_ = std::thread([this] { readEvents(); });
}

WorkerSupervisor::~WorkerSupervisor() {
  try {
    stop();
  } catch (const std::exception&) {
    // waitpid failed, which only a bug elsewhere (someone else reaping) can cause; the child
    // is then not ours to wait for, and a destructor must not throw. The reader still ends
    // when the pipe closes.
    joinReader();
  }
}

void WorkerSupervisor::readEvents() noexcept {
  try {
    readEventLines();
  } catch (const std::exception& error) {
    // Losing the stats is better than losing the run: samples then carry no worker stats.
    std::fprintf(stderr, "benchd: reading the worker's events failed: %s\n", error.what());
  }
}

void WorkerSupervisor::readEventLines() {
  while (!child_.stdoutClosed()) {
    for (const std::string& line : child_.readStdoutLines(std::chrono::milliseconds(500))) {
      rapidjson::Document event;
      if (event
              .Parse<rapidjson::kParseIterativeFlag | rapidjson::kParseValidateEncodingFlag>(
                  line.c_str())
              .HasParseError() ||
          !event.IsObject() || !event.HasMember("event") || !event["event"].IsString()) {
        continue;  // not an event line; the worker's diagnostics go to stderr
      }
      const std::string_view kind = event["event"].GetString();
      const std::scoped_lock lock(mutex_);
      if (kind == "ready" && event.HasMember("port") && event["port"].IsUint()) {
        port_ = static_cast<std::uint16_t>(event["port"].GetUint());
      } else if (kind == "stats") {
        results::WorkerStats stats;
        if (event.HasMember("epochMillis") && event["epochMillis"].IsInt64()) {
          stats.epoch_millis = event["epochMillis"].GetInt64();
        }
        if (event.HasMember("heapBytes") && event["heapBytes"].IsInt64()) {
          stats.heap_bytes = event["heapBytes"].GetInt64();
        }
        if (event.HasMember("counters") && event["counters"].IsObject()) {
          for (const auto& counter : event["counters"].GetObject()) {
            if (counter.value.IsInt64()) {
              stats.counters.emplace_back(counter.name.GetString(), counter.value.GetInt64());
            }
          }
        }
        stats_ = std::move(stats);
      }
    }
  }
  child_.drainOutput(std::chrono::milliseconds(1'000));
}

void WorkerSupervisor::joinReader() {
  if (reader_.joinable()) {
    reader_.join();
  }
}

std::uint16_t WorkerSupervisor::port() const {
  const std::scoped_lock lock(mutex_);
  return port_;
}

std::optional<results::WorkerStats> WorkerSupervisor::latestStats() const {
  const std::scoped_lock lock(mutex_);
  return stats_;
}

bool WorkerSupervisor::alive() {
  return !child_.exitStatus() && !child_.tryWait();
}

bool WorkerSupervisor::exitsWithin(std::chrono::milliseconds timeout) {
  return child_.exitStatus() || child_.waitExit(timeout);
}

std::optional<std::string> WorkerSupervisor::waitReady(std::chrono::milliseconds timeout,
                                                       const std::function<bool()>& cancelled) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  std::string last_problem = "it printed no ready line";
  while (std::chrono::steady_clock::now() < deadline) {
    if (cancelled && cancelled()) {
      return "stopped on request while the worker started";
    }
    if (!alive()) {
      return "the worker " + describeEnd() + " before it was ready";
    }
    if (const std::uint16_t bound = port(); bound != 0) {
      try {
        const HttpReply reply =
            probeHttp(bound, "GET", "/health", "", std::chrono::milliseconds(2'000),
                      health_transport_, health_address_);
        if (reply.status == 200) {
          return std::nullopt;
        }
        last_problem = "GET /health answered " + std::to_string(reply.status);
      } catch (const HttpProbeError& error) {
        last_problem = error.what();
      }
    }
    std::this_thread::sleep_for(kHealthPollPeriod);
  }
  return "the worker was not healthy within " + std::to_string(timeout.count() / 1000) + " s (" +
         last_problem + ")";
}

common::ExitStatus WorkerSupervisor::stop() {
  common::ExitStatus status =
      child_.exitStatus() ? *child_.exitStatus() : child_.stop(stop_timeout_ + kStopMargin);
  joinReader();
  return status;
}

std::uint64_t WorkerSupervisor::memoryCapBytes() const noexcept {
  return memory_cap_ ? memory_cap_->capBytes() : 0;
}

std::uint64_t WorkerSupervisor::memoryPeakBytes() const {
  return memory_cap_ ? memory_cap_->peakBytes().value_or(0) : 0;
}

std::string WorkerSupervisor::describeEnd() {
  const common::ExitStatus status = stop();
  std::ostringstream text;
  if (memory_cap_ && memory_cap_->oomKills() > 0) {
    // The source study's words for a server that ran out of its memory.
    text << "was ended at its memory cap: " << results::kOutOfMemoryOutcome << " (cap "
         << mebibytesText(memory_cap_->capBytes()) << ", peak " << mebibytesText(memoryPeakBytes())
         << ", " << status.describe() << ")";
  } else {
    text << (status.signalled() ? "was killed by " : "exited with ") << status.describe();
  }
  const std::vector<std::string> lines = child_.stderrTail(kStderrLinesShown);
  if (!lines.empty()) {
    text << "; its last stderr lines: ";
    for (std::size_t index = 0; index < lines.size(); ++index) {
      text << (index == 0 ? "" : " | ") << lines[index];
    }
  }
  return text.str();
}

}  // namespace benchd::runner
