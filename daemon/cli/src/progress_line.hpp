#pragma once

#include <benchd/loadgen/load_snapshot.hpp>

#include <cstdint>
#include <iosfwd>

namespace benchd::cli {

/// A one-line status per snapshot on a stream (stderr): rewritten in place on a terminal, one
/// line each otherwise. Not thread-safe; fed from the engine's snapshot callback.
class ProgressLine {
 public:
  ProgressLine(std::ostream& out, bool terminal, std::uint32_t warmup_seconds,
               std::uint32_t test_seconds);

  void show(const loadgen::LoadSnapshot& snapshot);
  /// Ends an in-place line so that later output starts on a fresh line.
  void finish();

 private:
  std::ostream& out_;
  bool terminal_;
  std::uint32_t warmup_seconds_;
  std::uint32_t test_seconds_;
  bool line_open_ = false;
};

}  // namespace benchd::cli
