#pragma once

#include <boost/asio/buffer.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/system/error_code.hpp>

#include <cstddef>

namespace benchd::asio_common {

/// Writes what of `bytes` the socket takes right now, without waiting, and returns how much;
/// the caller writes the rest with async_write. A reply usually fits the socket's send buffer
/// whole, and async_write would then complete at once, but through a post: a pass through the
/// event loop (and, for a coroutine or a fiber, a suspension and a resumption). Puts the socket
/// in non-blocking mode (Asio's user flag), which leaves its asynchronous operations as they are.
/// `error` is what a write would report (a reset, a broken pipe); a full send buffer is none.
/// Every Asio event-loop plugin writes replies through this, so their handling stays the same.
std::size_t writeWithoutWaiting(boost::asio::ip::tcp::socket& socket,
                                boost::asio::const_buffer bytes, boost::system::error_code& error);

}  // namespace benchd::asio_common
