#pragma once

#include <string>
#include <string_view>

namespace benchd::results {

/// `text` made safe inside a Markdown table cell: '|' escaped, line breaks as blanks (a cell
/// is one line). Every Markdown formatter of this library writes cells through it.
inline std::string markdownCell(std::string_view text) {
  std::string result;
  result.reserve(text.size());
  for (const char c : text) {
    if (c == '|') {
      result += "\\|";
    } else if (c == '\n' || c == '\r') {
      result += ' ';
    } else {
      result += c;
    }
  }
  return result;
}

}  // namespace benchd::results
