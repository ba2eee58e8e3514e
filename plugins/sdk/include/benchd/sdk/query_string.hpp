#pragma once
// Percent-decoding and query-string splitting: the one implementation of these rules in benchd.
// The plugins' request classification (service_request.hpp, CONTRACT.md section 3) and the
// daemon's HTTP layer (benchd/http/target.hpp) both build on it and add only their own policy:
// the microservice matches raw names and decodes directorLastName alone; the REST API decodes
// every name and value and refuses control characters. Header-only and standard library only,
// so plugins use it without linking anything of benchd.
//
// The rules:
//  - a query string (the part after '?', without it) is split at '&' only (';' is part of a
//    value); empty pairs ("a=1&&b=2", a trailing '&') are skipped;
//  - a pair splits at its first '='; a pair without '=' has an empty value ("flag");
//  - "%XX" with two hex digits in either case is that byte; a '%' not followed by two hex
//    digits makes the whole text malformed;
//  - '+' is a space where the caller asks for form encoding (query strings), else itself;
//    "%2B" is always a literal '+'.
//
// Every function is pure and thread-safe. Views returned point into the caller's text and
// live as long as it does.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace benchd::sdk {

/// What percentDecode() makes of a '+'.
enum class PlusSign {
  kLiteral,  ///< '+' stays '+' (paths)
  kSpace,    ///< '+' is a space (query strings, form encoding)
};

/// The value of one hex digit (0-9, a-f, A-F), or -1 for any other character.
[[nodiscard]] constexpr int hexDigitValue(char c) noexcept {
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  if (c >= 'A' && c <= 'F')
    return c - 'A' + 10;
  return -1;
}

/// Decodes `%XX` escapes, and '+' as `plus` says. The bytes decoded are not checked: "%00" is
/// a NUL, "%C3%A9" two bytes of UTF-8. Returns nothing for a malformed escape.
[[nodiscard]] inline std::optional<std::string> percentDecode(std::string_view text,
                                                              PlusSign plus) {
  std::string decoded;
  decoded.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '%') {
      if (text.size() - i < 3)
        return std::nullopt;
      const int high = hexDigitValue(text[i + 1]);
      const int low = hexDigitValue(text[i + 2]);
      if (high < 0 || low < 0)
        return std::nullopt;
      decoded.push_back(static_cast<char>(high * 16 + low));
      i += 2;
    } else if (c == '+' && plus == PlusSign::kSpace) {
      decoded.push_back(' ');
    } else {
      decoded.push_back(c);
    }
  }
  return decoded;
}

/// One `name=value` pair of a query string as sent, still percent-encoded.
struct RawQueryPair {
  std::string_view name;
  std::string_view value;  ///< empty for a bare `name`
};

/// Reads the pairs of a query string one at a time, in order, without allocating:
///
///     QueryPairReader pairs(query);
///     while (const auto pair = pairs.next()) { ... }
///
/// Views the caller's text; the reader and the pairs it returns must not outlive it.
class QueryPairReader {
 public:
  explicit constexpr QueryPairReader(std::string_view query) noexcept : rest_(query) {}

  /// The next non-empty pair, or nothing after the last.
  [[nodiscard]] constexpr std::optional<RawQueryPair> next() noexcept {
    while (!rest_.empty()) {
      const std::size_t ampersand = rest_.find('&');
      const std::string_view pair = rest_.substr(0, ampersand);
      rest_ =
          ampersand == std::string_view::npos ? std::string_view() : rest_.substr(ampersand + 1);
      if (pair.empty())
        continue;
      const std::size_t equals = pair.find('=');
      if (equals == std::string_view::npos)
        return RawQueryPair{pair, {}};
      return RawQueryPair{pair.substr(0, equals), pair.substr(equals + 1)};
    }
    return std::nullopt;
  }

 private:
  std::string_view rest_;
};

/// The still-encoded value of the first pair whose still-encoded name is exactly `name`;
/// nothing when no pair has it. Names are compared byte for byte, not decoded
/// ("delay%43allDepth" is not "delayCallDepth"); later pairs with the same name are ignored.
[[nodiscard]] constexpr std::optional<std::string_view> firstRawQueryValue(
    std::string_view query, std::string_view name) noexcept {
  QueryPairReader pairs(query);
  while (const auto pair = pairs.next()) {
    if (pair->name == name)
      return pair->value;
  }
  return std::nullopt;
}

/// One `name=value` pair of a query string, both percent-decoded.
using QueryParam = std::pair<std::string, std::string>;

/// Every pair of a query string with name and value decoded ('+' a space), in request order,
/// repeated names kept. Returns nothing when any name or value has a malformed escape.
[[nodiscard]] inline std::optional<std::vector<QueryParam>> decodeQuery(std::string_view query) {
  std::vector<QueryParam> params;
  QueryPairReader pairs(query);
  while (const auto pair = pairs.next()) {
    auto name = percentDecode(pair->name, PlusSign::kSpace);
    auto value = percentDecode(pair->value, PlusSign::kSpace);
    if (!name || !value)
      return std::nullopt;
    params.emplace_back(std::move(*name), std::move(*value));
  }
  return params;
}

}  // namespace benchd::sdk
