#include "request_head_check.hpp"

#include "client_text.hpp"

#include <benchd/sdk/limits.hpp>
#include <benchd/sdk/service_request.hpp>

#include <algorithm>
#include <optional>

namespace benchd::threads_poco {
namespace {

constexpr std::string_view kMalformed = sdk::kMalformedRequestPrefix;

/// RFC 9110 tchar (Beast's is_token_char).
bool isTokenChar(char c) {
  const auto byte = static_cast<unsigned char>(c);
  if ((byte >= '0' && byte <= '9') || ((byte | 0x20U) >= 'a' && (byte | 0x20U) <= 'z'))
    return true;
  return std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
}

/// A byte of a request target: anything but controls, SP and DEL (Beast's is_pathchar).
bool isTargetChar(char c) {
  const auto byte = static_cast<unsigned char>(c);
  return byte > 0x20 && byte != 0x7f;
}

/// A byte a field value may not hold: a control but HTAB, or DEL (CR and LF included: here
/// they are inside a line, not its end).
bool isForbiddenInValue(char c) {
  const auto byte = static_cast<unsigned char>(c);
  return (byte < 0x20 && byte != '\t') || byte == 0x7f;
}

bool isBlank(char c) {
  return c == ' ' || c == '\t';
}

/// Why `line` (without its CRLF) is not a request line, or nothing. `whole`: the line ended;
/// otherwise `line` is what arrived of it so far and only a breach those bytes already show
/// counts.
std::optional<std::string> requestLineProblem(std::string_view line, bool whole) {
  const auto shape = [&line] {
    return std::string(kMalformed) + "the request line " + quotedClientText(line) +
           " is not 'method SP target SP HTTP/1.x'";
  };
  std::size_t at = 0;
  while (at < line.size() && isTokenChar(line[at]))
    ++at;
  if (at == line.size())
    return whole ? std::optional(shape()) : std::nullopt;
  if (at == 0 || line[at] != ' ')
    return shape();
  const std::size_t target_begins = ++at;
  while (at < line.size() && isTargetChar(line[at]))
    ++at;
  if (at == line.size())
    return whole ? std::optional(shape()) : std::nullopt;
  if (at == target_begins || line[at] != ' ')
    return shape();
  const std::string_view version = line.substr(at + 1);
  // Like Beast, the version is judged once its eight bytes are here.
  constexpr std::size_t kVersionBytes = 8;
  if (!whole && version.size() < kVersionBytes)
    return std::nullopt;
  if (version != "HTTP/1.1" && version != "HTTP/1.0") {
    return std::string(kMalformed) + "unsupported or malformed HTTP version " +
           quotedClientText(version) + " (HTTP/1.0 and HTTP/1.1 are served)";
  }
  return std::nullopt;
}

std::optional<std::string> valueProblem(std::string_view value, std::string_view name) {
  if (std::any_of(value.begin(), value.end(), isForbiddenInValue)) {
    return std::string(kMalformed) + "a control character in header field " +
           quotedClientText(name);
  }
  return std::nullopt;
}

/// Why `line` (without its CRLF, not empty) is not a field line, or nothing; `whole` as in
/// requestLineProblem(). `may_continue`: a field line came before, which a line that starts
/// with a blank continues (obs-fold).
std::optional<std::string> fieldLineProblem(std::string_view line, bool whole, bool may_continue) {
  if (isBlank(line.front())) {
    if (!may_continue) {
      return std::string(kMalformed) +
             "a header line that starts with a blank must continue a field line";
    }
    return valueProblem(line, "(continued)");
  }
  std::size_t at = 0;
  while (at < line.size() && isTokenChar(line[at]))
    ++at;
  if (at == line.size()) {
    if (!whole)
      return std::nullopt;
    return std::string(kMalformed) + "header line " + quotedClientText(line) + " has no ':'";
  }
  if (at == 0 || line[at] != ':') {
    return std::string(kMalformed) + "invalid header field name in " + quotedClientText(line) +
           " (a token, then ':' with no blank before it)";
  }
  return valueProblem(line.substr(at + 1), line.substr(0, at));
}

HeadCheck refused(std::string problem) {
  return HeadCheck{HeadCheck::Verdict::kRefused, 0, std::move(problem)};
}

}  // namespace

HeadCheck RequestHeadChecker::check(std::string_view received) {
  // Beast looks at no more than its header limit: a head must end within it.
  const std::string_view window =
      received.substr(0, std::min(received.size(), sdk::kMaxRequestHeaderBytes));
  for (;;) {
    const std::size_t line_feed = window.find('\n', checked_);
    if (line_feed == std::string_view::npos)
      break;
    std::string_view line = window.substr(checked_, line_feed - checked_);
    if (line.empty() || line.back() != '\r') {
      return refused(std::string(kMalformed) + "a line ends in a bare LF (lines end in CRLF)");
    }
    line.remove_suffix(1);
    if (line.find('\r') != std::string_view::npos)
      return refused(std::string(kMalformed) + "a CR not followed by LF");
    checked_ = line_feed + 1;
    if (!request_line_checked_) {
      if (auto problem = requestLineProblem(line, true))
        return refused(std::move(*problem));
      request_line_checked_ = true;
      continue;
    }
    if (line.empty())
      return HeadCheck{HeadCheck::Verdict::kComplete, checked_, {}};
    if (auto problem = fieldLineProblem(line, true, field_line_checked_))
      return refused(std::move(*problem));
    field_line_checked_ = true;
  }
  // The line still arriving: a CR at its end may yet be followed by LF.
  std::string_view partial = window.substr(checked_);
  if (!partial.empty() && partial.back() == '\r')
    partial.remove_suffix(1);
  if (partial.find('\r') != std::string_view::npos)
    return refused(std::string(kMalformed) + "a CR not followed by LF");
  if (!partial.empty()) {
    auto problem = request_line_checked_ ? fieldLineProblem(partial, false, field_line_checked_)
                                         : requestLineProblem(partial, false);
    if (problem)
      return refused(std::move(*problem));
  }
  if (received.size() >= sdk::kMaxRequestHeaderBytes) {
    return refused(std::string(kMalformed) + "header section over " +
                   std::to_string(sdk::kMaxRequestHeaderBytes) + " bytes");
  }
  return HeadCheck{};
}

}  // namespace benchd::threads_poco
