#include "sql_text.hpp"

#include <array>
#include <charconv>
#include <system_error>

namespace benchd::postgres {

std::string exactText(double value) {
  std::array<char, 32> buffer{};
  const auto [end, error] = std::to_chars(buffer.data(), buffer.data() + buffer.size(), value);
  if (error != std::errc()) {
    return std::to_string(value);  // unreachable: 32 characters hold every double
  }
  return {buffer.data(), end};
}

std::string arrayLiteral(std::span<const std::optional<std::string>> elements) {
  std::string literal = "{";
  for (const std::optional<std::string>& element : elements) {
    if (literal.size() > 1) {
      literal += ',';
    }
    if (!element) {
      literal += "NULL";
      continue;
    }
    literal += '"';
    for (const char c : *element) {
      if (c == '"' || c == '\\') {
        literal += '\\';
      }
      literal += c;
    }
    literal += '"';
  }
  return literal + "}";
}

}  // namespace benchd::postgres
