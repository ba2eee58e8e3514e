#pragma once

#include <benchd/asio_common/tls_contexts.hpp>

#include <boost/beast/core/tcp_stream.hpp>
#include <boost/system/error_code.hpp>

#include <string>

namespace benchd::fibers_asio {

/// Writes `bytes` (an HTTP/1.1 reply, or what an HTTP/2 session produced) within
/// sdk::kIoTimeout, suspending the calling fiber: on a plain connection what the socket takes at
/// once directly, the rest with async_write. A read may be pending on the stream meanwhile.
boost::system::error_code writeReply(boost::beast::tcp_stream& stream, const std::string& bytes);

/// The same under TLS, all of it through the TLS stream (a direct write would skip the
/// encryption).
boost::system::error_code writeReply(asio_common::TlsStream& stream, const std::string& bytes);

}  // namespace benchd::fibers_asio
