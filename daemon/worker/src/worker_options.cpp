#include "worker_options.hpp"

#include <benchd/common/integer_option.hpp>
#include <benchd/microservice/service_profile.hpp>

#include <algorithm>
#include <charconv>
#include <string_view>
#include <thread>

namespace benchd::worker {

using common::parseIntegerOption;

std::string workerUsage() {
  return "usage: benchd-worker --plugin PATH --port N [options]\n"
         "       benchd-worker --inspect PATH\n"
         "\n"
         "Serves the benchmark microservice through one approach plugin until SIGTERM or SIGINT.\n"
         "Prints a JSON 'ready' line with the bound port on stdout, then a JSON 'stats' line\n"
         "every interval, and a 'stopped' line after a graceful stop. Errors go to stderr.\n"
         "\n"
         "  --plugin PATH           the plugin shared library (.so)\n"
         "  --port N                TCP port, 0 for an ephemeral one\n"
         "  --bind ADDRESS          numeric address to listen on (default 127.0.0.1)\n"
         "  --threads K             event loops / base threads (default: hardware concurrency)\n"
         "  --profile P             server profile: no-cache, read-write, no-keep-alive, "
         "postgres,\n"
         "                          tls, h2, h2c, client-* (repeatable)\n"
         "  --option KEY=VALUE      plugin-specific setting (repeatable); keys starting with\n"
         "                          'benchd.' are the host's, never the plugin's:\n"
         "                          benchd.cpu_cost_ns=N spends N ns of CPU (0 to\n"
         "                          100000000) in every request's call into the microservice\n"
         "                          core, a known difference for an approach variant\n"
         "                          (benchd.cpu_cost_us=N: the same in us, 0 to 100000);\n"
         "                          benchd.max_rate=N serves at most N such calls per\n"
         "                          second, worker-wide (0 to 10000000; 0: no cap), a\n"
         "                          known capacity\n"
         "  --postgres CONNINFO     the movie database of a --profile postgres row (a libpq\n"
         "                          connection string, e.g. \"host=/run/x dbname=movies\")\n"
         "  --db-pool N             database sessions the plugin may open (default 16)\n"
         "  --tls-cert FILE         the PEM certificate of a --profile tls or h2 row\n"
         "  --tls-key FILE          its PEM private key (both are required with tls and h2)\n"
         "  --stats-interval-ms N   stats period (default 1000)\n"
         "  --stop-timeout-ms N     how long a graceful stop waits for requests in flight "
         "(default 10000)\n"
         "  --inspect PATH          only load and check the plugin as for serving, print one\n"
         "                          JSON 'plugin' line describing it and exit (0, or 3 when\n"
         "                          refused); takes no other option\n"
         "  --help                  this text\n"
         "\n"
         "Exit codes: 0 stopped cleanly or inspected, 2 bad arguments, 3 plugin refused, 4 server\n"
         "failed to start, 5 requests were cut off at stop, 1 anything else.\n";
}

WorkerOptions parseWorkerOptions(int argc, const char* const* argv) {
  WorkerOptions options;
  bool have_port = false;
  std::string other_flag;  // the first flag besides --inspect, which --inspect refuses
  for (int i = 1; i < argc; ++i) {
    const std::string_view flag = argv[i];
    if (flag == "--help" || flag == "-h") {
      options.show_help = true;
      return options;
    }
    if (i + 1 >= argc) {
      if (flag.starts_with("--"))
        throw UsageError(std::string(flag) + ": missing value");
      throw UsageError("unexpected argument '" + std::string(flag) + "'");
    }
    const std::string_view value = argv[++i];
    if (flag == "--inspect") {
      options.inspect = true;
      options.plugin_path = value;
      continue;
    }
    if (other_flag.empty())
      other_flag = flag;
    if (flag == "--plugin") {
      options.plugin_path = value;
    } else if (flag == "--port") {
      options.port = parseIntegerOption<std::uint16_t>(flag, value, 0, 65535);
      have_port = true;
    } else if (flag == "--bind") {
      options.bind_address = value;
    } else if (flag == "--threads") {
      options.threads = parseIntegerOption<unsigned>(flag, value, 1, 1024);
    } else if (flag == "--profile") {
      if (value.empty())
        throw UsageError("--profile: empty profile name");
      // An unknown profile must not be ignored: the run would measure something else.
      if (!benchd::microservice::runnable(value)) {
        std::string names;
        for (const std::string_view name : benchd::microservice::kImplementedProfiles)
          names += (names.empty() ? "" : ", ") + std::string(name);
        throw UsageError("--profile: unknown profile '" + std::string(value) +
                         "' (known: " + names + ")");
      }
      options.profiles.emplace_back(value);
    } else if (flag == "--option") {
      const std::size_t eq = value.find('=');
      if (eq == std::string_view::npos || eq == 0) {
        throw UsageError("--option: expected KEY=VALUE, got '" + std::string(value) + "'");
      }
      const std::string_view key = value.substr(0, eq);
      if (key.starts_with("benchd.")) {
        if (key == "benchd.cpu_cost_us") {
          options.cpu_cost = std::chrono::microseconds(common::parseIntegerOption<std::uint32_t>(
              "--option benchd.cpu_cost_us", value.substr(eq + 1), 0, 100'000));
        } else if (key == "benchd.cpu_cost_ns") {
          options.cpu_cost = std::chrono::nanoseconds(common::parseIntegerOption<std::uint32_t>(
              "--option benchd.cpu_cost_ns", value.substr(eq + 1), 0, 100'000'000));
        } else if (key == "benchd.max_rate") {
          options.max_rate = common::parseIntegerOption<std::uint32_t>(
              "--option benchd.max_rate", value.substr(eq + 1), 0, 10'000'000);
        } else {
          throw UsageError("--option: unknown host option '" + std::string(key) +
                           "' (known: benchd.cpu_cost_ns, benchd.cpu_cost_us, benchd.max_rate)");
        }
      } else {
        options.plugin_options.emplace_back(key, value.substr(eq + 1));
      }
    } else if (flag == "--postgres") {
      if (value.empty())
        throw UsageError("--postgres: empty connection string");
      options.postgres = value;
    } else if (flag == "--tls-cert" || flag == "--tls-key") {
      if (value.empty())
        throw UsageError(std::string(flag) + ": empty file name");
      (flag == "--tls-cert" ? options.tls_certificate_file : options.tls_private_key_file) = value;
    } else if (flag == "--db-pool") {
      options.db_pool = parseIntegerOption<std::uint32_t>(flag, value, 1, 10'000);
    } else if (flag == "--stats-interval-ms") {
      options.stats_interval =
          std::chrono::milliseconds(parseIntegerOption<int>(flag, value, 10, 3'600'000));
    } else if (flag == "--stop-timeout-ms") {
      options.stop_timeout =
          std::chrono::milliseconds(parseIntegerOption<int>(flag, value, 0, 3'600'000));
    } else {
      throw UsageError("unknown option '" + std::string(flag) + "' (see --help)");
    }
  }
  if (options.inspect) {
    if (!other_flag.empty()) {
      throw UsageError("--inspect takes no other option, got '" + other_flag +
                       "' (inspect first, then serve with --plugin)");
    }
    if (options.plugin_path.empty())
      throw UsageError("--inspect: empty plugin path");
    return options;
  }
  if (options.plugin_path.empty())
    throw UsageError("--plugin is required");
  if (!have_port)
    throw UsageError("--port is required (0 picks a free port)");
  const bool postgres_row =
      std::find(options.profiles.begin(), options.profiles.end(),
                benchd::microservice::kPostgresProfile) != options.profiles.end();
  if (postgres_row && options.postgres.empty())
    throw UsageError("--profile postgres needs --postgres CONNINFO (the movie database)");
  if (!postgres_row && !options.postgres.empty())
    throw UsageError("--postgres is only for a row with --profile postgres");
  const auto encrypted = std::find_if(options.profiles.begin(), options.profiles.end(),
                                      benchd::microservice::needsCertificate);
  const bool tls_files =
      !options.tls_certificate_file.empty() || !options.tls_private_key_file.empty();
  if (encrypted != options.profiles.end() &&
      (options.tls_certificate_file.empty() || options.tls_private_key_file.empty()))
    throw UsageError("--profile " + *encrypted + " needs --tls-cert FILE and --tls-key FILE");
  if (encrypted == options.profiles.end() && tls_files)
    throw UsageError("--tls-cert and --tls-key are only for a row with --profile tls or h2");
  if (options.threads == 0)
    options.threads = std::max(1U, std::thread::hardware_concurrency());
  return options;
}

}  // namespace benchd::worker
