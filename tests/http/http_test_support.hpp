#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace benchd::http::testing {

using namespace std::chrono_literals;

/// Polls `condition` until it holds or `timeout` passes; returns its last value. For waiting on
/// a state (a counter, a callback having run), never as a timing assertion.
bool waitFor(const std::function<bool()>& condition, std::chrono::milliseconds timeout = 10s);

/// A blocking raw TCP client on loopback for what a well-behaved HTTP client cannot do: send
/// malformed bytes, trickle a header, stop reading. Not thread-safe.
class RawClient {
 public:
  explicit RawClient(std::uint16_t port, std::optional<int> receive_buffer_bytes = std::nullopt);

  /// Writes all bytes; false if the connection failed.
  bool send(std::string_view bytes);
  /// Reads until `done(received())` holds (true), or EOF / error / timeout (then false).
  bool readUntil(const std::function<bool(const std::string&)>& done,
                 std::chrono::milliseconds timeout = 10s);
  /// Reads (discarding nothing) until the server closes; true if it did within `timeout`.
  bool waitClosed(std::chrono::milliseconds timeout = 10s);
  /// Reads one complete response with a Content-Length body; nothing on EOF/timeout.
  std::optional<std::string> readResponse(std::chrono::milliseconds timeout = 10s);
  [[nodiscard]] bool closed() const { return closed_; }
  std::string& received() { return received_; }
  void close();
  /// Half-closes: the server sees EOF after what was sent.
  void shutdownSend();

 private:
  /// One read_some bounded by `deadline`; false on timeout.
  bool readOnce(std::chrono::steady_clock::time_point deadline);

  boost::asio::io_context io_;
  boost::asio::ip::tcp::socket socket_;
  std::string received_;
  bool closed_ = false;
};

/// The status code of a raw response ("HTTP/1.1 400 ..."), 0 when unparsable.
unsigned statusOf(std::string_view response);

/// One Server-Sent Event as a WHATWG client dispatches it.
struct ReceivedEvent {
  std::string id;
  std::string event;  ///< "" means "message"
  std::string data;   ///< lines joined with '\n'
};

/// An SSE client over a raw socket: sends a GET, parses the status and header, then decodes the
/// chunked body and the event stream. Not thread-safe.
class SseClient {
 public:
  SseClient(std::uint16_t port, const std::string& target,
            const std::map<std::string, std::string>& headers = {},
            std::optional<int> receive_buffer_bytes = std::nullopt);

  [[nodiscard]] unsigned status() const { return status_; }
  [[nodiscard]] const std::string& head() const { return head_; }  ///< status line + fields
  /// For a non-stream answer (e.g. 503): its body.
  [[nodiscard]] const std::string& plainBody() const { return plain_body_; }

  /// The next dispatched event, or nothing on timeout / end of stream.
  std::optional<ReceivedEvent> next(std::chrono::milliseconds timeout = 10s);
  /// Reads until `count` comment lines (e.g. heartbeats) have arrived in total.
  bool waitComments(std::size_t count, std::chrono::milliseconds timeout = 10s);
  /// Reads until the terminating chunk arrived; true if it did.
  bool waitEnd(std::chrono::milliseconds timeout = 10s);
  [[nodiscard]] std::size_t comments() const { return comments_; }
  [[nodiscard]] bool ended() const { return ended_; }
  RawClient& raw() { return raw_; }

 private:
  /// Reads more bytes and decodes them; false on timeout or EOF.
  bool pump(std::chrono::steady_clock::time_point deadline);
  void decodeChunks();
  void parseLines();

  RawClient raw_;
  unsigned status_ = 0;
  std::string head_;
  std::string plain_body_;
  std::string decoded_;  ///< de-chunked stream text not yet parsed into lines
  bool ended_ = false;
  std::size_t comments_ = 0;
  ReceivedEvent pending_;
  bool pending_has_data_ = false;
  std::vector<ReceivedEvent> ready_;
};

}  // namespace benchd::http::testing
