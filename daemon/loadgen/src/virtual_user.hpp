#pragma once

#include "loop_context.hpp"
#include "prepared_request.hpp"
#include "response_parser.hpp"

#include <benchd/measurement/error_class.hpp>

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/stream.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/system/error_code.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>

namespace benchd::loadgen {

class H2ClientConnection;

/// One virtual user: one keep-alive connection sending one request at a time, in clear or over
/// TLS (LoopContext::tls; the handshake is part of the connect and its deadline); or, under
/// HTTP/2, one stream at a time of an H2ClientConnection it shares with other VUs. It connects
/// lazily, reconnects when the server closed the connection (each connect is counted), reads
/// every response in full (discarding the body) and records each request's outcome into its
/// loop's IntervalStats. What to do next is its owner's decision (a closed- or open-model group),
/// told through Owner.
///
/// Timeouts, and the graceful-stop deadline that interrupts a request, are enforced by the
/// loop's periodic sweep (enforceDeadlines), not by a timer per request: a request is cut off
/// at most one sweep period after its deadline.
///
/// Thread-safety: everything runs on the owning loop's thread. The object must outlive every
/// handler it started: owners destroy VUs only after the loop's io_context has stopped running.
class VirtualUser {
 public:
  using Clock = std::chrono::steady_clock;
  using TimePoint = Clock::time_point;

  /// Called on the loop thread, never from inside a call the owner made on the VU.
  class Owner {
   public:
    /// A request started with startRequest ended (ok, failed or interrupted); the VU is idle.
    virtual void onRequestDone(VirtualUser& user) = 0;
    /// A pause started with pauseUntil ended; the VU is idle.
    virtual void onPauseEnded(VirtualUser& user) = 0;

   protected:
    Owner() = default;
    ~Owner() = default;
    Owner(const Owner&) = default;
    Owner& operator=(const Owner&) = default;
  };

  enum class State : std::uint8_t { kIdle, kConnecting, kInRequest, kPausing };

  /// `h2` (HTTP/2 targets only) is the connection this VU's streams go on; it outlives the VU.
  VirtualUser(LoopContext& loop, Owner& owner, std::uint32_t index,
              H2ClientConnection* h2 = nullptr);
  VirtualUser(const VirtualUser&) = delete;
  VirtualUser& operator=(const VirtualUser&) = delete;

  /// Sends `request` (connecting first when needed) and reads its response; ends with
  /// Owner::onRequestDone. `intended` is the open model's intended send time: the request is
  /// then also timed from it (corrected latency, connect time included). Precondition: idle.
  /// `request` must outlive the request.
  void startRequest(const PreparedRequest& request, std::optional<TimePoint> intended);

  /// Waits until `wake`, then calls Owner::onPauseEnded. Precondition: idle.
  void pauseUntil(TimePoint wake);
  /// Ends a pause without calling the owner; the VU is idle afterwards. No-op when not pausing.
  void cancelPause();

  /// Closes the connection and frees the read buffer. Precondition: idle.
  void close() noexcept;

  /// A request still in flight at `deadline` is cut off then and counted as interrupted (neither
  /// ok nor error); nullopt lifts the deadline. Applies to the current and later requests.
  void setInterruptDeadline(std::optional<TimePoint> deadline) noexcept {
    interrupt_at_ = deadline;
  }

  /// Cuts off a connect or request whose timeout or interrupt deadline has passed.
  void enforceDeadlines(TimePoint now) noexcept;

  [[nodiscard]] State state() const noexcept { return state_; }
  [[nodiscard]] bool busy() const noexcept {
    return state_ == State::kConnecting || state_ == State::kInRequest;
  }
  [[nodiscard]] std::uint32_t index() const noexcept { return index_; }

  /// From the VU's H2ClientConnection: its request went into the session as a stream (the
  /// request's clock starts). Changes nothing but the VU's own state.
  void onStreamSubmitted();
  /// From the VU's H2ClientConnection: its stream ended, answered (`error` from the status),
  /// failed, or cut off after enforceDeadlines; `sent`: whether it had been submitted.
  void onStreamEnded(std::optional<measurement::ErrorClass> error, bool sent);

  /// Free for the owner (e.g. why it paused the VU).
  std::uint8_t tag = 0;

 private:
  using error_code = boost::system::error_code;
  enum class Abort : std::uint8_t { kNone, kTimeout, kInterrupt };

  void connect();
  void onConnected(const error_code& error);
  void onHandshaken(const error_code& error);
  /// A connect or its TLS handshake failed.
  void failConnect(const error_code& error);
  void send();
  void onWritten(const error_code& error, std::size_t bytes);
  void receive();
  void onReceived(const error_code& error, std::size_t bytes);
  /// A fresh parser for the next response to the current request.
  void resetParser();
  /// Feeds the buffered bytes to the parser; false when it failed (already finished).
  bool parseBuffered();
  void completeResponse();
  /// Ends the request after an I/O error: re-sends an idempotent request once on a fresh
  /// connection when a reused connection failed before any response byte (the server closed it
  /// while idle). The re-send keeps the first attempt's clock.
  void failIo(const error_code& error);
  void endAborted();
  /// Records the request (`sent`: whether its bytes went out, so it has a latency) and hands
  /// the idle VU back to the owner.
  void finish(std::optional<measurement::ErrorClass> error, bool sent, bool keep_connection);
  void closeSocket() noexcept;

  LoopContext& loop_;
  Owner& owner_;
  std::uint32_t index_;
  H2ClientConnection* h2_;    ///< null for HTTP/1.1: then socket_ (and tls_) carry the requests
  bool h2_attached_ = false;  ///< attached to h2_ since the first request after a close()
  boost::asio::ip::tcp::socket socket_;
  /// TLS over socket_ under a `tls` target: made anew for every connection once its TCP
  /// connect completed (no operation of the previous one is pending then), and kept while the
  /// connection is reused. Closing socket_ ends it.
  std::optional<boost::asio::ssl::stream<boost::asio::ip::tcp::socket&>> tls_;
  boost::asio::steady_timer pause_timer_;
  std::uint64_t pause_generation_ = 0;

  State state_ = State::kIdle;
  Abort abort_ = Abort::kNone;
  const PreparedRequest* request_ = nullptr;
  std::optional<TimePoint> intended_;
  std::optional<TimePoint> interrupt_at_;
  TimePoint sent_at_{};
  TimePoint deadline_{};
  bool reused_connection_ = false;
  bool retried_ = false;
  bool sent_once_ = false;  ///< the request's bytes went out at least once (at sent_at_)
  bool received_any_ = false;

  std::optional<ResponseParser> parser_;
  std::unique_ptr<char[]> buffer_;
  std::size_t buffer_size_ = 0;
  std::size_t buffered_ = 0;
};

}  // namespace benchd::loadgen
