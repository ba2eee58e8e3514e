#include "run_options.hpp"

#include <benchd/common/integer_option.hpp>
#include <benchd/common/usage_error.hpp>
#include <benchd/runner/cpu_list.hpp>
#include <benchd/runner/database_server.hpp>
#include <benchd/runner/memory_cap.hpp>
#include <benchd/scenario/phase_limits.hpp>

#include <algorithm>
#include <array>
#include <charconv>
#include <limits>
#include <stdexcept>
#include <system_error>

namespace benchd::cli {
namespace {

std::uint32_t parseSeconds(std::string_view option, std::string_view text) {
  return common::parseIntegerOption<std::uint32_t>(option, text, 0, scenario::kMaxPhaseSeconds);
}

std::vector<unsigned> cpuList(std::string_view option, std::string_view text) {
  try {
    return runner::parseCpuList(text);
  } catch (const std::invalid_argument& error) {
    throw common::UsageError(std::string(option) + ": " + error.what());
  }
}

/// The first comma of `text` outside a variant's [options], or npos.
std::size_t nameSeparator(std::string_view text) {
  int depth = 0;
  for (std::size_t index = 0; index < text.size(); ++index) {
    if (text[index] == '[') {
      ++depth;
    } else if (text[index] == ']') {
      --depth;
    } else if (text[index] == ',' && depth <= 0) {
      return index;
    }
  }
  return std::string_view::npos;
}

}  // namespace

std::vector<std::string> splitApproachList(std::string_view option, std::string_view text) {
  std::vector<std::string> names;
  while (!text.empty()) {
    const std::size_t comma = nameSeparator(text);
    const std::string_view name = text.substr(0, comma);
    if (name.empty()) {
      throw common::UsageError(std::string(option) +
                               ": expected approach names separated by commas");
    }
    names.emplace_back(name);
    text = comma == std::string_view::npos ? std::string_view{} : text.substr(comma + 1);
  }
  if (names.empty()) {
    throw common::UsageError(std::string(option) + ": expected approach names separated by commas");
  }
  return names;
}

std::string runUsage() {
  return "usage: benchd run [SCENARIO_FILE] [-a a,b,c] [-w S] [-t S] [-o DIR] [-C] [--plan]\n"
         "                  [options]\n"
         "\n"
         "Runs every row of a scenario file against every approach: a fresh benchd-worker per\n"
         "(row, approach), health check, answer check, warm-up, test; samples the host, the\n"
         "worker and the generator every second; stores everything in SQLite; writes\n"
         "DIR/<file-stem>/results.csv and results.md with the winners grid.\n"
         "\n"
         "  SCENARIO_FILE           a path, or a bare name looked up in the scenarios folder\n"
         "                          (default scenarios-quick.csv)\n"
         "  -a a,b,c                approaches to run, in this order (default: every plugin\n"
         "                          found, by name; see `benchd plugins`); a variant runs a\n"
         "                          plugin with options or again under a label:\n"
         "                          'threads-asio[max_threads=200]', callbacks-asio#2;\n"
         "                          [threads=N] sets its worker's threads, [memory_cap=SIZE]\n"
         "                          caps its memory\n"
         "  --aa APPROACH           an A/A check: APPROACH against itself (APPROACH#2); with\n"
         "                          repeats it measures noise thresholds per metric into\n"
         "                          measured-noise-thresholds.csv\n"
         "  --repeat N              run every (row, approach) N times, in rounds of every\n"
         "                          approach in a shuffled order (default 10, what the\n"
         "                          winners grid's test needs; 1 for a quick look, whose\n"
         "                          grid shows unconfirmed leads)\n"
         "  --seed N                seed of the rounds' orders (default: a fresh one, recorded)\n"
         "  --winners RULE          significant (default: a lead wins when significant over\n"
         "                          the repeats and above the noise) or original (any lead\n"
         "                          wins, as the original study; unconfirmed leads)\n"
         "  --thresholds FILE       decide the winners with these noise thresholds (a file\n"
         "                          an A/A run wrote) instead of the shipped ones\n"
         "  -w S                    warm-up seconds for every row (overrides the file)\n"
         "  -t S                    test seconds for every row (overrides the file)\n"
         "  -o DIR                  results folder (default ./results)\n"
         "  -C                      keep the per-second series as CSV files\n"
         "  --plan                  check the file and the approaches, print the plan, run "
         "nothing\n"
         "  --plugin-dir DIR        search DIR for plugins first (repeatable); then\n"
         "                          $BENCHD_PLUGIN_PATH, the local folder (installed\n"
         "                          benchd), then the built-in folder\n"
         "  --scenarios-dir DIR     where bare scenario names and workloads are looked up\n"
         "                          (default $BENCHD_SCENARIOS_DIR, else the built-in folder)\n"
         "  --cpus split|shared     split (default): the worker on the upper half of the\n"
         "                          CPUs, the load generator on the lower half (on two: 1\n"
         "                          and 0); shared: both unpinned, as the original study\n"
         "  --server-cpus LIST      pin each worker to these CPUs instead, e.g. 1 or 2-3\n"
         "  --generator-cpus LIST   pin the load generator to these CPUs instead (disjoint\n"
         "                          from the server's; the one not given runs unpinned)\n"
         "  --threads N             load-generator threads (default: one per generator CPU\n"
         "                          when pinned, else the CPUs - 1, at least 1)\n"
         "  --memory-cap SIZE       cap each worker's process tree at SIZE of memory (e.g.\n"
         "                          512M, 1G) through the kernel's cgroups; a worker the\n"
         "                          OOM killer ends fails its row: OOM - did not complete\n"
         "  --capacity-resolution PCT  capacity rows: stop each search when its bracket is\n"
         "                          within PCT % of the rate found (0.5 to 50, default 3)\n"
         "  --store FILE            SQLite results store (default DIR/benchd.sqlite)\n"
         "  --health-timeout S      a worker must answer GET /health within S seconds, else its\n"
         "                          row fails (default 30)\n"
         "  --postgres URL          the rows with the postgres profile use this PostgreSQL\n"
         "                          server (libpq URI or conninfo), in a schema of their own\n"
         "                          that is dropped afterwards (default: a private PostgreSQL\n"
         "                          15 cluster started for the run)\n"
         "  --db-pool N             database connections each plugin may open, 1 to 500\n"
         "                          (default 16; the original study's pool had 500)\n"
         "  --resume RUN            go on with run RUN of the store, stopped or cut off\n"
         "                          (Ctrl-C, a kill, a power loss): only its missing runs\n"
         "                          run, into the same run and results folder; it keeps its\n"
         "                          own file and settings (give the same -o or --store)\n"
         "  --quiet                 no progress on stderr\n"
         "  --help                  this text\n"
         "\n"
         "Ctrl-C stops cleanly: the current worker is stopped, what finished is written and the\n"
         "run is marked stopped; a second Ctrl-C exits at once. `benchd run --resume RUN` goes on\n"
         "with it later.\n"
         "\n"
         "Exit codes: 0 the run completed and every result was measured (request errors are\n"
         "results), 3 it completed but some results failed (results.md says why), 1 it could\n"
         "not run (bad scenario file, no plugins, unwritable folder), 2 bad arguments, 130\n"
         "stopped by a signal.\n";
}

RunOptions parseRunOptions(std::span<const std::string_view> arguments) {
  RunOptions options;
  bool have_file = false;
  // The options that make a request (what a resumed run keeps from its start), as given.
  std::vector<std::string> request_options;
  static constexpr std::array<std::string_view, 16> kRequestOptions = {"-a",
                                                                       "--aa",
                                                                       "--repeat",
                                                                       "--seed",
                                                                       "--winners",
                                                                       "-w",
                                                                       "-t",
                                                                       "-C",
                                                                       "--cpus",
                                                                       "--server-cpus",
                                                                       "--generator-cpus",
                                                                       "--threads",
                                                                       "--health-timeout",
                                                                       "--thresholds",
                                                                       "--memory-cap",
                                                                       "--capacity-resolution"};
  for (std::size_t i = 0; i < arguments.size(); ++i) {
    const std::string_view option = arguments[i];
    if (std::find(kRequestOptions.begin(), kRequestOptions.end(), option) !=
        kRequestOptions.end()) {
      request_options.emplace_back(option);
    }
    if (option == "-C") {
      options.keep_csv = true;
      continue;
    }
    if (option == "--plan") {
      options.plan_only = true;
      continue;
    }
    if (option == "--quiet") {
      options.quiet = true;
      continue;
    }
    if (!option.starts_with("-")) {
      if (have_file) {
        throw common::UsageError("unexpected argument '" + std::string(option) +
                                 "' (one scenario file only)");
      }
      options.scenario_file = option;
      have_file = true;
      request_options.emplace_back("the scenario file");
      continue;
    }
    if (i + 1 >= arguments.size()) {
      throw common::UsageError(std::string(option) + ": missing value");
    }
    const std::string_view value = arguments[++i];
    if (option == "-a") {
      options.approaches = splitApproachList(option, value);
    } else if (option == "--aa") {
      options.aa_approach = std::string(value);
    } else if (option == "--repeat") {
      // The range is checked by runner::prepareRun, as the daemon's requests.
      options.repeats = common::parseIntegerOption<std::uint32_t>(
          option, value, 0, std::numeric_limits<std::uint32_t>::max());
    } else if (option == "--seed") {
      options.order_seed = common::parseIntegerOption<std::uint64_t>(
          option, value, 0, std::numeric_limits<std::uint64_t>::max());
    } else if (option == "--winners") {
      options.winner_rule = value;  // checked by runner::prepareRun, as the daemon's requests
    } else if (option == "--thresholds") {
      options.thresholds_file = std::string(value);  // read by the command
    } else if (option == "-w") {
      options.warmup_seconds = parseSeconds(option, value);
    } else if (option == "-t") {
      options.test_seconds = parseSeconds(option, value);  // 0: refused by runner::prepareRun
    } else if (option == "-o") {
      if (value.empty()) {
        throw common::UsageError("-o: empty folder name");
      }
      options.output_dir = value;
    } else if (option == "--plugin-dir") {
      options.plugin_dirs.emplace_back(value);
    } else if (option == "--scenarios-dir") {
      options.scenarios_dir = std::string(value);
    } else if (option == "--cpus") {
      options.cpus = value;  // checked by runner::prepareRun
    } else if (option == "--server-cpus") {
      options.server_cpus = cpuList(option, value);
    } else if (option == "--generator-cpus") {
      options.generator_cpus = cpuList(option, value);
    } else if (option == "--threads") {
      options.threads = common::parseIntegerOption<unsigned>(option, value, 1, 1024);
    } else if (option == "--health-timeout") {
      options.health_timeout_seconds = parseSeconds(option, value);
      if (options.health_timeout_seconds == 0) {
        throw common::UsageError("--health-timeout: expected at least 1 second");
      }
    } else if (option == "--memory-cap") {
      try {
        options.memory_cap_bytes = runner::parseMemorySize(value);
      } catch (const std::invalid_argument& error) {
        throw common::UsageError(std::string("--memory-cap: ") + error.what());
      }
    } else if (option == "--capacity-resolution") {
      // The range is runner::prepareRun's to check, as for the API.
      double percent = 0.0;
      const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), percent);
      if (error != std::errc() || end != value.data() + value.size()) {
        throw common::UsageError("--capacity-resolution: expected a number of percent, got '" +
                                 std::string(value) + "'");
      }
      options.capacity_resolution_percent = percent;
    } else if (option == "--store") {
      options.store_file = std::string(value);
    } else if (option == "--postgres") {
      if (value.empty()) {
        throw common::UsageError("--postgres: empty URL");
      }
      options.postgres_url = value;
    } else if (option == "--db-pool") {
      options.db_pool =
          common::parseIntegerOption<std::uint32_t>(option, value, 1, runner::kMaxDatabasePool);
    } else if (option == "--resume") {
      options.resume_run = common::parseIntegerOption<std::int64_t>(
          option, value, 1, std::numeric_limits<std::int64_t>::max());
    } else {
      throw common::UsageError("unknown option '" + std::string(option) + "'");
    }
  }
  if (options.resume_run && !request_options.empty()) {
    throw common::UsageError(
        "--resume: a resumed run keeps the scenario file and settings it "
        "started with; leave out " +
        request_options.front());
  }
  return options;
}

}  // namespace benchd::cli
