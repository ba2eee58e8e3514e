#include <benchd/asio_common/connection_tracking.hpp>

#include <boost/beast/core/error.hpp>
#include <boost/beast/http/error.hpp>

namespace benchd::asio_common {

namespace asio = boost::asio;

void closeStream(boost::beast::tcp_stream& stream) {
  boost::system::error_code ignored;
  stream.socket().shutdown(asio::ip::tcp::socket::shutdown_both, ignored);
  stream.close();
}

bool endsConnection(const boost::system::error_code& read_error) {
  return read_error == boost::beast::http::error::end_of_stream ||
         read_error == asio::error::operation_aborted ||
         read_error == boost::beast::error::timeout ||
         read_error == asio::error::connection_reset || read_error == asio::error::eof;
}

sdk::Reply readErrorReply(const boost::system::error_code& read_error) {
  if (read_error == boost::beast::http::error::body_limit) {
    return sdk::bodyTooLargeReply();
  }
  return sdk::malformedRequestReply(read_error.message());
}

ConnectionRegistration::ConnectionRegistration(EventLoop& loop, boost::beast::tcp_stream& stream)
    : loop_(loop), stream_(stream) {
  loop_.connections.insert(this);
  LoopCounters::add(loop_.counters.connections_open, 1);
}

ConnectionRegistration::~ConnectionRegistration() {
  loop_.connections.erase(this);
  LoopCounters::add(loop_.counters.connections_open, -1);
}

void ConnectionRegistration::closeIfIdle() {
  if (idle_)
    closeStream(stream_);
}

void ConnectionRegistration::closeNow() {
  closeStream(stream_);
}

InFlightRequest::InFlightRequest(EventLoop& loop) : loop_(loop) {
  LoopCounters::add(loop_.counters.requests_in_flight, 1);
}

InFlightRequest::~InFlightRequest() {
  if (!answered_)
    LoopCounters::add(loop_.counters.requests_in_flight, -1);
}

void InFlightRequest::answered() {
  answered_ = true;
  LoopCounters::add(loop_.counters.requests_in_flight, -1);
  LoopCounters::add(loop_.counters.requests_served, 1);
}

}  // namespace benchd::asio_common
