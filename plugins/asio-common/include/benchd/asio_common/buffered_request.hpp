#pragma once

#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/system/error_code.hpp>

namespace benchd::asio_common {

/// What parseBufferedRequest() left to read.
enum class BufferedRequest {
  kComplete,    ///< the whole request was buffered: no read operation is needed
  kNeedHeader,  ///< the header is not complete yet: read it (http::async_read_header)
  kNeedBody,    ///< the header is complete, the body is not: read it (http::async_read)
  kFailed,      ///< the buffered bytes are not a valid request: the error says why
};

/// Feeds `parser` what `buffer` holds already, without a read operation, and consumes what it
/// took. A request usually arrives whole with the first read of it; Beast's read operations
/// would then complete at once, but through a post, which costs a pass through the event loop
/// (and, for a coroutine or a fiber, a suspension and a resumption) for each of the two. The
/// parser is the same one the read operations use, so `error` on kFailed is what they would
/// have reported (a malformed head, a body over the limit); a partial request is left to them.
/// Every Asio plugin reads requests through this, so their HTTP handling stays the same.
template <typename Body>
BufferedRequest parseBufferedRequest(boost::beast::http::request_parser<Body>& parser,
                                     boost::beast::flat_buffer& buffer,
                                     boost::system::error_code& error) {
  error = {};
  if (buffer.size() != 0 && !parser.is_done()) {
    parser.eager(true);  // into the body, as http::async_read does
    buffer.consume(parser.put(buffer.data(), error));
    if (error == boost::beast::http::error::need_more)
      error = {};
    else if (error)
      return BufferedRequest::kFailed;
  }
  if (parser.is_done())
    return BufferedRequest::kComplete;
  return parser.is_header_done() ? BufferedRequest::kNeedBody : BufferedRequest::kNeedHeader;
}

}  // namespace benchd::asio_common
