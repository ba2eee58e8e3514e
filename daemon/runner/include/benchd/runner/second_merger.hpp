#pragma once

#include <benchd/measurement/load_second_codec.hpp>
#include <benchd/measurement/load_snapshot.hpp>

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace benchd::runner {

/// A generator's second that breaks its sequence (lost, repeated or out of order), or that
/// names no known generator; what() names the generator and the numbers.
class SecondMergeError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// The second of a row that `parts` (the same phase and index, one per load generator that sent
/// it) make together, exactly as one generator recording every sample would have measured it:
/// histograms and counters added, never a percentile combined.
///   - start: the earliest; duration: to the latest end (the last, partial second may differ
///     between generators); end_epoch_millis: the latest;
///   - achieved requests per second: the merged completed requests over that duration;
///   - intended rate, active VUs and peak active VUs: summed (the peak is an upper bound: the
///     generators' peaks need not fall on one instant);
///   - generator CPU: summed, in percent of one core, with the cores summed, so it stays "up to
///     100 × generator_cores"; each host's own CPU is kept apart by the caller.
/// Throws std::invalid_argument for no parts, or parts of different phases or indexes.
[[nodiscard]] measurement::LoadSnapshot mergeSeconds(
    std::span<const measurement::LoadSnapshot> parts);

/// Merges the seconds of N load generators, each running one segment i/N of a row, into the
/// row's seconds (docs/plans/multi-host.md §2). Each generator numbers every second it sends over
/// a load (both phases) from 0; a merged second is given out once every generator has sent it,
/// in (phase, index) order, so a generator behind the others holds the row's seconds back
/// rather than letting a second out half counted.
///
/// Thread-safety: none; the coordinator's one thread feeds it.
class SecondMerger {
 public:
  /// `generators`: a name per generator (its host, for messages), in segment order; at least
  /// one. Throws std::invalid_argument for none.
  explicit SecondMerger(std::vector<std::string> generators);

  /// Takes generator `generator`'s next second. Its sequence must be the one after the last it
  /// sent (0 first); a gap, a repeat or an unknown generator throws SecondMergeError. Returns
  /// the merged seconds this completed, in order (often none or one).
  std::vector<measurement::LoadSnapshot> add(std::size_t generator,
                                             measurement::NumberedSecond numbered);

  /// Once every generator has ended `phase`: its seconds that not every generator sent (a last,
  /// partial second one generator did not reach), each merged from the parts that came, in
  /// order, with the seconds after them that this completes.
  std::vector<measurement::LoadSnapshot> finishPhase(measurement::PhaseKind phase);

  /// Seconds received and not yet given out.
  [[nodiscard]] std::size_t pendingSeconds() const noexcept { return pending_.size(); }

 private:
  using Key = std::pair<measurement::PhaseKind, std::uint32_t>;
  using Parts = std::vector<std::optional<measurement::LoadSnapshot>>;

  /// Gives out the pending seconds from the first on while each is complete.
  std::vector<measurement::LoadSnapshot> releaseComplete();
  static measurement::LoadSnapshot mergeParts(const Parts& parts);

  std::vector<std::string> generators_;
  std::vector<std::uint64_t> next_sequence_;  ///< per generator
  std::map<Key, Parts> pending_;
};

}  // namespace benchd::runner
