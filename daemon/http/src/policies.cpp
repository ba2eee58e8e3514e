#include <benchd/http/policies.hpp>
#include <benchd/http/problem.hpp>

#include <charconv>
#include <stdexcept>

namespace benchd::http {

namespace {

/// `Host` split into host and optional port; nothing when malformed.
struct HostValue {
  std::string_view host;  ///< IPv6 keeps its brackets
  std::optional<std::uint16_t> port;
};

std::optional<HostValue> splitHost(std::string_view value) {
  if (value.empty())
    return std::nullopt;
  HostValue result;
  std::string_view port_text;
  bool has_port = false;
  if (value.front() == '[') {
    const auto close = value.find(']');
    if (close == std::string_view::npos)
      return std::nullopt;
    result.host = value.substr(0, close + 1);
    const std::string_view rest = value.substr(close + 1);
    if (!rest.empty()) {
      if (rest.front() != ':')
        return std::nullopt;
      has_port = true;
      port_text = rest.substr(1);
    }
  } else {
    const auto colon = value.find(':');
    result.host = value.substr(0, colon);
    if (colon != std::string_view::npos) {
      has_port = true;
      port_text = value.substr(colon + 1);
    }
  }
  if (result.host.empty() || result.host.find_first_of(" \t,/@") != std::string_view::npos)
    return std::nullopt;
  if (has_port) {
    std::uint16_t port = 0;
    const auto [end, error] =
        std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
    if (port_text.empty() || error != std::errc() || end != port_text.data() + port_text.size())
      return std::nullopt;
    result.port = port;
  }
  return result;
}

}  // namespace

bool constantTimeEquals(std::string_view given, std::string_view expected) noexcept {
  // Walk `expected` fully whatever `given` holds; fold every difference into one accumulator.
  unsigned difference = given.size() == expected.size() ? 0U : 1U;
  for (std::size_t i = 0; i < expected.size(); ++i) {
    const char other = i < given.size() ? given[i] : '\0';
    difference |= static_cast<unsigned>(static_cast<unsigned char>(other) ^
                                        static_cast<unsigned char>(expected[i]));
  }
  return difference == 0;
}

Policy hostCheckPolicy(std::vector<std::string> extra_names) {
  return [extra_names = std::move(extra_names)](const Request& request,
                                                const RouteTraits&) -> std::optional<Response> {
    std::size_t count = 0;
    std::string_view value;
    for (const auto& [name, field_value] : request.headers.fields()) {
      if (equalsIgnoreCase(name, "Host")) {
        ++count;
        value = field_value;
      }
    }
    if (count != 1) {
      return problemResponse(400, "bad-host",
                             count == 0 ? "the request has no Host header"
                                        : "the request has more than one Host header");
    }
    const auto host = splitHost(value);
    if (!host)
      return problemResponse(400, "bad-host", "the Host header is malformed");
    const bool local_is_v6 = request.local_address.find(':') != std::string::npos;
    const std::string bound =
        local_is_v6 ? "[" + request.local_address + "]" : request.local_address;
    bool known = equalsIgnoreCase(host->host, "localhost") || host->host == "127.0.0.1" ||
                 host->host == "[::1]" || (!bound.empty() && equalsIgnoreCase(host->host, bound));
    for (const auto& name : extra_names)
      known = known || equalsIgnoreCase(host->host, name);
    if (!known || (host->port && *host->port != request.local_port)) {
      return problemResponse(421, "unknown-host",
                             "this server does not answer for the host named in the Host header; "
                             "use localhost or the address it listens on");
    }
    return std::nullopt;
  };
}

Policy bearerTokenPolicy(std::string token, const std::string& realm) {
  if (token.empty())
    throw std::invalid_argument("bearerTokenPolicy: the token must not be empty");
  return [token = std::move(token), challenge = "Bearer realm=\"" + realm + "\""](
             const Request& request, const RouteTraits& route) -> std::optional<Response> {
    if (route.is_public)
      return std::nullopt;
    bool accepted = false;
    if (const auto value = request.header("Authorization")) {
      // "Bearer" is case-insensitive (RFC 9110 §11.1); one or more spaces follow it.
      constexpr std::string_view scheme = "Bearer";
      if (value->size() > scheme.size() &&
          equalsIgnoreCase(value->substr(0, scheme.size()), scheme) &&
          (*value)[scheme.size()] == ' ') {
        std::string_view given = value->substr(scheme.size());
        while (!given.empty() && given.front() == ' ')
          given.remove_prefix(1);
        accepted = constantTimeEquals(given, token);
      }
    }
    if (accepted)
      return std::nullopt;
    auto refusal = problemResponse(401, "auth-required", "a valid bearer token is required");
    refusal.headers.set("WWW-Authenticate", challenge);
    return refusal;
  };
}

std::optional<Response> requireContentType(const Request& request, std::string_view media_type) {
  std::string_view value = request.header("Content-Type").value_or("");
  value = value.substr(0, value.find(';'));
  while (!value.empty() && (value.back() == ' ' || value.back() == '\t'))
    value.remove_suffix(1);
  while (!value.empty() && (value.front() == ' ' || value.front() == '\t'))
    value.remove_prefix(1);
  if (equalsIgnoreCase(value, media_type))
    return std::nullopt;
  auto refusal = Problem(415, "the body must be " + std::string(media_type) +
                                  (value.empty() ? ", but no Content-Type was given"
                                                 : ", got Content-Type " + std::string(value)))
                     .extension("reason", std::string("unsupported-media-type"))
                     .extension("expected", std::string(media_type))
                     .toResponse();
  refusal.headers.set("Accept-Post", std::string(media_type));
  return refusal;
}

std::optional<Response> requireJson(const Request& request) {
  return requireContentType(request, "application/json");
}

}  // namespace benchd::http
