#pragma once

#include <benchd/common/usage_error.hpp>

#include <charconv>
#include <string>
#include <string_view>
#include <system_error>

namespace benchd::common {

/// The integer `text` of option `option`, which must be decimal digits only (an optional '-'
/// for signed types; no '+', spaces or trailing characters) within [min, max]. Throws
/// UsageError "OPTION: expected an integer from MIN to MAX, got 'TEXT'" otherwise, so every
/// program words the same mistake the same way.
template <typename Int>
Int parseIntegerOption(std::string_view option, std::string_view text, Int min, Int max) {
  Int value{};
  const char* end = text.data() + text.size();
  const auto [stop, error] = std::from_chars(text.data(), end, value);
  if (text.empty() || error != std::errc{} || stop != end || value < min || value > max) {
    throw UsageError(std::string(option) + ": expected an integer from " + std::to_string(min) +
                     " to " + std::to_string(max) + ", got '" + std::string(text) + "'");
  }
  return value;
}

}  // namespace benchd::common
