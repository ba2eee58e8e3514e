#pragma once

#include <benchd/http/response.hpp>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace benchd::http {

/// An RFC 9457 problem details object, sent as `application/problem+json`:
/// `{"type", "title", "status", "detail", "instance"?, <extension members>...}`.
///
/// `type` defaults to "about:blank", whose `title` must then be the status' reason phrase (the
/// default). Give a problem its own `type` URI and a stable `title` when clients should tell
/// it apart from others with the same status. `detail` explains this occurrence to whoever
/// fixes the request; it never carries stack traces or internal paths.
///
/// Extension members follow the project convention (docs/daemon-api.md#errors): lower-case
/// names of at least 3 characters starting with a letter (camelCase when a name needs two
/// words, docs/daemon-api.md#json-documents); clients ignore unknown members. The
/// layer's own errors add `reason`, a stable machine-readable code (e.g. "path-traversal",
/// "unknown-route").
/// A plain value type.
class Problem {
 public:
  /// `title` empty: the reason phrase of `status`.
  explicit Problem(unsigned status, std::string detail = {}, std::string title = {});

  Problem& type(std::string uri);
  Problem& instance(std::string uri);
  /// A string extension member, e.g. ("field", "warmup_seconds").
  Problem& extension(std::string name, const std::string& value);
  /// A number extension member, e.g. ("retry_after_seconds", 5).
  Problem& extension(std::string name, std::int64_t value);
  /// An extension member given as serialised JSON (an array of field errors, an object); the
  /// caller guarantees it is valid JSON.
  Problem& extensionJson(std::string name, std::string json_value);

  [[nodiscard]] unsigned status() const noexcept { return status_; }
  /// The JSON text of the problem object.
  [[nodiscard]] std::string toJson() const;
  /// A response with this problem as body and `Content-Type: application/problem+json`.
  [[nodiscard]] Response toResponse() const;

 private:
  struct Member {
    std::string name;
    std::string json;  ///< already serialised
  };
  unsigned status_;
  std::string type_ = "about:blank";
  std::string title_;
  std::string detail_;
  std::string instance_;
  std::vector<Member> extensions_;
};

/// The layer's own error shape: type about:blank, the reason phrase as title, `detail`, and
/// the extension `reason` (a stable code). Used for every 4xx/5xx the server itself produces.
[[nodiscard]] Response problemResponse(unsigned status, const std::string& reason,
                                       std::string detail);

}  // namespace benchd::http
