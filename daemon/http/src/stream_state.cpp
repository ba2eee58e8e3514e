#include "stream_state.hpp"

#include <boost/asio/post.hpp>

namespace benchd::http::detail {

StreamState::StreamState(boost::asio::io_context::executor_type executor,
                         std::weak_ptr<StreamOwner> owner, std::size_t max_queued_bytes,
                         EventStreamCallbacks callbacks)
    : executor_(std::move(executor)),
      owner_(std::move(owner)),
      max_queued_bytes_(max_queued_bytes),
      callbacks_(std::move(callbacks)) {}

void StreamState::wakeLocked() {
  wake_posted_ = true;
  boost::asio::post(executor_, [owner = owner_] {
    if (auto session = owner.lock())
      session->onStreamActivity();
  });
}

bool StreamState::enqueue(std::string_view bytes) {
  std::lock_guard lock(mutex_);
  if (closed_)
    return false;
  if (counted_bytes_ + bytes.size() > max_queued_bytes_) {
    // The client does not read fast enough. Dropping events silently would corrupt the
    // stream's meaning; buffering more would let one client grow our memory. Cut it off.
    closed_ = StreamEnd::ClientTooSlow;
    wakeLocked();  // even if a wake-up is pending: the owner may be stuck in a write
    return false;
  }
  queue_ += bytes;
  counted_bytes_ += bytes.size();
  if (!wake_posted_)
    wakeLocked();
  return true;
}

void StreamState::requestClose(StreamEnd reason) {
  std::lock_guard lock(mutex_);
  if (closed_)
    return;
  closed_ = reason;
  wakeLocked();
}

bool StreamState::isOpen() const {
  std::lock_guard lock(mutex_);
  return !closed_;
}

std::optional<StreamEnd> StreamState::closedReason() const {
  std::lock_guard lock(mutex_);
  return closed_;
}

void StreamState::open() {
  if (callbacks_.on_open)
    callbacks_.on_open(EventSink(shared_from_this()));
}

StreamState::Taken StreamState::take() {
  std::lock_guard lock(mutex_);
  wake_posted_ = false;
  Taken taken;
  taken.bytes.swap(queue_);
  taken.closed = closed_;
  return taken;
}

void StreamState::written(std::size_t bytes) {
  std::lock_guard lock(mutex_);
  counted_bytes_ -= bytes;
}

void StreamState::markClosed(StreamEnd reason) {
  std::lock_guard lock(mutex_);
  if (!closed_)
    closed_ = reason;
}

void StreamState::notifyClosed() {
  if (close_notified_.exchange(true))
    return;
  StreamEnd reason = StreamEnd::ServerStopping;
  {
    std::lock_guard lock(mutex_);
    if (!closed_)
      closed_ = reason;
    reason = *closed_;
  }
  if (callbacks_.on_close)
    callbacks_.on_close(reason);
}

}  // namespace benchd::http::detail
