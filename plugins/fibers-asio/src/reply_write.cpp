#include "reply_write.hpp"

#include <benchd/asio_common/immediate_write.hpp>
#include <benchd/fiber_scheduler_asio/use_fiber.hpp>
#include <benchd/sdk/limits.hpp>

#include <boost/asio/write.hpp>

namespace benchd::fibers_asio {

namespace asio = boost::asio;
namespace beast = boost::beast;
using fiber_scheduler_asio::use_fiber;

boost::system::error_code writeReply(beast::tcp_stream& stream, const std::string& bytes) {
  boost::system::error_code write_error;
  const std::size_t written =
      asio_common::writeWithoutWaiting(stream.socket(), asio::buffer(bytes), write_error);
  if (!write_error && written < bytes.size()) {
    stream.expires_after(sdk::kIoTimeout);
    auto [error, rest] = asio::async_write(stream, asio::buffer(bytes) + written, use_fiber);
    write_error = error;
  }
  return write_error;
}

boost::system::error_code writeReply(asio_common::TlsStream& stream, const std::string& bytes) {
  beast::get_lowest_layer(stream).expires_after(sdk::kIoTimeout);
  auto [error, written] = asio::async_write(stream, asio::buffer(bytes), use_fiber);
  return error;
}

}  // namespace benchd::fibers_asio
