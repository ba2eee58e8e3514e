#pragma once

#include <cstdint>
#include <string_view>

namespace benchd::control {

/// Severity of a daemon log line, numbered as syslog priorities (sd-daemon(3)).
enum class LogLevel : std::uint8_t { kError = 3, kWarning = 4, kInfo = 6 };

/// Writes one line to stderr, the daemon's log. Under systemd (stderr connected to the journal,
/// JOURNAL_STREAM set) the line starts with the `<N>` priority prefix journald turns into the
/// entry's priority and carries no timestamp (journald adds its own); otherwise it reads
/// "benchd: [warning: |error: ]message". One write(2) per line, so lines from several threads
/// never interleave. Line breaks inside `message` are replaced by spaces (one event, one line).
/// Thread-safe.
void logLine(LogLevel level, std::string_view message);

}  // namespace benchd::control
