#pragma once

#include <benchd/sdk/query_string.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace benchd::http {

/// Request-target parsing: the pure, socket-free part of the layer. The server runs every
/// request's target through parseTarget() before any policy, route or handler sees it, so a
/// handler only ever receives decoded, traversal-free path segments.
///
/// All functions are pure and thread-safe.

/// One `name=value` pair of a query string, both percent-decoded.
using QueryParam = sdk::QueryParam;

/// The outcome of parseTarget(): either `ok` with the parts, or a client error (`reason`, a
/// stable machine-readable code, and `detail`, one sentence for a human).
struct ParsedTarget {
  bool ok = false;
  std::string reason;  ///< e.g. "path-traversal"; empty when ok
  std::string detail;  ///< what was wrong and what is expected; empty when ok
  std::string path;    ///< the raw (still encoded) path, e.g. "/api/v1/runs/r%201"
  /// Decoded path segments: "/a/b%20c" -> {"a", "b c"}; "/" -> {}.
  std::vector<std::string> segments;
  bool trailing_slash = false;    ///< "/a/b/" (never set for "/")
  std::vector<QueryParam> query;  ///< in request order, duplicates kept
};

/// Splits an origin-form request target (`/path?query`) into decoded segments and query
/// parameters, rejecting anything that could address a file outside a folder when a segment
/// is used as a file or id name:
///  - targets not starting with '/' (absolute-form, authority-form, '*'): "bad-target";
///  - malformed %-escapes, in the path or the query (see benchd/sdk/query_string.hpp for the
///    decoding rules both share with the plugins): "bad-encoding";
///  - empty segments ("//"), which turn a relative name into an absolute one: "empty-segment";
///  - '.' or '..' segments, raw or encoded (%2e%2e): "path-traversal";
///  - a decoded '/' or '\' inside a segment (%2f, %5c): "encoded-separator";
///  - NUL or another control character in a decoded segment or query name or value:
///    "control-character".
/// The fragment ('#...') must not be sent by clients and is rejected as "bad-target".
[[nodiscard]] ParsedTarget parseTarget(std::string_view target);

}  // namespace benchd::http
