#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace benchd::runner {

/// The bracket's width a search stops at unless the run says otherwise (`--capacity-resolution`):
/// 3 %, about the noise of a rate measured on a shared machine.
inline constexpr double kDefaultCapacityResolution = 0.03;
/// What a run may ask for as the resolution, in percent: finer is below the noise of a rate
/// measured in seconds; coarser answers little.
inline constexpr double kMinCapacityResolutionPercent = 0.5;
inline constexpr double kMaxCapacityResolutionPercent = 50.0;
/// The most trials a search runs; typical searches need 8 to 12 (doubling up from the start
/// rate, about five bisections to 3 %, one confirmation).
inline constexpr std::uint32_t kMaxCapacityTrials = 20;
/// What a run's plan counts per search for its time estimate.
inline constexpr std::uint32_t kTypicalCapacityTrials = 10;

/// How a capacity search steps: from `start_rate`, multiplying by `step_factor` after each passing
/// trial and dividing by it after each failing one until a pass and a fail bracket the capacity,
/// then bisecting (geometric mean) until the bracket's width is at most `resolution` of its low
/// end, then running the low end once more to confirm it.
struct CapacitySearchSettings {
  double start_rate = 1'000.0;  ///< req/s of the first trial, from min_rate to max_rate
  double resolution = kDefaultCapacityResolution;  ///< (high - low) / low narrow enough
  std::uint32_t max_trials = kMaxCapacityTrials;
  double min_rate = 1.0;           ///< below this no rate passed: the capacity is 0
  double max_rate = 10'000'000.0;  ///< the highest rate the generator is asked for
  /// 2 from a guess; a smaller step from a rate known to be close (the median an approach's
  /// earlier rounds found: kWarmStepFactor), which brackets it in fewer trials.
  double step_factor = 2.0;
};

/// The step of a search that starts at the rate earlier rounds of the same (row, approach)
/// found: a round's capacity is within a quarter of the others' on a quiet machine.
inline constexpr double kWarmStepFactor = 1.25;

/// What one fixed-rate trial showed (the judge of a trial decides: the goal percentile within
/// its bound with dropped arrivals counted above it, no errors, the achieved rate close to the
/// intended one).
enum class TrialOutcome {
  kPass,
  kFail,
  /// Failed while the load generator itself was saturated: not the server's limit, but the
  /// highest rate this machine can ask for; the search narrows below it as below a failure.
  kGeneratorSaturated,
};

/// How a search ended.
enum class CapacityVerdict {
  kSearching,  ///< not ended: nextRate() has a rate
  kFound,      ///< capacity() passed (twice), the bracket is within the resolution
  kNone,       ///< no rate down to min_rate passed: capacity 0
  /// capacity() is a lower bound: the bracket's top end is where the generator saturated
  kGeneratorSaturated,
  kAtMaximum,   ///< max_rate passed: capacity() is a lower bound
  kTrialLimit,  ///< max_trials ran out: capacity() is the highest pass, unconfirmed
};

[[nodiscard]] std::string verdictName(CapacityVerdict verdict);

struct CapacityTrial {
  double rate = 0.0;
  TrialOutcome outcome = TrialOutcome::kFail;
  bool confirmation = false;  ///< a second trial at the bracket's low end
};

/// The highest open-model arrival rate a server holds under a latency goal, found by steps and
/// bisection on fixed-rate trials (issue 37). Pure: it chooses rates and reads outcomes; running
/// a trial (a fresh worker, warm-up, the rate) is the caller's. A confirmation that fails makes
/// its rate the bracket's high end and the highest pass below it the low end, and the search
/// goes on from there, so one lucky pass is never reported.
///
/// Not thread-safe; one caller drives it: nextRate(), run that rate, record(), until nextRate()
/// is empty.
class CapacitySearch {
 public:
  /// Throws std::invalid_argument naming the setting that is out of range.
  explicit CapacitySearch(CapacitySearchSettings settings);

  /// The rate of the next trial; empty once the search has ended (see verdict()).
  [[nodiscard]] std::optional<double> nextRate() const;
  /// The outcome of a trial at the rate nextRate() gave. Throws std::logic_error once ended.
  void record(TrialOutcome outcome);

  [[nodiscard]] CapacityVerdict verdict() const noexcept { return verdict_; }
  /// The highest rate that passed and still stands (0 when none did).
  [[nodiscard]] double capacity() const noexcept { return low_.value_or(0.0); }
  /// The lowest rate that failed above capacity(), if any (for kGeneratorSaturated, where the
  /// generator saturated).
  [[nodiscard]] std::optional<double> failedAt() const noexcept { return high_; }
  [[nodiscard]] const std::vector<CapacityTrial>& trials() const noexcept { return trials_; }
  [[nodiscard]] const CapacitySearchSettings& settings() const noexcept { return settings_; }

 private:
  /// Sets next_ (and confirming_) or ends the search with a verdict.
  void plan();
  void end(CapacityVerdict verdict);

  CapacitySearchSettings settings_;
  std::optional<double> low_;
  std::optional<double> high_;
  bool high_saturated_ = false;  ///< high_ failed with the generator saturated
  std::vector<double> passes_;   ///< every rate that passed, confirmed or not
  bool low_confirmed_ = false;
  bool confirming_ = false;
  double next_ = 0.0;
  CapacityVerdict verdict_ = CapacityVerdict::kSearching;
  std::vector<CapacityTrial> trials_;
};

}  // namespace benchd::runner
