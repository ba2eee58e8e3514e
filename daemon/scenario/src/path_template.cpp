#include <benchd/scenario/path_template.hpp>

#include <array>
#include <utility>

namespace benchd::scenario {
namespace {

constexpr std::array<std::string_view, 3> kPlaceholders = {"approach", "delayCallDepth",
                                                           "delayInMillis"};

bool isForbiddenInPath(char c) {
  const auto code = static_cast<unsigned char>(c);
  return code <= 0x20 || code == 0x7f;
}

bool isKnownPlaceholder(std::string_view name) {
  for (const std::string_view known : kPlaceholders) {
    if (known == name) {
      return true;
    }
  }
  return false;
}

}  // namespace

std::optional<std::string> findPathTemplateProblem(std::string_view path_template) {
  if (path_template.empty() || path_template.front() != '/') {
    return "expected a path starting with '/'";
  }
  for (const char c : path_template) {
    if (isForbiddenInPath(c)) {
      return "a path may not contain blanks or control characters";
    }
  }
  std::size_t position = 0;
  while ((position = path_template.find_first_of("{}", position)) != std::string_view::npos) {
    if (path_template[position] == '}') {
      return "'}' without a matching '{'";
    }
    const std::size_t close = path_template.find('}', position);
    if (close == std::string_view::npos) {
      return "'{' without a matching '}'";
    }
    const std::string_view name = path_template.substr(position + 1, close - position - 1);
    if (!isKnownPlaceholder(name)) {
      return "unknown placeholder {" + std::string(name) +
             "} (known: {approach}, {delayCallDepth}, {delayInMillis})";
    }
    position = close + 1;
  }
  return std::nullopt;
}

std::string renderPath(std::string_view path_template, const PathValues& values) {
  std::string path;
  path.reserve(path_template.size() + values.approach.size());
  std::size_t position = 0;
  while (position < path_template.size()) {
    const std::size_t open = path_template.find('{', position);
    if (open == std::string_view::npos) {
      path += path_template.substr(position);
      break;
    }
    path += path_template.substr(position, open - position);
    const std::size_t close = path_template.find('}', open);
    if (close == std::string_view::npos) {
      path += path_template.substr(open);
      break;
    }
    const std::string_view name = path_template.substr(open + 1, close - open - 1);
    if (name == "approach") {
      path += values.approach;
    } else if (name == "delayCallDepth") {
      path += std::to_string(values.delay_call_depth);
    } else if (name == "delayInMillis") {
      path += std::to_string(values.delay_millis);
    } else {
      path += path_template.substr(open, close - open + 1);
    }
    position = close + 1;
  }
  return path;
}

}  // namespace benchd::scenario
