#include "load_options.hpp"

#include <benchd/common/integer_option.hpp>
#include <benchd/common/usage_error.hpp>

namespace benchd::cli {
using common::parseIntegerOption;

std::string loadUsage() {
  return "usage: benchd load --url http[s]://HOST:PORT --approach NAME [options]\n"
         "\n"
         "Runs one workload against a server and prints a summary (requests, errors by class,\n"
         "req/s, latency percentiles, transfer, generator CPU and saturation).\n"
         "\n"
         "  --url URL                 server base URL, http or https (HTTP/1.1 over TLS,\n"
         "                            no certificate check), no path (required)\n"
         "  --approach NAME           fills {approach} in the workload's paths (required)\n"
         "  --workload NAME|FILE      workload name from the scenarios directory, or a .json file\n"
         "                            (default get-time)\n"
         "  --connections N           connections (VUs / arrival pool) (default 64)\n"
         "  --http2                   speak HTTP/2: h2 (ALPN) to an https URL, h2c (prior\n"
         "                            knowledge) to an http one (default HTTP/1.1)\n"
         "  --streams M               HTTP/2's concurrent streams per connection (h2load -m):\n"
         "                            every connection carries M VUs / arrival slots\n"
         "                            (default 1; more needs --http2)\n"
         "  --duration S              test phase seconds (default 10)\n"
         "  --requests N              end the test phase once N requests have ended, answered\n"
         "                            or failed (h2load -n); --duration, if given, still limits\n"
         "                            it (default: no count; with --requests, 86400 s); the\n"
         "                            workload's stages are laid out over the duration\n"
         "  --warmup S                warm-up seconds, same shape, discarded (default 0)\n"
         "  --rate R                  requests per second: the rate cap of get-time/get-movies,\n"
         "                            the arrival rate of arrival-rate workloads (default none)\n"
         "  --depth D                 delayCallDepth (default 0)\n"
         "  --delay MS                delayInMillis (default 0)\n"
         "  --threads N               event-loop threads (default: cores - 1, at least 1)\n"
         "  --timeout-ms MS           request timeout (default 60000)\n"
         "  --connect-timeout-ms MS   connect timeout (default 10000)\n"
         "  --arrivals drop|wait      open model, no free connection: drop the arrival (k6) or\n"
         "                            send it late, timed from its intended time (wrk2)\n"
         "                            (default drop)\n"
         "  --scenarios-dir DIR       where named workloads live (default: $BENCHD_SCENARIOS_DIR,\n"
         "                            else the built-in scenarios directory)\n"
         "  --json                    print the result as one JSON document on stdout\n"
         "  --quiet                   no progress line on stderr\n"
         "  --help                    this text\n"
         "\n"
         "Exit codes: 0 run completed (errors and saturation are reported, not failed on),\n"
         "1 the run could not start (limits, unknown host, bad workload file), 2 bad arguments.\n";
}

LoadOptions parseLoadOptions(std::span<const std::string_view> arguments) {
  LoadOptions options;
  bool duration_given = false;
  for (std::size_t i = 0; i < arguments.size(); ++i) {
    const std::string_view option = arguments[i];
    if (option == "--json") {
      options.json = true;
      continue;
    }
    if (option == "--quiet") {
      options.quiet = true;
      continue;
    }
    if (option == "--http2") {
      options.http2 = true;
      continue;
    }
    if (!option.starts_with("--")) {
      throw common::UsageError("unexpected argument '" + std::string(option) + "'");
    }
    if (i + 1 >= arguments.size()) {
      throw common::UsageError(std::string(option) + ": missing value");
    }
    const std::string_view value = arguments[++i];
    if (option == "--url") {
      options.url = value;
    } else if (option == "--approach") {
      if (value.empty() || value.find_first_of("/?#{} ") != std::string_view::npos) {
        throw common::UsageError(
            "--approach: expected a name without '/', '?', '#', braces or blanks, "
            "got '" +
            std::string(value) + "'");
      }
      options.approach = value;
    } else if (option == "--workload") {
      if (value.empty()) {
        throw common::UsageError("--workload: empty name");
      }
      options.workload = value;
    } else if (option == "--connections") {
      options.connections = parseIntegerOption<std::uint32_t>(option, value, 1, 1'000'000);
    } else if (option == "--streams") {
      options.streams = parseIntegerOption<std::uint32_t>(option, value, 1, 1000);
    } else if (option == "--duration") {
      options.duration_seconds =
          parseIntegerOption<std::uint32_t>(option, value, 1, scenario::kMaxPhaseSeconds);
      duration_given = true;
    } else if (option == "--requests") {
      options.requests =
          parseIntegerOption<std::uint64_t>(option, value, 1, std::uint64_t{1'000'000'000'000});
    } else if (option == "--warmup") {
      options.warmup_seconds =
          parseIntegerOption<std::uint32_t>(option, value, 0, scenario::kMaxPhaseSeconds);
    } else if (option == "--rate") {
      options.rate = parseIntegerOption<std::uint32_t>(option, value, 1, 100'000'000);
    } else if (option == "--depth") {
      options.delay_call_depth = parseIntegerOption<std::uint32_t>(option, value, 0, 1000);
    } else if (option == "--delay") {
      options.delay_millis = parseIntegerOption<std::uint32_t>(option, value, 0, 3'600'000);
    } else if (option == "--threads") {
      options.threads = parseIntegerOption<unsigned>(option, value, 1, 1024);
    } else if (option == "--timeout-ms") {
      options.timeout =
          std::chrono::milliseconds(parseIntegerOption<std::uint32_t>(option, value, 1, 3'600'000));
    } else if (option == "--connect-timeout-ms") {
      options.connect_timeout =
          std::chrono::milliseconds(parseIntegerOption<std::uint32_t>(option, value, 1, 3'600'000));
    } else if (option == "--arrivals") {
      if (value == "drop") {
        options.arrival_overflow = loadgen::ArrivalOverflow::kDrop;
      } else if (value == "wait") {
        options.arrival_overflow = loadgen::ArrivalOverflow::kWait;
      } else {
        throw common::UsageError("--arrivals: expected 'drop' or 'wait', got '" +
                                 std::string(value) + "'");
      }
    } else if (option == "--scenarios-dir") {
      options.scenarios_dir = std::string(value);
    } else {
      throw common::UsageError("unknown option '" + std::string(option) + "'");
    }
  }
  if (options.url.empty()) {
    throw common::UsageError("--url is required");
  }
  if (options.approach.empty()) {
    throw common::UsageError("--approach is required");
  }
  if (options.streams > 1 && !options.http2) {
    throw common::UsageError("--streams: " + std::to_string(options.streams) +
                             " streams per connection need --http2 (HTTP/1.1 has no streams)");
  }
  if (options.requests && !duration_given) {
    options.duration_seconds = scenario::kMaxPhaseSeconds;
  }
  return options;
}

}  // namespace benchd::cli
