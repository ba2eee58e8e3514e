#include "load_command.hpp"

#include "load_options.hpp"
#include "progress_line.hpp"
#include "stop_on_signal.hpp"
#include "usage_error.hpp"
#include "workload_source.hpp"

#include <benchd/loadgen/load_engine.hpp>
#include <benchd/results/load_report_json.hpp>
#include <benchd/results/load_report_text.hpp>
#include <benchd/results/load_summary.hpp>
#include <benchd/scenario/row_check.hpp>
#include <benchd/scenario/scenario_row.hpp>
#include <benchd/scenario/workload_catalog.hpp>

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <iostream>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace benchd::cli {
namespace {

/// Runs shorter than this get no progress line.
constexpr std::uint32_t kProgressMinimumSeconds = 5;

scenario::ScenarioRow rowFor(const LoadOptions& options, const scenario::Workload& workload) {
  scenario::ScenarioRow row;
  row.name = "benchd-load";
  row.workload = workload.name;
  row.delay_call_depth = options.delay_call_depth;
  row.delay_millis = options.delay_millis;
  row.connections = options.connections;
  row.requests_per_second = options.rate;
  row.warmup_seconds = options.warmup_seconds;
  row.test_seconds = options.duration_seconds;
  return row;
}

/// The check loadScenarioFile makes for a row (checkRowFitsWorkload), as a usage error naming
/// the option that gives the column.
void checkRowFits(const LoadOptions& options, const scenario::Workload& workload) {
  const std::optional<scenario::RowProblem> problem =
      scenario::checkRowFitsWorkload(workload, options.connections, options.rate);
  if (problem) {
    throw UsageError((problem->column == scenario::RowColumn::kRequestsPerSecond
                          ? "--rate: "
                          : "--connections: ") +
                     problem->reason);
  }
}

/// What `benchd load` ran, for the summary's header.
results::LoadRunDescription describeRun(const LoadOptions& options,
                                        const scenario::Workload& workload,
                                        const loadgen::PhaseResult& test, bool stopped_early) {
  results::LoadRunDescription run;
  run.target = options.url;
  run.approach = options.approach;
  run.workload = workload.name;
  run.connections = options.connections;
  run.test_seconds = options.duration_seconds;
  if (options.requests) {
    // Request-count mode: the count ended the phase, so its length is what ran (whole seconds,
    // rounded up), like a timed run of that length.
    const auto ran = std::chrono::ceil<std::chrono::seconds>(test.duration).count();
    run.test_seconds = static_cast<std::uint32_t>(
        std::clamp<std::int64_t>(ran, 1, static_cast<std::int64_t>(options.duration_seconds)));
    run.request_limit = options.requests;
  }
  run.warmup_seconds = options.warmup_seconds;
  run.requests_per_second = options.rate;
  run.delay_call_depth = options.delay_call_depth;
  run.delay_millis = options.delay_millis;
  run.stopped_early = stopped_early;
  return run;
}

int runLoad(std::span<const std::string_view> arguments) {
  const LoadOptions options = parseLoadOptions(arguments);
  loadgen::HostAndPort address;
  try {
    address = loadgen::parseHttpUrl(options.url);
  } catch (const std::invalid_argument& error) {
    throw UsageError(std::string("--url: ") + error.what());
  }
  scenario::Workload workload;
  try {
    workload = loadWorkloadFor(options.workload, scenariosDirectory(options.scenarios_dir));
  } catch (const scenario::UnknownWorkloadError& error) {
    throw UsageError(std::string("--workload: ") + error.what());
  }
  checkRowFits(options, workload);

  loadgen::EngineOptions engine_options;
  engine_options.threads = options.threads;
  engine_options.request_timeout = options.timeout;
  engine_options.connect_timeout = options.connect_timeout;
  engine_options.arrival_overflow = options.arrival_overflow;
  engine_options.request_limit = options.requests;
  loadgen::LoadEngine engine(engine_options);

  std::atomic<bool> stopped{false};
  const StopOnSignal stop_on_signal([&engine, &stopped] {
    stopped.store(true);
    engine.requestStop();
  });
  const bool show_progress = !options.quiet && options.warmup_seconds + options.duration_seconds >=
                                                   kProgressMinimumSeconds;
  ProgressLine progress(std::cerr, ::isatty(STDERR_FILENO) == 1, options.warmup_seconds,
                        options.duration_seconds, options.requests);
  std::vector<results::LoadSecondDigest> digests;
  const auto on_snapshot = [&](const loadgen::LoadSnapshot& snapshot) {
    if (show_progress) {
      progress.show(snapshot);
    }
    if (snapshot.phase == loadgen::PhaseKind::kTest) {
      digests.push_back(results::LoadSecondDigest::of(snapshot));
    }
  };

  loadgen::RequestTarget target;
  target.host = address.host;
  target.port = address.port;
  target.approach = options.approach;
  const loadgen::ScenarioResult result =
      engine.runScenario(rowFor(options, workload), workload, target, on_snapshot);
  progress.finish();

  const results::LoadSummary summary =
      results::makeLoadSummary(describeRun(options, workload, result.test, stopped.load()),
                               workload, result.test, std::move(digests));
  if (options.json) {
    results::writeLoadReportJson(std::cout, summary);
  } else {
    results::writeLoadReportText(std::cout, summary);
  }
  return 0;
}

}  // namespace

Subcommand loadSubcommand() {
  return {"load", "run one workload against a URL and print a wrk/k6-like summary", loadUsage(),
          runLoad};
}

}  // namespace benchd::cli
