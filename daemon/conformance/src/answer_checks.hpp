#pragma once
// What the rules' checks share: sending a request so that a missing answer fails the rule
// naming the request, checking an answer against the contract's shape (CONTRACT.md section 5),
// and waiting for the worker's counters. Every failure reason says what was sent, what was
// expected and what came back.

#include <benchd/conformance/http_client.hpp>
#include <benchd/conformance/rule.hpp>
#include <benchd/conformance/worker_process.hpp>

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace benchd::conformance {

/// An answer as a reason shows it: the status, the Connection header when it closes, and the
/// body (cut).
std::string shown(const HttpResponse& response);

/// Sends one request on `client` and reads the answer; fails the rule naming the request when
/// none comes (a closed connection, the client's timeout).
HttpResponse ask(HttpConnection& client, const std::string& method, const std::string& target,
                 const std::string& body = {},
                 const std::map<std::string, std::string>& headers = {});
/// Sends raw bytes on `client` and reads one answer; fails the rule when none comes.
HttpResponse askRaw(HttpConnection& client, const std::string& bytes);
/// ask() on a fresh connection to `port`.
HttpResponse askOnce(std::uint16_t port, const std::string& method, const std::string& target,
                     const std::string& body = {});

/// The reason phrase of `status` ("Bad Request"), empty for a status the contract does not use.
std::string_view reasonPhrase(unsigned status);

/// Fails unless `response` (to `sent`, e.g. "GET /x") is a 200.
void expectOk(const HttpResponse& response, const std::string& sent);
/// Fails unless `response` is the contract's error answer: `status`, Content-Type
/// application/json, a body of exactly status, error (the reason phrase) and message, the
/// message containing `fragment`.
void expectError(const HttpResponse& response, const std::string& sent, unsigned status,
                 std::string_view fragment);

/// A request and the answer it must get: 200, or the error answer with `fragment`.
struct Exchange {
  std::string method;
  std::string target;
  unsigned status = 200;
  std::string fragment;  ///< in the error message; ignored for 200
};
/// Sends each on `client`, in order, and checks its answer.
void expectAnswers(HttpConnection& client, const std::vector<Exchange>& exchanges);

/// A counter of `stats`; fails the rule when the plugin does not report it.
std::int64_t counter(const WorkerStats& stats, const std::string& name);
/// The last stats line the worker printed, for reasons.
std::string lastStatsLine(const WorkerProcess& worker);
/// Waits for a stats line (printed after this call) that `accept`s; fails the rule with
/// "`waiting_for` ..." and the last stats line when none comes within `timeout`.
WorkerStats waitForStats(WorkerProcess& worker,
                         const std::function<bool(const WorkerStats&)>& accept,
                         const std::string& waiting_for,
                         std::chrono::milliseconds timeout = std::chrono::seconds(10));
/// waitForStats for no request in flight.
WorkerStats quietStats(WorkerProcess& worker,
                       std::chrono::milliseconds timeout = std::chrono::seconds(10));
/// The worker's exit code within `timeout`; fails the rule when it is still running.
int exitCode(WorkerProcess& worker, std::chrono::milliseconds timeout = std::chrono::seconds(30));

/// "delayCallDepth=D&delayInMillis=M".
std::string delayQuery(int depth, std::int64_t delay_millis);

}  // namespace benchd::conformance
