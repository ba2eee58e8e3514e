#include "load_command.hpp"

#include "load_options.hpp"
#include "progress_line.hpp"
#include "stop_on_signal.hpp"
#include "workload_source.hpp"

#include <benchd/common/usage_error.hpp>
#include <benchd/loadgen/load_engine.hpp>
#include <benchd/results/load_report_json.hpp>
#include <benchd/results/load_report_text.hpp>
#include <benchd/results/load_summary.hpp>
#include <benchd/runner/load_measurement.hpp>
#include <benchd/scenario/row_check.hpp>
#include <benchd/scenario/workload_catalog.hpp>

#include <unistd.h>

#include <iostream>
#include <optional>
#include <stdexcept>
#include <string>

namespace benchd::cli {
namespace {

/// Runs shorter than this get no progress line.
constexpr std::uint32_t kProgressMinimumSeconds = 5;

/// The check loadScenarioFile makes for a row (checkRowFitsWorkload), as a usage error naming
/// the option that gives the column.
void checkRowFits(const LoadOptions& options, const scenario::Workload& workload) {
  const std::optional<scenario::RowProblem> problem =
      scenario::checkRowFitsWorkload(workload, options.connections, options.rate);
  if (problem) {
    throw common::UsageError((problem->column == scenario::RowColumn::kRequestsPerSecond
                                  ? "--rate: "
                                  : "--connections: ") +
                             problem->reason);
  }
}

/// What `benchd load` is asked to run, for the summary's header and the row.
results::LoadRunDescription describeRun(const LoadOptions& options,
                                        const scenario::Workload& workload) {
  results::LoadRunDescription run;
  run.target = options.url;
  run.approach = options.approach;
  run.workload = workload.name;
  run.connections = options.connections;
  run.test_seconds = options.duration_seconds;
  run.warmup_seconds = options.warmup_seconds;
  run.requests_per_second = options.rate;
  run.delay_call_depth = options.delay_call_depth;
  run.delay_millis = options.delay_millis;
  return run;
}

int runLoad(std::span<const std::string_view> arguments) {
  const LoadOptions options = parseLoadOptions(arguments);
  loadgen::HostAndPort address;
  try {
    address = loadgen::parseHttpUrl(options.url);
  } catch (const std::invalid_argument& error) {
    throw common::UsageError(std::string("--url: ") + error.what());
  }
  scenario::Workload workload;
  try {
    workload = loadWorkloadFor(options.workload, scenariosDirectory(options.scenarios_dir));
  } catch (const scenario::UnknownWorkloadError& error) {
    throw common::UsageError(std::string("--workload: ") + error.what());
  }
  checkRowFits(options, workload);

  loadgen::EngineOptions engine_options;
  engine_options.threads = options.threads;
  engine_options.request_timeout = options.timeout;
  engine_options.connect_timeout = options.connect_timeout;
  engine_options.arrival_overflow = options.arrival_overflow;
  engine_options.request_limit = options.requests;
  loadgen::LoadEngine engine(engine_options);

  const StopOnSignal stop_on_signal([&engine] { engine.requestStop(); });
  const bool show_progress = !options.quiet && options.warmup_seconds + options.duration_seconds >=
                                                   kProgressMinimumSeconds;
  ProgressLine progress(std::cerr, ::isatty(STDERR_FILENO) == 1, options.warmup_seconds,
                        options.duration_seconds, options.requests);
  loadgen::RequestTarget target;
  target.host = address.host;
  target.port = address.port;
  target.tls = address.tls;
  target.http2 = options.http2;
  target.streams_per_connection = options.streams;
  target.approach = options.approach;
  const results::LoadSummary summary =
      runner::measureLoad(engine, describeRun(options, workload), workload, target,
                          [&](const measurement::LoadSnapshot& snapshot) {
                            if (show_progress) {
                              progress.show(snapshot);
                            }
                          });
  progress.finish();

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
