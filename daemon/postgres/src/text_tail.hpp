#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace benchd::postgres {

/// The last `max_lines` non-empty lines of `text`, oldest first, without their newlines.
[[nodiscard]] std::vector<std::string> lastLines(std::string_view text, std::size_t max_lines);

/// The same of a file's end (its last 16 KiB at most); empty when it cannot be read: for
/// quoting a log in an error message, where a missing log is no second error.
[[nodiscard]] std::vector<std::string> lastLinesOfFile(const std::filesystem::path& file,
                                                       std::size_t max_lines);

}  // namespace benchd::postgres
