#pragma once

#include <benchd/runner/run_ledger.hpp>
#include <benchd/runner/run_preparation.hpp>
#include <benchd/store/result_store.hpp>

#include <cstdint>
#include <stdexcept>
#include <string>

namespace benchd::runner {

/// Why a run cannot be resumed; each front end gives its own answer (an exit code, an HTTP
/// status) and remedy.
enum class ResumeProblem : std::uint8_t {
  kUnknownRun = 1,  ///< no such run in the store
  kStillActive,     ///< it is queued or running
  kCompleted,       ///< it finished every run it asked for
  kNotResumable,    ///< recorded without its request (a store from before resumable runs)
  kChanged,         ///< its scenario file or approaches are not what they were
};

/// A run that cannot be resumed. what() is one line in neutral words (no option or URL).
class ResumeError : public std::runtime_error {
 public:
  ResumeError(ResumeProblem problem, const std::string& reason)
      : std::runtime_error(reason), problem_(problem) {}
  [[nodiscard]] ResumeProblem problem() const noexcept { return problem_; }

 private:
  ResumeProblem problem_;
};

/// Prepares the resumption of run `run` of `store`: a run that ended before it finished
/// (stopped, interrupted, or failed) goes on with what it lacks. Its stored request is prepared
/// again as prepareRun does (so a plugin or a scenario file that is gone fails the same way),
/// then checked against the record: the scenario rows (overrides applied) and the approaches must
/// be the ones it ran, else ResumeError kChanged names the first difference. The settings keep
/// the run's results folder, seed and rounds, and carry its finished results in `resumed`, so
/// BenchmarkRun runs only the (row, approach, round)s that are missing. Nothing is written: the
/// record changes when RunLedger::resume takes it.
///
/// Throws ResumeError, StoredRequestError (a request it cannot read), and what prepareRun throws.
[[nodiscard]] PreparedRun prepareResumption(const store::ResultStore& store, store::RunId run,
                                            const RunEnvironment& environment,
                                            const PluginCatalog* catalog = nullptr);

/// How many runs of (row, approach, round) `settings` still lack: all of them for a new run.
[[nodiscard]] std::size_t missingRuns(const RunSettings& settings);

}  // namespace benchd::runner
