#pragma once

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

/// Reads a whole file. Throws std::runtime_error with a reason (not the path) on failure.
std::string readWholeFile(const std::filesystem::path& path);

}  // namespace benchd::scenario
