#pragma once
// TLS over a connected TCP descriptor for blocking-style code: threads-poco's connections and
// Poco's nested-call client, whose reads and writes go through their socket's virtual calls.

#include <chrono>
#include <cstddef>
#include <memory>
#include <openssl/ssl.h>
#include <string>

namespace benchd::tls_support {

/// One TLS connection over a connected TCP descriptor it does not own (closing it stays the
/// owner's). The descriptor is made non-blocking, and every call blocks the calling thread in
/// poll() on it until the call is done, the peer ends, or `until` passes; so the caller's
/// deadlines hold over TLS as they do in clear, and a shutdown(2) of the descriptor from another
/// thread (a server's stop) ends a wait at once.
///
/// Thread-safety: one thread at a time (the connection's); nothing here may be called while
/// another thread is inside a call. A peer that closes without TLS's close_notify ends the
/// channel like one that sends it (kClosed): HTTP frames its messages itself, and a client that
/// just closes its socket is common.
class TlsChannel {
 public:
  enum class Role { kServer, kClient };
  using Clock = std::chrono::steady_clock;

  enum class Status {
    kDone,      ///< the call did all it was asked
    kClosed,    ///< the peer ended the connection (close_notify or end of stream)
    kTimedOut,  ///< `until` passed first
    kFailed,    ///< a TLS or socket error: error() says which; the channel is unusable
  };
  struct Result {
    Status status = Status::kDone;
    std::size_t bytes = 0;  ///< read(): bytes read (> 0 with kDone)
  };

  /// `context` outlives the channel. Throws std::runtime_error when OpenSSL cannot make the
  /// connection's state.
  TlsChannel(SSL_CTX* context, int fd, Role role);
  ~TlsChannel();
  TlsChannel(const TlsChannel&) = delete;
  TlsChannel& operator=(const TlsChannel&) = delete;

  /// The handshake, as the server or the client of `role`.
  Result handshake(Clock::time_point until);
  /// Up to `size` bytes of the peer's data: what one TLS record holds, at least one byte.
  Result read(void* buffer, std::size_t size, Clock::time_point until);
  /// All `size` bytes, or a failure.
  Result write(const void* buffer, std::size_t size, Clock::time_point until);
  /// Sends close_notify (the peer's is not waited for: read() meets it). Nothing after a failure.
  Result shutdown(Clock::time_point until);

  /// Whether decrypted bytes (or a whole record) wait inside TLS, where poll() on the descriptor
  /// cannot see them: a read returns at once.
  [[nodiscard]] bool hasPendingInput() const noexcept;
  /// After poll() found the descriptor readable: whether a read would now return data or the
  /// peer's end, rather than wait again because the bytes were only TLS's own messages (TLS
  /// 1.3's session tickets). Consumes those messages; never waits.
  [[nodiscard]] bool dataReadable();
  /// What the last kFailed was.
  [[nodiscard]] const std::string& error() const noexcept { return error_; }
  [[nodiscard]] SSL* native() const noexcept { return ssl_.get(); }

 private:
  struct SslFree {
    void operator()(SSL* ssl) const noexcept { SSL_free(ssl); }
  };

  /// Runs `step` (an SSL call returning > 0 on success) until it succeeds, waiting on the
  /// descriptor for what OpenSSL asks; `what` names the call in error().
  template <typename Step>
  Result drive(Step step, Clock::time_point until, const char* what);

  std::unique_ptr<SSL, SslFree> ssl_;
  int fd_;
  bool failed_ = false;
  std::string error_;
};

}  // namespace benchd::tls_support
