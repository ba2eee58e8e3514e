#include "temp_dir.hpp"

#include <benchd/sampling/host_sampler.hpp>
#include <benchd/sampling/proc_parsers.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <system_error>

namespace benchd::sampling {
namespace {

using namespace std::chrono_literals;

/// Time moves only when the test says so.
class ManualClock final : public Clock {
 public:
  [[nodiscard]] std::chrono::steady_clock::time_point steadyNow() const override {
    return std::chrono::steady_clock::time_point(std::chrono::milliseconds(millis_.load()));
  }
  [[nodiscard]] std::int64_t epochMillis() const override {
    return 1'700'000'000'000 + millis_.load();
  }
  void advance(std::chrono::milliseconds by) { millis_ += by.count(); }

 private:
  std::atomic<std::int64_t> millis_{0};
};

/// The five files HostSampler reads, with the counters a test changes between samples.
struct HostCountersText {
  std::uint64_t user = 1000, nice = 0, system = 500, idle = 8000, iowait = 100, irq = 0,
                softirq = 20, steal = 0, guest = 0;
  std::uint64_t mem_total_kb = 1000000, mem_available_kb = 750000;
  std::uint64_t tcp_inuse = 5;
  std::uint64_t lo_rx_bytes = 1000, lo_rx_packets = 10, lo_tx_bytes = 1000, lo_tx_packets = 10;
  std::uint64_t active_opens = 13, passive_opens = 2;

  void writeTo(const benchd::testing::TempDir& dir) const {
    const auto n = [](std::uint64_t v) { return std::to_string(v); };
    dir.write("stat", "cpu  " + n(user) + " " + n(nice) + " " + n(system) + " " + n(idle) + " " +
                          n(iowait) + " " + n(irq) + " " + n(softirq) + " " + n(steal) + " " +
                          n(guest) + " 0\ncpu0 1 2 3 4 5 6 7 8 0 0\nctxt 12345\n");
    dir.write("meminfo", "MemTotal:       " + n(mem_total_kb) +
                             " kB\nMemFree:         1000 kB\nMemAvailable:   " +
                             n(mem_available_kb) + " kB\n");
    dir.write("net/sockstat", "sockets: used 40\nTCP: inuse " + n(tcp_inuse) +
                                  " orphan 0 tw 0 alloc 6 mem 1\nUDP: inuse 0 mem 0\n");
    dir.write("net/dev",
              "Inter-|   Receive                                                |  Transmit\n"
              " face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets "
              "errs drop fifo colls carrier compressed\n"
              "    lo: " +
                  n(lo_rx_bytes) + " " + n(lo_rx_packets) + " 0 0 0 0 0 0 " + n(lo_tx_bytes) + " " +
                  n(lo_tx_packets) +
                  " 0 0 0 0 0 0\n"
                  "  eth0: 999999 999 0 0 0 0 0 0 888888 888 0 0 0 0 0 0\n");
    dir.write("net/snmp",
              "Ip: Forwarding DefaultTTL\nIp: 1 64\n"
              "Tcp: RtoAlgorithm RtoMin RtoMax MaxConn ActiveOpens PassiveOpens AttemptFails\n"
              "Tcp: 1 200 120000 -1 " +
                  n(active_opens) + " " + n(passive_opens) + " 0\n");
  }
};

class HostSamplerTest : public ::testing::Test {
 protected:
  HostSamplerTest() { counters_.writeTo(dir_); }

  HostSampler makeSampler() {
    HostSamplerOptions options;
    options.proc_root = dir_.path();
    options.clock = clock_;
    return HostSampler(options);
  }

  benchd::testing::TempDir dir_;
  std::shared_ptr<ManualClock> clock_ = std::make_shared<ManualClock>();
  HostCountersText counters_;
};

TEST_F(HostSamplerTest, FirstSampleCoversTheTimeSinceConstruction) {
  HostSampler sampler = makeSampler();
  clock_->advance(1000ms);
  // 200 jiffies over the interval: user 30, nice 10, system 20, iowait 10, irq 2, softirq 8,
  // steal 0, idle 120; guest 4 is inside user and must not enlarge the total. As sar -u: user
  // 30 (nice apart), system 20 + 2 + 8 = 30.
  counters_.user += 30;
  counters_.guest += 4;
  counters_.nice += 10;
  counters_.system += 20;
  counters_.iowait += 10;
  counters_.irq += 2;
  counters_.softirq += 8;
  counters_.idle += 120;
  counters_.mem_available_kb = 600000;
  counters_.tcp_inuse = 42;
  counters_.lo_rx_bytes += 5000;
  counters_.lo_tx_bytes += 5001;
  counters_.lo_rx_packets += 50;
  counters_.lo_tx_packets += 51;
  counters_.active_opens += 7;
  counters_.passive_opens += 6;
  counters_.writeTo(dir_);

  const HostSample sample = sampler.sample();
  EXPECT_EQ(sample.epoch_millis, 1'700'000'001'000);
  EXPECT_DOUBLE_EQ(sample.interval_seconds, 1.0);
  EXPECT_DOUBLE_EQ(sample.cpu_user_percent, 15.0);
  EXPECT_DOUBLE_EQ(sample.cpu_system_percent, 15.0);
  EXPECT_DOUBLE_EQ(sample.cpu_iowait_percent, 5.0);
  EXPECT_DOUBLE_EQ(sample.ram_used_percent, 40.0);
  EXPECT_EQ(sample.ram_total_bytes, 1'000'000U * 1024);
  EXPECT_EQ(sample.cpus, 1U);  // the fixture's stat has one per-CPU line
  EXPECT_EQ(sample.tcp_sockets_in_use, 42U);
  EXPECT_EQ(sample.loopback_rx_bytes, 5000U);
  EXPECT_EQ(sample.loopback_tx_bytes, 5001U);
  EXPECT_EQ(sample.loopback_rx_packets, 50U);
  EXPECT_EQ(sample.loopback_tx_packets, 51U);
  EXPECT_EQ(sample.tcp_active_opens, 7U);
  EXPECT_EQ(sample.tcp_passive_opens, 6U);
}

TEST_F(HostSamplerTest, ConsecutiveSamplesCoverConsecutiveIntervals) {
  HostSampler sampler = makeSampler();
  clock_->advance(1000ms);
  counters_.lo_rx_bytes += 100;
  counters_.idle += 100;
  counters_.writeTo(dir_);
  EXPECT_EQ(sampler.sample().loopback_rx_bytes, 100U);

  clock_->advance(500ms);
  counters_.lo_rx_bytes += 30;
  counters_.user += 50;
  counters_.idle += 50;
  counters_.writeTo(dir_);
  const HostSample second = sampler.sample();
  EXPECT_EQ(second.loopback_rx_bytes, 30U);
  EXPECT_DOUBLE_EQ(second.interval_seconds, 0.5);
  EXPECT_DOUBLE_EQ(second.cpu_user_percent, 50.0);

  clock_->advance(1000ms);  // nothing changed
  const HostSample idle = sampler.sample();
  EXPECT_EQ(idle.loopback_rx_bytes, 0U);
  EXPECT_DOUBLE_EQ(idle.cpu_user_percent, 0.0);  // no jiffies at all: 0, not NaN
  EXPECT_EQ(idle.tcp_sockets_in_use, 5U);        // a level, not a delta
}

TEST_F(HostSamplerTest, CountersGoingBackwardsCountZero) {
  HostSampler sampler = makeSampler();
  clock_->advance(1000ms);
  counters_.lo_rx_bytes = 10;  // interface re-created
  counters_.lo_tx_bytes += 7;
  counters_.iowait -= 50;  // Linux may decrease iowait
  counters_.user += 100;
  counters_.idle += 100;
  counters_.writeTo(dir_);
  const HostSample sample = sampler.sample();
  EXPECT_EQ(sample.loopback_rx_bytes, 0U);
  EXPECT_EQ(sample.loopback_tx_bytes, 7U);
  EXPECT_DOUBLE_EQ(sample.cpu_iowait_percent, 0.0);
  EXPECT_DOUBLE_EQ(sample.cpu_user_percent, 50.0);  // the decrease does not shrink the total

  clock_->advance(1000ms);
  counters_.lo_rx_bytes += 25;  // counts from the new value
  counters_.writeTo(dir_);
  EXPECT_EQ(sampler.sample().loopback_rx_bytes, 25U);
}

TEST_F(HostSamplerTest, MalformedFileThrowsAndKeepsThePreviousCounters) {
  HostSampler sampler = makeSampler();
  clock_->advance(1000ms);
  counters_.lo_rx_bytes += 100;
  counters_.writeTo(dir_);
  dir_.write("net/snmp", "Tcp: ActiveOpens PassiveOpens\n");
  try {
    (void)sampler.sample();
    ADD_FAILURE() << "expected ProcFormatError";
  } catch (const ProcFormatError& error) {
    EXPECT_NE(std::string(error.what()).find((dir_.path() / "net/snmp").string()),
              std::string::npos)
        << error.what();
  }

  clock_->advance(1000ms);
  counters_.lo_rx_bytes += 20;
  counters_.writeTo(dir_);
  const HostSample sample = sampler.sample();
  EXPECT_EQ(sample.loopback_rx_bytes, 120U);  // since the last successful sample
  EXPECT_DOUBLE_EQ(sample.interval_seconds, 2.0);
}

TEST_F(HostSamplerTest, MissingFileThrowsSystemErrorNamingIt) {
  HostSampler sampler = makeSampler();
  std::filesystem::remove(dir_.path() / "meminfo");
  try {
    (void)sampler.sample();
    ADD_FAILURE() << "expected std::system_error";
  } catch (const std::system_error& error) {
    EXPECT_EQ(error.code(), std::errc::no_such_file_or_directory);
    EXPECT_NE(std::string(error.what()).find("meminfo"), std::string::npos) << error.what();
  }
}

TEST_F(HostSamplerTest, UnknownInterfaceFailsAtConstruction) {
  HostSamplerOptions options;
  options.proc_root = dir_.path();
  options.interface = "lo0";
  EXPECT_THROW(HostSampler{options}, ProcFormatError);
}

TEST(HostSamplerReal, ReadsThisMachine) {
  HostSampler sampler;
  const HostSample sample = sampler.sample();
  EXPECT_GE(sample.interval_seconds, 0.0);
  EXPECT_GT(sample.ram_used_percent, 0.0);
  EXPECT_LT(sample.ram_used_percent, 100.0);
  EXPECT_GT(sample.ram_total_bytes, 0U);
  EXPECT_GE(sample.cpus, 1U);
  EXPECT_LE(sample.cpu_user_percent + sample.cpu_system_percent + sample.cpu_iowait_percent,
            100.0 + 1e-9);
  EXPECT_GT(sample.epoch_millis, 1'600'000'000'000);
}

}  // namespace
}  // namespace benchd::sampling
