#pragma once

#include <benchd/http/event_stream.hpp>

#include <boost/asio/io_context.hpp>

#include <atomic>
#include <cstddef>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

namespace benchd::http::detail {

/// The session side of a stream, woken by StreamState when there is something to do.
class StreamOwner {
 public:
  /// Runs on the owner's event-loop thread (posted there by StreamState).
  virtual void onStreamActivity() = 0;

 protected:
  StreamOwner() = default;
  virtual ~StreamOwner() = default;
  StreamOwner(const StreamOwner&) = default;
  StreamOwner& operator=(const StreamOwner&) = default;
};

/// The state one open event stream shares between the application's EventSinks (any thread)
/// and the session writing it (its loop thread): a bounded byte queue, the closed flag and the
/// reason the stream ended.
///
/// Why posting is safe: wake-ups are posted to the loop's io_context only while holding the
/// mutex and only while the stream is not closed. HttpServer closes every live stream (under
/// that mutex) after joining its threads and before destroying the io_contexts, so no push can
/// reach a destroyed io_context.
class StreamState : public std::enable_shared_from_this<StreamState> {
 public:
  StreamState(boost::asio::io_context::executor_type executor, std::weak_ptr<StreamOwner> owner,
              std::size_t max_queued_bytes, EventStreamCallbacks callbacks);

  /// Any thread. Appends encoded bytes; false when closed or when the bound would be exceeded
  /// (then the stream closes with ClientTooSlow and the owner is woken to cut the client off).
  bool enqueue(std::string_view bytes);
  /// Any thread. Closes for `reason` unless already closed (the first reason wins) and wakes
  /// the owner, which ends the stream gracefully.
  void requestClose(StreamEnd reason);
  [[nodiscard]] bool isOpen() const;
  /// The reason the stream closed, nothing while open.
  [[nodiscard]] std::optional<StreamEnd> closedReason() const;

  // ---- session side (its loop thread; sweep() from HttpServer::stop after the join) ----

  /// Calls on_open with a sink of this stream.
  void open();
  /// Moves the queued bytes out (they stay counted against the bound until written()) and
  /// re-arms the wake-up.
  struct Taken {
    std::string bytes;
    std::optional<StreamEnd> closed;  ///< set once closed, with the reason
  };
  Taken take();
  /// `bytes` taken earlier have been written to the socket.
  void written(std::size_t bytes);
  /// Closes for `reason` without waking anybody (first reason wins).
  void markClosed(StreamEnd reason);
  /// Calls on_close with the recorded reason, once over the stream's life.
  void notifyClosed();

 private:
  void wakeLocked();

  boost::asio::io_context::executor_type executor_;
  std::weak_ptr<StreamOwner> owner_;
  const std::size_t max_queued_bytes_;
  EventStreamCallbacks callbacks_;
  std::atomic<bool> close_notified_{false};

  mutable std::mutex mutex_;
  std::string queue_;                ///< guarded by mutex_
  std::size_t counted_bytes_ = 0;    ///< queued + taken but not yet written; guarded
  bool wake_posted_ = false;         ///< the owner will look at the queue; guarded
  std::optional<StreamEnd> closed_;  ///< guarded
};

}  // namespace benchd::http::detail
