#include "reply_write.hpp"

#include "completion_token.hpp"

#include <benchd/asio_common/immediate_write.hpp>
#include <benchd/sdk/limits.hpp>

#include <boost/asio/write.hpp>

namespace benchd::coroutines_asio {

namespace asio = boost::asio;
namespace beast = boost::beast;
using boost::system::error_code;

asio::awaitable<error_code> writeReply(beast::tcp_stream* stream, const std::string* bytes) {
  error_code write_error;
  const std::size_t written =
      asio_common::writeWithoutWaiting(stream->socket(), asio::buffer(*bytes), write_error);
  if (!write_error && written < bytes->size()) {
    stream->expires_after(sdk::kIoTimeout);
    auto [error, rest] =
        co_await asio::async_write(*stream, asio::buffer(*bytes) + written, kNoThrow);
    write_error = error;
  }
  co_return write_error;
}

asio::awaitable<error_code> writeReply(asio_common::TlsStream* stream, const std::string* bytes) {
  beast::get_lowest_layer(*stream).expires_after(sdk::kIoTimeout);
  auto [error, written] = co_await asio::async_write(*stream, asio::buffer(*bytes), kNoThrow);
  co_return error;
}

}  // namespace benchd::coroutines_asio
