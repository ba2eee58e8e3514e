#pragma once

#include <benchd/http/request.hpp>
#include <benchd/http/response.hpp>

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace benchd::http {

/// What a policy knows about the route a request is headed for.
struct RouteTraits {
  bool matched = false;    ///< a route exists for the path (maybe not for the method)
  bool is_public = false;  ///< RouteOptions::is_public of that route; false when unmatched
};

/// A check run on every well-formed request before routing decides 404/405 and before the
/// handler: it returns a response to refuse the request, or nothing to let it pass. The server
/// runs ServerOptions::policies in order; the first refusal is sent. Called on server threads,
/// concurrently: a policy must be thread-safe and quick.
using Policy = std::function<std::optional<Response>(const Request&, const RouteTraits&)>;

/// Defence against DNS rebinding (docs/security.md#the-host-check): accepts a request only if
/// its `Host` names this server: the address the connection arrived on (Request::local_address,
/// IPv6 in brackets), "localhost", "127.0.0.1", "[::1]" or one of `extra_names`
/// (case-insensitive), each with no port or with exactly the port the connection arrived on.
///  - `Host` missing, duplicated or syntactically broken: 400 (RFC 9112 §3.2 requires 400);
///  - a well-formed `Host` naming another server: 421 Misdirected Request (RFC 9110 §15.5.20:
///    "this server is not the one you meant"), which also tells a browser-side attacker
///    nothing about the API.
/// Applies to public routes too.
[[nodiscard]] Policy hostCheckPolicy(std::vector<std::string> extra_names = {});

/// Bearer-token authentication (RFC 6750 §2.1): every non-public route needs
/// `Authorization: Bearer <token>`. A missing, malformed or wrong token gets the same answer,
/// 401 with `WWW-Authenticate: Bearer realm="<realm>"` and a problem body that says only that
/// a valid token is required, so a caller learns nothing about why. The token is compared in
/// constant time. Throws std::invalid_argument for an empty token.
[[nodiscard]] Policy bearerTokenPolicy(std::string token, const std::string& realm = "api");

/// Compares two secrets in time that depends only on `expected`'s length, not on where they
/// differ.
[[nodiscard]] bool constantTimeEquals(std::string_view given, std::string_view expected) noexcept;

/// For handlers that take a body: nothing when `Content-Type` is `media_type` (parameters such
/// as `; charset=utf-8` allowed, case-insensitive), else a 415 problem (with `Accept-Post`
/// listing the expected type). Call as `if (auto refusal = requireContentType(r, "text/csv"))
/// return *refusal;`.
[[nodiscard]] std::optional<Response> requireContentType(const Request& request,
                                                         std::string_view media_type);
/// requireContentType(request, "application/json").
[[nodiscard]] std::optional<Response> requireJson(const Request& request);

}  // namespace benchd::http
