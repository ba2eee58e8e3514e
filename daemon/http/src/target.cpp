#include <benchd/http/target.hpp>

namespace benchd::http {

namespace {

bool hasControlCharacter(std::string_view text) noexcept {
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte == 0x7f)
      return true;
  }
  return false;
}

ParsedTarget failure(std::string reason, std::string detail) {
  ParsedTarget result;
  result.reason = std::move(reason);
  result.detail = std::move(detail);
  return result;
}

}  // namespace

ParsedTarget parseTarget(std::string_view target) {
  // Order matters: structure first (where do path and query start), then decoding, then the
  // checks on decoded segments, so that an encoded "%2e%2e" is caught exactly like "..".
  if (target.empty() || target.front() != '/') {
    return failure("bad-target",
                   "the request target must be an absolute path starting with '/', got '" +
                       std::string(target.substr(0, 64)) + "'");
  }
  if (target.find('#') != std::string_view::npos)
    return failure("bad-target", "the request target must not contain a fragment ('#')");
  const auto question = target.find('?');
  const std::string_view raw_path = target.substr(0, question);
  ParsedTarget result;
  if (question != std::string_view::npos) {
    auto query = sdk::decodeQuery(target.substr(question + 1));
    if (!query)
      return failure("bad-encoding", "the query string has a malformed %-escape");
    for (const auto& [name, value] : *query) {
      if (hasControlCharacter(name) || hasControlCharacter(value)) {
        return failure("control-character",
                       "the query string must not contain NUL or other control characters");
      }
    }
    result.query = std::move(*query);
  }
  result.path = std::string(raw_path);
  std::string_view rest = raw_path.substr(1);
  if (rest.empty()) {  // "/"
    result.ok = true;
    return result;
  }
  if (rest.back() == '/') {
    result.trailing_slash = true;
    rest.remove_suffix(1);
  }
  while (true) {
    const auto slash = rest.find('/');
    const std::string_view raw = rest.substr(0, slash);
    if (raw.empty())
      return failure("empty-segment", "the path must not contain empty segments ('//')");
    auto decoded = sdk::percentDecode(raw, sdk::PlusSign::kLiteral);
    if (!decoded)
      return failure("bad-encoding", "the path has a malformed %-escape");
    if (*decoded == "." || *decoded == "..") {
      return failure("path-traversal",
                     "the path must not contain '.' or '..' segments (encoded or not)");
    }
    if (decoded->find_first_of("/\\") != std::string::npos) {
      return failure("encoded-separator",
                     "a path segment must not contain an encoded '/' or '\\' (%2F, %5C)");
    }
    if (hasControlCharacter(*decoded)) {
      return failure("control-character",
                     "the path must not contain NUL or other control characters");
    }
    result.segments.push_back(std::move(*decoded));
    if (slash == std::string_view::npos)
      break;
    rest = rest.substr(slash + 1);
  }
  result.ok = true;
  return result;
}

}  // namespace benchd::http
