#include "series_codec.hpp"

#include <benchd/sqlite/sqlite_connection.hpp>
#include <benchd/sqlite/sqlite_statement.hpp>

#include <algorithm>
#include <charconv>
#include <map>
#include <stdexcept>

namespace benchd::store {
namespace {

using sqlite::SqliteConnection;
using sqlite::SqliteStatement;

constexpr std::size_t kWordsPerBucket = 3;
constexpr std::size_t kBucketBytes = kWordsPerBucket * sizeof(std::uint64_t);

std::int64_t asInt(std::uint64_t value) {
  return static_cast<std::int64_t>(value);
}

std::uint64_t asCount(std::int64_t value) {
  return value < 0 ? 0 : static_cast<std::uint64_t>(value);
}

void appendWord(std::vector<std::byte>& out, std::uint64_t word) {
  for (std::size_t byte = 0; byte < sizeof(word); ++byte) {
    out.push_back(static_cast<std::byte>((word >> (8 * byte)) & 0xFFU));
  }
}

std::uint64_t readWord(std::span<const std::byte> in) {
  std::uint64_t word = 0;
  for (std::size_t byte = 0; byte < sizeof(word); ++byte) {
    word |= std::to_integer<std::uint64_t>(in[byte]) << (8 * byte);
  }
  return word;
}

/// Binds values to consecutive parameters, so a long INSERT reads as a list.
class Binder {
 public:
  explicit Binder(SqliteStatement& statement) : statement_(statement) {}
  Binder& integer(std::int64_t value) {
    statement_.bind(next_++, value);
    return *this;
  }
  Binder& count(std::uint64_t value) { return integer(asInt(value)); }
  Binder& real(double value) {
    statement_.bind(next_++, value);
    return *this;
  }
  Binder& text(std::string_view value) {
    statement_.bind(next_++, value);
    return *this;
  }
  Binder& digest(const results::LatencyDigest& digest) {
    return count(digest.count)
        .real(digest.min)
        .real(digest.p50)
        .real(digest.p90)
        .real(digest.p99)
        .real(digest.max);
  }
  Binder& process(const sampling::ProcessSample& sample) {
    return integer(sample.present ? 1 : 0)
        .real(sample.cpu_percent)
        .count(sample.cpu_micros)
        .count(sample.rss_bytes)
        .count(sample.threads)
        .count(sample.voluntary_context_switches)
        .count(sample.involuntary_context_switches)
        .count(sample.open_fds);
  }

 private:
  SqliteStatement& statement_;
  int next_ = 1;
};

/// Reads consecutive columns, mirroring Binder.
class Reader {
 public:
  explicit Reader(const SqliteStatement& statement, int first)
      : statement_(statement), next_(first) {}
  std::int64_t integer() { return statement_.columnInt64(next_++); }
  std::uint64_t count() { return asCount(integer()); }
  double real() { return statement_.columnDouble(next_++); }
  results::LatencyDigest digest() {
    results::LatencyDigest digest;
    digest.count = count();
    digest.min = real();
    digest.p50 = real();
    digest.p90 = real();
    digest.p99 = real();
    digest.max = real();
    return digest;
  }
  sampling::ProcessSample process() {
    sampling::ProcessSample sample;
    sample.present = integer() != 0;
    sample.cpu_percent = real();
    sample.cpu_micros = count();
    sample.rss_bytes = count();
    sample.threads = count();
    sample.voluntary_context_switches = count();
    sample.involuntary_context_switches = count();
    sample.open_fds = count();
    return sample;
  }
  [[nodiscard]] int position() const { return next_; }

 private:
  const SqliteStatement& statement_;
  int next_;
};

std::string encodeCounters(const std::vector<std::pair<std::string, std::int64_t>>& counters) {
  std::string text;
  for (const auto& [name, value] : counters) {
    text += name + "=" + std::to_string(value) + "\n";
  }
  return text;
}

std::vector<std::pair<std::string, std::int64_t>> decodeCounters(std::string_view text) {
  std::vector<std::pair<std::string, std::int64_t>> counters;
  while (!text.empty()) {
    const std::size_t end = text.find('\n');
    const std::string_view line = text.substr(0, end);
    const std::size_t equals = line.find('=');
    if (equals != std::string_view::npos) {
      std::int64_t value = 0;
      std::from_chars(line.data() + equals + 1, line.data() + line.size(), value);
      counters.emplace_back(std::string(line.substr(0, equals)), value);
    }
    text = end == std::string_view::npos ? std::string_view{} : text.substr(end + 1);
  }
  return counters;
}

constexpr std::string_view kLoadColumns =
    "start_micros, duration_micros, end_epoch_millis, requests_sent, requests_ok, "
    "requests_requested, errors_connection_refused, errors_connect_timeout, "
    "errors_connection_reset, errors_request_timeout, errors_http_4xx, errors_http_5xx, "
    "errors_other, bytes_sent, bytes_received, connects, dropped_arrivals, late_arrivals, "
    "interrupted_requests, achieved_requests_per_second, intended_requests_per_second, "
    "active_vus, generator_cpu_percent, latency_count, latency_min, latency_p50, latency_p90, "
    "latency_p99, latency_max, uncorrected_count, uncorrected_min, uncorrected_p50, "
    "uncorrected_p90, uncorrected_p99, uncorrected_max, latency_buckets";
constexpr int kLoadColumnCount = 36;

constexpr std::string_view kSystemColumns =
    "epoch_millis, host_interval_seconds, host_cpu_user_percent, host_cpu_system_percent, "
    "host_cpu_iowait_percent, host_ram_used_percent, host_tcp_sockets_in_use, "
    "host_loopback_rx_bytes, host_loopback_tx_bytes, host_loopback_rx_packets, "
    "host_loopback_tx_packets, host_tcp_active_opens, host_tcp_passive_opens, worker_present, "
    "worker_cpu_percent, worker_cpu_micros, worker_rss_bytes, worker_threads, "
    "worker_voluntary_context_switches, worker_involuntary_context_switches, worker_open_fds, "
    "generator_present, generator_cpu_percent, generator_cpu_micros, generator_rss_bytes, "
    "generator_threads, generator_voluntary_context_switches, "
    "generator_involuntary_context_switches, generator_open_fds, worker_stats_epoch_millis, "
    "worker_heap_bytes, worker_counters, host_cpus, host_ram_total_bytes, database_present, "
    "database_cpu_percent, database_cpu_micros, database_rss_bytes, database_processes";
constexpr int kSystemColumnCount = 39;

/// "a, b" with prefix "l." -> "l.a, l.b": the two tables share some column names.
std::string qualified(std::string_view columns, std::string_view prefix) {
  std::string text;
  while (!columns.empty()) {
    const std::size_t comma = columns.find(',');
    std::string_view name = columns.substr(0, comma);
    while (!name.empty() && name.front() == ' ') {
      name.remove_prefix(1);
    }
    text += (text.empty() ? "" : ", ") + std::string(prefix) + std::string(name);
    columns = comma == std::string_view::npos ? std::string_view{} : columns.substr(comma + 1);
  }
  return text;
}

std::string placeholders(int count) {
  std::string text;
  for (int index = 0; index < count; ++index) {
    text += index == 0 ? "?" : ", ?";
  }
  return text;
}

}  // namespace

std::vector<std::byte> encodeBuckets(std::span<const measurement::HistogramBucket> buckets) {
  std::vector<std::byte> blob;
  blob.reserve(buckets.size() * kBucketBytes);
  for (const measurement::HistogramBucket& bucket : buckets) {
    appendWord(blob, bucket.lowest_micros);
    appendWord(blob, bucket.highest_micros);
    appendWord(blob, bucket.count);
  }
  return blob;
}

std::vector<measurement::HistogramBucket> decodeBuckets(std::span<const std::byte> blob) {
  if (blob.size() % kBucketBytes != 0) {
    throw std::runtime_error("latency bucket BLOB of " + std::to_string(blob.size()) +
                             " bytes is not a whole number of 24-byte buckets");
  }
  std::vector<measurement::HistogramBucket> buckets;
  buckets.reserve(blob.size() / kBucketBytes);
  for (std::size_t offset = 0; offset < blob.size(); offset += kBucketBytes) {
    measurement::HistogramBucket bucket;
    bucket.lowest_micros = readWord(blob.subspan(offset));
    bucket.highest_micros = readWord(blob.subspan(offset + 8));
    bucket.count = readWord(blob.subspan(offset + 16));
    buckets.push_back(bucket);
  }
  return buckets;
}

void insertLoadSecond(SqliteConnection& connection, std::int64_t result,
                      const results::LoadSecond& second) {
  SqliteStatement insert = connection.prepare("INSERT INTO load_second (result_id, phase, idx, " +
                                              std::string(kLoadColumns) + ") VALUES (?, ?, ?, " +
                                              placeholders(kLoadColumnCount) + ")");
  const measurement::LoadCounters& counters = second.counters;
  Binder bind(insert);
  bind.integer(result)
      .text(measurement::phaseKindName(second.phase))
      .integer(second.index)
      .integer(second.start_micros)
      .integer(second.duration_micros)
      .integer(second.end_epoch_millis)
      .count(counters.requests_sent)
      .count(counters.requests_ok)
      .count(counters.requests_requested);
  for (const std::uint64_t errors : counters.errors.by_class) {
    bind.count(errors);
  }
  bind.count(counters.bytes_sent)
      .count(counters.bytes_received)
      .count(counters.connects)
      .count(counters.dropped_arrivals)
      .count(counters.late_arrivals)
      .count(counters.interrupted_requests)
      .real(second.achieved_requests_per_second)
      .real(second.intended_requests_per_second)
      .integer(second.active_vus)
      .real(second.generator_cpu_percent)
      .digest(second.latency)
      .digest(second.uncorrected_latency);
  insert.bindBlob(3 + kLoadColumnCount, encodeBuckets(second.latency_buckets));
  insert.run();
}

void insertSystemSecond(SqliteConnection& connection, std::int64_t result,
                        measurement::PhaseKind phase, std::uint32_t index,
                        const results::SystemSample& sample) {
  SqliteStatement insert = connection.prepare("INSERT INTO system_second (result_id, phase, idx, " +
                                              std::string(kSystemColumns) + ") VALUES (?, ?, ?, " +
                                              placeholders(kSystemColumnCount) + ")");
  const sampling::HostSample& host = sample.host;
  Binder bind(insert);
  bind.integer(result)
      .text(measurement::phaseKindName(phase))
      .integer(index)
      .integer(sample.epoch_millis)
      .real(host.interval_seconds)
      .real(host.cpu_user_percent)
      .real(host.cpu_system_percent)
      .real(host.cpu_iowait_percent)
      .real(host.ram_used_percent)
      .count(host.tcp_sockets_in_use)
      .count(host.loopback_rx_bytes)
      .count(host.loopback_tx_bytes)
      .count(host.loopback_rx_packets)
      .count(host.loopback_tx_packets)
      .count(host.tcp_active_opens)
      .count(host.tcp_passive_opens)
      .process(sample.worker)
      .process(sample.generator);
  // The worker's stats (three columns, null before its first stats line), then the host's size
  // (schema 5), then the database (schema 6).
  constexpr int kStatsColumn = 3 + kSystemColumnCount - 9;
  if (sample.worker_stats) {
    insert.bind(kStatsColumn, sample.worker_stats->epoch_millis);
    insert.bind(kStatsColumn + 1, sample.worker_stats->heap_bytes);
    insert.bind(kStatsColumn + 2, std::string_view(encodeCounters(sample.worker_stats->counters)));
  } else {
    insert.bindNull(kStatsColumn);
    insert.bindNull(kStatsColumn + 1);
    insert.bindNull(kStatsColumn + 2);
  }
  insert.bind(kStatsColumn + 3, std::int64_t{host.cpus});
  insert.bind(kStatsColumn + 4, static_cast<std::int64_t>(host.ram_total_bytes));
  const sampling::ProcessSample& database = sample.database;
  insert.bind(kStatsColumn + 5, std::int64_t{database.present ? 1 : 0});
  insert.bind(kStatsColumn + 6, database.cpu_percent);
  insert.bind(kStatsColumn + 7, static_cast<std::int64_t>(database.cpu_micros));
  insert.bind(kStatsColumn + 8, static_cast<std::int64_t>(database.rss_bytes));
  insert.bind(kStatsColumn + 9, static_cast<std::int64_t>(database.threads));
  insert.run();
}

std::vector<results::SecondRecord> selectSeconds(SqliteConnection& connection, std::int64_t result,
                                                 measurement::PhaseKind phase) {
  SqliteStatement select = connection.prepare(
      "SELECT l.idx, " + qualified(kLoadColumns, "l.") + ", " + qualified(kSystemColumns, "s.") +
      " FROM load_second l JOIN system_second s USING (result_id, phase, idx) "
      "WHERE l.result_id = ? AND l.phase = ? ORDER BY l.idx");
  select.bind(1, result);
  select.bind(2, measurement::phaseKindName(phase));
  std::vector<results::SecondRecord> seconds;
  while (select.step()) {
    results::SecondRecord record;
    results::LoadSecond& load = record.load;
    load.phase = phase;
    Reader read(select, 0);
    load.index = static_cast<std::uint32_t>(read.integer());
    load.start_micros = read.integer();
    load.duration_micros = read.integer();
    load.end_epoch_millis = read.integer();
    load.counters.requests_sent = read.count();
    load.counters.requests_ok = read.count();
    load.counters.requests_requested = read.count();
    for (std::uint64_t& errors : load.counters.errors.by_class) {
      errors = read.count();
    }
    load.counters.bytes_sent = read.count();
    load.counters.bytes_received = read.count();
    load.counters.connects = read.count();
    load.counters.dropped_arrivals = read.count();
    load.counters.late_arrivals = read.count();
    load.counters.interrupted_requests = read.count();
    load.achieved_requests_per_second = read.real();
    load.intended_requests_per_second = read.real();
    load.active_vus = static_cast<std::uint32_t>(read.integer());
    load.generator_cpu_percent = read.real();
    load.latency = read.digest();
    load.uncorrected_latency = read.digest();
    load.latency_buckets = decodeBuckets(select.columnBlob(read.position()));

    results::SystemSample& system = record.system;
    Reader sys(select, 1 + kLoadColumnCount);
    system.epoch_millis = sys.integer();
    sampling::HostSample& host = system.host;
    host.epoch_millis = system.epoch_millis;
    host.interval_seconds = sys.real();
    host.cpu_user_percent = sys.real();
    host.cpu_system_percent = sys.real();
    host.cpu_iowait_percent = sys.real();
    host.ram_used_percent = sys.real();
    host.tcp_sockets_in_use = sys.count();
    host.loopback_rx_bytes = sys.count();
    host.loopback_tx_bytes = sys.count();
    host.loopback_rx_packets = sys.count();
    host.loopback_tx_packets = sys.count();
    host.tcp_active_opens = sys.count();
    host.tcp_passive_opens = sys.count();
    system.worker = sys.process();
    system.generator = sys.process();
    const int stats_column = sys.position();
    if (!select.columnIsNull(stats_column)) {
      results::WorkerStats stats;
      stats.epoch_millis = select.columnInt64(stats_column);
      stats.heap_bytes = select.columnInt64(stats_column + 1);
      stats.counters = decodeCounters(select.columnText(stats_column + 2));
      system.worker_stats = std::move(stats);
    }
    host.cpus =
        static_cast<std::uint32_t>(std::max<std::int64_t>(0, select.columnInt64(stats_column + 3)));
    host.ram_total_bytes =
        static_cast<std::uint64_t>(std::max<std::int64_t>(0, select.columnInt64(stats_column + 4)));
    const auto nonNegative = [&select](int column) {
      return static_cast<std::uint64_t>(std::max<std::int64_t>(0, select.columnInt64(column)));
    };
    sampling::ProcessSample& database = system.database;
    database.present = select.columnInt64(stats_column + 5) != 0;
    database.cpu_percent = select.columnDouble(stats_column + 6);
    database.cpu_micros = nonNegative(stats_column + 7);
    database.rss_bytes = nonNegative(stats_column + 8);
    database.threads = nonNegative(stats_column + 9);
    seconds.push_back(std::move(record));
  }
  return seconds;
}

namespace {

std::string number(double value) {
  char buffer[64];
  const auto [end, error] = std::to_chars(buffer, buffer + sizeof(buffer), value);
  return error == std::errc{} ? std::string(buffer, end) : "0";
}

double parseNumber(const std::string& text) {
  double value = 0.0;
  std::from_chars(text.data(), text.data() + text.size(), value);
  return value;
}

}  // namespace

std::vector<std::pair<std::string, std::string>> diagnosticsToPairs(const results::Diagnostics& d) {
  return {
      {"generator_cpu_percent_avg", number(d.generator_cpu_percent_avg)},
      {"generator_cpu_percent_max", number(d.generator_cpu_percent_max)},
      {"generator_cores", std::to_string(d.generator_cores)},
      {"achieved_requests_per_second", number(d.achieved_requests_per_second)},
      {"intended_requests_per_second", number(d.intended_requests_per_second)},
      {"dropped_arrivals", std::to_string(d.dropped_arrivals)},
      {"late_arrivals", std::to_string(d.late_arrivals)},
      {"interrupted_requests", std::to_string(d.interrupted_requests)},
      {"open_model", d.open_model ? "1" : "0"},
      {"uncorrected_latency_millis_p50", number(d.uncorrected_latency_millis_p50)},
      {"uncorrected_latency_millis_p99", number(d.uncorrected_latency_millis_p99)},
      {"uncorrected_latency_millis_max", number(d.uncorrected_latency_millis_max)},
      {"generator_saturated", d.generator_saturated ? "1" : "0"},
      {"saturation_reason", d.saturation_reason},
      {"errors_by_class", d.errors_by_class},
      {"worker_stop", d.worker_stop},
      {"other_cpu_percent_avg", number(d.other_cpu_percent_avg)},
      {"other_cpu_percent_max", number(d.other_cpu_percent_max)},
      {"other_ram_percent_avg", number(d.other_ram_percent_avg)},
      {"other_ram_percent_max", number(d.other_ram_percent_max)},
      {"database_sampled", d.database_sampled ? "1" : "0"},
      {"database_cpu_percent_avg", number(d.database_cpu_percent_avg)},
      {"database_cpu_percent_max", number(d.database_cpu_percent_max)},
      {"database_mib_max", number(d.database_mib_max)},
      {"memory_cap_bytes", std::to_string(d.memory_cap_bytes)},
      {"memory_peak_bytes", std::to_string(d.memory_peak_bytes)},
  };
}

results::Diagnostics diagnosticsFromPairs(
    const std::vector<std::pair<std::string, std::string>>& pairs) {
  const std::map<std::string, std::string> by_name(pairs.begin(), pairs.end());
  const auto text = [&by_name](const char* name) {
    const auto found = by_name.find(name);
    return found == by_name.end() ? std::string() : found->second;
  };
  const auto real = [&text](const char* name) { return parseNumber(text(name)); };
  const auto whole = [&real](const char* name) {
    return static_cast<std::uint64_t>(std::max(0.0, real(name)));
  };
  results::Diagnostics d;
  d.generator_cpu_percent_avg = real("generator_cpu_percent_avg");
  d.generator_cpu_percent_max = real("generator_cpu_percent_max");
  d.other_cpu_percent_avg = real("other_cpu_percent_avg");
  d.other_cpu_percent_max = real("other_cpu_percent_max");
  d.other_ram_percent_avg = real("other_ram_percent_avg");
  d.other_ram_percent_max = real("other_ram_percent_max");
  d.database_sampled = text("database_sampled") == "1";
  d.database_cpu_percent_avg = real("database_cpu_percent_avg");
  d.database_cpu_percent_max = real("database_cpu_percent_max");
  d.database_mib_max = real("database_mib_max");
  d.generator_cores = static_cast<std::uint32_t>(whole("generator_cores"));
  d.achieved_requests_per_second = real("achieved_requests_per_second");
  d.intended_requests_per_second = real("intended_requests_per_second");
  d.dropped_arrivals = whole("dropped_arrivals");
  d.late_arrivals = whole("late_arrivals");
  d.interrupted_requests = whole("interrupted_requests");
  d.open_model = text("open_model") == "1";
  d.uncorrected_latency_millis_p50 = real("uncorrected_latency_millis_p50");
  d.uncorrected_latency_millis_p99 = real("uncorrected_latency_millis_p99");
  d.uncorrected_latency_millis_max = real("uncorrected_latency_millis_max");
  d.generator_saturated = text("generator_saturated") == "1";
  d.saturation_reason = text("saturation_reason");
  d.errors_by_class = text("errors_by_class");
  d.worker_stop = text("worker_stop");
  d.memory_cap_bytes = whole("memory_cap_bytes");
  d.memory_peak_bytes = whole("memory_peak_bytes");
  return d;
}

std::vector<std::pair<std::string, std::string>> capacityToPairs(
    const std::optional<results::CapacityResult>& capacity) {
  if (!capacity) {
    return {};
  }
  return {
      {"capacity_goal", capacity->goal},
      {"capacity_requests_per_second", number(capacity->requests_per_second)},
      {"capacity_failed_at", number(capacity->failed_at)},
      {"capacity_verdict", capacity->verdict},
      {"capacity_trials", std::to_string(capacity->trials)},
      {"capacity_resolution", number(capacity->resolution)},
  };
}

std::optional<results::CapacityResult> capacityFromPairs(
    const std::vector<std::pair<std::string, std::string>>& pairs) {
  const std::map<std::string, std::string> by_name(pairs.begin(), pairs.end());
  const auto text = [&by_name](const char* name) {
    const auto found = by_name.find(name);
    return found == by_name.end() ? std::string() : found->second;
  };
  if (!by_name.contains("capacity_verdict")) {
    return std::nullopt;
  }
  results::CapacityResult capacity;
  capacity.goal = text("capacity_goal");
  capacity.requests_per_second = parseNumber(text("capacity_requests_per_second"));
  capacity.failed_at = parseNumber(text("capacity_failed_at"));
  capacity.verdict = text("capacity_verdict");
  capacity.trials = static_cast<std::uint32_t>(std::max(0.0, parseNumber(text("capacity_trials"))));
  capacity.resolution = parseNumber(text("capacity_resolution"));
  return capacity;
}

}  // namespace benchd::store
