#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace benchd::threads_poco {

/// What RequestHeadChecker::check() found in the bytes of a request received so far.
struct HeadCheck {
  enum class Verdict {
    kIncomplete,  ///< no breach yet and no end of the head: read more
    kComplete,    ///< the head is whole and keeps the header syntax
    kRefused,     ///< the head breaks the header syntax: answer 400 and close
  };
  Verdict verdict = Verdict::kIncomplete;
  /// kComplete: the length of the head, the empty line that ends it included.
  std::size_t head_bytes = 0;
  /// kRefused: the reason, the message of the 400 ("malformed HTTP request: ...").
  std::string problem;
};

/// Checks a request head, bytes as they arrive from the socket, against the header syntax of
/// CONTRACT.md section 7 the way the Asio plugins' parser (Beast) reads it, before Poco parses
/// it (Poco's parser accepts, and leaves no trace of, some of what Beast refuses):
///   - every line ends in CRLF: a bare LF, or a CR not followed by LF, is refused;
///   - the request line is exactly `method SP target SP HTTP/1.x`: the method a token, the
///     target one or more visible characters (bytes 0x21-0x7E and 0x80-0xFF), the version
///     HTTP/1.0 or HTTP/1.1;
///   - every field line is `token ":" value`, no blank before the colon; a value holds no
///     control character but HTAB; a line that starts with a blank continues the field before
///     it (obs-fold, which Beast accepts), and may not follow the request line;
///   - the head (request line, fields and the empty line, line ends included) is at most
///     sdk::kMaxRequestHeaderBytes; the number of field lines is not limited beyond that.
/// A breach is refused as soon as the bytes received show it, even inside a line whose end
/// has not arrived. One checker per request head; not thread-safe.
class RequestHeadChecker {
 public:
  /// Checks `received`: the bytes received so far, from the first byte of the request on (it
  /// may run on past the head). Between calls `received` only grows, keeping its prefix; a
  /// call checks each whole line once, so the cost over a head is linear in its size plus,
  /// per call, the length of its last, unfinished line.
  [[nodiscard]] HeadCheck check(std::string_view received);

 private:
  /// How many bytes of whole lines have been checked.
  std::size_t checked_ = 0;
  bool request_line_checked_ = false;
  /// Whether a field line was checked, which an obs-fold line may continue.
  bool field_line_checked_ = false;
};

}  // namespace benchd::threads_poco
