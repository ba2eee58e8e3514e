#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace benchd::scenario {

/// What a request path template's placeholders stand for.
struct PathValues {
  std::string approach;                ///< {approach}: the plugin's name
  std::uint32_t delay_call_depth = 0;  ///< {delayCallDepth}
  std::uint32_t delay_millis = 0;      ///< {delayInMillis}
};

/// Why `path_template` is not a usable request path, or nullopt when it is: it must start with
/// '/', contain no blanks or control characters, and every '{' must open one of the known
/// placeholders {approach}, {delayCallDepth}, {delayInMillis}.
std::optional<std::string> findPathTemplateProblem(std::string_view path_template);

/// The template with its placeholders replaced. Precondition: findPathTemplateProblem found
/// nothing.
std::string renderPath(std::string_view path_template, const PathValues& values);

}  // namespace benchd::scenario
