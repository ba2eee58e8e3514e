#pragma once
// Trimming the blanks around a field of a line-based file (the daemon's config, a noise
// thresholds file, a results table's cells), defined once.

#include <string_view>

namespace benchd::common {

/// `text` without the spaces, tabs and carriage returns around it (a CRLF file's lines keep
/// their '\r' after splitting on '\n'). A view into `text`: it lives as long as `text` does.
[[nodiscard]] constexpr std::string_view trimBlanks(std::string_view text) noexcept {
  constexpr std::string_view kBlanks = " \t\r";
  const std::size_t first = text.find_first_not_of(kBlanks);
  if (first == std::string_view::npos) {
    return {};
  }
  return text.substr(first, text.find_last_not_of(kBlanks) - first + 1);
}

}  // namespace benchd::common
