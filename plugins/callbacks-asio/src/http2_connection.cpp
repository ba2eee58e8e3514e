#include "http2_connection.hpp"

#include "server.hpp"

#include <benchd/asio_common/immediate_write.hpp>
#include <benchd/sdk/limits.hpp>

#include <boost/asio/post.hpp>
#include <boost/asio/write.hpp>

namespace benchd::callbacks_asio {

namespace asio = boost::asio;
namespace beast = boost::beast;
using boost::system::error_code;

Http2Connection::Http2Connection(std::shared_ptr<void> owner, asio_common::EventLoop& loop,
                                 const sdk::Host& host, beast::tcp_stream& tcp,
                                 asio_common::TlsStream* tls, beast::flat_buffer& buffer,
                                 std::function<void(bool idle)> mark_idle)
    : owner_(std::move(owner)),
      loop_(loop),
      host_(host),
      tcp_(tcp),
      tls_(tls),
      buffer_(buffer),
      exchange_(
          loop, std::move(mark_idle), tcp, std::string("benchd ") + kApproachName,
          // The exchange calls these from inside its own calls: both only post.
          {[this](h2_session::StreamRequest request) {
             asio::post(loop_.io,
                        [self = shared_from_this(), request = std::move(request)]() mutable {
                          self->runStream(std::move(request));
                        });
           },
           [this] { asio::post(loop_.io, [self = shared_from_this()] { self->writeNext(); }); }}) {}

template <typename Operation>
void Http2Connection::onStream(Operation&& operation) {
  if (tls_ != nullptr) {
    std::forward<Operation>(operation)(*tls_);
  } else {
    std::forward<Operation>(operation)(tcp_);
  }
}

void Http2Connection::start() {
  receiveBuffered();
}

void Http2Connection::receiveBuffered() {
  const bool protocol_kept =
      exchange_.receive({static_cast<const char*>(buffer_.data().data()), buffer_.size()});
  buffer_.consume(buffer_.size());
  if (protocol_kept && exchange_.reading()) {
    read();
  } else {
    endReading();
  }
}

void Http2Connection::read() {
  tcp_.expires_after(exchange_.readTimeout());
  onStream([this](auto& stream) {
    stream.async_read_some(buffer_.prepare(buffer_.max_size()),
                           [self = shared_from_this()](error_code error, std::size_t bytes) {
                             if (error) {
                               self->endReading();
                               return;
                             }
                             self->buffer_.commit(bytes);
                             self->receiveBuffered();
                           });
  });
}

void Http2Connection::endReading() {
  reading_ended_ = true;
  exchange_.endReading();
  if (!exchange_.writing())
    exchange_.close();
}

void Http2Connection::runStream(h2_session::StreamRequest request) {
  auto answer = std::make_shared<StreamAnswer>(loop_, host_);
  StreamAnswer& state = *answer;
  const std::int32_t stream_id = request.stream_id;
  state.run.start(std::move(answer), request.method, request.target, std::move(request.body),
                  {nullptr, nullptr, exchange_.departureOf(stream_id)}, buffer_,
                  [self = shared_from_this(), stream_id, &state](const RequestOutcome& outcome) {
                    self->finishStream(stream_id, state, outcome);
                  });
}

void Http2Connection::finishStream(std::int32_t stream_id, StreamAnswer& answer,
                                   const RequestOutcome& outcome) {
  // Without a reply (its client left) the request goes unanswered.
  exchange_.finishStream(stream_id, outcome.reply, std::move(answer.in_flight));
}

void Http2Connection::writeNext() {
  if (!exchange_.nextOutput(sending_)) {
    writerStopped();
    return;
  }
  std::size_t written = 0;
  if (tls_ == nullptr) {
    error_code write_error;
    written = asio_common::writeWithoutWaiting(tcp_.socket(), asio::buffer(sending_), write_error);
    if (write_error)
      exchange_.close();
    if (write_error || written == sending_.size()) {
      writeNext();
      return;
    }
  }
  tcp_.expires_after(sdk::kIoTimeout);
  onStream([this, written](auto& stream) {
    asio::async_write(stream, asio::buffer(sending_) + written,
                      [self = shared_from_this()](error_code error, std::size_t /*bytes*/) {
                        if (error)
                          self->exchange_.close();
                        self->writeNext();
                      });
  });
}

void Http2Connection::writerStopped() {
  if (reading_ended_)
    exchange_.close();
}

}  // namespace benchd::callbacks_asio
