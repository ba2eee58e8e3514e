#include "shipped_data.hpp"

#include <benchd/microservice/service_profile.hpp>
#include <benchd/scenario/scenario_file.hpp>
#include <benchd/scenario/stage_plan.hpp>
#include <benchd/scenario/workload_catalog.hpp>

#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace benchd::scenario {
namespace {

using testing::scenariosDir;
using testing::shippedWorkloads;

std::vector<ScenarioRow> load(const std::string& file) {
  return loadScenarioFile(scenariosDir() / file, shippedWorkloads());
}

std::uint32_t phaseSeconds(const ScenarioRow& row) {
  return row.warmup_seconds + row.test_seconds;
}

TEST(ShippedScenarios, EveryScenarioFileLoadsAndPlans) {
  std::size_t files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(scenariosDir())) {
    if (entry.path().extension() != ".csv") {
      continue;
    }
    ++files;
    SCOPED_TRACE(entry.path().filename().string());
    const auto rows = loadScenarioFile(entry.path(), shippedWorkloads());
    EXPECT_FALSE(rows.empty());
    for (const ScenarioRow& row : rows) {
      const Workload& workload = shippedWorkloads().get(row.workload);
      const StagePlan plan = planStages(workload, testPhaseOf(row));
      EXPECT_EQ(plan.duration.count(), std::int64_t{row.test_seconds} * 1000) << row.name;
      EXPECT_LE(plan.peak_connections, row.connections) << row.name;
    }
  }
  EXPECT_EQ(files, 15U);
}

TEST(ShippedScenarios, TheOriginalsHaveTheirRows) {
  const std::map<std::string, std::size_t> expected_rows = {
      {"scenarios-default.csv", 11},  {"scenarios-high-load.csv", 12},
      {"scenarios-smoketest.csv", 4}, {"scenarios-sharp-spikes.csv", 6},
      {"scenarios-soaktest.csv", 1},  {"scenarios-deep-call-stack.csv", 8},
      {"scenarios-clients.csv", 12},  {"scenarios-postgres.csv", 4},
  };
  for (const auto& [file, count] : expected_rows) {
    EXPECT_EQ(load(file).size(), count) << file;
  }
}

TEST(ShippedScenarios, TheHttp2RowsCarryTwentyStreamsOnFiftyConnections) {
  const auto rows = load("scenarios-h2.csv");
  ASSERT_EQ(rows.size(), 4U);
  for (const ScenarioRow& row : rows) {
    EXPECT_EQ(row.connections, 50U) << row.name;
    EXPECT_EQ(row.streams_per_connection, 20U) << row.name;
    ASSERT_EQ(row.server_profiles.size(), 1U) << row.name;
    EXPECT_TRUE(row.server_profiles[0] == "h2" || row.server_profiles[0] == "h2c") << row.name;
  }
}

// The h2load study's matrix: -c50 -m20 over h2, each load once counted and once timed.
TEST(ShippedScenarios, TheKnobsMatrixHasACountedAndATimedRowOfEachLoad) {
  const auto rows = load("scenarios-h2-knobs.csv");
  ASSERT_EQ(rows.size(), 4U);
  std::size_t counted = 0;
  for (const ScenarioRow& row : rows) {
    EXPECT_EQ(row.connections, 50U) << row.name;
    EXPECT_EQ(row.streams_per_connection, 20U) << row.name;
    EXPECT_EQ(row.server_profiles, std::vector<std::string>{"h2"}) << row.name;
    EXPECT_EQ(row.warmup_seconds, 5U) << row.name;
    EXPECT_EQ(row.request_count.has_value(), row.name.find("-count") != std::string::npos)
        << row.name;
    counted += row.request_count.has_value() ? 1U : 0U;
  }
  EXPECT_EQ(counted, 2U);
}

TEST(ShippedScenarios, DefaultRowsMatchTheReference) {
  const auto rows = load("scenarios-default.csv");
  EXPECT_EQ(rows[0].name, "smoketest");
  EXPECT_EQ(rows[0].workload, "get-time");
  EXPECT_EQ(rows[0].delay_call_depth, 1U);
  EXPECT_EQ(rows[0].connections, 5U);
  EXPECT_EQ(rows[0].requests_per_second, 5U);
  EXPECT_EQ(rows[0].test_seconds, 15U);
  const ScenarioRow& stepped = rows[6];
  EXPECT_EQ(stepped.name, "20k-vus-stepped-spike-get-movies");
  EXPECT_EQ(stepped.workload, "get-movies-stepped-vus-spike");
  EXPECT_EQ(stepped.connections, 20'000U);
  EXPECT_FALSE(stepped.requests_per_second.has_value());
  EXPECT_EQ(stepped.warmup_seconds, 0U);
  EXPECT_EQ(stepped.test_seconds, 180U);
  EXPECT_EQ(rows[10].name, "20k-vus-smooth-spike-get-post-movies-call-depth-2");
  EXPECT_EQ(rows[10].delay_call_depth, 2U);
}

TEST(ShippedScenarios, ProfilesMatchTheReference) {
  const auto smoke = load("scenarios-smoketest.csv");
  EXPECT_TRUE(smoke[1].server_profiles.empty());
  EXPECT_EQ(smoke[2].server_profiles, (std::vector<std::string>{"postgres"}));
  EXPECT_EQ(smoke[3].server_profiles, (std::vector<std::string>{"postgres", "no-cache"}));
  const auto clients = load("scenarios-clients.csv");
  EXPECT_EQ(clients[0].server_profiles, (std::vector<std::string>{"rest-client-jdk"}));
  EXPECT_TRUE(clients[3].server_profiles.empty());
  EXPECT_EQ(clients[11].delay_call_depth, 5U);
  for (const ScenarioRow& row : load("scenarios-postgres.csv")) {
    EXPECT_EQ(row.server_profiles, (std::vector<std::string>{"postgres", "no-cache"}));
    EXPECT_EQ(row.requests_per_second, row.connections);
    EXPECT_EQ(row.test_seconds, 300U);
  }
  EXPECT_EQ(load("scenarios-soaktest.csv")[0].test_seconds, 1200U);
  EXPECT_EQ(load("scenarios-sharp-spikes.csv")[5].connections, 30'000U);
}

TEST(ShippedScenarios, TheCppClientsFileHasTheOriginalsShapeForEachClient) {
  const auto rows = load("scenarios-cpp-clients.csv");
  const auto original = load("scenarios-clients.csv");
  ASSERT_EQ(rows.size(), 3 * microservice::kClientProfiles.size());
  std::map<std::string, std::set<std::uint32_t>> depths_per_client;
  for (const ScenarioRow& row : rows) {
    ASSERT_EQ(row.server_profiles.size(), 1U) << row.name;
    depths_per_client[row.server_profiles[0]].insert(row.delay_call_depth);
    EXPECT_EQ(row.workload, original[0].workload) << row.name;
    EXPECT_EQ(row.delay_millis, original[0].delay_millis) << row.name;
    EXPECT_EQ(row.test_seconds, original[0].test_seconds) << row.name;
    EXPECT_EQ(row.connections, 1500U) << row.name;
  }
  std::map<std::string, std::set<std::uint32_t>> every_client_at_each_depth;
  for (const std::string_view client : microservice::kClientProfiles)
    every_client_at_each_depth[std::string(client)] = {1, 2, 5};
  EXPECT_EQ(depths_per_client, every_client_at_each_depth);
}

TEST(ShippedScenarios, QuickCoversEveryWorkloadOnASmallMachine) {
  std::set<std::string> workloads;
  for (const ScenarioRow& row : load("scenarios-quick.csv")) {
    workloads.insert(row.workload);
    EXPECT_LE(phaseSeconds(row), 20U) << row.name;
    EXPECT_LE(row.connections, 2000U) << row.name;
  }
  const std::vector<std::string> all = shippedWorkloads().names();
  EXPECT_EQ(workloads, std::set<std::string>(all.begin(), all.end()));
}

TEST(ShippedScenarios, CiFitsItsTimeBudget) {
  // Four approaches must finish within 3 minutes including warm-ups and worker start-up.
  std::uint32_t seconds_per_approach = 0;
  const auto rows = load("scenarios-ci.csv");
  for (const ScenarioRow& row : rows) {
    seconds_per_approach += phaseSeconds(row);
  }
  EXPECT_LE(rows.size(), 6U);
  EXPECT_LT(seconds_per_approach, 40U);
}

}  // namespace
}  // namespace benchd::scenario
