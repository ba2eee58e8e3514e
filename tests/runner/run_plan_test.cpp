// Plan math and the small parsers `benchd run` relies on.
#include "build_paths.hpp"
#include "runner_test_support.hpp"

#include <benchd/loadgen/host_limits.hpp>
#include <benchd/runner/cpu_list.hpp>
#include <benchd/runner/run_plan.hpp>
#include <benchd/scenario/scenario_file.hpp>
#include <benchd/scenario/workload_catalog.hpp>

#include <gtest/gtest.h>

#include <sstream>

namespace benchd::runner {
namespace {

using testing::scenarioCsv;

scenario::WorkloadCatalog shippedWorkloads() {
  return scenario::WorkloadCatalog::loadDirectory(
      std::filesystem::path(benchd::testing::sourceDir()) / "scenarios" / "workloads");
}

loadgen::HostLimits roomyHost() {
  loadgen::HostLimits limits;
  limits.open_files_soft = 1'000'000;
  limits.open_files_hard = 1'000'000;
  limits.ephemeral_ports = 64'000;
  limits.ephemeral_port_range = "1024 65535";
  limits.somaxconn = 65'535;
  return limits;
}

std::vector<scenario::ScenarioRow> rowsOf(const std::string& text,
                                          const scenario::WorkloadCatalog& workloads) {
  return scenario::parseScenarioText(text, "test.csv", workloads);
}

TEST(PlanRun, AddsPhasesAndOverheadPerApproach) {
  const scenario::WorkloadCatalog workloads = shippedWorkloads();
  const auto rows = rowsOf(scenarioCsv("a,get-time.js,,0,0,50,500,2,10\n"
                                       "b,get-movies-stepped-vus-spike.js,,0,100,400,,0,20\n"),
                           workloads);
  const RunPlan plan = planRun(rows, workloads, {"x", "y", "z"}, {}, roomyHost());
  ASSERT_EQ(plan.rows.size(), 2U);
  EXPECT_EQ(plan.rows[0].seconds_per_approach, std::chrono::seconds(12) + kPerRunOverhead);
  EXPECT_EQ(plan.rows[1].seconds_per_approach, std::chrono::seconds(20) + kPerRunOverhead);
  EXPECT_EQ(plan.total, 3 * (std::chrono::seconds(32) + 2 * kPerRunOverhead));
  EXPECT_EQ(plan.rows[0].peak_connections, 50U);
  EXPECT_EQ(plan.rows[1].peak_connections, 400U);
  EXPECT_EQ(plan.peak_connections, 400U);
  EXPECT_TRUE(plan.rows[0].limits.problems.empty());
}

TEST(PlanRun, AppliesDurationOverridesToEveryRow) {
  const scenario::WorkloadCatalog workloads = shippedWorkloads();
  const auto rows = rowsOf(scenarioCsv("a,get-time.js,,0,0,50,500,2,10\n"), workloads);
  const RunPlan plan = planRun(rows, workloads, {"x"}, {0, 3}, roomyHost());
  EXPECT_EQ(plan.rows[0].row.warmup_seconds, 0U);
  EXPECT_EQ(plan.rows[0].row.test_seconds, 3U);
  EXPECT_EQ(plan.total, std::chrono::seconds(3) + kPerRunOverhead);
}

TEST(PlanRun, NamesProfilesNothingImplements) {
  const scenario::WorkloadCatalog workloads = shippedWorkloads();
  const auto rows = rowsOf(scenarioCsv("a,get-movies.js,postgres|no-cache,0,100,10,10,0,5\n"
                                       "b,get-movies.js,rest-client-jdk,1,100,10,10,0,5\n"
                                       "c,get-movies.js,read-write|no-keep-alive,1,100,10,10,0,5\n"
                                       "d,get-movies.js,tls,1,100,10,10,0,5\n"),
                           workloads);
  const RunPlan plan = planRun(rows, workloads, {"x"}, {}, roomyHost());
  EXPECT_TRUE(plan.rows[3].unsupported_profiles.empty()) << "tls is implemented";
  EXPECT_TRUE(plan.rows[0].unsupported_profiles.empty()) << "postgres is implemented";
  EXPECT_TRUE(plan.rows[0].needs_database);
  EXPECT_EQ(plan.rows[1].unsupported_profiles, std::vector<std::string>{"rest-client-jdk"});
  EXPECT_FALSE(plan.rows[1].needs_database);
  EXPECT_TRUE(plan.rows[2].unsupported_profiles.empty());
  std::ostringstream text;
  printPlan(text, plan, "test.csv");
  EXPECT_NE(text.str().find("UNSUPPORTED: server profile 'rest-client-jdk' is a Java HTTP client "
                            "of the original study; benchd compares C++ clients as the profiles "
                            "client-beast, client-curl, client-poco and client-httplib: run "
                            "scenarios/scenarios-cpp-clients.csv"),
            std::string::npos)
      << text.str();
  EXPECT_NE(text.str().find("needs PostgreSQL: found"), std::string::npos) << text.str();
  EXPECT_NE(text.str().find("4 rows x 1 approaches"), std::string::npos) << text.str();
}

TEST(PlanRun, SkipsTheApproachesWhosePluginLacksTheRowsClient) {
  const scenario::WorkloadCatalog workloads = shippedWorkloads();
  const auto rows = rowsOf(scenarioCsv("native,get-movies.js,,1,100,10,10,0,5\n"
                                       "curl,get-movies.js,client-curl,1,100,10,10,0,5\n"
                                       "poco,get-movies.js,no-cache|client-poco,1,100,10,10,0,5\n"),
                           workloads);
  RunPlan plan = planRun(rows, workloads, {"asio", "poco"}, {}, roomyHost(), 2);
  const std::chrono::seconds before = plan.total;
  skipUnimplementedClients(plan, {{"asio", {"no-keep-alive", "client-beast", "client-curl"}},
                                  {"poco", {"client-poco", "client-curl"}}});
  EXPECT_TRUE(plan.rows[0].skipped.empty()) << "no client profile: every plugin's native one";
  EXPECT_TRUE(plan.rows[1].skipped.empty()) << "both implement client-curl";
  ASSERT_EQ(plan.rows[2].skipped.size(), 1U);
  EXPECT_EQ(plan.rows[2].skipped[0].approach, "asio");
  EXPECT_EQ(plan.rows[2].skipped[0].reason,
            "asio does not implement client-poco (its clients: client-beast, client-curl)");
  EXPECT_EQ(plan.rows[2].skipReason("poco"), nullptr);
  ASSERT_NE(plan.rows[2].skipReason("asio"), nullptr);
  EXPECT_EQ(before - plan.total, plan.rows[2].seconds_per_approach * 2) << "two rounds less";
  EXPECT_EQ(runCount(plan), 10U);
  std::ostringstream text;
  printPlan(text, plan, "clients.csv");
  EXPECT_NE(text.str().find("= 10 runs (the skipped pairs below left out)"), std::string::npos)
      << text.str();
  EXPECT_NE(text.str().find("     skipped: asio does not implement client-poco"), std::string::npos)
      << text.str();
}

TEST(PlanRun, SkipsTheApproachesWhosePluginDoesNotServeTls) {
  const scenario::WorkloadCatalog workloads = shippedWorkloads();
  const auto rows = rowsOf(scenarioCsv("plain,get-movies.js,,1,100,10,10,0,5\n"
                                       "tls,get-movies.js,tls,1,100,10,10,0,5\n"
                                       "both,get-movies.js,tls|client-poco,1,100,10,10,0,5\n"),
                           workloads);
  RunPlan plan = planRun(rows, workloads, {"asio", "poco"}, {}, roomyHost());
  skipUnimplementedClients(plan, {{"asio", {"client-beast", "tls"}}, {"poco", {"client-poco"}}});
  EXPECT_TRUE(plan.rows[0].skipped.empty());
  ASSERT_EQ(plan.rows[1].skipped.size(), 1U);
  EXPECT_EQ(plan.rows[1].skipped[0].reason, "poco does not implement tls (HTTP/1.1 over TLS)");
  // Each approach is skipped once, for the first profile it lacks.
  ASSERT_EQ(plan.rows[2].skipped.size(), 2U);
  EXPECT_NE(plan.rows[2].skipReason("asio"), nullptr);
  EXPECT_EQ(*plan.rows[2].skipReason("poco"), "poco does not implement tls (HTTP/1.1 over TLS)");
  EXPECT_EQ(runCount(plan), 3U) << "plain: both; tls: asio; tls with client-poco: neither";
}

TEST(PlanRun, SaysWhenAPluginListsNoClientOfItsOwn) {
  const scenario::WorkloadCatalog workloads = shippedWorkloads();
  const auto rows =
      rowsOf(scenarioCsv("curl,get-movies.js,client-curl,1,100,10,10,0,5\n"), workloads);
  RunPlan plan = planRun(rows, workloads, {"third-party"}, {}, roomyHost());
  skipUnimplementedClients(plan, {{"third-party", {"no-keep-alive"}}});
  ASSERT_EQ(plan.rows[0].skipped.size(), 1U);
  EXPECT_EQ(plan.rows[0].skipped[0].reason,
            "third-party does not implement client-curl (its clients: its native one only)");
  EXPECT_EQ(plan.total, std::chrono::seconds(0));
}

TEST(PlanRun, TheCppClientsFileFitsAHostOfTwentyThousandDescriptors) {
  // This machine's limits (docs/plans/client-stacks-capacity.md, section 2): the reason the
  // original's 5,000 connections are 1,500 here.
  loadgen::HostLimits small = roomyHost();
  small.open_files_soft = 20'000;
  small.open_files_hard = 20'000;
  small.ephemeral_ports = 28'232;
  small.somaxconn = 10'000;
  const scenario::WorkloadCatalog workloads = shippedWorkloads();
  const auto rows = scenario::loadScenarioFile(std::filesystem::path(benchd::testing::sourceDir()) /
                                                   "scenarios" / "scenarios-cpp-clients.csv",
                                               workloads);
  const RunPlan plan = planRun(rows, workloads, {"x"}, {}, small);
  for (const RowPlan& row_plan : plan.rows) {
    EXPECT_TRUE(row_plan.limits.problems.empty()) << row_plan.row.name;
    EXPECT_TRUE(row_plan.unsupported_profiles.empty()) << row_plan.row.name;
  }
}

TEST(PlanRun, ReportsHostLimitsThatWouldRefuseARow) {
  const scenario::WorkloadCatalog workloads = shippedWorkloads();
  const auto rows = rowsOf(scenarioCsv("big,get-time.js,,0,0,20000,20000,0,5\n"), workloads);
  loadgen::HostLimits small = roomyHost();
  small.open_files_soft = 1024;
  small.open_files_hard = 1024;
  const RunPlan plan = planRun(rows, workloads, {"x"}, {}, small);
  ASSERT_FALSE(plan.rows[0].limits.problems.empty());
  std::ostringstream text;
  printPlan(text, plan, "test.csv");
  EXPECT_NE(text.str().find("HOST LIMIT"), std::string::npos) << text.str();
}

TEST(PlanRun, SaysWhatTheRepeatsCanFindBeforeTheStudyStarts) {
  const scenario::WorkloadCatalog workloads = shippedWorkloads();
  const auto rows = rowsOf(scenarioCsv("a,get-time.js,,0,0,10,10,0,5\n"
                                       "b,get-time.js,,0,0,10,10,0,5\n"),
                           workloads);
  const auto planText = [&](std::uint32_t repeats) {
    std::ostringstream text;
    printPlan(text, planRun(rows, workloads, {"x", "y"}, {}, roomyHost(), repeats), "test.csv");
    return text.str();
  };
  // 2 rows x 28 metrics: a lone lead needs 2^-n <= 0.05 / 56, n = 11.
  EXPECT_NE(planText(1).find("winners: 1 round: too few to test a lead (a paired test needs 5"),
            std::string::npos)
      << planText(1);
  EXPECT_NE(planText(5).find("winners: 5 rounds: "), std::string::npos) << planText(5);
  EXPECT_NE(planText(5).find("one of up to 56 cells shows cannot be called (that needs 11 rounds"),
            std::string::npos)
      << planText(5);
  EXPECT_NE(planText(11).find("can be called (that needs 11 rounds"), std::string::npos)
      << planText(11);
}

TEST(FormatDuration, ReadsLikeAClock) {
  EXPECT_EQ(formatDuration(std::chrono::seconds(45)), "45 s");
  EXPECT_EQ(formatDuration(std::chrono::seconds(190)), "3 min 10 s");
  EXPECT_EQ(formatDuration(std::chrono::seconds(3725)), "1 h 02 min 05 s");
}

TEST(CpuList, ParsesTasksetSyntax) {
  EXPECT_EQ(parseCpuList("0"), std::vector<unsigned>{0});
  EXPECT_EQ(parseCpuList("3,1-2,1"), (std::vector<unsigned>{1, 2, 3}));
  EXPECT_THROW(parseCpuList(""), std::invalid_argument);
  EXPECT_THROW(parseCpuList("a"), std::invalid_argument);
  EXPECT_THROW(parseCpuList("3-1"), std::invalid_argument);
  EXPECT_THROW(parseCpuList("1,,2"), std::invalid_argument);
  EXPECT_EQ(formatCpuList({0, 1, 2, 3, 6}), "0-3,6");
  EXPECT_EQ(formatCpuList({}), "all");
}

}  // namespace
}  // namespace benchd::runner
