#pragma once

#include <benchd/h2_session/client_preface.hpp>

#include <Poco/Net/HTTPServerParams.h>
#include <Poco/Net/HTTPServerSession.h>
#include <Poco/Net/StreamSocket.h>

#include <cstddef>
#include <ios>
#include <memory>
#include <string>
#include <string_view>

namespace benchd::threads_poco {

class DeadlineSocketImpl;

/// What BufferedServerSession::readHead() found.
struct HeadRead {
  enum class Outcome {
    kHead,        ///< `head` is a whole request head that keeps the header syntax
    kRefused,     ///< the head breaks the header syntax (`problem`): answer 400, then close
    kClosed,      ///< the peer closed before the first byte of a request
    kEndedEarly,  ///< the peer closed (or shut down sending) inside the head: 400, then close
  };
  Outcome outcome = Outcome::kClosed;
  /// kHead: the request line, the fields and the empty line that ends them. Points into the
  /// session's buffer: valid until the next read from the session.
  std::string_view head;
  /// kRefused: the message of the 400 (RequestHeadChecker).
  std::string problem;
};

/// A connection's server-side HTTP session with one input buffer that every read of the
/// connection goes through: the request head, which readHead() reads and checks before Poco
/// parses it (RequestHeadChecker), then the body and the requests pipelined behind it, which
/// Poco's body streams (over read()) take from the same buffer. So the bytes that arrive with
/// a head are kept for what comes next, reads are as large as the buffer, and a head costs no
/// copy: Poco parses it where it was received.
///
/// Poco's own input buffer in HTTPSession (get(), peek(), hasMoreRequests()'s buffered()) is
/// never used: awaitRequest() replaces hasMoreRequests(), and Poco's header reading is not
/// used on this session. Reads block the calling thread, within the socket's timeouts (a
/// DeadlineSocketImpl's deadline included); one thread reads, the connection's pool thread.
class BufferedServerSession final : public Poco::Net::HTTPServerSession {
 public:
  BufferedServerSession(const Poco::Net::StreamSocket& socket,
                        const Poco::Net::HTTPServerParams::Ptr& params);

  /// Waits for the first byte of the next request: true when it is buffered already and the
  /// connection is kept alive, or when it arrives in time (as Poco's hasMoreRequests(): the
  /// first request within the session timeout, a later one within the keep-alive timeout,
  /// and only while the session is kept alive and HTTPServerParams' maximum of keep-alive
  /// requests is not reached). Each wait is one poll() on the socket, never Poco's
  /// Socket::poll, which hasMoreRequests() uses: in Poco 1.12 that creates, uses and closes an
  /// epoll instance per call, four system calls per request and a descriptor for as long as
  /// it waits; a process at its open-file limit then fails the wait, and Poco closes the
  /// connection it had just accepted without an answer.
  [[nodiscard]] bool awaitRequest();

  /// Whether the reply to the current request may keep the connection open: false once
  /// HTTPServerParams' maximum of keep-alive requests is reached (Poco's canKeepAlive(), whose
  /// count only hasMoreRequests() keeps).
  [[nodiscard]] bool mayKeepAlive() const noexcept { return requests_left_ != 0; }

  /// Reads the next request's head and checks its syntax; the bytes after the head stay in
  /// the buffer. Throws Poco::TimeoutException when a read times out (the header deadline) and
  /// other Poco::Exceptions when the connection fails.
  [[nodiscard]] HeadRead readHead();

  /// Under `h2c`, before the first request's head: reads until the bytes received tell whether
  /// they begin with HTTP/2's client preface (kHttp2) or not (kHttp1, also when the peer ended
  /// first: readHead() then meets the end). The bytes stay unread. Throws as readHead().
  [[nodiscard]] h2_session::PrefaceMatch matchClientPreface();

  /// Takes every byte received and not yet read (the HTTP/2 connection's first bytes).
  [[nodiscard]] std::string takeUnread();

  /// Bytes received and not yet taken by a read.
  [[nodiscard]] std::size_t unreadBytes() const noexcept { return end_ - begin_; }

 protected:
  /// Poco's body streams read through this: from the buffer first; when it is empty, a small
  /// read refills it with one receive, a large one receives into `buffer` directly (it never
  /// asks for more than its body, so nothing of the next request lands there).
  int read(char* buffer, std::streamsize length) override;

 private:
  /// Moves the unread bytes to the front if fewer than sdk::kMaxRequestHeaderBytes fit behind
  /// them, so a head up to the limit fits in one piece.
  void makeRoomForHead();

  /// Waits up to `timeout` for the socket to turn readable (or to report its end or an error,
  /// which the next read then meets), at once when TLS holds input already. False on timeout
  /// or when poll() fails.
  [[nodiscard]] bool awaitReadable(const Poco::Timespan& timeout);

  /// Counts a request against the maximum of keep-alive requests, as hasMoreRequests() does.
  void countRequest() noexcept;

  /// The connection's socket when it is a DeadlineSocketImpl (always, but in unit tests): under
  /// TLS, bytes may wait inside it where poll() cannot see them.
  DeadlineSocketImpl* deadline_socket_;
  Poco::Timespan keep_alive_timeout_;
  /// Requests the connection may still serve after those counted so far (Poco's maximum of
  /// keep-alive requests per connection, counted down); negative: no maximum.
  int requests_left_;
  bool first_request_ = true;
  std::unique_ptr<char[]> buffer_;
  std::size_t begin_ = 0;  ///< first unread byte
  std::size_t end_ = 0;    ///< one past the last received byte
};

}  // namespace benchd::threads_poco
