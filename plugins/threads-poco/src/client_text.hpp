#pragma once

#include <algorithm>
#include <cstddef>
#include <string>
#include <string_view>

namespace benchd::threads_poco {

/// Client text quoted in an error message: at most 40 bytes of it, with control bytes shown as
/// '?', so a hostile line is neither echoed whole nor able to spoil the JSON error body's
/// readability. Thread-safe (pure function).
inline std::string quotedClientText(std::string_view text) {
  constexpr std::size_t kMaxQuoted = 40;
  std::string shown(text.substr(0, kMaxQuoted));
  std::replace_if(
      shown.begin(), shown.end(),
      [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; }, '?');
  return "'" + shown + (text.size() > kMaxQuoted ? "...'" : "'");
}

}  // namespace benchd::threads_poco
