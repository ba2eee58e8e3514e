#pragma once

#include <cstdint>
#include <string>

namespace benchd::scenario {

/// The longest span of time benchd accepts wherever a user names one in seconds: a warm-up or
/// test phase (a scenario row, `benchd run --warmup/--test`, `benchd load --duration`, the
/// API's overrides, the GUI's fields) and the waits inside a phase that a workload file sets
/// (think time, graceful stop, ramp-down). One day: longer is a unit slip (milliseconds typed
/// as seconds), not a benchmark, and keeps millisecond and microsecond arithmetic on these
/// spans far from overflow. Every check quotes this constant; tests pin the texts.
inline constexpr std::uint32_t kMaxPhaseSeconds = 86'400;

/// The most runs of every (row, approach) a run may ask for (`benchd run --repeat`, the API's
/// `repeat`, the GUI's field): a thousand is far beyond what any test needs (10 to 20 are
/// plenty) and keeps a typo from planning a run of months.
inline constexpr std::uint32_t kMaxRepeats = 1'000;

/// The runs of every (row, approach) a run makes when none are asked for (`benchd run`, the
/// API's `repeat`, the GUI's field): enough rounds for the winners grid's paired test to call a
/// lead that many cells show (2^-10 = 0.001), measured by bench/results/power.sh, and few enough
/// that benchd's study (7 rows, 5 approaches) ends within 2 hours on a 2-core machine. `--repeat
/// 1` is a quick look whose grid shows unconfirmed leads.
inline constexpr std::uint32_t kDefaultRepeats = 10;

/// "whole seconds from 0 to 86400", or from `minimum`: what the integer checks say was expected.
inline std::string phaseSecondsExpectation(std::uint32_t minimum = 0) {
  return "whole seconds from " + std::to_string(minimum) + " to " +
         std::to_string(kMaxPhaseSeconds);
}

}  // namespace benchd::scenario
