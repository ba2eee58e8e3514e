#include <benchd/loadgen/request_target.hpp>

#include <charconv>
#include <stdexcept>

namespace benchd::loadgen {

HostAndPort parseHttpUrl(std::string_view url) {
  constexpr std::string_view kPlain = "http://";
  constexpr std::string_view kTls = "https://";
  const std::string quoted = "'" + std::string(url) + "'";
  HostAndPort result;
  std::string_view rest;
  if (url.starts_with(kPlain)) {
    rest = url.substr(kPlain.size());
  } else if (url.starts_with(kTls)) {
    rest = url.substr(kTls.size());
    result.tls = true;
    result.port = 443;
  } else {
    throw std::invalid_argument(
        "expected a URL like http://127.0.0.1:8080 or https://127.0.0.1:8443, got " + quoted);
  }
  if (rest.ends_with('/')) {
    rest.remove_suffix(1);
  }
  if (rest.find('/') != std::string_view::npos || rest.find('?') != std::string_view::npos) {
    throw std::invalid_argument("the URL " + quoted +
                                " may not have a path: the workload gives the paths");
  }
  std::string_view port_text;
  if (rest.starts_with('[')) {
    const std::size_t close = rest.find(']');
    if (close == std::string_view::npos) {
      throw std::invalid_argument("unterminated IPv6 address in " + quoted);
    }
    result.host = std::string(rest.substr(1, close - 1));
    rest.remove_prefix(close + 1);
    if (!rest.empty()) {
      if (rest.front() != ':') {
        throw std::invalid_argument("unexpected text after the address in " + quoted);
      }
      port_text = rest.substr(1);
    }
  } else {
    const std::size_t colon = rest.rfind(':');
    result.host = std::string(rest.substr(0, colon));
    if (colon != std::string_view::npos) {
      port_text = rest.substr(colon + 1);
    }
  }
  if (result.host.empty()) {
    throw std::invalid_argument("no host in " + quoted);
  }
  if (!port_text.empty() || rest.ends_with(':')) {
    unsigned port = 0;
    const char* end = port_text.data() + port_text.size();
    const auto [ptr, ec] = std::from_chars(port_text.data(), end, port);
    if (ec != std::errc{} || ptr != end || port == 0 || port > 65535) {
      throw std::invalid_argument("bad port '" + std::string(port_text) + "' in " + quoted);
    }
    result.port = static_cast<std::uint16_t>(port);
  }
  return result;
}

}  // namespace benchd::loadgen
