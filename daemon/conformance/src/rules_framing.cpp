// CONTRACT.md section 7, framing and sizes: the request line, Content-Length, chunking, and the
// limits of the head and the body. The statuses are those Beast's parser gives, which every
// plugin must give too.
#include "answer_checks.hpp"
#include "rule_groups.hpp"

#include <benchd/sdk/limits.hpp>

#include <chrono>
#include <functional>
#include <optional>
#include <set>
#include <stdexcept>
#include <utility>

namespace benchd::conformance {
namespace {

const std::string kNoDelay = "?delayCallDepth=0&delayInMillis=0";

/// The valid framings a stack that frames requests itself (the stack-framing exception) may
/// still refuse: legal, but no client of the service sends them. Every other valid framing
/// must be read under any exception.
const std::set<std::string, std::less<>> kRareValidFramings = {"extension after a blank"};

struct FramingCase {
  std::string name;
  std::string head;  ///< header lines after the request line, each ending in CRLF
  std::string body;  ///< bytes after the blank line
  int status;
};

/// The first answer to `bytes` on a fresh connection that stays open: a server that waits for
/// input a correct reading of the framing would not wait for gets no more and times out. Empty
/// when it has `status`, else what was sent and what came back. A valid request (`status` 200)
/// answered otherwise fails the rule at once and strictly, unless `rare`: no contract exception
/// lets a stack refuse what the contract requires it to read.
std::string firstStatusMismatch(std::uint16_t port, const std::string& what,
                                const std::string& bytes, int status, bool rare = false) {
  std::string got;
  try {
    HttpConnection client(port, std::chrono::seconds(5));
    const HttpResponse response = client.rawRequest(bytes);
    if (static_cast<int>(response.status) == status)
      return {};
    got = shown(response);
  } catch (const std::runtime_error& error) {
    got = std::string("no answer (") + error.what() + ")";
  }
  std::string mismatch = "sent " + what + " '" + printableBytes(bytes) + "': expected " +
                         std::to_string(status) + ", got " + got;
  if (status == 200 && !rare)
    throw StrictRuleFailure(mismatch);
  return mismatch;
}

/// Sends every case as one POST to `target` and checks the first answer: the refusals that
/// differ, one per line (empty when none does).
std::string framingMismatches(std::uint16_t port, const std::string& target,
                              const std::vector<FramingCase>& cases) {
  std::string mismatches;
  for (const FramingCase& framing : cases) {
    const std::string mismatch = firstStatusMismatch(
        port, "(" + framing.name + ")",
        "POST " + target + " HTTP/1.1\r\nHost: t\r\n" + framing.head + "\r\n" + framing.body,
        framing.status, kRareValidFramings.contains(framing.name));
    if (!mismatch.empty())
      mismatches += (mismatches.empty() ? "" : "\n") + mismatch;
  }
  return mismatches;
}

/// Fails the rule with the refusals that differed, after checking strictly that the worker on
/// `port` still serves: what a stack answers in its own words (the stack-framing exception) is
/// its business, a server that stops serving never is.
void requireRefusalsAndService(std::uint16_t port, const std::string& mismatches,
                               const std::string& after) {
  strictly([&] { expectOk(askOnce(port, "GET", "/health"), "GET /health after " + after); });
  require(mismatches.empty(), mismatches);
}

void malformedHttpIsRefused(RuleContext& context) {
  auto worker = context.serve();
  std::string mismatches;
  for (const std::string request : {"GARBAGE\r\n\r\n", "GET /health HTTP/9.9\r\n\r\n"}) {
    std::string got;
    try {
      HttpConnection client(worker->port(), std::chrono::seconds(10));
      const HttpResponse response = client.rawRequest(request);
      if (response.status == 400)
        continue;
      got = shown(response);
    } catch (const std::runtime_error& error) {
      got = std::string("no answer (") + error.what() + ")";
    }
    mismatches += (mismatches.empty() ? "" : "\n") + std::string("sent '") +
                  printableBytes(request) + "': expected 400, got " + got;
  }
  requireRefusalsAndService(worker->port(), mismatches, "the malformed requests");
}

void bodyOverTheLimitIs413(RuleContext& context) {
  auto worker = context.serve();
  HttpConnection client(worker->port());
  const std::string target = context.path("/movies" + kNoDelay);
  const std::string huge(sdk::kMaxRequestBodyBytes + 1, ' ');
  expectError(ask(client, "POST", target, huge),
              "POST " + target + " with " + std::to_string(huge.size()) + " bytes", 413, "exceeds");
  expectOk(askOnce(worker->port(), "GET", "/health"), "GET /health after the 413");
}

void lengthOverTheLimitIs413BeforeTheBody(RuleContext& context) {
  auto worker = context.serve();
  std::string mismatches = framingMismatches(
      worker->port(), context.path("/movies" + kNoDelay),
      {
          {"Content-Length over the limit, body not sent", "Content-Length: 100000000\r\n", "[]",
           413},
          {"one chunk of 2 MiB, not sent", "Transfer-Encoding: chunked\r\n", "200000\r\n[]", 413},
      });
  const std::string any_method = firstStatusMismatch(
      worker->port(), "(any method)",
      "GET /health HTTP/1.1\r\nHost: t\r\nContent-Length: 100000000\r\n\r\n[]", 413);
  if (!any_method.empty())
    mismatches += (mismatches.empty() ? "" : "\n") + any_method;
  requireRefusalsAndService(worker->port(), mismatches, "the declared lengths over the limit");
}

void noLengthMeansNoBody(RuleContext& context) {
  auto worker = context.serve();
  const std::string next = "GET /health HTTP/1.1\r\nHost: t\r\n\r\n";
  for (const auto& [method, status] :
       std::vector<std::pair<std::string, unsigned>>{{"POST", 400}, {"PUT", 405}}) {
    HttpConnection client(worker->port(), std::chrono::seconds(5));
    std::string bytes = method + " " + context.path("/movies" + kNoDelay);
    bytes += " HTTP/1.1\r\nHost: t\r\n\r\n";
    bytes += next;
    const std::string sent = "'" + printableBytes(bytes) + "' (no Content-Length, no chunking)";
    const HttpResponse first = askRaw(client, bytes);
    require(first.status == status, "sent " + sent + ": expected " + std::to_string(status) +
                                        " to the first request, got " + shown(first));
    const HttpResponse pipelined = askRaw(client, "");
    require(pipelined.status == 200 && pipelined.body == R"({"status":"UP"})",
            "sent " + sent +
                R"(: expected the pipelined GET /health answered 200 {"status":"UP"}, )" + "got " +
                shown(pipelined));
  }
}

void contentLengthIsChecked(RuleContext& context) {
  auto worker = context.serve();
  std::string mismatches = framingMismatches(
      worker->port(), context.path("/movies" + kNoDelay),
      {
          {"two different headers", "Content-Length: 2\r\nContent-Length: 3\r\n", "[]x", 400},
          {"two different values in a list", "Content-Length: 2, 3\r\n", "[]x", 400},
          {"trailing letter", "Content-Length: 2x\r\n", "[]", 400},
          {"plus sign", "Content-Length: +2\r\n", "[]", 400},
          {"minus sign", "Content-Length: -1\r\n", "[]", 400},
          {"space inside", "Content-Length: 1 2\r\n", "[]", 400},
          {"empty", "Content-Length: \r\n", "[]", 400},
          {"over 64 bits", "Content-Length: 99999999999999999999999\r\n", "[]", 400},
          {"two equal headers", "Content-Length: 2\r\nContent-Length: 2\r\n", "[]", 200},
          {"leading zero", "Content-Length: 02\r\n", "[]", 200},
      });
  const std::string any_method = firstStatusMismatch(
      worker->port(), "(any method)",
      "GET /health HTTP/1.1\r\nHost: t\r\nContent-Length: 0\r\nContent-Length: 1\r\n\r\nx", 400);
  if (!any_method.empty())
    mismatches += (mismatches.empty() ? "" : "\n") + any_method;
  requireRefusalsAndService(worker->port(), mismatches, "the Content-Length cases");
}

void lengthWithChunkingIsRefused(RuleContext& context) {
  auto worker = context.serve();
  const std::string mismatches =
      framingMismatches(worker->port(), context.path("/movies" + kNoDelay),
                        {
                            {"length first", "Content-Length: 7\r\nTransfer-Encoding: chunked\r\n",
                             "2\r\n[]\r\n0\r\n\r\n", 400},
                            {"chunked first", "Transfer-Encoding: chunked\r\nContent-Length: 7\r\n",
                             "2\r\n[]\r\n0\r\n\r\n", 400},
                        });
  requireRefusalsAndService(worker->port(), mismatches, "the lengths with chunking");
}

void chunkFramingIsChecked(RuleContext& context) {
  auto worker = context.serve();
  const std::string chunked = "Transfer-Encoding: chunked\r\n";
  const std::string first = "2\r\n[]\r\n";
  const std::string mismatches = framingMismatches(
      worker->port(), context.path("/movies" + kNoDelay),
      {
          {"letters", chunked, first + "zz\r\n0\r\n\r\n", 400},
          {"minus sign", chunked, first + "-1\r\n0\r\n\r\n", 400},
          {"0x prefix", chunked, first + "0x0\r\n\r\n", 400},
          {"over 64 bits", chunked, first + "fffffffffffffffffff\r\n0\r\n\r\n", 400},
          {"empty size line", chunked, first + "\r\n0\r\n\r\n", 400},
          {"space before the size", chunked, " 2\r\n[]\r\n0\r\n\r\n", 400},
          {"space after the size", chunked, "2 \r\n[]\r\n0\r\n\r\n", 400},
          {"bare LF after the size", chunked, "2\n[]\r\n0\r\n\r\n", 400},
          {"no CRLF after the data", chunked, "2\r\n[]XX0\r\n\r\n", 400},
          {"data shorter than the size", chunked, "5\r\n[]\r\n0\r\n\r\n", 400},
          {"valid", chunked, first + "0\r\n\r\n", 200},
          {"upper-case coding name", "Transfer-Encoding: CHUNKED\r\n", first + "0\r\n\r\n", 200},
          {"extension", chunked, "2;a=b\r\n[]\r\n0\r\n\r\n", 200},
          {"extension after a blank", chunked, "2 ;a=b\r\n[]\r\n0\r\n\r\n", 200},
          {"leading zeros", chunked, "000000002\r\n[]\r\n0\r\n\r\n", 200},
          {"trailer field", chunked, first + "0\r\nX-Trailer: 1\r\n\r\n", 200},
      });
  requireRefusalsAndService(worker->port(), mismatches, "the chunk framing cases");
}

/// A chunk line or trailer section too long to hold unparsed is refused, with 400 or by closing
/// the connection, and the plugin keeps serving (a 64 KiB trailer field once made Beast throw
/// out of the Asio plugins' read handlers and ended the worker); the lengths the contract
/// requires are read.
void unparsedBytesAreBounded(RuleContext& context) {
  auto worker = context.serve();
  const std::string target = context.path("/movies" + kNoDelay);
  const std::string chunked = "Transfer-Encoding: chunked\r\n";
  // The trailer section, line ends included, at the required 8 KiB; the chunk line at 4,096.
  const std::string trailer_field = "X-T: " + std::string(sdk::kMaxRequestHeaderBytes - 9, 'a');
  const std::string long_extension(sdk::kMinChunkLineBytes - 5, 'e');
  // Only valid requests here: a mismatch fails strictly.
  (void)framingMismatches(worker->port(), target,
                          {
                              {"a trailer section of 8 KiB", chunked,
                               "2\r\n[]\r\n0\r\n" + trailer_field + "\r\n\r\n", 200},
                              {"a chunk line of 4,096 bytes", chunked,
                               "2;" + long_extension + "\r\n[]\r\n0\r\n\r\n", 200},
                          });
  constexpr std::size_t over = 65'534;
  const std::vector<std::pair<std::string, std::string>> too_long = {
      {"a trailer field of 65,534 bytes",
       "2\r\n[]\r\n0\r\nX-T: " + std::string(over, 'a') + "\r\n\r\n"},
      {"a chunk extension of 65,534 bytes", "2;" + std::string(over, 'e') + "\r\n[]\r\n0\r\n\r\n"},
  };
  std::string mismatches;
  for (const auto& [what, body] : too_long) {
    std::string bytes = "POST " + target + " HTTP/1.1\r\nHost: t\r\n";
    bytes += chunked;
    bytes += "\r\n";
    bytes += body;
    std::optional<HttpResponse> answer;
    try {
      HttpConnection client(worker->port(), std::chrono::seconds(5));
      answer = client.rawRequest(bytes);
    } catch (const std::runtime_error&) {
      // Closed unanswered (or reset while the rest was being sent): allowed.
    }
    if (answer && answer->status != 400) {
      mismatches += (mismatches.empty() ? "" : "\n") + std::string("sent ") + what +
                    ": expected 400 or a closed connection, got " + shown(*answer);
    }
    try {
      expectOk(askOnce(worker->port(), "GET", "/health"), "GET /health after " + what);
    } catch (const RuleFailure& failure) {
      throw StrictRuleFailure("after " + what +
                              " the plugin no longer serves (did the worker "
                              "die?): " +
                              failure.what());
    }
  }
  require(mismatches.empty(), mismatches);
}

}  // namespace

std::vector<Rule> framingRules() {
  return {
      {"framing.malformed", "a request line that does not parse, or another HTTP version, is 400",
       "7", malformedHttpIsRefused},
      {"framing.body-over-limit", "a body over kMaxRequestBodyBytes is 413", "7, 10",
       bodyOverTheLimitIs413},
      {"framing.length-over-limit", "a declared length over the limit is 413 before the body",
       "7, 10", lengthOverTheLimitIs413BeforeTheBody},
      {"framing.no-length",
       "no Content-Length and no chunking: no body, and the next request is served", "7",
       noLengthMeansNoBody},
      {"framing.content-length",
       "conflicting or malformed Content-Length is 400; equal repeats and leading zeros are fine",
       "7", contentLengthIsChecked},
      {"framing.length-with-chunked", "Content-Length with Transfer-Encoding is 400", "7",
       lengthWithChunkingIsRefused},
      {"framing.chunks",
       "bad chunk framing is 400; extensions, trailers, leading zeros, any case accepted", "7",
       chunkFramingIsChecked},
      {"framing.unparsed-limit",
       "a chunk line or trailer section over BENCHD_MAX_UNPARSED_REQUEST_BYTES is refused (400 or "
       "closed) and the plugin keeps serving; 8 KiB trailers and 4,096-byte chunk lines are read",
       "7, 10", unparsedBytesAreBounded},
  };
}

}  // namespace benchd::conformance
