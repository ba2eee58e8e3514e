#pragma once
// `benchd serve` as its tests see it: a real daemon process on an ephemeral loopback port with
// its state in a temporary folder, calls with or without the token, run states waited for,
// event streams followed or held open and read back as events, and a clean stop. The one home
// of what the serve suites share (serve_test, serve_results_test, serve_robustness_test).

#include "http_client.hpp"
#include "scenario_csv.hpp"

#include <benchd/common/child_process.hpp>

#include <rapidjson/document.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace benchd::conformance {
class LoopbackSocket;
}

namespace benchd::control::testing {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using benchd::testing::HttpConnection;
using benchd::testing::HttpResponse;

/// Calls `condition` every `interval` until it holds (true) or `timeout` passes (false): for
/// waiting on a state nothing announces (a run's progress, a process gone), never as a timing
/// assertion.
bool pollUntil(const std::function<bool()>& condition, std::chrono::milliseconds timeout,
               std::chrono::milliseconds interval = 50ms);

/// A `benchd serve` process on an ephemeral loopback port with its state in `dir`/state. The
/// destructor kills a daemon that is still running.
class Daemon {
 public:
  /// Starts it and waits (up to 30 s) for the line that names its port; port() is 0 when none
  /// came. `extra_config`: more `key = value` lines for its config file (e.g. plugin_dirs).
  explicit Daemon(const fs::path& dir, const std::string& extra_config = {});

  [[nodiscard]] std::uint16_t port() const { return port_; }
  [[nodiscard]] const std::string& token() const { return token_; }
  /// Over TLS: the certificate fingerprint its listening line printed; empty in clear.
  [[nodiscard]] const std::string& fingerprint() const { return fingerprint_; }
  common::ChildProcess& process() { return child_; }

  /// One request on a fresh connection, in clear (a daemon over TLS is reached with curl), with
  /// the token unless `with_token` is false; a body is sent as application/json. Throws
  /// std::runtime_error when there is no answer.
  [[nodiscard]] HttpResponse call(const std::string& method, const std::string& target,
                                  const std::string& body = {}, bool with_token = true) const;
  /// PUT `body` as `content_type`, with the token.
  [[nodiscard]] HttpResponse put(const std::string& target, const std::string& body,
                                 const std::string& content_type) const;

  /// Reads the daemon's stderr until it holds `text` (true) or `timeout` passes (false).
  bool waitForLog(const std::string& text, std::chrono::milliseconds timeout = 10s);

  /// SIGTERM, then a test failure unless it exits 0 within 30 s.
  void stop();

 private:
  fs::path config_;
  common::ChildProcess child_;
  std::uint16_t port_ = 0;
  std::string token_;
  std::string fingerprint_;
};

// ---- JSON -------------------------------------------------------------------------------------

/// `text` parsed; HasParseError() tells whether it was JSON.
[[nodiscard]] rapidjson::Document parseJson(const std::string& text);
/// The response's body parsed; a test failure when it is not JSON.
[[nodiscard]] rapidjson::Document jsonBody(const HttpResponse& response);
/// The string member `name` of `object`; empty when it is missing or not a string.
[[nodiscard]] std::string stringMember(const rapidjson::Value& object, const char* name);
/// GET `target` as JSON; nothing when the call fails (e.g. the daemon is gone), the status is
/// not 200 or the body is not a JSON object.
[[nodiscard]] std::optional<rapidjson::Document> getJson(const Daemon& daemon,
                                                         const std::string& target);

// ---- runs -------------------------------------------------------------------------------------

/// The "status" of GET /api/v1/runs/{run}; empty when the call fails.
[[nodiscard]] std::string runStatus(const Daemon& daemon, int run);

/// Polls GET /api/v1/runs/{run} until `done(run document)` holds (true), or the run has ended
/// without it holding, or `timeout` passes (false).
bool waitForRun(const Daemon& daemon, int run,
                const std::function<bool(const rapidjson::Document&)>& done,
                std::chrono::seconds timeout);
/// waitForRun until the run's status is `status` (e.g. "stopped").
bool waitForStatus(const Daemon& daemon, int run, const std::string& status,
                   std::chrono::seconds timeout);
/// waitForRun until the run's progress is in `step` ("warmup", "test") of scenario row
/// `scenario`.
bool waitForStep(const Daemon& daemon, int run, const std::string& scenario,
                 const std::string& step, std::chrono::seconds timeout);

// ---- event streams ----------------------------------------------------------------------------

/// GET /api/v1/runs/{run}/events on a connection of its own, held open until destroyed. Reads
/// only when asked, so a test can hold several, or stop the daemon and read what it sent after.
class EventStream {
 public:
  /// Connects, asks for the stream (resuming after `last_event_id` when given, as the
  /// Last-Event-ID header) and waits up to 5 s for the response head.
  EventStream(std::uint16_t port, const std::string& token, int run,
              const std::string& last_event_id = {});
  ~EventStream();
  EventStream(const EventStream&) = delete;
  EventStream& operator=(const EventStream&) = delete;

  /// True when the response head arrived.
  [[nodiscard]] bool opened() const;
  /// Everything received so far, response head included.
  [[nodiscard]] const std::string& received() const { return received_; }
  /// Reads until received() holds `marker`, the daemon closes, or `timeout` passes.
  const std::string& readUntil(const std::string& marker, std::chrono::milliseconds timeout);
  /// Reads until the end event has arrived whole, the daemon closes, or `timeout` passes.
  const std::string& readUntilEnd(std::chrono::milliseconds timeout);

 private:
  std::unique_ptr<benchd::conformance::LoopbackSocket> socket_;
  std::string received_;
};

/// The raw stream (response head included) of GET /api/v1/runs/{run}/events until its end
/// event has arrived, the daemon closed, or `timeout` passed. `last_event_id`, when given, is
/// sent as the Last-Event-ID header (resume after that event).
std::string followEvents(std::uint16_t port, const std::string& token, int run,
                         std::chrono::milliseconds timeout, const std::string& last_event_id = {});

/// One Server-Sent Event.
struct StreamEvent {
  std::string id;
  std::string type;
  std::string data;  ///< data lines joined with '\n'
};

/// The events of a raw stream (as followEvents() returns it): its chunked body decoded up to
/// the last complete chunk, comments left out.
[[nodiscard]] std::vector<StreamEvent> parseEvents(const std::string& raw);
/// The `id:` values of a raw stream's events, in order.
[[nodiscard]] std::vector<std::uint64_t> eventIds(const std::string& raw);
/// The "status" of the stream's end event; empty without one.
[[nodiscard]] std::string endStatus(const std::vector<StreamEvent>& events);

/// How often `part` occurs in `text` (overlaps counted).
[[nodiscard]] std::size_t occurrences(const std::string& text, const std::string& part);

}  // namespace benchd::control::testing
