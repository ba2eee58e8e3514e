#pragma once
// The first answer a server gives to raw bytes on a fresh loopback connection: how the hostile
// corpus is sent, by the conformance rules and by the test suites that aim the corpus
// generator at the daemon and the HTTP layer.

#include <chrono>
#include <cstdint>
#include <string_view>

namespace benchd::conformance {

/// How the client ends its side once the bytes are written.
enum class ClientEnding {
  kHalfClose,  ///< shutdown(SHUT_WR): the server sees the end of the request stream at once
  kReset,      ///< close with SO_LINGER 0: a reset, nothing is read back
  /// Neither: the client waits for the answer with its side open, so the server can only
  /// answer what the bytes themselves tell it (how the corpus writer finds incomplete requests).
  kStayOpen,
};

/// What firstStatus returns besides a status code.
inline constexpr int kClosedWithoutAnswer = 0;  ///< also: the client reset the connection
inline constexpr int kNoAnswerInTime = -1;
inline constexpr int kCouldNotConnect = -2;

/// The status of the first answer to `bytes` written to a fresh connection to 127.0.0.1:`port`,
/// ended as `ending` says: kClosedWithoutAnswer when the server closed without one (or the
/// client reset the connection), kNoAnswerInTime when nothing came within `timeout`,
/// kCouldNotConnect. The client resets the connection when done, so tens of thousands of them
/// do not pile up in TIME_WAIT.
int firstStatus(std::uint16_t port, std::string_view bytes, ClientEnding ending,
                std::chrono::milliseconds timeout);

/// "404", "closed without an answer", "no answer within the timeout", "could not connect".
std::string_view firstStatusWord(int status);

}  // namespace benchd::conformance
