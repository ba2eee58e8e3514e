#include <benchd/conformance/first_answer.hpp>
#include <benchd/conformance/loopback_socket.hpp>

#include <cstdio>
#include <string>

namespace benchd::conformance {

int firstStatus(std::uint16_t port, std::string_view bytes, ClientEnding ending,
                std::chrono::milliseconds timeout) {
  LoopbackSocket socket(port);
  if (!socket.connected())
    return kCouldNotConnect;
  // A server may answer and close before reading everything (a 413, a 431): read what it said.
  socket.send(bytes);
  if (ending == ClientEnding::kReset) {
    socket.resetAndClose();
    return kClosedWithoutAnswer;
  }
  if (ending == ClientEnding::kHalfClose)
    socket.shutdownSend();
  std::string received;
  const LoopbackSocket::ReadEnd end = socket.readUntil(
      received,
      [](const std::string& text) {
        return text.find("\r\n") != std::string::npos || text.size() >= 4096;
      },
      std::chrono::steady_clock::now() + timeout);
  socket.resetAndClose();  // tens of thousands of these must not pile up in TIME_WAIT
  if (end == LoopbackSocket::ReadEnd::kTimeout)
    return kNoAnswerInTime;
  unsigned status = 0;
  if (std::sscanf(received.c_str(), "HTTP/1.%*1d %3u", &status) != 1)
    return kClosedWithoutAnswer;
  return static_cast<int>(status);
}

std::string_view firstStatusWord(int status) {
  switch (status) {
    case kClosedWithoutAnswer:
      return "closed without an answer";
    case kNoAnswerInTime:
      return "no answer within the timeout";
    case kCouldNotConnect:
      return "could not connect";
    default:
      return {};
  }
}

}  // namespace benchd::conformance
