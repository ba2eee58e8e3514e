#include "results_folder.hpp"

#include <benchd/results/results_markdown.hpp>
#include <benchd/results/results_table.hpp>
#include <benchd/results/winner_decision.hpp>

#include <fstream>
#include <stdexcept>

namespace benchd::runner {
namespace {

/// Writes through a temporary file and renames it, so a reader (or a crash) never sees half a
/// file.
template <typename Write>
void writeFile(const std::filesystem::path& path, Write write) {
  const std::filesystem::path temporary = path.string() + ".tmp";
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    if (!out) {
      throw std::runtime_error("cannot write " + temporary.string());
    }
    write(out);
    out.flush();
    if (!out) {
      throw std::runtime_error("cannot write " + temporary.string() + " (disk full?)");
    }
  }
  std::filesystem::rename(temporary, path);
}

void writeLoadCsv(std::ostream& out, const std::vector<results::SecondRecord>& seconds) {
  out << "index,start_seconds,duration_seconds,end_epoch_millis,requests_sent,requests_ok,"
         "requests_error,requests_requested,dropped_arrivals,achieved_requests_per_second,"
         "intended_requests_per_second,active_vus,latency_millis_min,latency_millis_p50,"
         "latency_millis_p90,latency_millis_p99,latency_millis_max,bytes_sent,bytes_received,"
         "connects,generator_cpu_percent\n";
  for (const results::SecondRecord& second : seconds) {
    const results::LoadSecond& load = second.load;
    out << load.index << "," << static_cast<double>(load.start_micros) / 1e6 << ","
        << static_cast<double>(load.duration_micros) / 1e6 << "," << load.end_epoch_millis << ","
        << load.counters.requests_sent << "," << load.counters.requests_ok << ","
        << load.counters.errors.total() << "," << load.counters.requests_requested << ","
        << load.counters.dropped_arrivals << "," << load.achieved_requests_per_second << ","
        << load.intended_requests_per_second << "," << load.active_vus << "," << load.latency.min
        << "," << load.latency.p50 << "," << load.latency.p90 << "," << load.latency.p99 << ","
        << load.latency.max << "," << load.counters.bytes_sent << ","
        << load.counters.bytes_received << "," << load.counters.connects << ","
        << load.generator_cpu_percent << "\n";
  }
}

void writeSystemCsv(std::ostream& out, const std::vector<results::SecondRecord>& seconds) {
  out << "epoch_millis,cpu_user_percent,cpu_system_percent,cpu_iowait_percent,ram_used_percent,"
         "tcp_sockets_in_use,loopback_rx_bytes,loopback_tx_bytes,loopback_rx_packets,"
         "loopback_tx_packets,tcp_active_opens,tcp_passive_opens,worker_cpu_percent,"
         "worker_rss_bytes,worker_heap_bytes,worker_threads,worker_voluntary_context_switches,"
         "worker_involuntary_context_switches,worker_open_fds,generator_cpu_percent,"
         "database_cpu_percent,database_rss_bytes\n";
  for (const results::SecondRecord& second : seconds) {
    const results::SystemSample& s = second.system;
    out << s.epoch_millis << "," << s.host.cpu_user_percent << "," << s.host.cpu_system_percent
        << "," << s.host.cpu_iowait_percent << "," << s.host.ram_used_percent << ","
        << s.host.tcp_sockets_in_use << "," << s.host.loopback_rx_bytes << ","
        << s.host.loopback_tx_bytes << "," << s.host.loopback_rx_packets << ","
        << s.host.loopback_tx_packets << "," << s.host.tcp_active_opens << ","
        << s.host.tcp_passive_opens << "," << s.worker.cpu_percent << "," << s.worker.rss_bytes
        << "," << (s.worker_stats ? s.worker_stats->heap_bytes : 0) << "," << s.worker.threads
        << "," << s.worker.voluntary_context_switches << ","
        << s.worker.involuntary_context_switches << "," << s.worker.open_fds << ","
        << s.generator.cpu_percent << "," << s.database.cpu_percent << "," << s.database.rss_bytes
        << "\n";
  }
}

}  // namespace

ResultsFolder::ResultsFolder(std::filesystem::path dir, bool keep_csv, store::NewRun run,
                             std::vector<scenario::ScenarioRow> rows,
                             std::vector<results::NotRunApproach> not_run)
    : dir_(std::move(dir)),
      keep_csv_(keep_csv),
      run_(std::move(run)),
      rows_(std::move(rows)),
      not_run_(std::move(not_run)) {
  std::error_code error;
  std::filesystem::create_directories(dir_, error);
  if (error) {
    throw std::runtime_error("cannot create the results folder " + dir_.string() + ": " +
                             error.message());
  }
  writeResultsCsv();
  // So that `benchd winners` on the folder decides with the thresholds the run decided with.
  const results::NoiseThresholds thresholds = store::noiseThresholdsOf(run_);
  writeFile(dir_ / "noise-thresholds.csv",
            [&thresholds](std::ostream& out) { results::writeNoiseThresholds(out, thresholds); });
}

void ResultsFolder::writeMeasuredNoiseThresholds(const results::NoiseThresholds& thresholds) const {
  writeFile(dir_ / "measured-noise-thresholds.csv",
            [&thresholds](std::ostream& out) { results::writeNoiseThresholds(out, thresholds); });
}

void ResultsFolder::writeResultsCsv() const {
  // results.csv holds one row per (scenario, approach), the median of its runs, so the
  // original's tools read it as they read their own; every run is in results-runs.csv, its
  // values exact, so that `benchd winners` on the folder tests what the run tested.
  const results::ResultsTable runs =
      results::toResultsTable(results_, results::ValueSpelling::kExact);
  writeFile(dir_ / "results.csv", [&runs](std::ostream& out) {
    results::writeResultsCsv(out, results::medianTable(runs));
  });
  if (run_.repeats > 1) {
    writeFile(dir_ / "results-runs.csv",
              [&runs](std::ostream& out) { results::writeResultsCsv(out, runs); });
  }
}

void ResultsFolder::addResult(const results::SummaryRow& row,
                              const std::vector<results::SecondRecord>& test_seconds) {
  results_.push_back(row);
  writeResultsCsv();
  // The per-second files keep a (scenario, approach)'s first run, as the charts do.
  if (keep_csv_ && !test_seconds.empty() &&
      row.round == 1) {  // a failed row keeps what it measured, if anything
    const std::filesystem::path scenario_dir = dir_ / row.scenario;
    std::filesystem::create_directories(scenario_dir);
    writeFile(scenario_dir / (row.approach + "-load.csv"),
              [&](std::ostream& out) { writeLoadCsv(out, test_seconds); });
    writeFile(scenario_dir / (row.approach + "-system.csv"),
              [&](std::ostream& out) { writeSystemCsv(out, test_seconds); });
  }
}

void ResultsFolder::finish(const std::vector<results::SummaryRow>& rows,
                           const std::vector<sampling::SpecEntry>& specs,
                           std::int64_t started_epoch_millis, std::int64_t finished_epoch_millis,
                           bool stopped) {
  results::ResultsDocument document;
  document.title = run_.scenario_set;
  document.started_epoch_millis = started_epoch_millis;
  document.finished_epoch_millis = finished_epoch_millis;
  document.stopped = stopped;
  document.resumes = run_.resumes;
  document.resumed_epoch_millis = run_.resumed_epoch_millis;
  for (const sampling::SpecEntry& entry : specs) {
    document.specs.emplace_back(entry.label, entry.value);
  }
  document.scenario_file = run_.scenario_file;
  document.settings_note = run_.options_text;
  document.rows = rows_;
  document.results = rows;
  document.not_run = not_run_;
  document.winners = results::decideRunWinners(rows, run_.approaches, run_.winner_rule,
                                               store::noiseThresholdsOf(run_));
  for (const char* image : {"results.png"}) {
    if (std::filesystem::exists(dir_ / image)) {
      document.images.insert(image);
    }
  }
  for (const results::SummaryRow& row : rows) {
    for (const std::string& image :
         {row.scenario + "/" + row.approach + ".png", row.scenario + "/capacity.png"}) {
      if (std::filesystem::exists(dir_ / image)) {
        document.images.insert(image);
      }
    }
  }
  writeFile(dir_ / "results.md",
            [&document](std::ostream& out) { results::writeResultsMarkdown(out, document); });
}

}  // namespace benchd::runner
