// The nested call's client side, held to the same rules in every approach plugin: it outwaits
// the delay it forwards, a chain is never sent twice after a timeout, and idle pooled upstream
// connections are closed after a burst. These wait for the plugins' own delays and idle
// timeouts (a minute at most), so every plugin runs side by side within one test.
#include "approach_plugins.hpp"
#include "http_client.hpp"
#include "worker_process.hpp"

#include <benchd/sdk/limits.hpp>

#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <future>
#include <string>
#include <vector>

namespace benchd::testing {
namespace {

using namespace std::chrono_literals;

/// Longer than every nested call's response timeout used here, and than the old chain's
/// two timeouts back to back, so a failure shows as a status rather than a client timeout.
constexpr auto kClientTimeout = std::chrono::milliseconds(200'000);
/// A delay above the old fixed 60 s nested-call timeout.
constexpr std::int64_t kDelayOverAMinute = 61'000;

/// Runs `check` for every approach plugin at once, each on its own thread.
void forEveryPluginAtOnce(const std::function<void(const std::string&)>& check) {
  std::vector<std::future<void>> runs;
  for (const auto& plugin : approachPlugins())
    runs.push_back(std::async(std::launch::async, [&check, plugin] { check(plugin); }));
  for (auto& run : runs)
    run.get();
}

std::string epochMillis(const std::string& plugin, int depth, std::int64_t delay_millis) {
  return "/" + plugin + "/epoch-millis?delayCallDepth=" + std::to_string(depth) +
         "&delayInMillis=" + std::to_string(delay_millis);
}

TEST(UpstreamConformance, NestedCallAtDepthOneOutwaitsADelayOverAMinute) {
  // The nested call used to give up after 60 s whatever the delay it forwarded: a 502 while
  // the innermost request went on waiting.
  forEveryPluginAtOnce([](const std::string& plugin) {
    auto worker = WorkerProcess::serve(plugin, {"--threads", "1"});
    HttpConnection client(worker->port(), kClientTimeout);
    const auto response = client.request("GET", epochMillis(plugin, 1, kDelayOverAMinute));
    EXPECT_EQ(response.status, 200U) << plugin << ": " << response.body;
    EXPECT_GE(response.elapsed, std::chrono::milliseconds(kDelayOverAMinute)) << plugin;
  });
}

TEST(UpstreamConformance, ChainOnPooledConnectionsIsNotSentAgainAfterATimeout) {
  // A depth-2 chain on warm (pooled) connections with a delay over the old 60 s timeout: the
  // old rule re-sent a timed-out call on a reused connection, so a second chain started while
  // the first went on (upstream_calls 3 and more, then a 502). Two levels call out: 2.
  forEveryPluginAtOnce([](const std::string& plugin) {
    auto worker = WorkerProcess::serve(plugin, {"--threads", "1"});
    HttpConnection client(worker->port(), kClientTimeout);
    ASSERT_EQ(client.request("GET", epochMillis(plugin, 2, 0)).status, 200U) << plugin;
    const auto before = worker->waitQuiet();
    ASSERT_TRUE(before) << plugin;
    ASSERT_GE(before->counter("upstream_connections_open"), 2) << plugin << ": pool not warm";

    const auto response = client.request("GET", epochMillis(plugin, 2, kDelayOverAMinute));
    EXPECT_EQ(response.status, 200U) << plugin << ": " << response.body;
    const auto after = worker->waitQuiet(kClientTimeout);
    ASSERT_TRUE(after) << plugin << ": requests still in flight";
    EXPECT_EQ(after->counter("upstream_calls") - before->counter("upstream_calls"), 2)
        << plugin << ": the chain was sent more than once";
  });
}

TEST(UpstreamConformance, IdlePooledConnectionsAreClosedAfterABurst) {
  // A burst of nested calls leaves one pooled upstream connection per concurrent call. With no
  // nested call after it they used to stay open for ever (CLOSE_WAIT once the server side
  // timed out), holding descriptors. They must be closed after the idle timeout.
  forEveryPluginAtOnce([](const std::string& plugin) {
    auto worker = WorkerProcess::serve(plugin, {"--threads", "1"});
    const auto results = concurrentGets(worker->port(), epochMillis(plugin, 1, 300), 20);
    for (const auto& result : results)
      ASSERT_EQ(result.status, 200U) << plugin << ": " << result.error;
    const auto after_burst = worker->waitQuiet();
    ASSERT_TRUE(after_burst) << plugin;
    EXPECT_GE(after_burst->counter("upstream_connections_open"), 2) << plugin;
    const auto closed = worker->waitStats(
        [](const WorkerStats& stats) { return stats.counter("upstream_connections_open") == 0; },
        sdk::kUpstreamIdleTimeout + sdk::kUpstreamIdleSweepInterval + 10s);
    EXPECT_TRUE(closed) << plugin << ": idle upstream connections were never closed";
  });
}

}  // namespace
}  // namespace benchd::testing
