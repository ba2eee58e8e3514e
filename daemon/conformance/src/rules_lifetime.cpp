// CONTRACT.md sections 6 and 7: how long a request may hold the server. A request whose client
// hangs up stops waiting at once (its delay or its nested call), bytes pipelined behind a
// waiting request are kept, a header that trickles in is cut off at the header deadline (a total
// from its first byte), and the timeout options are checked like any other option.
#include "answer_checks.hpp"
#include "rule_groups.hpp"

#include <benchd/conformance/loopback_socket.hpp>

#include <chrono>
#include <future>
#include <string_view>

namespace benchd::conformance {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;
using Clock = std::chrono::steady_clock;

/// A delay no check waits out: a request that ends in time was ended by the server.
constexpr std::int64_t kHourDelay = 3'600'000;

/// A complete GET of the delayed endpoint, `depth` nested calls deep.
std::string delayedRequest(const RuleContext& context, int depth) {
  return "GET " + context.epoch(delayQuery(depth, kHourDelay)) + " HTTP/1.1\r\nHost: t\r\n\r\n";
}

/// Opens `count` connections, each sending `request`, and waits until the worker counts at
/// least `in_flight` requests in flight.
std::vector<std::unique_ptr<LoopbackSocket>> startWaiting(WorkerProcess& worker, int count,
                                                          const std::string& request,
                                                          std::int64_t in_flight) {
  std::vector<std::unique_ptr<LoopbackSocket>> clients;
  clients.reserve(static_cast<std::size_t>(count));
  for (int i = 0; i < count; ++i) {
    clients.push_back(std::make_unique<LoopbackSocket>(worker.port()));
    require(clients.back()->connected() && clients.back()->send(request),
            "could not connect and send request " + std::to_string(i + 1) + " of " +
                std::to_string(count));
  }
  waitForStats(
      worker,
      [in_flight](const WorkerStats& stats) {
        return counter(stats, "requests_in_flight") >= in_flight;
      },
      std::to_string(count) + " x '" + printableBytes(request) + "': requests_in_flight at least " +
          std::to_string(in_flight),
      seconds(30));
  return clients;
}

/// The counters that show a request, a connection or a unit of concurrency still held, those
/// the plugin reports. Poco's dispatcher keeps one pool thread waiting for connections once it
/// has had one, so one busy pool thread is an idle state.
bool nothingHeld(const WorkerStats& stats) {
  for (const char* name : {"requests_in_flight", "connections_open", "upstream_connections_open",
                           "live_coroutines", "live_fibers"}) {
    const auto it = stats.counters.find(name);
    if (it != stats.counters.end() && it->second != 0)
      return false;
  }
  const auto busy = stats.counters.find("pool_threads_busy");
  return busy == stats.counters.end() || busy->second <= 1;
}

void hungUpClientsAreFreed(RuleContext& context, int count, int depth) {
  auto worker = context.serve();
  auto clients = startWaiting(*worker, count, delayedRequest(context, depth), count * (depth + 1));
  clients.clear();  // every client hangs up
  waitForStats(*worker, nothingHeld,
               std::to_string(count) + " clients whose requests (depth " + std::to_string(depth) +
                   ", delay 1 h) waited hung up: requests, connections and the plugin's units " +
                   "of concurrency freed",
               seconds(10));
}

void hungUpClientsFreeTheirRequests(RuleContext& context) {
  hungUpClientsAreFreed(context, 200, 0);
}

void hungUpClientsEndTheirNestedCalls(RuleContext& context) {
  hungUpClientsAreFreed(context, 50, 2);
}

void onlyTheDepartedRequestIsDropped(RuleContext& context) {
  auto worker = context.serve();
  auto leaving = startWaiting(*worker, 1, delayedRequest(context, 1), 2);
  const std::string target = context.epoch(delayQuery(1, 1500));
  const std::uint16_t port = worker->port();
  auto answer = std::async(std::launch::async, [port, target] {
    HttpConnection client(port, seconds(20));
    return client.request("GET", target);
  });
  waitForStats(
      *worker, [](const WorkerStats& stats) { return counter(stats, "requests_in_flight") >= 4; },
      "two requests of depth 1 waiting: requests_in_flight 4");
  leaving.front()->shutdownSend();
  waitForStats(
      *worker, [](const WorkerStats& stats) { return counter(stats, "requests_in_flight") == 2; },
      "one client half-closed (shutdown SHUT_WR) while its request of depth 1 waited: its two "
      "requests dropped, requests_in_flight 2");
  HttpResponse staying;
  try {
    staying = answer.get();
  } catch (const std::runtime_error& error) {
    fail("sent GET " + target + " beside the departing client: no answer (" + error.what() + ")");
  }
  expectOk(staying, "GET " + target + " beside a departing client");
}

void pipelinedRequestIsServed(RuleContext& context) {
  auto worker = context.serve();
  HttpConnection client(worker->port(), seconds(20));
  const std::string bytes = "GET " + context.epoch(delayQuery(1, 300)) +
                            " HTTP/1.1\r\nHost: t\r\n\r\nGET /health HTTP/1.1\r\nHost: t\r\n\r\n";
  const std::string sent = "'" + printableBytes(bytes) + "' in one write";
  const HttpResponse first = askRaw(client, bytes);
  expectOk(first, sent);
  const HttpResponse second = askRaw(client, "");
  require(
      second.status == 200 && second.body == R"({"status":"UP"})",
      "sent " + sent + R"(: expected the second answer 200 {"status":"UP"}, got )" + shown(second));
}

/// True once the server closed or reset the connection within `wait`; what it sent is dropped.
bool closedByServerWithin(LoopbackSocket& socket, milliseconds wait) {
  std::string received;
  const LoopbackSocket::ReadEnd end = socket.readToEnd(received, Clock::now() + wait);
  return end == LoopbackSocket::ReadEnd::kClosed || end == LoopbackSocket::ReadEnd::kReset;
}

void tricklingHeaderIsCutOff(RuleContext& context) {
  auto worker = context.serve({"--option", "header_deadline_ms=1500"});
  LoopbackSocket client(worker->port());
  require(client.connected(), "could not connect");
  const std::string header =
      "GET /health HTTP/1.1\r\nHost: t\r\nX-Padding: " + std::string(200, 'x') + "\r\n\r\n";
  const auto first_byte = Clock::now();
  bool cut_off = false;
  // One byte about every 300 ms, each wait ending early if the server closes meanwhile.
  for (std::size_t sent = 0; sent < header.size() && !cut_off; ++sent) {
    if (!client.send(header.substr(sent, 1)) || closedByServerWithin(client, milliseconds(300)))
      cut_off = true;
    if (Clock::now() - first_byte > seconds(15))
      break;
  }
  const auto elapsed = std::chrono::duration_cast<milliseconds>(Clock::now() - first_byte).count();
  const std::string sent = "a request head one byte every 300 ms with header_deadline_ms=1500";
  require(cut_off, "sent " + sent + ": expected the connection closed about 1.5 s after the " +
                       "first byte, still open after " + std::to_string(elapsed) + " ms");
  require(elapsed >= 1400, "sent " + sent + ": closed after " + std::to_string(elapsed) +
                               " ms, before the deadline");
  require(elapsed < 10'000, "sent " + sent + ": closed only after " + std::to_string(elapsed) +
                                " ms (the deadline is a total from the first byte, not per read)");
  expectOk(askOnce(worker->port(), "GET", "/health"), "GET /health after the cut-off");
}

void badTimeoutOptionsAreRefused(RuleContext& context) {
  for (const char* option :
       {"header_deadline_ms=0", "header_deadline_ms=20001", "upstream_margin_ms=0",
        "upstream_margin_ms=60001", "upstream_idle_ms=x", "upstream_idle_ms=30001"}) {
    auto worker = context.start({"--port", "0", "--option", option});
    const int code = exitCode(*worker);
    const std::string name(option, std::string_view(option).find('='));
    const std::string stderr_text = worker->stderrText();
    require(code == 2 && stderr_text.find(name) != std::string::npos,
            std::string("started with --option ") + option +
                ": expected exit 2 (create() returns BENCHD_ERR_INVALID_ARGUMENT naming " + name +
                "), got exit " + std::to_string(code) + ": " + stderr_text);
  }
}

}  // namespace

std::vector<Rule> lifetimeRules() {
  return {
      {"lifetime.hung-up-client",
       "a client that hangs up frees its waiting request (200 waiting an hour, freed at once)",
       "6, 7", hungUpClientsFreeTheirRequests},
      {"lifetime.hung-up-nested",
       "a client that hangs up ends its request's nested calls, down the chain", "6, 7",
       hungUpClientsEndTheirNestedCalls},
      {"lifetime.half-close",
       "a half-closed client counts as gone; a client that stays gets its answer", "6, 7",
       onlyTheDepartedRequestIsDropped},
      {"lifetime.pipelined", "a request pipelined behind a waiting one is served, in order", "7",
       pipelinedRequestIsServed},
      {"lifetime.header-deadline",
       "the header deadline is a total from the first byte (header_deadline_ms shortens it)", "7",
       tricklingHeaderIsCutOff},
      {"options.bad-timeouts",
       "a bad header_deadline_ms, upstream_margin_ms or upstream_idle_ms is refused naming the "
       "option (exit 2)",
       "1, 7", badTimeoutOptionsAreRefused},
  };
}

}  // namespace benchd::conformance
