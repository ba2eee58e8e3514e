// checkRowFitsWorkload: the one check that a row's connections and requestsPerSecond suit its
// workload, and how planStages reports it (scenario files: scenario_file_test.cpp).
#include "shipped_data.hpp"

#include <benchd/scenario/row_check.hpp>
#include <benchd/scenario/stage_plan.hpp>

#include <gtest/gtest.h>

#include <chrono>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>

namespace benchd::scenario {
namespace {

using testing::shippedWorkloads;

SubScenario subScenario(std::string name, ExecutorKind executor, double share) {
  SubScenario sub;
  sub.name = std::move(name);
  sub.executor = executor;
  sub.connection_share = share;
  RequestTemplate request;
  request.method = "GET";
  request.path_template = "/";
  sub.requests.push_back(request);
  return sub;
}

/// Two sub-scenarios: a closed-model one with 0.3 of the connections, then an open-model one
/// with 0.7.
Workload mixedWorkload() {
  Workload workload;
  workload.name = "mixed";
  workload.sub_scenarios = {subScenario("closed", ExecutorKind::kConstantVus, 0.3),
                            subScenario("open", ExecutorKind::kConstantArrivalRate, 0.7)};
  return workload;
}

TEST(RowCheck, ARowThatFitsHasNoProblem) {
  EXPECT_FALSE(
      checkRowFitsWorkload(shippedWorkloads().get("get-time"), 1, std::nullopt).has_value());
  EXPECT_FALSE(checkRowFitsWorkload(mixedWorkload(), 4, 100).has_value());
  // 0.3 * 10 lands a hair below 3 in binary; connectionsOf still counts 3.
  EXPECT_FALSE(checkRowFitsWorkload(mixedWorkload(), 10, 1).has_value());
}

TEST(RowCheck, AnArrivalRateWorkloadNeedsARequestRate) {
  const auto problem = checkRowFitsWorkload(mixedWorkload(), 10, std::nullopt);
  ASSERT_TRUE(problem.has_value());
  EXPECT_EQ(problem->column, RowColumn::kRequestsPerSecond);
  EXPECT_EQ(problem->reason,
            "workload 'mixed' has an arrival-rate executor and needs a request rate, got nothing");
}

TEST(RowCheck, AClosedWorkloadNeedsNoRequestRate) {
  EXPECT_FALSE(
      checkRowFitsWorkload(shippedWorkloads().get("get-post-movies-smooth-vus-spike"), 4, {})
          .has_value());
}

TEST(RowCheck, EverySubScenarioNeedsAConnection) {
  // 3 * 0.3 floors to 0 for the first sub-scenario; 3 * 0.7 gives the second 2.
  const auto problem = checkRowFitsWorkload(mixedWorkload(), 3, 100);
  ASSERT_TRUE(problem.has_value());
  EXPECT_EQ(problem->column, RowColumn::kConnections);
  EXPECT_EQ(problem->reason,
            "3 connections leave sub-scenario 'closed' of workload 'mixed' none (it gets 0.3 of "
            "them)");
}

TEST(RowCheck, TheFirstSubScenarioWithoutAConnectionIsNamed) {
  const auto problem =
      checkRowFitsWorkload(shippedWorkloads().get("get-post-movies-smooth-vus-spike"), 3, {});
  ASSERT_TRUE(problem.has_value());
  EXPECT_EQ(problem->column, RowColumn::kConnections);
  EXPECT_EQ(problem->reason,
            "3 connections leave sub-scenario 'getMovies1' of workload "
            "'get-post-movies-smooth-vus-spike' none (it gets 0.25 of them)");
}

TEST(RowCheck, AMissingRateIsReportedBeforeMissingConnections) {
  const auto problem = checkRowFitsWorkload(mixedWorkload(), 1, std::nullopt);
  ASSERT_TRUE(problem.has_value());
  EXPECT_EQ(problem->column, RowColumn::kRequestsPerSecond);
}

TEST(RowCheck, ColumnNamesAreTheScenarioFileHeaders) {
  EXPECT_EQ(rowColumnName(RowColumn::kConnections), "connections");
  EXPECT_EQ(rowColumnName(RowColumn::kRequestsPerSecond), "requestsPerSecond");
}

/// what() of the std::invalid_argument planStages throws, or "" when it plans.
std::string planError(const Workload& workload, const PhaseLoad& load) {
  try {
    planStages(workload, load);
  } catch (const std::invalid_argument& error) {
    return error.what();
  }
  return "";
}

TEST(RowCheck, PlanStagesReportsTheSameProblemWithItsColumn) {
  const std::chrono::seconds ten(10);
  EXPECT_EQ(planError(mixedWorkload(), PhaseLoad{10, std::nullopt, ten}),
            "requestsPerSecond: workload 'mixed' has an arrival-rate executor and needs a request "
            "rate, got nothing");
  EXPECT_EQ(planError(mixedWorkload(), PhaseLoad{3, 100, ten}),
            "connections: 3 connections leave sub-scenario 'closed' of workload 'mixed' none (it "
            "gets 0.3 of them)");
  EXPECT_EQ(planError(mixedWorkload(), PhaseLoad{10, 100, ten}), "");
}

}  // namespace
}  // namespace benchd::scenario
