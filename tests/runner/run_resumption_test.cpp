// `benchd run --resume` as a real process: a run cut off by SIGKILL or stopped by SIGINT goes on
// into the same run, with real workers, plugins, SQLite and files.
#include "command_runner.hpp"
#include "runner_test_support.hpp"
#include "store_count.hpp"

#include <benchd/results/results_table.hpp>
#include <benchd/results/summary_row.hpp>
#include <benchd/store/result_store.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <csignal>
#include <fstream>
#include <map>
#include <sstream>
#include <thread>
#include <tuple>

namespace benchd::runner::testing {
namespace {

using benchd::testing::CommandResult;
using benchd::testing::runCommand;

std::string readFile(const fs::path& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

fs::path writeFile(const fs::path& path, const std::string& text) {
  std::ofstream(path) << text;
  return path;
}

std::string describe(const CommandResult& result) {
  return "exit " + std::to_string(result.exit_code) + "\nstdout:\n" + result.out + "\nstderr:\n" +
         result.err;
}

using RunKey = std::tuple<std::string, std::string, std::uint32_t>;

std::map<RunKey, results::SummaryRow> byRun(const std::vector<results::SummaryRow>& rows) {
  std::map<RunKey, results::SummaryRow> runs;
  for (const results::SummaryRow& row : rows) {
    EXPECT_TRUE(runs.emplace(RunKey{row.scenario, row.approach, row.round}, row).second)
        << row.scenario << " " << row.approach << " round " << row.round << " stored twice";
  }
  return runs;
}

/// Two rows x two approaches x two rounds (8 runs) into `dir`, sent `signal` once three runs
/// have finished (a state, never a fixed time).
class ResumeTest : public ::testing::Test {
 protected:
  fs::path store() const { return dir_.path() / "benchd.sqlite"; }

  fs::path scenarioFile(std::uint32_t first_row_test_seconds = 1) const {
    return writeFile(dir_.path() / "two.csv", scenarioCsv("first,get-time.js,,0,0,10,50,0," +
                                                          std::to_string(first_row_test_seconds) +
                                                          "\n"
                                                          "second,get-time.js,,0,0,10,50,0,2\n"));
  }

  CommandResult runUntilThreeFinishedThenSignal(int signal) {
    const fs::path file = scenarioFile();
    std::atomic<pid_t> pid{-1};
    std::thread stopper([&] {
      const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(2);
      while (std::chrono::steady_clock::now() < deadline &&
             benchd::testing::countInStore(store(),
                                           "SELECT count(*) FROM result WHERE finished = 1") < 3) {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
      }
      if (pid.load() > 0) {
        ::kill(pid.load(), signal);
      }
    });
    CommandResult result =
        runCommand(benchdExecutable().string(),
                   {"run", file.string(), "-o", dir_.path().string(), "-a",
                    "callbacks-asio,callbacks-asio#2", "--repeat", "2", "--seed", "42", "--quiet"},
                   std::chrono::minutes(3), [&pid](pid_t started) { pid.store(started); });
    stopper.join();
    return result;
  }

  CommandResult resume(std::vector<std::string> more = {}) const {
    std::vector<std::string> arguments = {"run", "--resume",           "1",
                                          "-o",  dir_.path().string(), "--quiet"};
    arguments.insert(arguments.end(), more.begin(), more.end());
    return runCommand(benchdExecutable().string(), arguments, std::chrono::minutes(3));
  }

  /// The resumed run holds all 8 runs, once each, with the ones measured before unchanged, in
  /// the rounds' orders of the seed; its files say it was resumed.
  void expectCompletedKeeping(const std::map<RunKey, results::SummaryRow>& before) const {
    const store::ResultStore reader(store());
    const std::vector<store::RunRecord> runs = reader.listRuns();
    ASSERT_EQ(runs.size(), 1U) << "resumed into the same run, not a new one";
    EXPECT_EQ(runs[0].status, store::RunStatus::kCompleted) << runs[0].error;
    EXPECT_EQ(runs[0].run.resumes, 1U);
    EXPECT_EQ(runs[0].run.order_seed, 42U);
    const std::map<RunKey, results::SummaryRow> after = byRun(reader.summaries(runs[0].id));
    EXPECT_EQ(after.size(), 8U);
    for (const auto& [key, row] : before) {
      const auto found = after.find(key);
      ASSERT_NE(found, after.end());
      EXPECT_EQ(found->second.metric("requests_ok"), row.metric("requests_ok"))
          << "a run measured before the resumption is kept as it was";
      EXPECT_EQ(found->second.round_position, row.round_position);
    }
    // Every round ran both approaches, at positions 1 and 2.
    for (const char* scenario : {"first", "second"}) {
      for (std::uint32_t round = 1; round <= 2; ++round) {
        const auto a = after.find({scenario, "callbacks-asio", round});
        const auto b = after.find({scenario, "callbacks-asio#2", round});
        ASSERT_TRUE(a != after.end() && b != after.end()) << scenario << " round " << round;
        EXPECT_EQ(a->second.round_position + b->second.round_position, 3U);
      }
    }
    const results::ResultsTable csv =
        results::readResultsCsvFile(dir_.path() / "two" / "results-runs.csv");
    EXPECT_EQ(csv.rows().size(), 8U);
    const std::string markdown = readFile(dir_.path() / "two" / "results.md");
    EXPECT_NE(markdown.find("This run was resumed 1 time"), std::string::npos) << markdown;
    EXPECT_EQ(markdown.find("stopped before it finished"), std::string::npos) << markdown;
  }

  TempDir dir_;
};

TEST_F(ResumeTest, ARunKilledMidWayGoesOnWithWhatItLacks) {
  const CommandResult killed = runUntilThreeFinishedThenSignal(SIGKILL);
  ASSERT_EQ(killed.exit_code, 128 + SIGKILL) << describe(killed);
  std::map<RunKey, results::SummaryRow> before;
  {
    const store::ResultStore reader(store());
    before = byRun(reader.summaries(1));
  }
  ASSERT_GE(before.size(), 3U);
  ASSERT_LT(before.size(), 8U);

  const CommandResult resumed = resume();
  ASSERT_EQ(resumed.exit_code, 0) << describe(resumed);
  EXPECT_NE(resumed.err.find("marked interrupted (`benchd run --resume RUN` goes on with one)"),
            std::string::npos)
      << describe(resumed);
  EXPECT_NE(resumed.err.find("resuming run 1 (" + std::to_string(8 - before.size()) +
                             " of its runs missing)"),
            std::string::npos)
      << describe(resumed);
  EXPECT_NE(resumed.out.find("completed after"), std::string::npos) << describe(resumed);
  EXPECT_NE(resumed.out.find(": 8 results"), std::string::npos) << describe(resumed);
  expectCompletedKeeping(before);
}

TEST_F(ResumeTest, AStoppedRunSaysHowToGoOnAndDoes) {
  const CommandResult stopped = runUntilThreeFinishedThenSignal(SIGINT);
  ASSERT_EQ(stopped.exit_code, 130) << describe(stopped);
  EXPECT_NE(stopped.out.find("go on with it: benchd run --resume 1 -o " + dir_.path().string()),
            std::string::npos)
      << describe(stopped);
  std::map<RunKey, results::SummaryRow> before;
  {
    const store::ResultStore reader(store());
    EXPECT_EQ(reader.findRun(1)->status, store::RunStatus::kStopped);
    before = byRun(reader.summaries(1));
  }
  const CommandResult resumed = resume();
  ASSERT_EQ(resumed.exit_code, 0) << describe(resumed);
  expectCompletedKeeping(before);

  // Nothing is left to resume now.
  const CommandResult again = resume();
  EXPECT_EQ(again.exit_code, 1) << describe(again);
  EXPECT_NE(again.err.find("run 1 completed: it has every run it asked for"), std::string::npos)
      << describe(again);
}

TEST_F(ResumeTest, RefusesWhatItCannotResumeSayingWhy) {
  const CommandResult stopped = runUntilThreeFinishedThenSignal(SIGINT);
  ASSERT_EQ(stopped.exit_code, 130) << describe(stopped);

  // --plan says what is missing and changes nothing.
  const CommandResult plan = resume({"--plan"});
  EXPECT_EQ(plan.exit_code, 0) << describe(plan);
  EXPECT_NE(plan.out.find("resuming run 1 ("), std::string::npos) << describe(plan);
  EXPECT_NE(plan.out.find(" of its runs missing): the runs it has are kept"), std::string::npos)
      << describe(plan);

  // A resumed run keeps its settings: options that make a request are usage errors.
  const CommandResult with_approaches = resume({"-a", "callbacks-asio"});
  EXPECT_EQ(with_approaches.exit_code, 2) << describe(with_approaches);
  EXPECT_NE(with_approaches.err.find("--resume: a resumed run keeps the scenario file and "
                                     "settings it started with; leave out -a"),
            std::string::npos)
      << describe(with_approaches);

  const CommandResult unknown = runCommand(
      benchdExecutable().string(), {"run", "--resume", "7", "-o", dir_.path().string(), "--quiet"});
  EXPECT_EQ(unknown.exit_code, 1) << describe(unknown);
  EXPECT_NE(unknown.err.find("there is no run 7 in " + store().string()), std::string::npos)
      << describe(unknown);

  // The scenario file changed since: the runs would not be comparable.
  scenarioFile(3);
  const CommandResult changed = resume();
  EXPECT_EQ(changed.exit_code, 1) << describe(changed);
  EXPECT_NE(changed.err.find("changed since run 1 started: row 1 ('first') was test (s) 1, "
                             "now 3"),
            std::string::npos)
      << describe(changed);
  const store::ResultStore reader(store());
  EXPECT_EQ(reader.findRun(1)->status, store::RunStatus::kStopped) << "a refusal changes nothing";
  EXPECT_EQ(reader.findRun(1)->run.resumes, 0U);
}

}  // namespace
}  // namespace benchd::runner::testing
