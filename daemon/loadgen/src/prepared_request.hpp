#pragma once

#include <benchd/loadgen/request_target.hpp>
#include <benchd/scenario/workload.hpp>

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace benchd::loadgen {

/// One request of a mix, serialised once before the phase: the exact bytes every send writes.
struct PreparedRequest {
  std::string bytes;
  /// HEAD: the response has headers only, whatever its Content-Length says.
  bool head = false;
  /// The method is idempotent (RFC 9110 9.2.2: GET, HEAD, OPTIONS, TRACE, PUT, DELETE): only
  /// such a request may be sent again when a reused connection turns out closed. POST and PATCH
  /// are never re-sent, since the server may have acted on the first copy.
  bool idempotent = false;
  /// The same request for HTTP/2 (RequestTarget::http2): its header fields in order, the
  /// pseudo-headers (:method, :scheme, :authority, :path) first, names in lower case, without
  /// HTTP/1.1's connection-specific fields (RFC 9113 section 8.2.2).
  std::vector<std::pair<std::string, std::string>> h2_fields;
  std::string body;
};

/// A sub-scenario's weighted request mix with its paths rendered for one target. Immutable once
/// built, so the event-loop threads share it.
class RequestMix {
 public:
  /// Renders every template for `target` (Host header "host:port", User-Agent "benchd-load",
  /// the template's headers, Content-Length for a body). Throws std::invalid_argument for an
  /// empty mix.
  RequestMix(const std::vector<scenario::RequestTemplate>& templates, const RequestTarget& target);

  /// The request whose weight interval holds `uniform` (in [0, 1)); the only one of a
  /// single-request mix whatever `uniform` is.
  [[nodiscard]] const PreparedRequest& pick(double uniform) const noexcept;

  [[nodiscard]] bool single() const noexcept { return requests_.size() == 1; }
  [[nodiscard]] const std::vector<PreparedRequest>& requests() const noexcept { return requests_; }

 private:
  std::vector<PreparedRequest> requests_;
  std::vector<double> cumulative_share_;  ///< upper end of each request's interval, last is 1
};

}  // namespace benchd::loadgen
