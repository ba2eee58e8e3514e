// results::presentSecond, the one view of a second that the REST API writes, benchd-report
// draws and benchd-gui decodes: bytes become MiB and microseconds seconds here and nowhere else,
// and what the rest of the host used takes the worker, benchd and the row's database out.
#include <benchd/common/units.hpp>
#include <benchd/results/presented_second.hpp>

#include <gtest/gtest.h>

namespace benchd::results {
namespace {

/// Two cores, the host 60 % busy; the worker 50 % of a core, benchd 10 %, PostgreSQL 40 %.
SecondRecord postgresSecond() {
  SecondRecord second;
  second.load.start_micros = 3'000'000;
  second.load.duration_micros = 1'000'000;
  second.load.counters.requests_ok = 400;
  second.system.host.cpus = 2;
  second.system.host.cpu_user_percent = 50.0;
  second.system.host.cpu_system_percent = 10.0;
  second.system.host.interval_seconds = 2.0;
  second.system.host.loopback_rx_bytes = 4 * 1024 * 1024;
  second.system.host.tcp_passive_opens = 30;
  second.system.worker.present = true;
  second.system.worker.cpu_percent = 50.0;
  second.system.worker.rss_bytes = 20 * 1024 * 1024;
  second.system.generator.present = true;
  second.system.generator.cpu_percent = 10.0;
  second.system.database.present = true;
  second.system.database.cpu_percent = 40.0;
  second.system.database.rss_bytes = 48 * 1024 * 1024;
  second.system.worker_stats = WorkerStats{0, 4 * 1024 * 1024, {}};
  return second;
}

TEST(PresentedSecond, BytesAreMebibytesAndMicrosecondsSeconds) {
  const PresentedSecond shown = presentSecond(postgresSecond());
  EXPECT_DOUBLE_EQ(shown.seconds, 4.0) << "the end of the interval";
  EXPECT_DOUBLE_EQ(shown.worker_rss_mib, 20.0);
  EXPECT_DOUBLE_EQ(shown.worker_heap_mib, 4.0);
  EXPECT_DOUBLE_EQ(shown.database_mib, 48.0);
  // Counts over the host's own interval (2 s here), not a nominal second.
  EXPECT_DOUBLE_EQ(shown.tcp_passive_opens_per_second, 15.0);
  EXPECT_DOUBLE_EQ(shown.loopback_rx_mbps, 4.0 / 2.0 * 8.0);
  EXPECT_DOUBLE_EQ(shown.ok_per_second, 400.0);
  EXPECT_DOUBLE_EQ(common::mebibytes(std::uint64_t{3} << 20), 3.0);
  EXPECT_DOUBLE_EQ(common::secondsOfMicros(2'500'000), 2.5);
}

TEST(PresentedSecond, TheRestOfTheHostLeavesOutTheWorkerBenchdAndTheDatabase) {
  SecondRecord second = postgresSecond();
  const PresentedSecond with_database = presentSecond(second);
  EXPECT_TRUE(with_database.database_present);
  EXPECT_DOUBLE_EQ(with_database.other_cpu_percent, 60.0 - (50.0 + 10.0 + 40.0) / 2.0);

  second.system.database = {};  // every row but a postgres row's
  const PresentedSecond without = presentSecond(second);
  EXPECT_FALSE(without.database_present);
  EXPECT_DOUBLE_EQ(without.database_mib, 0.0);
  EXPECT_DOUBLE_EQ(without.other_cpu_percent, 60.0 - (50.0 + 10.0) / 2.0);
}

TEST(PresentedSecond, AWorkerWithoutAStatsLineHasNoHeapYet) {
  SecondRecord second = postgresSecond();
  second.system.worker_stats.reset();
  EXPECT_DOUBLE_EQ(presentSecond(second).worker_heap_mib, 0.0);
}

}  // namespace
}  // namespace benchd::results
