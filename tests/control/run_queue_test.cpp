// The daemon's run queue on real workers and plugins: order, one at a time, events, stops.
#include "build_paths.hpp"
#include "scenario_csv.hpp"
#include "temp_dir.hpp"

#include <benchd/control/run_queue.hpp>
#include <benchd/runner/plugin_catalog.hpp>
#include <benchd/runner/plugin_folders.hpp>
#include <benchd/scenario/scenario_file_error.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <condition_variable>
#include <mutex>
#include <thread>

namespace benchd::control {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

/// Collects every event; waits for a run's end event.
class EventLog {
 public:
  void add(const RunEvent& event) {
    const std::scoped_lock lock(mutex_);
    events_.push_back(event);
    changed_.notify_all();
  }

  bool waitForEnd(store::RunId run, std::chrono::seconds timeout) {
    std::unique_lock lock(mutex_);
    return changed_.wait_for(lock, timeout, [&] {
      return std::any_of(events_.begin(), events_.end(), [&](const RunEvent& event) {
        return event.run == run && event.type == "end";
      });
    });
  }

  std::vector<RunEvent> of(store::RunId run) const {
    const std::scoped_lock lock(mutex_);
    std::vector<RunEvent> selected;
    for (const RunEvent& event : events_) {
      if (event.run == run) {
        selected.push_back(event);
      }
    }
    return selected;
  }

 private:
  mutable std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<RunEvent> events_;
};

class RunQueueTest : public ::testing::Test {
 protected:
  RunQueueTest() : store_(dir_.path() / "benchd.sqlite") {}

  RunQueue::Options options(std::size_t max_queued = 16) const {
    RunQueue::Options queue_options;
    queue_options.environment.scenarios_dir = fs::path(benchd::testing::sourceDir()) / "scenarios";
    queue_options.environment.plugin_folders = {
        {benchd::testing::pluginDir(), runner::FolderOrigin::kBuiltIn}};
    queue_options.environment.worker = benchd::testing::workerPath();
    queue_options.environment.output_dir = dir_.path() / "results";
    queue_options.max_queued = max_queued;
    return queue_options;
  }

  /// A one-row scenario file: get-time at 50 req/s for `test_seconds`.
  runner::RunRequest request(const std::string& name, unsigned test_seconds) const {
    dir_.write(name + ".csv", std::string(benchd::testing::kScenarioCsvHeader) + name +
                                  ",get-time.js,,0,0,10,50,0," + std::to_string(test_seconds) +
                                  "\n");
    runner::RunRequest run_request;
    run_request.scenario_file = (dir_.path() / (name + ".csv")).string();
    run_request.approaches = {"callbacks-asio"};
    run_request.repeats = 1;
    return run_request;
  }

  benchd::testing::TempDir dir_;
  store::ResultStore store_;
  EventLog log_;
};

TEST_F(RunQueueTest, RunsOneAtATimeInOrderAndStreamsTheirEvents) {
  RunQueue queue(options(), store_);
  queue.subscribe([this](const RunEvent& event) { log_.add(event); });
  const store::RunId first = queue.submit(request("first", 2));
  const store::RunId second = queue.submit(request("second", 2));
  const auto waiting = queue.status(second);
  ASSERT_TRUE(waiting);
  EXPECT_EQ(waiting->kind, RunQueueStatus::Kind::kQueued);
  EXPECT_EQ(waiting->position, 1U);
  EXPECT_EQ(store_.findRun(second)->status, store::RunStatus::kQueued);

  ASSERT_TRUE(log_.waitForEnd(second, 90s));
  for (const store::RunId run : {first, second}) {
    const std::vector<RunEvent> events = log_.of(run);
    ASSERT_FALSE(events.empty());
    std::size_t snapshots = 0;
    std::size_t rows = 0;
    for (std::size_t index = 0; index < events.size(); ++index) {
      EXPECT_EQ(events[index].sequence, index + 1) << "events are numbered from 1, in order";
      snapshots += events[index].type == "snapshot" ? 1U : 0U;
      rows += events[index].type == "row" ? 1U : 0U;
    }
    EXPECT_GE(snapshots, 2U) << "one snapshot per second of the 2 s test";
    EXPECT_EQ(rows, 1U);
    EXPECT_EQ(events.front().type, "phase");
    EXPECT_EQ(events.back().type, "end");
    EXPECT_NE(events.back().data.find("\"status\":\"completed\""), std::string::npos);
    EXPECT_EQ(store_.findRun(run)->status, store::RunStatus::kCompleted);
    EXPECT_EQ(store_.summaries(run).size(), 1U);
  }
  // One at a time: the second run started when the first had finished.
  EXPECT_LT(store_.findRun(first)->finished_epoch_millis,
            store_.findRun(second)->run.started_epoch_millis + 1);
  EXPECT_FALSE(queue.status(first));
}

TEST_F(RunQueueTest, StopsARunningRunAndDropsAWaitingOne) {
  RunQueue queue(options(), store_);
  queue.subscribe([this](const RunEvent& event) { log_.add(event); });
  const store::RunId running = queue.submit(request("long", 60));
  const store::RunId waiting = queue.submit(request("later", 2));
  EXPECT_EQ(queue.stop(waiting), RunQueue::StopResult::kRemovedFromQueue);
  EXPECT_EQ(store_.findRun(waiting)->status, store::RunStatus::kStopped);
  // Wait for the running run's test phase (a snapshot event), then stop it.
  for (int attempt = 0; attempt < 300 && log_.of(running).size() < 4; ++attempt) {
    std::this_thread::sleep_for(100ms);
  }
  EXPECT_EQ(queue.stop(running), RunQueue::StopResult::kStopping);
  ASSERT_TRUE(log_.waitForEnd(running, 30s));
  EXPECT_NE(log_.of(running).back().data.find("\"status\":\"stopped\""), std::string::npos);
  EXPECT_EQ(store_.findRun(running)->status, store::RunStatus::kStopped);
  EXPECT_EQ(queue.stop(running), RunQueue::StopResult::kNotActive);
  // A dropped run never runs: its one event is its end.
  const std::vector<RunEvent> dropped = log_.of(waiting);
  ASSERT_EQ(dropped.size(), 1U);
  EXPECT_EQ(dropped[0].type, "end");
  EXPECT_EQ(dropped[0].sequence, 1U);
  EXPECT_NE(dropped[0].data.find("stopped before it started"), std::string::npos);
}

TEST_F(RunQueueTest, RefusesABadRequestAtOnceAndStoresNothing) {
  RunQueue queue(options(), store_);
  runner::RunRequest unknown = request("fine", 2);
  unknown.approaches = {"no-such-approach"};
  EXPECT_THROW(queue.submit(unknown), runner::UnknownApproachError);
  runner::RunRequest missing;
  missing.scenario_file = "no-such-file";
  EXPECT_THROW(queue.submit(missing), runner::RunRequestError);
  dir_.write("bad.csv", "header\nbad,get-time.js,,0,0,zero,5,0,1\n");
  runner::RunRequest bad;
  bad.scenario_file = (dir_.path() / "bad.csv").string();
  EXPECT_THROW(queue.submit(bad), scenario::ScenarioFileError);
  EXPECT_TRUE(store_.listRuns().empty());
}

TEST_F(RunQueueTest, RefusesWhenTheQueueIsFullAndStopsWaitingRunsAtShutdown) {
  RunQueue queue(options(1), store_);
  const store::RunId running = queue.submit(request("busy", 60));
  // The first run leaves the waiting list when the queue's thread takes it.
  for (int attempt = 0; attempt < 100 && queue.queueLength() > 0; ++attempt) {
    std::this_thread::sleep_for(50ms);
  }
  const store::RunId waiting = queue.submit(request("next", 2));
  EXPECT_THROW(queue.submit(request("third", 2)), RunQueueFullError);
  queue.shutdown();
  EXPECT_EQ(store_.findRun(waiting)->status, store::RunStatus::kStopped);
  EXPECT_EQ(store_.findRun(running)->status, store::RunStatus::kStopped);
  EXPECT_THROW(queue.submit(request("after", 2)), RunQueueClosedError);
}

}  // namespace
}  // namespace benchd::control
