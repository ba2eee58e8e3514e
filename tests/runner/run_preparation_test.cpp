// runner::prepareRun's refusals: each names the part of the request it is about
// (RunRequestField) in words no front end owns; the CLI and the REST API add their own names
// and remedies (tests/runner/run_command_test.cpp, tests/control/run_request_problem_test.cpp).
#include "build_paths.hpp"
#include "runner_test_support.hpp"

#include <benchd/runner/cpu_list.hpp>
#include <benchd/runner/run_preparation.hpp>

#include <gtest/gtest.h>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

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

TEST(CpuSplit, GivesTheGeneratorTheLowerHalfAndTheServerTheRest) {
  const CpuSplit two = splitCpus({0, 1});
  EXPECT_EQ(two.generator, std::vector<unsigned>({0}));
  EXPECT_EQ(two.server, std::vector<unsigned>({1}));
  const CpuSplit odd = splitCpus({2, 5, 7});
  EXPECT_EQ(odd.generator, std::vector<unsigned>({2}));
  EXPECT_EQ(odd.server, std::vector<unsigned>({5, 7}));
  const CpuSplit four = splitCpus({0, 1, 2, 3});
  EXPECT_EQ(four.generator, std::vector<unsigned>({0, 1}));
  EXPECT_EQ(four.server, std::vector<unsigned>({2, 3}));
  EXPECT_TRUE(splitCpus({3}).server.empty());
  EXPECT_TRUE(splitCpus({3}).generator.empty());
  EXPECT_TRUE(splitCpus({}).server.empty());
}

/// Without CPU lists a run splits this process's CPUs (the measured quieter setting), says so
/// in its settings note, and gives the generator one thread per CPU; "shared" pins nothing.
TEST_F(RunPreparationTest, SplitsTheCpusUnlessToldToShare) {
  std::filesystem::create_directories(environment_.scenarios_dir / "workloads");
  std::filesystem::copy_file(std::filesystem::path(benchd::testing::sourceDir()) / "scenarios" /
                                 "workloads" / "get-time.json",
                             environment_.scenarios_dir / "workloads" / "get-time.json");
  PluginCatalog catalog;
  catalog.accepted.push_back({"one", "1.0", "", "callbacks", "asio", "2.0", "one.so", {}, {}});
  RunRequest request;
  request.scenario_file = "mine.csv";
  const std::vector<unsigned> allowed = allowedCpus();
  const CpuSplit expected = splitCpus(allowed);

  const RunSettings split = prepareRun(request, environment_, &catalog).settings;
  EXPECT_EQ(split.server_cpus, expected.server);
  EXPECT_EQ(split.generator_cpus, expected.generator);
  if (allowed.size() >= 2) {
    EXPECT_EQ(split.generator_threads, expected.generator.size());
    EXPECT_NE(
        split.options_text.find("Server CPUs: " + formatCpuList(expected.server) +
                                "; load generator CPUs: " + formatCpuList(expected.generator)),
        std::string::npos)
        << split.options_text;
    EXPECT_NE(split.options_text.find(", split by default."), std::string::npos)
        << split.options_text;
  } else {
    EXPECT_NE(split.options_text.find(", shared: one CPU cannot be split."), std::string::npos)
        << split.options_text;
  }

  request.cpus = "shared";
  const RunSettings shared = prepareRun(request, environment_, &catalog).settings;
  EXPECT_TRUE(shared.server_cpus.empty());
  EXPECT_TRUE(shared.generator_cpus.empty());
  EXPECT_NE(shared.options_text.find("Server CPUs: all; load generator CPUs: all"),
            std::string::npos)
      << shared.options_text;
  EXPECT_NE(shared.options_text.find(", shared as in the original study."), std::string::npos)
      << shared.options_text;

  // A list given is used as given: the other side is not pinned by default.
  request.cpus = "split";
  request.server_cpus = {allowed.back()};
  const RunSettings explicit_server = prepareRun(request, environment_, &catalog).settings;
  EXPECT_EQ(explicit_server.server_cpus, std::vector<unsigned>({allowed.back()}));
  EXPECT_TRUE(explicit_server.generator_cpus.empty());
}

TEST_F(RunPreparationTest, CpuPlacementMustBeKnownAndSharedTakesNoList) {
  RunRequest request;
  request.scenario_file = "mine.csv";
  request.cpus = "halves";
  std::optional<RunRequestError> refusal = refusalOf(request, environment_);
  ASSERT_TRUE(refusal);
  EXPECT_EQ(refusal->field(), RunRequestField::kCpus);
  EXPECT_STREQ(refusal->what(), "expected 'split' or 'shared', got 'halves'");

  request.cpus = "shared";
  request.generator_cpus = {allowedCpus().front()};
  refusal = refusalOf(request, environment_);
  ASSERT_TRUE(refusal);
  EXPECT_EQ(refusal->field(), RunRequestField::kCpus);
  EXPECT_STREQ(refusal->what(), "'shared' leaves both unpinned; it takes no CPU list");
}

TEST_F(RunPreparationTest, NoRefusalSpeaksAFrontEndsLanguage) {
  const std::vector<unsigned> allowed = allowedCpus();
  ASSERT_FALSE(allowed.empty());
  environment_.uploaded_scenarios_dir = dir_.path() / "uploaded";
  std::vector<RunRequest> requests(7);
  requests[0].scenario_file = "missing";
  requests[1].overrides.test_seconds = 0;
  requests[2].overrides.test_seconds = 86'401;
  requests[3].overrides.warmup_seconds = 86'401;
  requests[4].server_cpus = {1023};
  requests[5].server_cpus = {allowed[0]};
  requests[5].generator_cpus = {allowed[0]};
  requests[6].cpus = "halves";
  for (const RunRequest& request : requests) {
    const std::optional<RunRequestError> refusal = refusalOf(request, environment_);
    ASSERT_TRUE(refusal);
    EXPECT_FALSE(speaksAFrontEnd(refusal->what())) << refusal->what();
  }
}

}  // namespace
}  // namespace benchd::runner
