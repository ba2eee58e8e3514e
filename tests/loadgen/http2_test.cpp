// The load generator over HTTP/2 (RequestTarget::http2 and streams_per_connection)
// against real benchd-workers serving coroutines-asio under h2c and h2: the streams each
// connection carries, both load models, request-count mode, a stream cut off by its deadline,
// and a server that does not speak HTTP/2.
#include "engine_test_support.hpp"
#include "temp_dir.hpp"
#include "worker_process.hpp"

#include <benchd/tls/tls_identity.hpp>

#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <stdexcept>
#include <string>

namespace benchd::loadgen {
namespace {

using namespace std::chrono_literals;
using benchd::testing::WorkerProcess;
using benchd::testing::WorkerStats;
using scenario::ExecutorKind;
using testing::runWorkload;
using testing::subScenario;
using testing::testOptions;
using testing::workloadOf;

constexpr const char* kPlugin = "coroutines-asio";

/// One worker per profile for the whole file: "h2c" in clear, "h2" with a fresh identity.
class Http2Workers : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    h2c_ = WorkerProcess::serve(kPlugin, {"--threads", "1", "--profile", "h2c"}).release();
    identity_dir_ = new benchd::testing::TempDir();
    tls::IdentityRequest request;
    request.common_name = "benchd loadgen h2 test";
    request.addresses = {"127.0.0.1"};
    const auto files =
        tls::writeIdentity(tls::makeSelfSignedIdentity(request), identity_dir_->path());
    const std::vector<std::string> tls_files = {"--tls-cert", files.certificate.string(),
                                                "--tls-key", files.private_key.string()};
    std::vector<std::string> h2 = {"--threads", "1", "--profile", "h2"};
    h2.insert(h2.end(), tls_files.begin(), tls_files.end());
    h2_ = WorkerProcess::serve(kPlugin, h2).release();
    std::vector<std::string> h1 = {"--threads", "1", "--profile", "tls"};
    h1.insert(h1.end(), tls_files.begin(), tls_files.end());
    tls_only_ = WorkerProcess::serve(kPlugin, h1).release();
    for (WorkerProcess* worker : {h2c_, h2_, tls_only_})
      ASSERT_TRUE(worker->waitReady()) << worker->stderrText();
  }
  static void TearDownTestSuite() {
    delete h2c_;
    delete h2_;
    delete tls_only_;
    delete identity_dir_;
  }

  /// A target on `worker` speaking HTTP/2 (over TLS when `tls`), `streams` per connection.
  static RequestTarget target(const WorkerProcess& worker, bool tls, std::uint32_t delay_millis,
                              std::uint32_t streams) {
    RequestTarget target;
    target.streams_per_connection = streams;
    target.port = worker.port();
    target.approach = kPlugin;
    target.delay_millis = delay_millis;
    target.tls = tls;
    target.http2 = true;
    return target;
  }

  static inline WorkerProcess* h2c_ = nullptr;
  static inline WorkerProcess* h2_ = nullptr;
  static inline WorkerProcess* tls_only_ = nullptr;
  static inline benchd::testing::TempDir* identity_dir_ = nullptr;
};

TEST_F(Http2Workers, EachConnectionCarriesItsStreamsInTheClosedModel) {
  // 3 connections of 10 streams, 200 ms per request, 2 s: 30 requests in flight at once, about
  // 300 in all, over 3 connects.
  const auto phase = runWorkload(workloadOf({subScenario(ExecutorKind::kConstantVus)}), 3,
                                 std::nullopt, 2, target(*h2c_, false, 200, 10), testOptions());
  const measurement::PhaseResult& result = phase.result;
  EXPECT_EQ(result.totals.errors.total(), 0U);
  EXPECT_EQ(result.totals.connects, 3U);
  EXPECT_EQ(result.peak_active_vus, 30U);
  EXPECT_GE(result.totals.requests_ok, 240U);
  EXPECT_LE(result.totals.requests_ok, 330U);
  EXPECT_GE(result.latency.min(), 200'000U);
}

TEST_F(Http2Workers, RequestCountModeSendsExactlyNOverTls) {
  EngineOptions options = testOptions();
  options.request_limit = 2'000;
  const auto phase = runWorkload(workloadOf({subScenario(ExecutorKind::kConstantVus)}), 4,
                                 std::nullopt, 30, target(*h2_, true, 0, 20), options);
  const measurement::LoadCounters& totals = phase.result.totals;
  EXPECT_EQ(totals.requests_sent, 2'000U);
  EXPECT_EQ(totals.requests_ok, 2'000U);
  EXPECT_EQ(totals.errors.total(), 0U);
  EXPECT_EQ(totals.connects, 4U);
}

TEST_F(Http2Workers, TheOpenModelSendsItsRateOnStreamsAndTimesThemFromTheirIntendedTime) {
  // 2 connections of 20 streams, 50 ms requests, 300 arrivals per second: at most 15 in flight.
  const auto phase = runWorkload(workloadOf({subScenario(ExecutorKind::kConstantArrivalRate)}), 2,
                                 300, 2, target(*h2_, true, 50, 20), testOptions());
  const measurement::PhaseResult& result = phase.result;
  EXPECT_EQ(result.totals.errors.total(), 0U);
  EXPECT_EQ(result.totals.dropped_arrivals, 0U);
  EXPECT_NEAR(static_cast<double>(result.totals.requests_sent), 600.0, 30.0);
  EXPECT_LE(result.totals.connects, 2U);
  EXPECT_EQ(result.uncorrected_latency.count(), result.latency.count());
  EXPECT_GE(result.uncorrected_latency.min(), 50'000U);
  EXPECT_GE(result.latency.valueAtPercentile(50), result.uncorrected_latency.valueAtPercentile(50));
}

TEST_F(Http2Workers, AStreamPastItsDeadlineIsResetAndItsConnectionStays) {
  // 2 s requests against a 300 ms timeout: each stream is reset (the server's wait ends), the
  // connection carries the next stream.
  const auto phase =
      runWorkload(workloadOf({subScenario(ExecutorKind::kConstantVus)}), 1, std::nullopt, 2,
                  target(*h2c_, false, 2'000, 4), testOptions(300ms));
  const measurement::LoadCounters& totals = phase.result.totals;
  EXPECT_GE(totals.errors[measurement::ErrorClass::kRequestTimeout], 8U);
  EXPECT_EQ(totals.errors.total(), totals.errors[measurement::ErrorClass::kRequestTimeout]);
  EXPECT_EQ(totals.connects, 1U) << "a reset stream must not cost its connection";
  EXPECT_TRUE(h2c_->waitStats(
      [](const WorkerStats& s) { return s.counter("requests_in_flight") == 0; }, 3s))
      << "the server still waits for streams the generator reset";
}

TEST_F(Http2Workers, AServerThatDoesNotChooseH2FailsEveryRequestWithoutHanging) {
  // A `tls` worker answers ALPN with http/1.1 only; an h2 client cannot go on.
  const auto phase = runWorkload(workloadOf({subScenario(ExecutorKind::kConstantVus)}), 2,
                                 std::nullopt, 1, target(*tls_only_, true, 0, 5), testOptions());
  const measurement::LoadCounters& totals = phase.result.totals;
  EXPECT_EQ(totals.requests_ok, 0U);
  EXPECT_GT(totals.errors[measurement::ErrorClass::kOther], 0U);
  EXPECT_EQ(totals.errors.total(), totals.errors[measurement::ErrorClass::kOther]);
}

TEST(Http2Options, StreamsNeedHttp2) {
  RequestTarget target = testing::targetOf(0, testing::closedPort());
  target.streams_per_connection = 4;
  EXPECT_THROW(runWorkload(workloadOf({subScenario(ExecutorKind::kConstantVus)}), 1, std::nullopt,
                           1, target, testOptions()),
               std::invalid_argument);
}

}  // namespace
}  // namespace benchd::loadgen
