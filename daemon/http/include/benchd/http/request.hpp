#pragma once

#include <benchd/http/headers.hpp>
#include <benchd/http/target.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace benchd::http {

/// One complete HTTP request as a handler sees it: fully read (body included, within the
/// server's body limit), target already parsed and checked (see parseTarget()), path
/// parameters bound by the route that matched.
///
/// The server builds it; handlers get it by const reference, valid for the duration of the
/// call only (copy what must outlive it). Immutable once handed out, so reading it from several
/// threads is fine.
struct Request {
  std::string method;                 ///< as sent, e.g. "GET" (methods are case-sensitive)
  std::string target;                 ///< the raw request-target, e.g. "/api/v1/runs?status=done"
  std::string path;                   ///< the raw path part of the target
  std::vector<std::string> segments;  ///< decoded path segments
  std::vector<std::pair<std::string, std::string>> path_params;  ///< decoded, from the route
  std::vector<QueryParam> query;  ///< decoded, in request order, duplicates kept
  HeaderList headers;
  std::string body;
  std::string remote_address;  ///< peer IP, e.g. "127.0.0.1" or "::1"
  std::uint16_t remote_port = 0;
  std::string local_address;  ///< the address the connection arrived on
  std::uint16_t local_port = 0;

  /// A path parameter by name (`{id}` in the route pattern); nothing when the route has none.
  /// Values never contain '/', '\', NUL or control characters and are never "." or "..".
  [[nodiscard]] std::optional<std::string_view> param(std::string_view name) const;
  /// The first query parameter `name`, or nothing.
  [[nodiscard]] std::optional<std::string_view> queryParam(std::string_view name) const;
  /// A header value by case-insensitive name, or nothing.
  [[nodiscard]] std::optional<std::string_view> header(std::string_view name) const {
    return headers.get(name);
  }
  /// The SSE `Last-Event-ID` header (sent by a reconnecting client), or nothing.
  [[nodiscard]] std::optional<std::string_view> lastEventId() const {
    return headers.get("Last-Event-ID");
  }
};

}  // namespace benchd::http
