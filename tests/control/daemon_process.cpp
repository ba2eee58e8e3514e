#include "daemon_process.hpp"

#include "build_paths.hpp"
#include "loopback_socket.hpp"

#include <gtest/gtest.h>

#include <charconv>
#include <csignal>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <thread>

namespace benchd::control::testing {
namespace {

/// Writes the config file for `dir` and returns the benchd executable that reads it.
fs::path writeConfig(const fs::path& config, const fs::path& dir, const std::string& extra) {
  std::ofstream(config) << "port = 0\nstate_dir = " << (dir / "state").string() << "\n" << extra;
  return benchd::testing::cliPath();
}

/// The body of a chunked HTTP response (its head skipped), up to its last complete chunk.
std::string dechunk(const std::string& raw) {
  std::size_t at = raw.find("\r\n\r\n");
  std::string body;
  if (at == std::string::npos) {
    return body;
  }
  at += 4;
  while (true) {
    const std::size_t line_end = raw.find("\r\n", at);
    std::size_t size = 0;
    if (line_end == std::string::npos ||
        std::from_chars(raw.data() + at, raw.data() + line_end, size, 16).ec != std::errc{} ||
        size == 0 || line_end + 2 + size > raw.size()) {
      return body;
    }
    body.append(raw, line_end + 2, size);
    at = line_end + 2 + size + 2;
  }
}

}  // namespace

bool pollUntil(const std::function<bool()>& condition, std::chrono::milliseconds timeout,
               std::chrono::milliseconds interval) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!condition()) {
    if (std::chrono::steady_clock::now() >= deadline) {
      return false;
    }
    std::this_thread::sleep_for(interval);
  }
  return true;
}

// ---- Daemon -----------------------------------------------------------------------------------

Daemon::Daemon(const fs::path& dir, const std::string& extra_config)
    : config_(dir / "benchd.conf"),
      child_(writeConfig(config_, dir, extra_config), {"serve", "--config", config_.string()}) {
  const std::regex listening(
      R"(listening on (https?)://127\.0\.0\.1:(\d+) \((certificate sha256:([0-9A-F:]+), )?)");
  const auto deadline = std::chrono::steady_clock::now() + 30s;
  while (port_ == 0 && std::chrono::steady_clock::now() < deadline && !child_.stdoutClosed()) {
    for (const std::string& line : child_.readStdoutLines(500ms)) {
      std::smatch match;
      if (std::regex_search(line, match, listening)) {
        port_ = static_cast<std::uint16_t>(std::stoi(match[2]));
        fingerprint_ = match[4];
      }
    }
  }
  std::ifstream token_file(dir / "state" / "token");
  std::getline(token_file, token_);
}

HttpResponse Daemon::call(const std::string& method, const std::string& target,
                          const std::string& body, bool with_token) const {
  HttpConnection connection(port_);
  std::map<std::string, std::string> headers;
  if (with_token) {
    headers["Authorization"] = "Bearer " + token_;
  }
  if (!body.empty()) {
    headers["Content-Type"] = "application/json";
  }
  return connection.request(method, target, body, headers);
}

HttpResponse Daemon::put(const std::string& target, const std::string& body,
                         const std::string& content_type) const {
  HttpConnection connection(port_);
  return connection.request(
      "PUT", target, body, {{"Authorization", "Bearer " + token_}, {"Content-Type", content_type}});
}

bool Daemon::waitForLog(const std::string& text, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (child_.stderrText().find(text) == std::string::npos) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0 || child_.outputClosed()) {
      return child_.stderrText().find(text) != std::string::npos;
    }
    child_.drainOutput(std::min(left, std::chrono::milliseconds(50)));
  }
  return true;
}

void Daemon::stop() {
  child_.signal(SIGTERM);
  const auto ended = child_.waitExit(30s);
  if (!ended) {
    ADD_FAILURE() << "benchd serve still ran 30 s after SIGTERM";
    return;
  }
  EXPECT_TRUE(ended->succeeded()) << ended->describe() << "\n" << child_.stderrText();
}

// ---- JSON -------------------------------------------------------------------------------------

rapidjson::Document parseJson(const std::string& text) {
  rapidjson::Document document;
  document.Parse(text.c_str());
  return document;
}

rapidjson::Document jsonBody(const HttpResponse& response) {
  rapidjson::Document document = parseJson(response.body);
  EXPECT_FALSE(document.HasParseError()) << response.status << " " << response.body;
  return document;
}

std::string stringMember(const rapidjson::Value& object, const char* name) {
  if (!object.IsObject()) {
    return {};
  }
  const auto found = object.FindMember(name);
  return found != object.MemberEnd() && found->value.IsString() ? found->value.GetString()
                                                                : std::string();
}

std::optional<rapidjson::Document> getJson(const Daemon& daemon, const std::string& target) {
  try {
    const HttpResponse response = daemon.call("GET", target);
    rapidjson::Document document = parseJson(response.body);
    if (response.status == 200 && !document.HasParseError() && document.IsObject()) {
      return document;
    }
  } catch (const std::exception&) {
  }
  return std::nullopt;
}

// ---- runs -------------------------------------------------------------------------------------

std::string runStatus(const Daemon& daemon, int run) {
  const auto run_json = getJson(daemon, "/api/v1/runs/" + std::to_string(run));
  return run_json ? stringMember(*run_json, "status") : std::string();
}

bool waitForRun(const Daemon& daemon, int run,
                const std::function<bool(const rapidjson::Document&)>& done,
                std::chrono::seconds timeout) {
  bool held = false;
  pollUntil(
      [&] {
        const auto run_json = getJson(daemon, "/api/v1/runs/" + std::to_string(run));
        if (!run_json) {
          return false;
        }
        held = done(*run_json);
        const std::string status = stringMember(*run_json, "status");
        return held || (status != "queued" && status != "running");
      },
      timeout, 100ms);
  return held;
}

bool waitForStatus(const Daemon& daemon, int run, const std::string& status,
                   std::chrono::seconds timeout) {
  return waitForRun(
      daemon, run,
      [&status](const rapidjson::Document& run_json) {
        return stringMember(run_json, "status") == status;
      },
      timeout);
}

bool waitForStep(const Daemon& daemon, int run, const std::string& scenario,
                 const std::string& step, std::chrono::seconds timeout) {
  return waitForRun(
      daemon, run,
      [&](const rapidjson::Document& run_json) {
        const auto progress = run_json.FindMember("progress");
        return progress != run_json.MemberEnd() &&
               stringMember(progress->value, "scenario") == scenario &&
               stringMember(progress->value, "step") == step;
      },
      timeout);
}

// ---- event streams ----------------------------------------------------------------------------

EventStream::EventStream(std::uint16_t port, const std::string& token, int run,
                         const std::string& last_event_id)
    : socket_(std::make_unique<benchd::testing::LoopbackSocket>(port)) {
  socket_->send(
      "GET /api/v1/runs/" + std::to_string(run) +
      "/events HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + token + "\r\n" +
      (last_event_id.empty() ? std::string() : "Last-Event-ID: " + last_event_id + "\r\n") +
      "\r\n");
  readUntil("\r\n\r\n", 5s);
}

EventStream::~EventStream() = default;

bool EventStream::opened() const {
  return received_.find("\r\n\r\n") != std::string::npos;
}

const std::string& EventStream::readUntil(const std::string& marker,
                                          std::chrono::milliseconds timeout) {
  socket_->readUntil(
      received_,
      [&marker](const std::string& text) { return text.find(marker) != std::string::npos; },
      std::chrono::steady_clock::now() + timeout);
  return received_;
}

const std::string& EventStream::readUntilEnd(std::chrono::milliseconds timeout) {
  socket_->readUntil(
      received_,
      [](const std::string& text) {
        const std::size_t end = text.find("event: end");
        return end != std::string::npos && text.find("\n\n", end) != std::string::npos;
      },
      std::chrono::steady_clock::now() + timeout);
  return received_;
}

std::string followEvents(std::uint16_t port, const std::string& token, int run,
                         std::chrono::milliseconds timeout, const std::string& last_event_id) {
  EventStream stream(port, token, run, last_event_id);
  return stream.readUntilEnd(timeout);
}

std::vector<StreamEvent> parseEvents(const std::string& raw) {
  std::vector<StreamEvent> events;
  std::istringstream body(dechunk(raw));
  StreamEvent event;
  std::string line;
  while (std::getline(body, line)) {
    if (line.empty()) {
      if (!event.id.empty() || !event.type.empty() || !event.data.empty()) {
        events.push_back(event);
      }
      event = {};
    } else if (line.rfind("id: ", 0) == 0) {
      event.id = line.substr(4);
    } else if (line.rfind("event: ", 0) == 0) {
      event.type = line.substr(7);
    } else if (line.rfind("data: ", 0) == 0) {
      event.data += (event.data.empty() ? "" : "\n") + line.substr(6);
    }
  }
  return events;
}

std::vector<std::uint64_t> eventIds(const std::string& raw) {
  std::vector<std::uint64_t> ids;
  for (const StreamEvent& event : parseEvents(raw)) {
    if (!event.id.empty()) {
      ids.push_back(std::stoull(event.id));
    }
  }
  return ids;
}

std::string endStatus(const std::vector<StreamEvent>& events) {
  for (const StreamEvent& event : events) {
    if (event.type == "end") {
      return stringMember(parseJson(event.data), "status");
    }
  }
  return {};
}

std::size_t occurrences(const std::string& text, const std::string& part) {
  std::size_t found = 0;
  for (std::size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) {
    ++found;
  }
  return found;
}

}  // namespace benchd::control::testing
