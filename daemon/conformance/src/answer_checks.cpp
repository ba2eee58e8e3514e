#include "answer_checks.hpp"

#include <rapidjson/document.h>

#include <stdexcept>

namespace benchd::conformance {
namespace {

constexpr std::size_t kShownBodyBytes = 200;

std::string sentText(const std::string& method, const std::string& target) {
  return method + " " + printableBytes(target, 200);
}

}  // namespace

std::string shown(const HttpResponse& response) {
  std::string text = std::to_string(response.status);
  if (!response.keep_alive)
    text += " (Connection: close)";
  if (response.body.empty()) {
    text += " with an empty body";
  } else {
    text += " '" + printableBytes(response.body, kShownBodyBytes) + "'";
  }
  return text;
}

HttpResponse ask(HttpConnection& client, const std::string& method, const std::string& target,
                 const std::string& body, const std::map<std::string, std::string>& headers) {
  try {
    return client.request(method, target, body, headers);
  } catch (const std::runtime_error& error) {
    fail("sent " + sentText(method, target) + ": no answer (" + error.what() + ")");
  }
}

HttpResponse askRaw(HttpConnection& client, const std::string& bytes) {
  try {
    return client.rawRequest(bytes);
  } catch (const std::runtime_error& error) {
    fail("sent '" + printableBytes(bytes) + "': no answer (" + error.what() + ")");
  }
}

HttpResponse askOnce(std::uint16_t port, const std::string& method, const std::string& target,
                     const std::string& body) {
  try {
    HttpConnection client(port);
    return ask(client, method, target, body);
  } catch (const RuleFailure&) {
    throw;
  } catch (const std::runtime_error& error) {
    fail("sent " + sentText(method, target) + ": " + error.what());
  }
}

std::string_view reasonPhrase(unsigned status) {
  switch (status) {
    case 200:
      return "OK";
    case 400:
      return "Bad Request";
    case 404:
      return "Not Found";
    case 405:
      return "Method Not Allowed";
    case 413:
      return "Payload Too Large";
    case 500:
      return "Internal Server Error";
    case 502:
      return "Bad Gateway";
    case 503:
      return "Service Unavailable";
    default:
      return {};
  }
}

void expectOk(const HttpResponse& response, const std::string& sent) {
  require(response.status == 200, "sent " + sent + ": expected 200, got " + shown(response));
}

void expectError(const HttpResponse& response, const std::string& sent, unsigned status,
                 std::string_view fragment) {
  const std::string expected =
      "expected " + std::to_string(status) +
      (fragment.empty() ? std::string() : " with a message naming '" + std::string(fragment) + "'");
  const std::string prefix = "sent " + sent + ": " + expected + ", got ";
  require(response.status == status, prefix + shown(response));
  require(response.header("content-type") == "application/json",
          prefix + "Content-Type '" + response.header("content-type") +
              "' (an error body is application/json)");
  rapidjson::Document body;
  body.Parse(response.body.c_str(), response.body.size());
  require(!body.HasParseError() && body.IsObject(),
          prefix + "a body that is no JSON object: " + shown(response));
  const auto string_member = [&body](const char* name) {
    const auto member = body.FindMember(name);
    return member != body.MemberEnd() && member->value.IsString();
  };
  require(
      body.MemberCount() == 3 && body.HasMember("status") && body["status"].IsInt() &&
          string_member("error") && string_member("message"),
      prefix + "a body without exactly the members status, error and message: " + shown(response));
  require(body["status"].GetInt() == static_cast<int>(status),
          prefix + "a body whose status member is " + std::to_string(body["status"].GetInt()));
  const std::string error = body["error"].GetString();
  require(error == reasonPhrase(status), prefix + "error '" + error +
                                             "' (expected the reason phrase '" +
                                             std::string(reasonPhrase(status)) + "')");
  const std::string message = body["message"].GetString();
  require(message.find(fragment) != std::string::npos, prefix + "message '" + message + "'");
}

void expectAnswers(HttpConnection& client, const std::vector<Exchange>& exchanges) {
  for (const Exchange& exchange : exchanges) {
    const std::string sent = sentText(exchange.method, exchange.target);
    const HttpResponse response = ask(client, exchange.method, exchange.target);
    if (exchange.status == 200) {
      expectOk(response, sent);
    } else {
      expectError(response, sent, exchange.status, exchange.fragment);
    }
  }
}

std::int64_t counter(const WorkerStats& stats, const std::string& name) {
  const auto found = stats.counters.find(name);
  require(found != stats.counters.end(),
          "the plugin's stats have no counter '" + name + "' (CONTRACT.md section 9)");
  return found->second;
}

std::string lastStatsLine(const WorkerProcess& worker) {
  const std::vector<std::string> lines = worker.stdoutLines();
  for (auto line = lines.rbegin(); line != lines.rend(); ++line) {
    if (line->find("\"stats\"") != std::string::npos)
      return *line;
  }
  return "(no stats line)";
}

WorkerStats waitForStats(WorkerProcess& worker,
                         const std::function<bool(const WorkerStats&)>& accept,
                         const std::string& waiting_for, std::chrono::milliseconds timeout) {
  // A missing counter fails the rule from inside the predicate; keep that reason.
  const auto stats = worker.waitStats(accept, timeout);
  if (!stats) {
    fail(waiting_for + ": not seen within " + std::to_string(timeout.count()) +
         " ms; last stats: " + lastStatsLine(worker) +
         (worker.stderrText().empty() ? std::string() : "; stderr: " + worker.stderrText()));
  }
  return *stats;
}

WorkerStats quietStats(WorkerProcess& worker, std::chrono::milliseconds timeout) {
  return waitForStats(
      worker, [](const WorkerStats& stats) { return counter(stats, "requests_in_flight") == 0; },
      "requests_in_flight 0 (every request answered)", timeout);
}

int exitCode(WorkerProcess& worker, std::chrono::milliseconds timeout) {
  const std::optional<int> code = worker.waitExit(timeout);
  require(code.has_value(), "benchd-worker still running " + std::to_string(timeout.count()) +
                                " ms after it was told to stop");
  return *code;
}

std::string delayQuery(int depth, std::int64_t delay_millis) {
  return "delayCallDepth=" + std::to_string(depth) +
         "&delayInMillis=" + std::to_string(delay_millis);
}

}  // namespace benchd::conformance
