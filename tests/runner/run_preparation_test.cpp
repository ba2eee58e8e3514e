// runner::prepareRun's refusals: each names the part of the request it is about
// (RunRequestField) in words no front end owns; the CLI and the REST API add their own names
// and remedies (tests/runner/run_command_test.cpp, tests/control/run_request_problem_test.cpp).
#include "runner_test_support.hpp"

#include <benchd/runner/cpu_list.hpp>
#include <benchd/runner/run_preparation.hpp>

#include <gtest/gtest.h>

#include <optional>
#include <string>

namespace benchd::runner {
namespace {

using testing::TempDir;

/// The refusal prepareRun gives `request` in `environment`, or nullopt when it gives none of
/// type RunRequestError.
std::optional<RunRequestError> refusalOf(const RunRequest& request,
                                         const RunEnvironment& environment) {
  try {
    (void)prepareRun(request, environment);
  } catch (const RunRequestError& error) {
    return error;
  } catch (const std::exception&) {
    return std::nullopt;
  }
  return std::nullopt;
}

/// Whether `text` speaks a front end's language: an option, a URL path, an HTTP method or an
/// API member name. (Options are looked for after a space: the folder paths the texts quote
/// hold dashes.)
bool speaksAFrontEnd(const std::string& text) {
  for (const char* word : {" --", " -w", " -t", "/api/", "PUT ", "scenarioFile", "Seconds"}) {
    if (text.find(word) != std::string::npos) {
      return true;
    }
  }
  return false;
}

class RunPreparationTest : public ::testing::Test {
 protected:
  RunPreparationTest() {
    dir_.write("scenarios/mine.csv", testing::scenarioCsv("one,get-time.js,,0,0,4,,0,2\n"));
    dir_.write("uploaded/theirs.csv", testing::scenarioCsv("one,get-time.js,,0,0,4,,0,2\n"));
    environment_.scenarios_dir = dir_.path() / "scenarios";
    environment_.output_dir = dir_.path() / "results";
  }

  TempDir dir_;
  RunEnvironment environment_;
};

TEST_F(RunPreparationTest, AScenarioFileInNoFolderIsNamedWithWhatIsThere) {
  RunRequest request;
  request.scenario_file = "missing";
  std::optional<RunRequestError> refusal = refusalOf(request, environment_);
  ASSERT_TRUE(refusal);
  EXPECT_EQ(refusal->field(), RunRequestField::kScenarioFile);
  EXPECT_EQ(std::string(refusal->what()), "no scenario file 'missing' in " +
                                              environment_.scenarios_dir.string() +
                                              " (there: mine.csv)");

  environment_.uploaded_scenarios_dir = dir_.path() / "uploaded";
  refusal = refusalOf(request, environment_);
  ASSERT_TRUE(refusal);
  EXPECT_EQ(refusal->field(), RunRequestField::kScenarioFile);
  EXPECT_EQ(std::string(refusal->what()),
            "no scenario file 'missing' in " + environment_.scenarios_dir.string() +
                " (there: mine.csv) nor among the uploaded ones (theirs.csv)");
}

TEST_F(RunPreparationTest, DurationOverridesAreHeldToThePhaseLimits) {
  RunRequest request;
  request.scenario_file = "mine.csv";
  const auto refusalFor = [&](std::optional<std::uint32_t> warmup,
                              std::optional<std::uint32_t> test) {
    request.overrides = {warmup, test};
    return refusalOf(request, environment_);
  };
  std::optional<RunRequestError> refusal = refusalFor(std::nullopt, 0);
  ASSERT_TRUE(refusal);
  EXPECT_EQ(refusal->field(), RunRequestField::kTest);
  EXPECT_STREQ(refusal->what(), "the test phase needs at least 1 second");

  refusal = refusalFor(std::nullopt, 86'401);
  ASSERT_TRUE(refusal);
  EXPECT_EQ(refusal->field(), RunRequestField::kTest);
  EXPECT_STREQ(refusal->what(), "expected whole seconds from 1 to 86400, got 86401");

  refusal = refusalFor(86'401, 1);
  ASSERT_TRUE(refusal);
  EXPECT_EQ(refusal->field(), RunRequestField::kWarmup);
  EXPECT_STREQ(refusal->what(), "expected whole seconds from 0 to 86400, got 86401");

  // Checked before anything is looked up: a request with two faults names its durations.
  request.scenario_file = "missing";
  refusal = refusalFor(0, 0);
  ASSERT_TRUE(refusal);
  EXPECT_EQ(refusal->field(), RunRequestField::kTest);
}

TEST_F(RunPreparationTest, CpuSetsMustBeReachableAndApart) {
  const std::vector<unsigned> allowed = allowedCpus();
  ASSERT_FALSE(allowed.empty());
  RunRequest request;
  request.scenario_file = "mine.csv";

  request.server_cpus = {1023};
  std::optional<RunRequestError> refusal = refusalOf(request, environment_);
  ASSERT_TRUE(refusal);
  EXPECT_EQ(refusal->field(), RunRequestField::kServerCpus);
  EXPECT_EQ(std::string(refusal->what()), "CPU 1023 is not available to this process (available: " +
                                              formatCpuList(allowed) + ")");

  request.server_cpus = {allowed[0]};
  request.generator_cpus = {1023};
  refusal = refusalOf(request, environment_);
  ASSERT_TRUE(refusal);
  EXPECT_EQ(refusal->field(), RunRequestField::kGeneratorCpus);

  request.generator_cpus = {allowed[0]};
  refusal = refusalOf(request, environment_);
  ASSERT_TRUE(refusal);
  EXPECT_EQ(refusal->field(), RunRequestField::kGeneratorCpus);
  EXPECT_EQ(std::string(refusal->what()),
            "the server and the load generator share CPU " + std::to_string(allowed[0]) +
                "; pinning is for keeping the two apart, give them disjoint sets");

  if (allowed.size() >= 2) {
    EXPECT_NO_THROW(checkCpuSets({allowed[0]}, {allowed[1]}));
  }
  EXPECT_NO_THROW(checkCpuSets({}, {}));
}

TEST_F(RunPreparationTest, NoRefusalSpeaksAFrontEndsLanguage) {
  const std::vector<unsigned> allowed = allowedCpus();
  ASSERT_FALSE(allowed.empty());
  environment_.uploaded_scenarios_dir = dir_.path() / "uploaded";
  std::vector<RunRequest> requests(6);
  requests[0].scenario_file = "missing";
  requests[1].overrides.test_seconds = 0;
  requests[2].overrides.test_seconds = 86'401;
  requests[3].overrides.warmup_seconds = 86'401;
  requests[4].server_cpus = {1023};
  requests[5].server_cpus = {allowed[0]};
  requests[5].generator_cpus = {allowed[0]};
  for (const RunRequest& request : requests) {
    const std::optional<RunRequestError> refusal = refusalOf(request, environment_);
    ASSERT_TRUE(refusal);
    EXPECT_FALSE(speaksAFrontEnd(refusal->what())) << refusal->what();
  }
}

}  // namespace
}  // namespace benchd::runner
