#pragma once

#include <string_view>

namespace benchd::scenario {

/// Whether JSON `text` nests arrays and objects deeper than `limit` (brackets inside strings do
/// not count). A scan without recursion, for texts that are walked recursively afterwards (a
/// workload's body re-serialised, a plugin's answer compared). Pure; thread-safe.
[[nodiscard]] bool nestsDeeperThan(std::string_view text, int limit);

}  // namespace benchd::scenario
