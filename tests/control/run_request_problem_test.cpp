// The runner's refusals of a run request in the REST API's words (run_request_problem.hpp):
// the body member each is about, the runner's reason, and the API's own remedy. The refusals
// come from the real runner::prepareRun.
#include "run_request_problem.hpp"

#include "scenario_csv.hpp"
#include "temp_dir.hpp"

#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <optional>
#include <string>

namespace benchd::control {
namespace {

using runner::RunRequestError;
using runner::RunRequestField;

/// The refusal prepareRun gives `request` in `environment` (the test fails without one).
RunRequestError refusalOf(const runner::RunRequest& request,
                          const runner::RunEnvironment& environment) {
  try {
    (void)runner::prepareRun(request, environment);
  } catch (const RunRequestError& error) {
    return error;
  }
  throw std::logic_error("prepareRun refused nothing");
}

/// The `field` and `detail` members of a 400 problem (empty when the response is none).
struct FieldAndDetail {
  std::string field;
  std::string detail;
};

FieldAndDetail problemOf(const http::Response& response) {
  rapidjson::Document body;
  body.Parse(response.body.c_str());
  if (response.status != 400 || body.HasParseError() || !body.IsObject() ||
      !body.HasMember("field") || !body["field"].IsString() || !body.HasMember("detail") ||
      !body["detail"].IsString()) {
    ADD_FAILURE() << "not a 400 field problem: " << response.status << " " << response.body;
    return {};
  }
  return {body["field"].GetString(), body["detail"].GetString()};
}

class RunRequestProblemTest : public ::testing::Test {
 protected:
  RunRequestProblemTest() {
    const std::string csv =
        std::string(benchd::testing::kScenarioCsvHeader) + "one,get-time.js,,0,0,4,,0,2\n";
    dir_.write("scenarios/built-in.csv", csv);
    dir_.write("uploaded/mine.csv", csv);
    environment_.scenarios_dir = dir_.path() / "scenarios";
    environment_.uploaded_scenarios_dir = dir_.path() / "uploaded";
    environment_.output_dir = dir_.path() / "results";
  }

  benchd::testing::TempDir dir_;
  runner::RunEnvironment environment_;
};

TEST_F(RunRequestProblemTest, AMissingScenarioFileIsScenarioFileWithTheUploadRemedy) {
  runner::RunRequest request;
  request.scenario_file = "nope.csv";
  const std::optional<http::Response> response =
      runRequestProblem(refusalOf(request, environment_));
  ASSERT_TRUE(response);
  const FieldAndDetail problem = problemOf(*response);
  EXPECT_EQ(problem.field, "scenarioFile");
  EXPECT_EQ(problem.detail, "no scenario file 'nope.csv' in " +
                                environment_.scenarios_dir.string() +
                                " (there: built-in.csv) nor among the uploaded ones (mine.csv); "
                                "upload it first (PUT /api/v1/scenario-files/NAME)");
}

TEST_F(RunRequestProblemTest, DurationsAreNamedByTheirMembers) {
  runner::RunRequest request;
  request.scenario_file = "mine.csv";
  request.overrides.test_seconds = 0;
  std::optional<http::Response> response = runRequestProblem(refusalOf(request, environment_));
  ASSERT_TRUE(response);
  FieldAndDetail problem = problemOf(*response);
  EXPECT_EQ(problem.field, "testSeconds");
  EXPECT_EQ(problem.detail, "the test phase needs at least 1 second");

  request.overrides = {86'401, 1};
  response = runRequestProblem(refusalOf(request, environment_));
  ASSERT_TRUE(response);
  problem = problemOf(*response);
  EXPECT_EQ(problem.field, "warmupSeconds");
  EXPECT_EQ(problem.detail, "expected whole seconds from 0 to 86400, got 86401");
}

TEST_F(RunRequestProblemTest, TheCpuListsAreNoApiMembers) {
  // The API never sets the lists (only "cpus"); a refusal about them is no client's error (the
  // route answers 500).
  for (const RunRequestField field :
       {RunRequestField::kServerCpus, RunRequestField::kGeneratorCpus}) {
    EXPECT_FALSE(runRequestMember(field));
    EXPECT_FALSE(runRequestProblem(RunRequestError(field, "CPU 1023 is not available")));
  }
  EXPECT_EQ(runRequestMember(RunRequestField::kScenarioFile), "scenarioFile");
  EXPECT_EQ(runRequestMember(RunRequestField::kWarmup), "warmupSeconds");
  EXPECT_EQ(runRequestMember(RunRequestField::kTest), "testSeconds");
  EXPECT_EQ(runRequestMember(RunRequestField::kRepeats), "repeat");
  EXPECT_EQ(runRequestMember(RunRequestField::kWinnerRule), "winners");
  EXPECT_EQ(runRequestMember(RunRequestField::kAa), "aa");
  EXPECT_EQ(runRequestMember(RunRequestField::kCpus), "cpus");
  EXPECT_EQ(runRequestMember(RunRequestField::kMemoryCap), "memoryCap");
}

}  // namespace
}  // namespace benchd::control
