#pragma once

#include <string_view>

namespace benchd::h2_session {

/// The 24 bytes an HTTP/2 client sends first (RFC 9113 section 3.4). Under `h2c` a connection
/// whose first bytes are these speaks HTTP/2 with prior knowledge; any other speaks HTTP/1.1.
inline constexpr std::string_view kClientPreface = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";

enum class PrefaceMatch {
  kHttp1,    ///< the bytes differ from the preface: an HTTP/1.1 request
  kPartial,  ///< the bytes so far are a proper prefix of the preface: read more to decide
  kHttp2,    ///< the bytes begin with the whole preface
};

/// Decides from the first bytes a connection received (at least one) which protocol it speaks.
[[nodiscard]] constexpr PrefaceMatch matchClientPreface(std::string_view received) {
  const std::size_t compared =
      received.size() < kClientPreface.size() ? received.size() : kClientPreface.size();
  if (received.substr(0, compared) != kClientPreface.substr(0, compared))
    return PrefaceMatch::kHttp1;
  return compared == kClientPreface.size() ? PrefaceMatch::kHttp2 : PrefaceMatch::kPartial;
}

}  // namespace benchd::h2_session
