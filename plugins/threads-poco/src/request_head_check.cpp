#include "request_head_check.hpp"

#include <benchd/sdk/limits.hpp>

#include <algorithm>
#include <string_view>

namespace benchd::threads_poco {
namespace {

/// RFC 9110 tchar.
bool isTokenChar(unsigned char c) {
  if (c >= '0' && c <= '9') {
    return true;
  }
  if ((c | 0x20U) >= 'a' && (c | 0x20U) <= 'z') {
    return true;
  }
  return std::string_view("!#$%&'*+-.^_`|~").find(static_cast<char>(c)) != std::string_view::npos;
}

bool isToken(std::string_view text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
    return isTokenChar(static_cast<unsigned char>(c));
  });
}

bool hasControl(std::string_view text) {
  return std::any_of(text.begin(), text.end(), [](char c) {
    const auto byte = static_cast<unsigned char>(c);
    return (byte < 0x20 && byte != '\t') || byte == 0x7f;
  });
}

}  // namespace

std::optional<std::string> requestHeadProblem(const Poco::Net::HTTPRequest& request) {
  if (hasControl(request.getURI())) {
    return "malformed HTTP request: a control character in the request target";
  }
  // "METHOD SP target SP version CRLF", then "name: value CRLF" per field, then CRLF.
  std::size_t size =
      request.getMethod().size() + request.getURI().size() + request.getVersion().size() + 4 + 2;
  for (const auto& [name, value] : request) {
    if (!isToken(name)) {
      return "malformed HTTP request: invalid header field name";
    }
    if (hasControl(value)) {
      return "malformed HTTP request: a control character in header field '" + name + "'";
    }
    size += name.size() + value.size() + 4;
  }
  if (size > sdk::kMaxRequestHeaderBytes) {
    return "malformed HTTP request: header section over " +
           std::to_string(sdk::kMaxRequestHeaderBytes) + " bytes";
  }
  return std::nullopt;
}

}  // namespace benchd::threads_poco
