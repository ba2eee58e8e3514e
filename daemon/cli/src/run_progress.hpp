#pragma once

#include <benchd/runner/benchmark_run.hpp>

#include <iosfwd>

namespace benchd::cli {

/// `benchd run`'s progress on stderr: on a terminal one status line rewritten every second
/// (row i/n × approach, phase, elapsed/total, req/s, p99, errors, ETA); otherwise a line per
/// step and one every kLogEverySeconds. A line per finished (row, approach) and per capacity
/// trial either way.
class RunProgress : public runner::RunObserver {
 public:
  static constexpr std::uint32_t kLogEverySeconds = 5;

  RunProgress(std::ostream& out, bool terminal, bool quiet);

  void onStep(const runner::Progress& progress) override;
  void onSecond(const runner::Progress& progress, const results::SecondRecord& second) override;
  void onResult(const runner::Progress& progress, const results::SummaryRow& row) override;
  void onTrial(const runner::Progress& progress, const scenario::CapacityGoal& goal,
               const results::CapacityTrialRecord& trial) override;
  void onNotice(const std::string& line) override;

  /// Ends an in-place line so later output starts on a fresh line.
  void finish();

 private:
  void show(const std::string& line, bool transient);

  std::ostream& out_;
  bool terminal_;
  bool quiet_;
  bool line_open_ = false;
};

}  // namespace benchd::cli
