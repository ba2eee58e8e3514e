#include "temp_dir.hpp"

#include <benchd/runner/benchmark_run.hpp>
#include <benchd/runner/run_ledger.hpp>
#include <benchd/store/result_store.hpp>

#include <gtest/gtest.h>

#include <optional>
#include <utility>

namespace benchd::runner {
namespace {

using store::RunStatus;

RunSettings twoRowSettings() {
  RunSettings settings;
  settings.scenario_file = "/scenarios/two.csv";
  settings.scenario_set = "two";
  settings.plan.approaches = {"callbacks-asio", "threads-poco"};
  for (const char* name : {"first", "second"}) {
    RowPlan row;
    row.row.name = name;
    row.row.workload = "get-time";
    settings.plan.rows.push_back(row);
  }
  settings.repeats = 4;
  settings.order_seed = 99;
  settings.winner_rule = results::WinnerRule::kOriginal;
  return settings;
}

class RunLedgerTest : public ::testing::Test {
 protected:
  RunLedgerTest() : store_(dir_.path() / "benchd.sqlite") {}

  [[nodiscard]] RunStatus statusOf(store::RunId run) const {
    const std::optional<store::RunRecord> record = store_.findRun(run);
    EXPECT_TRUE(record);
    return record ? record->status : RunStatus::kFailed;
  }

  benchd::testing::TempDir dir_;
  store::ResultStore store_;
};

TEST_F(RunLedgerTest, RecordsTheRunItsRowsAndEndsItOnce) {
  RunLedger ledger = RunLedger::record(store_, twoRowSettings(), RunStatus::kQueued);
  const store::RunId id = ledger.id();
  const std::optional<store::RunRecord> queued = store_.findRun(id);
  ASSERT_TRUE(queued);
  EXPECT_EQ(queued->status, RunStatus::kQueued);
  EXPECT_EQ(queued->run.scenario_set, "two");
  EXPECT_EQ(queued->run.repeats, 4U);
  EXPECT_EQ(queued->run.order_seed, 99U);
  EXPECT_EQ(queued->run.winner_rule, results::WinnerRule::kOriginal);
  ASSERT_EQ(store_.scenarioRows(id).size(), 2U);
  EXPECT_EQ(store_.scenarioRows(id)[1].name, "second");

  ledger.placeResults(dir_.path() / "run-1");
  ledger.start(42, {{"Kernel", "6.1"}});
  EXPECT_EQ(statusOf(id), RunStatus::kRunning);
  EXPECT_EQ(store_.findRun(id)->run.results_dir, (dir_.path() / "run-1").string());
  EXPECT_EQ(store_.findRun(id)->run.started_epoch_millis, 42);

  EXPECT_TRUE(ledger.finish(RunStatus::kStopped, "stopped on request"));
  EXPECT_TRUE(ledger.finished());
  // Only the first end counts: a later failure does not rewrite a stopped run.
  EXPECT_FALSE(ledger.finish(RunStatus::kFailed, "late"));
  EXPECT_EQ(statusOf(id), RunStatus::kStopped);
  EXPECT_EQ(store_.findRun(id)->error, "stopped on request");
}

TEST_F(RunLedgerTest, ALedgerThatGoesAwayUnfinishedLeavesNoRunRunning) {
  store::RunId id = 0;
  {
    RunLedger ledger = RunLedger::record(store_, twoRowSettings(), RunStatus::kRunning);
    id = ledger.id();
  }
  EXPECT_EQ(statusOf(id), RunStatus::kInterrupted);
  EXPECT_FALSE(store_.findRun(id)->error.empty());
}

TEST_F(RunLedgerTest, TheRecordMovesWithTheLedgerAndIsWrittenByItsLastHolderOnly) {
  RunLedger first = RunLedger::record(store_, twoRowSettings(), RunStatus::kQueued);
  const store::RunId id = first.id();
  std::optional<RunLedger> holder;
  holder.emplace(std::move(first));
  {
    const RunLedger moved_from = std::move(first);  // nothing left to end
  }
  EXPECT_EQ(statusOf(id), RunStatus::kQueued);
  // Assigning over an unfinished ledger ends the record it held.
  RunLedger other = RunLedger::record(store_, twoRowSettings(), RunStatus::kQueued);
  const store::RunId other_id = other.id();
  other = std::move(*holder);
  EXPECT_EQ(statusOf(other_id), RunStatus::kInterrupted);
  EXPECT_EQ(other.id(), id);
  EXPECT_TRUE(other.finish(RunStatus::kCompleted, ""));
  holder.reset();
  EXPECT_EQ(statusOf(id), RunStatus::kCompleted);
}

}  // namespace
}  // namespace benchd::runner
