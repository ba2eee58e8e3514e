#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace benchd::scenario {

/// `text` without leading and trailing spaces, tabs, carriage returns and newlines.
std::string_view trimBlanks(std::string_view text);

/// The parts of `text` between `separator`s, untrimmed; "" gives one empty part.
std::vector<std::string_view> splitAt(std::string_view text, char separator);

/// The lines of `text` (split at '\n', without a trailing '\r'); a final newline does not start
/// another line.
std::vector<std::string_view> splitLines(std::string_view text);

/// Shortest decimal form of `value` that reads back the same ("0.25", "1e-07").
std::string formatNumber(double value);

/// Scenario, workload and body files are small; anything larger is a mistake (or /dev/zero).
inline constexpr std::uintmax_t kMaxInputFileBytes = std::uintmax_t{16} << 20;

/// Reads a whole regular file of at most `max_bytes`. Throws std::runtime_error with a reason
/// (not the path) on failure: missing, a directory, not a regular file (a FIFO or a device
/// would block or never end), too large, unreadable.
std::string readWholeFile(const std::filesystem::path& path,
                          std::uintmax_t max_bytes = kMaxInputFileBytes);

}  // namespace benchd::scenario
