#pragma once

#include <Poco/Net/HTTPRequest.h>

#include <optional>
#include <string>

namespace benchd::threads_poco {

/// What the Asio plugins' parser (Beast) refuses in a request head that Poco's parser lets
/// through, checked on what Poco parsed so every plugin answers such a request with 400:
///   - a header section over sdk::kMaxRequestHeaderBytes (Poco bounds each field, not the
///     whole; the size is counted as the request line and the fields with ": " and CRLF);
///   - a field name that is not an RFC 9110 token (a space before the colon, non-ASCII);
///   - a NUL or other control character (HTAB allowed) in the target or a field value.
/// What Poco's parsing leaves no trace of (a bare LF line end, extra spaces in the request
/// line) cannot be checked here; CONTRACT.md lists those differences.
/// Returns the reason, or nothing when the head is acceptable.
std::optional<std::string> requestHeadProblem(const Poco::Net::HTTPRequest& request);

}  // namespace benchd::threads_poco
