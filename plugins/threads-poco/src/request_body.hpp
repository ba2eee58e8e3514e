#pragma once

#include <benchd/sdk/service_request.hpp>

#include <Poco/Net/HTTPServerRequest.h>
#include <Poco/Net/HTTPServerResponse.h>

#include <optional>
#include <string>

namespace benchd::threads_poco {

/// Reads the body of `request` into `body`, framed as RFC 9112 section 6 says and checked the
/// way the Asio plugins' parser (Beast) checks it, so every plugin answers a request alike.
///
/// Poco's own request streams cannot be used for this: without a length they read until the
/// connection closes (swallowing pipelined requests), they take the first of several
/// Content-Length values, and a malformed chunk reads as the end of the body. So:
/// - neither Content-Length nor Transfer-Encoding: no body (not "until close");
/// - Content-Length: a comma-separated list of decimal numbers, in one field or several, all
///   equal; anything else is 400 (request smuggling), and a length over
///   sdk::kMaxRequestBodyBytes is 413 before any body byte is read;
/// - Transfer-Encoding whose last coding is `chunked`: strictly checked chunks (hex size,
///   optional extensions, CRLF line ends, CRLF after the data, trailer fields); any deviation
///   is 400, a total over the limit 413 as soon as a chunk size says so; a Transfer-Encoding
///   that does not end in `chunked` frames no body, as in Beast;
/// - Content-Length together with Transfer-Encoding: 400.
///
/// Returns nothing when the body was read whole; otherwise the error reply, after which the
/// connection cannot be trusted to be at a request boundary and must be closed. Never reads
/// past the end of the body, so pipelined requests stay for the server's next read.
/// Throws Poco::Exception when the connection fails (timeout, reset) while reading.
/// `Expect: 100-continue` is answered only once the framing is accepted, so a refused body is
/// never invited.
[[nodiscard]] std::optional<sdk::Reply> readRequestBody(Poco::Net::HTTPServerRequest& request,
                                                        Poco::Net::HTTPServerResponse& response,
                                                        std::string& body);

}  // namespace benchd::threads_poco
