// The nested call's client side, held to the same rules in every approach plugin: it outwaits
// the delay it forwards, a chain is never sent twice after a timeout, and idle pooled upstream
// connections are closed after a burst. The workers run with the nested-call margin and the
// idle timeout shortened by their options (sdk/request_deadline.hpp), which keeps the rules'
// proportions (a delay over the margin, a burst idle past the timeout) at seconds instead of
// minutes; every plugin still runs side by side within one test.
#include "approach_plugins.hpp"
#include "http_client.hpp"
#include "worker_process.hpp"

#include <benchd/sdk/limits.hpp>
#include <benchd/sdk/request_deadline.hpp>

#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <future>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace benchd::testing {
namespace {

using namespace std::chrono_literals;

/// The nested call's margin beyond the delay (60 s in production), and a delay above it: the
/// old rule gave every nested call the margin alone as its whole timeout, so such a delay was
/// a certain 502 at depth 1 and a re-sent chain on pooled connections.
constexpr std::int64_t kMarginMillis = 1'000;
constexpr std::int64_t kDelayOverTheMargin = 2'500;
/// The idle timeout of pooled upstream connections (30 s in production).
constexpr std::int64_t kIdleMillis = 2'000;
/// Longer than every nested call's response timeout used here, and than the old chain's
/// two timeouts back to back, so a failure shows as a status rather than a client timeout.
constexpr auto kClientTimeout = std::chrono::milliseconds(60'000);

/// `name=value`, for --option. Appended piece by piece: g++ 12 warns falsely (array-bounds)
/// about operator+ on a temporary string here.
std::string optionArgument(std::string_view name, std::int64_t value) {
  std::string argument(name);
  argument += '=';
  argument += std::to_string(value);
  return argument;
}

/// A worker for `plugin` on one thread with the shortened margin and idle timeout.
std::unique_ptr<WorkerProcess> serveShortened(const std::string& plugin) {
  return WorkerProcess::serve(
      plugin,
      {"--threads", "1", "--option", optionArgument(sdk::kUpstreamMarginOption, kMarginMillis),
       "--option", optionArgument(sdk::kUpstreamIdleOption, kIdleMillis)});
}

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

TEST(UpstreamConformance, NestedCallAtDepthOneOutwaitsADelayOverTheMargin) {
  // The nested call used to give up after the margin (60 s) whatever the delay it forwarded:
  // a 502 while the innermost request went on waiting.
  forEveryPluginAtOnce([](const std::string& plugin) {
    auto worker = serveShortened(plugin);
    HttpConnection client(worker->port(), kClientTimeout);
    const auto response = client.request("GET", epochMillis(plugin, 1, kDelayOverTheMargin));
    EXPECT_EQ(response.status, 200U) << plugin << ": " << response.body;
    EXPECT_GE(response.elapsed, std::chrono::milliseconds(kDelayOverTheMargin)) << plugin;
  });
}

TEST(UpstreamConformance, ChainOnPooledConnectionsIsNotSentAgainAfterATimeout) {
  // A depth-2 chain on warm (pooled) connections with a delay over the margin: the
  // old rule re-sent a timed-out call on a reused connection, so a second chain started while
  // the first went on (upstream_calls 3 and more, then a 502). Two levels call out: 2.
  forEveryPluginAtOnce([](const std::string& plugin) {
    auto worker = serveShortened(plugin);
    HttpConnection client(worker->port(), kClientTimeout);
    ASSERT_EQ(client.request("GET", epochMillis(plugin, 2, 0)).status, 200U) << plugin;
    const auto before = worker->waitQuiet();
    ASSERT_TRUE(before) << plugin;
    ASSERT_GE(before->counter("upstream_connections_open"), 2) << plugin << ": pool not warm";

    const auto response = client.request("GET", epochMillis(plugin, 2, kDelayOverTheMargin));
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
    auto worker = serveShortened(plugin);
    const auto results = concurrentGets(worker->port(), epochMillis(plugin, 1, 300), 20);
    for (const auto& result : results)
      ASSERT_EQ(result.status, 200U) << plugin << ": " << result.error;
    const auto after_burst = worker->waitQuiet();
    ASSERT_TRUE(after_burst) << plugin;
    EXPECT_GE(after_burst->counter("upstream_connections_open"), 2) << plugin;
    const auto closed = worker->waitStats(
        [](const WorkerStats& stats) { return stats.counter("upstream_connections_open") == 0; },
        std::chrono::milliseconds(2 * kIdleMillis) + 10s);
    EXPECT_TRUE(closed) << plugin << ": idle upstream connections were never closed";
  });
}

}  // namespace
}  // namespace benchd::testing
