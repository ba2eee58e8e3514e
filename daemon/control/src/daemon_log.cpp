#include <benchd/control/daemon_log.hpp>

#include <unistd.h>

#include <cstdlib>
#include <string>

namespace benchd::control {
namespace {

bool toJournal() {
  static const bool journal = std::getenv("JOURNAL_STREAM") != nullptr;
  return journal;
}

}  // namespace

void logLine(LogLevel level, std::string_view message) {
  std::string line;
  line.reserve(message.size() + 24);
  if (toJournal()) {
    line += '<';
    line += static_cast<char>('0' + static_cast<int>(level));
    line += '>';
  } else {
    line += "benchd: ";
    if (level == LogLevel::kError) {
      line += "error: ";
    } else if (level == LogLevel::kWarning) {
      line += "warning: ";
    }
  }
  for (const char c : message) {
    line += (c == '\n' || c == '\r') ? ' ' : c;
  }
  line += '\n';
  std::size_t written = 0;
  while (written < line.size()) {
    const ssize_t now = ::write(STDERR_FILENO, line.data() + written, line.size() - written);
    if (now <= 0) {
      return;  // nowhere to log to; the daemon goes on
    }
    written += static_cast<std::size_t>(now);
  }
}

}  // namespace benchd::control
