#pragma once

#include <benchd/measurement/load_snapshot.hpp>

#include <cstdint>
#include <iosfwd>
#include <optional>

namespace benchd::cli {

/// A one-line status per snapshot on a stream (stderr): rewritten in place on a terminal, one
/// line each otherwise. A timed test phase shows its seconds done of `test_seconds`; a
/// request-count one (`request_limit` set) its requests ended of the limit and, once some have
/// ended, the time left at the phase's average rate so far. Not thread-safe; fed from the
/// engine's snapshot callback.
class ProgressLine {
 public:
  ProgressLine(std::ostream& out, bool terminal, std::uint32_t warmup_seconds,
               std::uint32_t test_seconds, std::optional<std::uint64_t> request_limit);

  void show(const measurement::LoadSnapshot& snapshot);
  /// Ends an in-place line so that later output starts on a fresh line.
  void finish();

 private:
  std::ostream& out_;
  bool terminal_;
  std::uint32_t warmup_seconds_;
  std::uint32_t test_seconds_;
  std::optional<std::uint64_t> request_limit_;
  /// Test-phase requests ended so far (answered, failed or interrupted: each took one of the
  /// limit's tickets).
  std::uint64_t test_requests_ended_ = 0;
  bool line_open_ = false;
};

}  // namespace benchd::cli
