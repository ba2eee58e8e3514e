// benchd-worker: loads one approach plugin, serves the microservice through it until SIGTERM
// or SIGINT, and reports stats on stdout. One worker per (scenario, approach) run, so a
// crashing plugin cannot take the daemon down and the server is measured alone. With --inspect
// it only loads and checks the plugin and describes it: benchd's plugin catalog.
#include "host_api.hpp"
#include "stop_watchdog.hpp"
#include "worker_events.hpp"
#include "worker_options.hpp"

#include <benchd/common/epoch_time.hpp>
#include <benchd/microservice/movie_service.hpp>
#include <benchd/microservice/service_profile.hpp>
#include <benchd/plugin_host/plugin_load_error.hpp>
#include <benchd/plugin_host/plugin_loader.hpp>
#include <benchd/worker/worker_protocol.hpp>

#include <malloc.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <exception>
#include <set>
#include <string>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <vector>

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
// The sanitizer runtime's public allocator interface. g++ ships the runtime but not its header
// (<sanitizer/allocator_interface.h> comes with clang), so the one function is declared here.
// NOLINTNEXTLINE(bugprone-reserved-identifier)
extern "C" std::size_t __sanitizer_get_current_allocated_bytes();
#endif

namespace {

namespace plugin_host = benchd::plugin_host;
namespace worker = benchd::worker;

using worker::kExitCutOff;
using worker::kExitFailure;
using worker::kExitPluginRefused;
using worker::kExitStartFailed;
using worker::kExitStopped;
using worker::kExitUsage;
static_assert(static_cast<int>(kExitUsage) == benchd::common::kExitUsage &&
                  static_cast<int>(worker::kExitFailure) == benchd::common::kExitFailure,
              "the worker's exit codes extend the ones every benchd program shares");

int fail(int code, const std::string& message) {
  const std::string line = std::string(worker::kErrorPrefix) + message + "\n";
  std::fputs(line.c_str(), stderr);
  return code;
}

/// Ties the worker's life to its parent's: when the parent dies the kernel sends SIGTERM,
/// which stops the server like any other SIGTERM. Returns false if the parent is already gone.
bool dieWithParent() {
  const pid_t parent = ::getppid();
  if (::prctl(PR_SET_PDEATHSIG, SIGTERM) != 0)
    return true;  // best effort
  return ::getppid() == parent;
}

/// Blocks the stop signals in this thread and every thread started later (the plugin's), so
/// they are only ever consumed by the main loop's sigtimedwait.
sigset_t blockStopSignals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  std::signal(SIGPIPE, SIG_IGN);  // a peer closing mid-write must be an error code, not death
  return set;
}

/// A server under load needs one descriptor per connection; the default soft limit is often
/// 1024, far below the scenarios' connection counts.
void raiseOpenFileLimit() {
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur < limit.rlim_max) {
    limit.rlim_cur = limit.rlim_max;
    ::setrlimit(RLIMIT_NOFILE, &limit);
  }
}

/// Bytes the allocator has handed out and not got back. Under AddressSanitizer and
/// ThreadSanitizer their own allocator replaces malloc and mallinfo2() reports nothing, so its
/// count is asked instead.
std::int64_t heapBytesInUse() {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  return static_cast<std::int64_t>(__sanitizer_get_current_allocated_bytes());
#else
  const struct mallinfo2 info = ::mallinfo2();
  return static_cast<std::int64_t>(info.uordblks + info.hblkhd);
#endif
}

/// An empty error buffer for one lifecycle call. The host owns the buffer and sets its
/// struct_size before every call (plugins/sdk/CONTRACT.md), so a plugin that scribbled on it
/// in one call cannot shrink what the next call may write.
benchd_error freshError() {
  benchd_error error{};
  error.struct_size = sizeof(error);
  return error;
}

/// The message a plugin left in `error`, read no further than the buffer even when the
/// plugin forgot the NUL.
std::string errorMessage(const benchd_error& error) {
  return {error.message, ::strnlen(error.message, sizeof(error.message))};
}

/// What one stats() call delivered: the counters with valid names, and what was wrong with
/// the others (each reported once per worker, see serveUntilSignalled).
struct CounterCollection {
  worker::Counters counters;
  std::vector<std::string> problems;
};

/// The counter sink: never throws into the plugin; skips a counter whose name is NULL, empty
/// or not NUL-terminated within BENCHD_MAX_NAME_SIZE (plugin.h documents this).
void collectCounter(void* sink_context, const char* name, std::int64_t value) noexcept {
  try {
    auto& collection = *static_cast<CounterCollection*>(sink_context);
    if (name == nullptr) {
      collection.problems.emplace_back("a counter name is NULL");
      return;
    }
    const std::size_t length = ::strnlen(name, BENCHD_MAX_NAME_SIZE);
    if (length == BENCHD_MAX_NAME_SIZE) {
      collection.problems.emplace_back("a counter name is not NUL-terminated within " +
                                       std::to_string(BENCHD_MAX_NAME_SIZE) + " bytes");
      return;
    }
    if (length == 0) {
      collection.problems.emplace_back("a counter name is empty");
      return;
    }
    collection.counters.emplace_back(std::string(name, length), value);
  } catch (...) {
    // Out of memory: this counter is lost, the next stats line will have it.
  }
}

worker::Counters collectCounters(const plugin_host::LoadedPlugin& plugin, benchd_server* server,
                                 const worker::HostApi& host, std::set<std::string>& reported) {
  CounterCollection collection;
  benchd_error error = freshError();
  if (plugin.descriptor->stats(server, &collectCounter, &collection, &error) != BENCHD_OK) {
    std::fprintf(stderr, "benchd-worker: warning: %s: stats() failed: %s\n",
                 plugin.info.name.c_str(), errorMessage(error).c_str());
  }
  for (const auto& problem : collection.problems) {
    if (reported.insert(problem).second) {
      std::fprintf(stderr, "benchd-worker: warning: %s: stats: %s; the counter is skipped\n",
                   plugin.info.name.c_str(), problem.c_str());
    }
  }
  worker::Counters counters = std::move(collection.counters);
  const auto core = host.service().counters();
  counters.emplace_back("database_queries", core.database_queries);
  counters.emplace_back("cache_hits", core.cache_hits);
  counters.emplace_back("cache_misses", core.cache_misses);
  const worker::HostDatabase& database = host.database();
  if (database.settings().pool_size > 0) {
    // The postgres row's own: SQLite's database_queries stays 0 there.
    counters.emplace_back("db_queries", database.queries());
    counters.emplace_back("db_connections_busy", database.sessionsBusy());
    counters.emplace_back("db_connections_open", database.sessionsOpen());
  }
  return counters;
}

/// Waits for SIGTERM/SIGINT, emitting a stats line every interval.
void serveUntilSignalled(const sigset_t& stop_signals, const worker::WorkerOptions& options,
                         const plugin_host::LoadedPlugin& plugin, benchd_server* server,
                         const worker::HostApi& host) {
  auto next_stats = std::chrono::steady_clock::now() + options.stats_interval;
  std::set<std::string> reported;  // stats problems already on stderr
  for (;;) {
    const auto wait = std::chrono::duration_cast<std::chrono::nanoseconds>(
        next_stats - std::chrono::steady_clock::now());
    if (wait.count() <= 0) {
      worker::emitEvent(worker::statsEvent(benchd::common::epochMillisNow(), heapBytesInUse(),
                                           collectCounters(plugin, server, host, reported)));
      next_stats += options.stats_interval;
      continue;
    }
    timespec timeout{};
    timeout.tv_sec = static_cast<time_t>(wait.count() / 1'000'000'000);
    timeout.tv_nsec = static_cast<long>(wait.count() % 1'000'000'000);
    const int signal = ::sigtimedwait(&stop_signals, nullptr, &timeout);
    if (signal == SIGTERM || signal == SIGINT)
      return;
  }
}

/// --inspect: the same loadPlugin as for serving, so a plugin the catalog accepts is one a
/// worker will load; then no server is created. SIGTERM keeps its default action here (the
/// stop signals are only blocked for serving), so the parent-death signal and benchd's
/// timeout kill end a plugin that hangs in its constructors.
int inspectPlugin(const worker::WorkerOptions& options) {
  plugin_host::LoadedPlugin plugin;
  try {
    plugin = plugin_host::loadPlugin(options.plugin_path);
  } catch (const plugin_host::PluginLoadError& e) {
    return fail(kExitPluginRefused, e.what());
  }
  worker::emitEvent(worker::pluginEvent(plugin));
  return kExitStopped;
}

int runWorker(int argc, char** argv) {
  if (!dieWithParent())
    return fail(kExitFailure, "parent process already exited");

  worker::WorkerOptions options;
  try {
    options = worker::parseWorkerOptions(argc, argv);
  } catch (const worker::UsageError& e) {
    const std::string line = std::string(worker::kErrorPrefix) + e.what() + "\n";
    std::fputs((line + worker::workerUsage()).c_str(), stderr);
    return kExitUsage;
  }
  if (options.show_help) {
    std::fputs(worker::workerUsage().c_str(), stdout);
    return kExitStopped;
  }
  if (options.inspect)
    return inspectPlugin(options);
  // Before the plugin is loaded: its threads inherit the blocked stop signals.
  const sigset_t stop_signals = blockStopSignals();
  raiseOpenFileLimit();

  plugin_host::LoadedPlugin plugin;
  try {
    plugin = plugin_host::loadPlugin(options.plugin_path);
  } catch (const plugin_host::PluginLoadError& e) {
    return fail(kExitPluginRefused, e.what());
  }

  for (const std::string& profile : options.profiles) {
    // TLS files reach a plugin through 2.2's config fields: an older plugin cannot have them,
    // whatever it lists.
    if (benchd::microservice::needsCertificate(profile) && plugin.info.abi_minor < 2) {
      return fail(kExitPluginRefused,
                  "plugin " + plugin.info.name + " (ABI " + std::to_string(plugin.info.abi_major) +
                      "." + std::to_string(plugin.info.abi_minor) + ") cannot serve " + profile +
                      ": its certificate arrives through ABI 2.2's config");
    }
    if (!plugin.info.implementsProfile(profile)) {
      return fail(kExitPluginRefused, "plugin " + plugin.info.name + " does not implement " +
                                          profile + " (ABI " +
                                          std::to_string(plugin.info.abi_major) + "." +
                                          std::to_string(plugin.info.abi_minor) + ")");
    }
  }

  benchd::microservice::MovieService service(
      benchd::microservice::ServiceProfile::fromNames(options.profiles));
  benchd::worker::HostApi host(service, plugin.info.name,
                               {options.postgres, options.postgres.empty() ? 0U : options.db_pool},
                               options.cpu_cost, options.max_rate);

  std::vector<const char*> profile_names;
  for (const auto& profile : options.profiles)
    profile_names.push_back(profile.c_str());
  std::vector<benchd_option> plugin_options;
  for (const auto& [key, value] : options.plugin_options) {
    plugin_options.push_back({sizeof(benchd_option), key.c_str(), value.c_str()});
  }
  benchd_server_config config{};
  config.struct_size = sizeof(config);
  config.bind_address = options.bind_address.c_str();
  config.port = options.port;
  config.threads = options.threads;
  config.profiles = profile_names.data();
  config.profile_count = profile_names.size();
  config.options = plugin_options.data();
  config.option_count = plugin_options.size();
  config.tls_certificate_file =
      options.tls_certificate_file.empty() ? nullptr : options.tls_certificate_file.c_str();
  config.tls_private_key_file =
      options.tls_private_key_file.empty() ? nullptr : options.tls_private_key_file.c_str();

  const benchd_plugin_descriptor& api = *plugin.descriptor;
  benchd_error error = freshError();
  benchd_server* server = nullptr;
  const benchd_status created = api.create(host.table(), &config, &server, &error);
  // A refused config is "bad plugin options" (2); any other failure of create() means the
  // server could not be set up, like a failing start() (4). See plugin.h, create().
  if (created != BENCHD_OK) {
    return fail(created == BENCHD_ERR_INVALID_ARGUMENT ? kExitUsage : kExitStartFailed,
                plugin.info.name + ": create() failed: " + errorMessage(error));
  }
  if (server == nullptr) {
    return fail(kExitStartFailed, plugin.info.name + ": create() succeeded but returned no server");
  }
  error = freshError();
  if (api.start(server, &error) != BENCHD_OK) {
    const std::string message = plugin.info.name + ": start() failed: " + errorMessage(error);
    api.destroy(server);
    return fail(kExitStartFailed, message);
  }
  const std::uint16_t bound_port = api.bound_port(server);
  if (bound_port == 0) {
    const auto timeout_millis = static_cast<std::uint32_t>(options.stop_timeout.count());
    error = freshError();
    api.stop(server, timeout_millis, &error);
    api.destroy(server);
    return fail(kExitStartFailed,
                plugin.info.name + ": bound_port() reported no port after start()");
  }

  worker::emitEvent(worker::readyEvent(plugin.info, bound_port));
  serveUntilSignalled(stop_signals, options, plugin, server, host);

  const auto timeout_millis = static_cast<std::uint32_t>(options.stop_timeout.count());
  error = freshError();
  benchd_status stopped = BENCHD_ERR_INTERNAL;
  {
    const worker::StopWatchdog watchdog(options.stop_timeout + worker::kStopGrace,
                                        plugin.info.name);
    stopped = api.stop(server, timeout_millis, &error);
  }
  if (stopped != BENCHD_OK && stopped != BENCHD_ERR_TIMEOUT) {
    std::fprintf(stderr, "benchd-worker: warning: %s: stop() failed: %s\n",
                 plugin.info.name.c_str(), errorMessage(error).c_str());
  }
  worker::emitEvent(worker::stoppedEvent(stopped == BENCHD_OK));
  api.destroy(server);
  if (stopped == BENCHD_ERR_TIMEOUT) {
    return fail(kExitCutOff, plugin.info.name + ": " + errorMessage(error));
  }
  return stopped == BENCHD_OK ? kExitStopped : kExitFailure;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return runWorker(argc, argv);
  } catch (const std::exception& e) {
    return fail(kExitFailure, e.what());
  }
}
