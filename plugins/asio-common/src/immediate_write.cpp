#include <benchd/asio_common/immediate_write.hpp>

#include <boost/asio/error.hpp>

namespace benchd::asio_common {

std::size_t writeWithoutWaiting(boost::asio::ip::tcp::socket& socket,
                                boost::asio::const_buffer bytes, boost::system::error_code& error) {
  error = {};
  if (!socket.non_blocking()) {
    socket.non_blocking(true, error);
    if (error)
      return 0;
  }
  const std::size_t written = socket.write_some(bytes, error);
  if (error == boost::asio::error::would_block || error == boost::asio::error::try_again) {
    error = {};
    return 0;
  }
  return written;
}

}  // namespace benchd::asio_common
