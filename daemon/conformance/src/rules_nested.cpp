// CONTRACT.md section 6, the nested call's client side: it outwaits the delay it forwards, a
// chain is never sent twice after a timeout, and idle pooled connections are closed. The
// workers run with the margin and the idle timeout shortened by their options
// (sdk/request_deadline.hpp), which keeps the rules' proportions (a delay over the margin, a
// burst idle past the timeout) at seconds instead of minutes.
#include "answer_checks.hpp"
#include "rule_groups.hpp"

#include <benchd/sdk/request_deadline.hpp>

#include <chrono>
#include <string_view>

namespace benchd::conformance {
namespace {

using std::chrono::milliseconds;

/// The nested call's margin beyond the delay (60 s in production), and a delay above it.
constexpr std::int64_t kMarginMillis = 1'000;
constexpr std::int64_t kDelayOverTheMargin = 2'500;
/// The idle timeout of pooled nested-call connections (30 s in production).
constexpr std::int64_t kIdleMillis = 2'000;
/// Longer than every nested call's answer timeout used here, and than two of them back to back,
/// so a failure shows as a status rather than as this client's timeout.
constexpr milliseconds kClientTimeout{60'000};

/// `name=value`, for --option. Appended piece by piece: g++ 12 warns falsely (array-bounds)
/// about operator+ on a temporary string here.
std::string optionArgument(std::string_view name, std::int64_t value) {
  std::string argument(name);
  argument += '=';
  argument += std::to_string(value);
  return argument;
}

/// A worker with the shortened margin and idle timeout.
std::unique_ptr<WorkerProcess> serveShortened(const RuleContext& context) {
  return context.serve({"--option", optionArgument(sdk::kUpstreamMarginOption, kMarginMillis),
                        "--option", optionArgument(sdk::kUpstreamIdleOption, kIdleMillis)});
}

void outwaitsADelayOverTheMargin(RuleContext& context) {
  auto worker = serveShortened(context);
  HttpConnection client(worker->port(), kClientTimeout);
  const std::string target = context.epoch(delayQuery(1, kDelayOverTheMargin));
  const std::string sent =
      "GET " + target + " with upstream_margin_ms=" + std::to_string(kMarginMillis);
  const HttpResponse response = ask(client, "GET", target);
  expectOk(response, sent + " (the nested call's timeout is the delay plus the margin)");
  require(response.elapsed >= milliseconds(kDelayOverTheMargin),
          "sent " + sent + ": answered before the delay was over");
}

void chainIsNotSentAgain(RuleContext& context) {
  auto worker = serveShortened(context);
  HttpConnection client(worker->port(), kClientTimeout);
  const std::string warm = context.epoch(delayQuery(2, 0));
  expectOk(ask(client, "GET", warm), "GET " + warm);
  // A pooling plugin now holds the chain's two connections, so the chain below runs on pooled
  // ones, where a retry is allowed; pooling is free, and without it the count must hold too.
  const WorkerStats before = quietStats(*worker);
  const std::string target = context.epoch(delayQuery(2, kDelayOverTheMargin));
  const std::string sent = "GET " + target + " on warm pooled connections, with " +
                           "upstream_margin_ms=" + std::to_string(kMarginMillis);
  expectOk(ask(client, "GET", target), sent);
  const WorkerStats after = quietStats(*worker, kClientTimeout);
  const std::int64_t calls = counter(after, "upstream_calls") - counter(before, "upstream_calls");
  require(calls == 2, "sent " + sent + ": expected 2 nested calls, counted " +
                          std::to_string(calls) + " (a nested call that timed out was sent again)");
}

void idlePooledConnectionsAreClosed(RuleContext& context) {
  auto worker = serveShortened(context);
  const std::string target = context.epoch(delayQuery(1, 300));
  const auto results = concurrentGets(worker->port(), target, 20);
  for (const BatchResult& result : results) {
    require(result.status == 200,
            "sent 20 x GET " + target + " at once: expected 200 each, got " +
                (result.status == 0 ? result.error : std::to_string(result.status)));
  }
  // Pooling is free: a plugin that keeps none passes at once, one that pools must empty it.
  waitForStats(
      *worker,
      [](const WorkerStats& stats) {
        const auto open = stats.counters.find("upstream_connections_open");
        // The optional counter shows the pool; without it, the nested calls' server sides.
        return open != stats.counters.end() ? open->second == 0
                                            : counter(stats, "connections_open") == 0;
      },
      "after 20 concurrent nested calls and upstream_idle_ms=" + std::to_string(kIdleMillis) +
          ": the idle pooled connections closed (upstream_connections_open, or connections_open, "
          "0)",
      milliseconds(2 * kIdleMillis) + std::chrono::seconds(10));
}

}  // namespace

std::vector<Rule> nestedCallRules() {
  return {
      {"nested.outwaits-the-margin",
       "a nested call outwaits a delay over its margin (timeout = delay + margin)", "6, 10",
       outwaitsADelayOverTheMargin},
      {"nested.no-resend",
       "a chain is not sent again after a timeout (only a stale pooled connection is retried)", "6",
       chainIsNotSentAgain},
      {"nested.idle-pool-closed",
       "idle pooled nested-call connections are closed after the idle "
       "timeout",
       "6", idlePooledConnectionsAreClosed},
  };
}

}  // namespace benchd::conformance
