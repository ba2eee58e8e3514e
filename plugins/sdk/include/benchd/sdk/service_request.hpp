#pragma once
// Header-only plugin SDK: turns an HTTP method and request target into one of the
// microservice's operations, or into the error reply every plugin must give for bad input.
// Plugins share this so that the benchmark compares transport and concurrency, not parsers.

#include <benchd/sdk/limits.hpp>
#include <benchd/sdk/query_string.hpp>

#include <charconv>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <variant>

namespace benchd::sdk {

enum class Operation {
  kHealth = 1,
  kEpochMillis,
  kGetMovies,
  kPostMovies,
  kDeleteMovie,
};

/// A validated request of the microservice. `delay_call_depth` nested calls precede the
/// answer; only the innermost waits `delay_millis`.
struct ServiceRequest {
  Operation operation = Operation::kHealth;
  int delay_call_depth = 0;
  std::int64_t delay_millis = 0;
  std::string director_last_name;  ///< kGetMovies only, percent-decoded
  std::int64_t movie_id = 0;       ///< kDeleteMovie only
};

/// A complete reply the plugin sends as is.
struct Reply {
  int status = 200;
  std::string_view content_type = "application/json";  ///< static text
  std::string body;
  std::string allow;  ///< value of the Allow header for 405 replies, else empty
};

// The limits on the query parameters (larger values are refused with 400) and on request
// bodies (413) are kMaxDelayCallDepth, kMaxDelayMillis and kMaxRequestBodyBytes in limits.hpp.

namespace detail {

inline std::string jsonEscape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          static constexpr char kHex[] = "0123456789abcdef";
          out += "\\u00";
          out += kHex[(static_cast<unsigned char>(c) >> 4) & 0xF];
          out += kHex[static_cast<unsigned char>(c) & 0xF];
        } else {
          out += c;
        }
    }
  }
  return out;
}

template <typename Int>
std::optional<Int> parseInteger(std::string_view text, Int min, Int max) {
  Int value{};
  const auto* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc{} || ptr != end || text.empty() || value < min || value > max) {
    return std::nullopt;
  }
  return value;
}

}  // namespace detail

/// The standard reason phrase of the status codes the microservice uses ("Error" otherwise).
inline std::string_view reasonPhrase(int status) {
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
      return "Error";
  }
}

/// A JSON error body in the shape Spring Boot gives: {"status":400,"error":"Bad Request",
/// "message":"..."}.
inline Reply errorReply(int status, std::string_view message, std::string allow = {}) {
  const std::string_view reason = reasonPhrase(status);
  Reply reply;
  reply.status = status;
  reply.body = R"({"status":)" + std::to_string(status) + R"(,"error":")" + std::string(reason) +
               R"(","message":")" + detail::jsonEscape(message) + R"("})";
  reply.allow = std::move(allow);
  return reply;
}

/// What every 400 for a request HTTP cannot parse starts with (CONTRACT.md section 7): the
/// plugins' parsers word the rest differently, never this.
inline constexpr std::string_view kMalformedRequestPrefix = "malformed HTTP request: ";

/// The 400 for a request HTTP cannot parse; `what` says what is wrong with it.
inline Reply malformedRequestReply(std::string_view what) {
  return errorReply(400, std::string(kMalformedRequestPrefix) + std::string(what));
}

/// The 413 for a request body over kMaxRequestBodyBytes.
inline Reply bodyTooLargeReply() {
  return errorReply(413, "request body exceeds " + std::to_string(kMaxRequestBodyBytes) + " bytes");
}

/// The 502 for a nested call that got no answer; `why` says what went wrong (the client's words).
inline Reply nestedCallFailedReply(std::string_view why) {
  return errorReply(502, "nested call failed: " + std::string(why));
}

/// The 502 for a nested call the upstream answered with `status` other than 200.
inline Reply nestedCallAnsweredReply(std::int64_t status) {
  return errorReply(502, "nested call answered " + std::to_string(status));
}

/// Classifies a request. `approach` is the plugin's name (the first path segment of its
/// endpoints). Returns the validated request, or the reply to send: 400 for missing or
/// malformed parameters, 404 for unknown paths, 405 (with Allow) for a wrong method.
/// Thread-safe (pure function).
inline std::variant<ServiceRequest, Reply> classifyRequest(std::string_view method,
                                                           std::string_view target,
                                                           std::string_view approach) {
  const std::size_t question = target.find('?');
  const std::string_view path = target.substr(0, question);
  const std::string_view query =
      question == std::string_view::npos ? std::string_view{} : target.substr(question + 1);

  if (path == "/health") {
    if (method != "GET")
      return errorReply(405, "use GET on /health", "GET");
    ServiceRequest health;
    health.operation = Operation::kHealth;
    return health;
  }

  const std::size_t prefix_size = approach.size() + 1;
  if (path.size() <= prefix_size || path[0] != '/' || path.substr(1, approach.size()) != approach ||
      path[prefix_size] != '/') {
    return errorReply(404, "no such path: " + std::string(path));
  }
  const std::string_view resource = path.substr(prefix_size);

  ServiceRequest request;
  if (resource == "/epoch-millis") {
    request.operation = Operation::kEpochMillis;
    if (method != "GET")
      return errorReply(405, "use GET on " + std::string(path), "GET");
  } else if (resource == "/movies") {
    if (method == "GET") {
      request.operation = Operation::kGetMovies;
    } else if (method == "POST") {
      request.operation = Operation::kPostMovies;
    } else {
      return errorReply(405, "use GET or POST on " + std::string(path), "GET, POST");
    }
  } else if (resource.starts_with("/movies/") && resource.size() > 8 &&
             resource.find('/', 8) == std::string_view::npos) {
    if (method != "DELETE") {
      return errorReply(405, "use DELETE on " + std::string(path), "DELETE");
    }
    const auto id = detail::parseInteger<std::int64_t>(resource.substr(8), 0, INT64_MAX);
    if (!id)
      return errorReply(400, "movie id must be a non-negative integer");
    request.operation = Operation::kDeleteMovie;
    request.movie_id = *id;
  } else {
    return errorReply(404, "no such path: " + std::string(path));
  }

  const auto depth_text = firstRawQueryValue(query, "delayCallDepth");
  if (!depth_text)
    return errorReply(400, "missing query parameter delayCallDepth");
  const auto depth = detail::parseInteger<int>(*depth_text, 0, kMaxDelayCallDepth);
  if (!depth) {
    return errorReply(400, "delayCallDepth must be an integer from 0 to " +
                               std::to_string(kMaxDelayCallDepth) + ", got '" +
                               std::string(*depth_text) + "'");
  }
  const auto delay_text = firstRawQueryValue(query, "delayInMillis");
  if (!delay_text)
    return errorReply(400, "missing query parameter delayInMillis");
  const auto delay = detail::parseInteger<std::int64_t>(*delay_text, 0, kMaxDelayMillis);
  if (!delay) {
    return errorReply(400, "delayInMillis must be an integer from 0 to " +
                               std::to_string(kMaxDelayMillis) + ", got '" +
                               std::string(*delay_text) + "'");
  }
  request.delay_call_depth = *depth;
  request.delay_millis = *delay;

  if (request.operation == Operation::kGetMovies) {
    const auto director = firstRawQueryValue(query, "directorLastName");
    if (!director)
      return errorReply(400, "missing query parameter directorLastName");
    auto decoded = percentDecode(*director, PlusSign::kSpace);
    if (!decoded || decoded->empty()) {
      return errorReply(400, "directorLastName must be a non-empty, correctly encoded string");
    }
    request.director_last_name = std::move(*decoded);
  }
  return request;
}

/// The request target of the nested call a request at depth `depth` > 0 makes to its own
/// server: the approach's epoch-millis endpoint one level shallower, same delay.
inline std::string upstreamTarget(std::string_view approach, const ServiceRequest& request) {
  return "/" + std::string(approach) +
         "/epoch-millis?delayCallDepth=" + std::to_string(request.delay_call_depth - 1) +
         "&delayInMillis=" + std::to_string(request.delay_millis);
}

/// The most bytes of an answer a nested call keeps, whatever its client: the bound Beast's
/// response parser puts on its answers (its default body limit); the service's answers are a
/// few KiB.
inline constexpr std::size_t kMaxUpstreamAnswerBytes = std::size_t{8} * 1024 * 1024;

/// The response timeout of a nested call to `target`, a target upstreamTarget() made:
/// upstreamResponseTimeout() of the delay it forwards, with `margin` beyond it. A target
/// without a valid delay gets the timeout of the longest allowed delay (the callee refuses it
/// at once anyway).
inline std::chrono::milliseconds upstreamResponseTimeoutFor(
    std::string_view target, std::chrono::milliseconds margin = kUpstreamResponseMargin) {
  const std::size_t question = target.find('?');
  const std::string_view query =
      question == std::string_view::npos ? std::string_view{} : target.substr(question + 1);
  const auto delay_text = firstRawQueryValue(query, "delayInMillis");
  const auto delay = delay_text
                         ? detail::parseInteger<std::int64_t>(*delay_text, 0, kMaxDelayMillis)
                         : std::nullopt;
  return upstreamResponseTimeout(delay.value_or(kMaxDelayMillis), margin);
}

}  // namespace benchd::sdk
