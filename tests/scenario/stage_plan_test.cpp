#include "shipped_data.hpp"

#include <benchd/scenario/scenario_file.hpp>
#include <benchd/scenario/stage_plan.hpp>
#include <benchd/scenario/workload_catalog.hpp>

#include <gtest/gtest.h>

#include <numeric>
#include <string>
#include <vector>

namespace benchd::scenario {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;
using testing::scenariosDir;
using testing::shippedWorkloads;

StagePlan planFor(const std::string& workload, std::uint32_t connections, seconds duration,
                  std::optional<std::uint32_t> requests_per_second = std::nullopt) {
  return planStages(shippedWorkloads().get(workload),
                    PhaseLoad{connections, requests_per_second, duration});
}

/// (target, duration in ms) pairs, for compact comparisons.
std::vector<std::pair<double, std::int64_t>> table(const SubScenarioPlan& plan) {
  std::vector<std::pair<double, std::int64_t>> rows;
  for (const PlannedStage& stage : plan.stages) {
    rows.emplace_back(stage.target, stage.duration.count());
  }
  return rows;
}

milliseconds totalDuration(const SubScenarioPlan& plan) {
  milliseconds total{0};
  for (const PlannedStage& stage : plan.stages) {
    total += stage.duration;
  }
  return total;
}

// docs/scenarios.md#get-movies-stepped-vus-spike: D = 180 s, 20k VUs gives steps of 5000 VUs,
// 10.8 s risers, 25.2 s treads and a 36 s ramp-down.
TEST(StagePlan, SteppedSpikeWorkedExample) {
  const StagePlan plan = planFor("get-movies-stepped-vus-spike", 20'000, seconds(180));
  ASSERT_EQ(plan.sub_scenarios.size(), 1U);
  const SubScenarioPlan& contacts = plan.sub_scenarios[0];
  EXPECT_EQ(contacts.definition.name, "contacts");
  EXPECT_EQ(contacts.definition.executor, ExecutorKind::kRampingVus);
  EXPECT_EQ(contacts.start_target, 0.0);
  EXPECT_EQ(table(contacts), (std::vector<std::pair<double, std::int64_t>>{{5000, 10'800},
                                                                           {5000, 25'200},
                                                                           {10000, 10'800},
                                                                           {10000, 25'200},
                                                                           {15000, 10'800},
                                                                           {15000, 25'200},
                                                                           {20000, 10'800},
                                                                           {20000, 25'200},
                                                                           {0, 36'000}}));
  EXPECT_EQ(plan.duration, milliseconds(180'000));
  EXPECT_EQ(plan.peak_connections, 20'000U);
  EXPECT_FALSE(plan.global_rate_cap.has_value());
  ASSERT_TRUE(contacts.definition.think_time.has_value());
  EXPECT_EQ(contacts.definition.think_time->min, milliseconds(1000));
  EXPECT_EQ(contacts.definition.think_time->max, milliseconds(3000));
  EXPECT_EQ(contacts.definition.graceful_stop, milliseconds(2000));
}

TEST(StagePlan, SteppedSpikeFloorsFractionalTargets) {
  const StagePlan plan = planFor("get-movies-stepped-vus-spike", 10, seconds(7));
  EXPECT_EQ(table(plan.sub_scenarios[0]),
            (std::vector<std::pair<double, std::int64_t>>{{2, 420},
                                                          {2, 980},
                                                          {5, 420},
                                                          {5, 980},
                                                          {7, 420},
                                                          {7, 980},
                                                          {10, 420},
                                                          {10, 980},
                                                          {0, 1400}}));
}

// docs/scenarios.md#get-movies-smooth-vus-spike: D = 180 s gives a 144 s ramp to VUS and a 36 s
// ramp to 0.
TEST(StagePlan, SmoothSpikeWorkedExample) {
  const StagePlan plan = planFor("get-movies-smooth-vus-spike", 20'000, seconds(180));
  ASSERT_EQ(plan.sub_scenarios.size(), 1U);
  EXPECT_EQ(table(plan.sub_scenarios[0]),
            (std::vector<std::pair<double, std::int64_t>>{{20000, 144'000}, {0, 36'000}}));
  EXPECT_EQ(plan.peak_connections, 20'000U);
}

TEST(StagePlan, TargetAtInterpolatesLinearly) {
  const SubScenarioPlan contacts =
      planFor("get-movies-smooth-vus-spike", 20'000, seconds(180)).sub_scenarios[0];
  EXPECT_EQ(contacts.targetAt(milliseconds(0)), 0.0);
  EXPECT_DOUBLE_EQ(contacts.targetAt(milliseconds(72'000)), 10'000.0);
  EXPECT_DOUBLE_EQ(contacts.targetAt(milliseconds(144'000)), 20'000.0);
  EXPECT_DOUBLE_EQ(contacts.targetAt(milliseconds(162'000)), 10'000.0);
  EXPECT_EQ(contacts.targetAt(milliseconds(180'000)), 0.0);
  EXPECT_EQ(contacts.targetAt(milliseconds(999'000)), 0.0);
  EXPECT_EQ(contacts.peakTarget(), 20'000.0);
}

// docs/scenarios.md#get-post-movies-smooth-vus-spike: four parallel groups of floor(VUS/4),
// 0.8 D up, 0.2 D down; 20k VUs gives 5000 per group.
TEST(StagePlan, GetPostSmoothSpikeWorkedExample) {
  const StagePlan plan = planFor("get-post-movies-smooth-vus-spike", 20'000, seconds(180));
  ASSERT_EQ(plan.sub_scenarios.size(), 4U);
  const std::vector<std::string> names = {"getMovies1", "getMovies2", "getMovies3", "postMovies"};
  const std::vector<std::string> directors = {"Allen", "Kubrick", "Hitchcock"};
  for (std::size_t index = 0; index < 4; ++index) {
    const SubScenarioPlan& group = plan.sub_scenarios[index];
    EXPECT_EQ(group.definition.name, names[index]);
    EXPECT_EQ(group.connections, 5000U);
    EXPECT_EQ(table(group),
              (std::vector<std::pair<double, std::int64_t>>{{5000, 144'000}, {0, 36'000}}));
    EXPECT_EQ(group.definition.graceful_stop, milliseconds(2000));
    ASSERT_TRUE(group.definition.think_time.has_value());
    EXPECT_EQ(group.definition.think_time->min, milliseconds(1000));
    EXPECT_EQ(group.definition.think_time->max, milliseconds(3000));
    EXPECT_FALSE(group.definition.discard_response_bodies);
    ASSERT_EQ(group.definition.requests.size(), 1U);
    const RequestTemplate& request = group.definition.requests[0];
    if (index < 3) {
      EXPECT_EQ(request.method, "GET");
      EXPECT_EQ(request.path_template,
                "/{approach}/movies?directorLastName=" + directors[index] +
                    "&delayCallDepth={delayCallDepth}&delayInMillis={delayInMillis}");
    } else {
      EXPECT_EQ(request.method, "POST");
      EXPECT_EQ(request.path_template,
                "/{approach}/movies?delayCallDepth={delayCallDepth}&delayInMillis={delayInMillis}");
      ASSERT_EQ(request.headers.size(), 2U);
      EXPECT_EQ(request.headers[0].name, "Content-Type");
      EXPECT_EQ(request.headers[0].value, "application/json");
      EXPECT_EQ(request.headers[1].name, "Accept");
      EXPECT_EQ(request.headers[1].value, "application/json");
      EXPECT_EQ(request.body_file, scenariosDir() / "movies.json");
      EXPECT_FALSE(request.body.empty());
    }
  }
  EXPECT_EQ(plan.peak_connections, 20'000U);
}

TEST(StagePlan, GetPostGroupsGetFloorOfAQuarter) {
  const StagePlan plan = planFor("get-post-movies-smooth-vus-spike", 10, seconds(10));
  for (const SubScenarioPlan& group : plan.sub_scenarios) {
    EXPECT_EQ(group.connections, 2U);
    EXPECT_EQ(group.peakTarget(), 2.0);
  }
  EXPECT_EQ(plan.peak_connections, 8U);
}

// docs/scenarios.md#get-post-movies-smooth-vus-spike: the soak test's 1200 s gives a 960 s
// ramp-up and a 240 s ramp-down.
TEST(StagePlan, SoakTestWorkedExample) {
  const auto rows = loadScenarioFile(scenariosDir() / "scenarios-soaktest.csv", shippedWorkloads());
  ASSERT_EQ(rows.size(), 1U);
  const StagePlan plan = planStages(shippedWorkloads().get(rows[0].workload), testPhaseOf(rows[0]));
  ASSERT_EQ(plan.sub_scenarios.size(), 4U);
  for (const SubScenarioPlan& group : plan.sub_scenarios) {
    EXPECT_EQ(table(group),
              (std::vector<std::pair<double, std::int64_t>>{{2500, 960'000}, {0, 240'000}}));
  }
  EXPECT_EQ(plan.duration, milliseconds(1'200'000));
}

// docs/scenarios.md#get-post-movies-sharp-vus-spikes: D = 300 s gives s = 7.5 s, a 30 s cycle
// and 10 spikes; at 30k VUs each sub-scenario peaks at 7,500.
TEST(StagePlan, SharpSpikesWorkedExample) {
  const StagePlan plan = planFor("get-post-movies-sharp-vus-spikes", 30'000, seconds(300));
  ASSERT_EQ(plan.sub_scenarios.size(), 4U);
  for (const SubScenarioPlan& group : plan.sub_scenarios) {
    ASSERT_EQ(group.stages.size(), 40U);
    for (std::size_t index = 0; index < group.stages.size(); ++index) {
      EXPECT_EQ(group.stages[index].duration, milliseconds(7500)) << index;
      const double expected_target = (index % 4 < 2) ? 7500.0 : 0.0;
      EXPECT_EQ(group.stages[index].target, expected_target) << index;
    }
    EXPECT_EQ(group.peakTarget(), 7500.0);
    EXPECT_EQ(totalDuration(group), milliseconds(300'000));
    // Ten spikes: at the middle of each cycle's hold the group is at its peak.
    for (int cycle = 0; cycle < 10; ++cycle) {
      EXPECT_EQ(group.targetAt(milliseconds(cycle * 30'000 + 11'250)), 7500.0);
      EXPECT_EQ(group.targetAt(milliseconds(cycle * 30'000 + 26'250)), 0.0);
    }
  }
  EXPECT_EQ(plan.peak_connections, 30'000U);
}

TEST(StagePlan, StagesAlwaysAddUpToThePhase) {
  for (const std::string& name : shippedWorkloads().names()) {
    for (const int duration_seconds : {1, 7, 13, 180, 1201}) {
      const StagePlan plan = planFor(name, 4001, seconds(duration_seconds), 100);
      for (const SubScenarioPlan& group : plan.sub_scenarios) {
        EXPECT_EQ(totalDuration(group), milliseconds(duration_seconds * 1000))
            << name << " " << duration_seconds << " s";
      }
    }
  }
}

TEST(StagePlan, FixedRateShapesCapTheRateWhenTheRowGivesOne) {
  const StagePlan movies = planFor("get-movies", 10'000, seconds(180), 10'000);
  ASSERT_EQ(movies.sub_scenarios.size(), 1U);
  const SubScenarioPlan& group = movies.sub_scenarios[0];
  EXPECT_EQ(group.definition.executor, ExecutorKind::kConstantVus);
  EXPECT_EQ(group.connections, 10'000U);
  EXPECT_EQ(group.start_target, 10'000.0);
  EXPECT_EQ(table(group), (std::vector<std::pair<double, std::int64_t>>{{10'000, 180'000}}));
  EXPECT_EQ(movies.global_rate_cap, 10'000.0);
  EXPECT_FALSE(group.definition.think_time.has_value());
  EXPECT_TRUE(group.definition.discard_response_bodies);
  EXPECT_EQ(group.definition.requests.at(0).path_template,
            "/{approach}/movies?directorLastName=Allen&delayCallDepth={delayCallDepth}&"
            "delayInMillis={delayInMillis}");

  const StagePlan uncapped = planFor("get-time", 100, seconds(6));
  EXPECT_FALSE(uncapped.global_rate_cap.has_value());
  EXPECT_EQ(
      uncapped.sub_scenarios[0].definition.requests.at(0).path_template,
      "/{approach}/epoch-millis?delayCallDepth={delayCallDepth}&delayInMillis={delayInMillis}");
}

TEST(StagePlan, WarmupAndTestPhasesOfARow) {
  ScenarioRow row;
  row.connections = 1000;
  row.requests_per_second = 500;
  row.warmup_seconds = 10;
  row.test_seconds = 180;
  const PhaseLoad warmup = warmupPhaseOf(row);
  EXPECT_EQ(warmup.duration, seconds(10));
  EXPECT_EQ(warmup.connections, 1000U);
  EXPECT_EQ(warmup.requests_per_second, 500U);
  EXPECT_EQ(testPhaseOf(row).duration, seconds(180));
  EXPECT_EQ(planStages(shippedWorkloads().get("get-time"), warmup).duration, milliseconds(10'000));
}

Workload arrivalWorkload() {
  SubScenario constant;
  constant.name = "constant";
  constant.executor = ExecutorKind::kConstantArrivalRate;
  constant.connection_share = 0.5;
  RequestTemplate request;
  request.method = "GET";
  request.path_template = "/";
  constant.requests.push_back(request);
  SubScenario ramping = constant;
  ramping.name = "ramping";
  ramping.executor = ExecutorKind::kRampingArrivalRate;
  ramping.start_target_fraction = 0.1;
  ramping.stages = {{0.5, 1.0}, {0.5, 0.5}};
  Workload workload;
  workload.name = "arrivals";
  workload.sub_scenarios = {constant, ramping};
  return workload;
}

TEST(StagePlan, ArrivalRateTargetsAreRequestRates) {
  const StagePlan plan = planStages(arrivalWorkload(), PhaseLoad{101, 300, seconds(10)});
  ASSERT_EQ(plan.sub_scenarios.size(), 2U);
  const SubScenarioPlan& constant = plan.sub_scenarios[0];
  EXPECT_EQ(constant.connections, 50U);
  EXPECT_EQ(constant.start_target, 150.0);
  EXPECT_EQ(table(constant), (std::vector<std::pair<double, std::int64_t>>{{150.0, 10'000}}));
  const SubScenarioPlan& ramping = plan.sub_scenarios[1];
  EXPECT_EQ(ramping.connections, 50U);
  EXPECT_DOUBLE_EQ(ramping.start_target, 15.0);
  EXPECT_EQ(table(ramping),
            (std::vector<std::pair<double, std::int64_t>>{{150.0, 5000}, {75.0, 5000}}));
  EXPECT_EQ(plan.peak_connections, 100U);
  EXPECT_FALSE(plan.global_rate_cap.has_value());
}

TEST(StagePlan, RejectsImpossiblePhases) {
  EXPECT_THROW(planStages(arrivalWorkload(), PhaseLoad{10, std::nullopt, seconds(10)}),
               std::invalid_argument);
  EXPECT_THROW(planStages(shippedWorkloads().get("get-time"), PhaseLoad{10, 10, seconds(0)}),
               std::invalid_argument);
}

}  // namespace
}  // namespace benchd::scenario
