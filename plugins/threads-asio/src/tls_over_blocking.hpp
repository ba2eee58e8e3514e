#pragma once

#include "blocking_stream.hpp"

#include <boost/asio/ssl/stream.hpp>

namespace benchd::threads_asio {

/// A connection of the `tls` profile, inbound or a nested call's: Asio's TLS stream over a
/// BlockingStream it does not own, so every wait of the handshake, the reads and the writes is
/// the BlockingStream's (deadlines, the stop, the drain, a watched client), and the departure
/// watches keep polling the TCP socket. Same thread rule as the BlockingStream's.
using TlsOverBlocking = boost::asio::ssl::stream<BlockingStream&>;

}  // namespace benchd::threads_asio
