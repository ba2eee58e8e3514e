#include <benchd/runner/stored_request.hpp>

#include <gtest/gtest.h>

#include <limits>
#include <string>

namespace benchd::runner {
namespace {

RunRequest everythingSet() {
  RunRequest request;
  request.scenario_file = "/usr/share/benchd/scenarios/scenarios-ci.csv";
  request.approaches = {"callbacks-asio", "threads-asio[max_threads=50]", "callbacks-asio#2"};
  request.repeats = 10;
  request.order_seed = std::numeric_limits<std::uint64_t>::max() - 1;  // beyond a double's 53 bits
  request.winner_rule = "original";
  request.overrides = {3, 12};
  request.keep_csv = true;
  request.cpus = "split";
  request.server_cpus = {1, 3};
  request.generator_cpus = {0, 2};
  request.generator_threads = 2;
  request.health_timeout = std::chrono::seconds(45);
  return request;
}

void expectSame(const RunRequest& read, const RunRequest& written) {
  EXPECT_EQ(read.scenario_file, written.scenario_file);
  EXPECT_EQ(read.approaches, written.approaches);
  EXPECT_EQ(read.aa_approach, written.aa_approach);
  EXPECT_EQ(read.repeats, written.repeats);
  EXPECT_EQ(read.order_seed, written.order_seed);
  EXPECT_EQ(read.winner_rule, written.winner_rule);
  EXPECT_EQ(read.overrides.warmup_seconds, written.overrides.warmup_seconds);
  EXPECT_EQ(read.overrides.test_seconds, written.overrides.test_seconds);
  EXPECT_EQ(read.keep_csv, written.keep_csv);
  EXPECT_EQ(read.cpus, written.cpus);
  EXPECT_EQ(read.server_cpus, written.server_cpus);
  EXPECT_EQ(read.generator_cpus, written.generator_cpus);
  EXPECT_EQ(read.generator_threads, written.generator_threads);
  EXPECT_EQ(read.health_timeout, written.health_timeout);
}

TEST(StoredRequest, ReadsBackEverythingItWrote) {
  const RunRequest written = everythingSet();
  expectSame(requestFromStoredJson(storedRequestJson(written)), written);
}

TEST(StoredRequest, ReadsBackWhatWasLeftUnsetAsUnset) {
  RunRequest written;
  written.aa_approach = "callbacks-asio";
  const RunRequest read = requestFromStoredJson(storedRequestJson(written));
  expectSame(read, written);
  EXPECT_FALSE(read.order_seed);
  EXPECT_FALSE(read.overrides.test_seconds);
  EXPECT_FALSE(read.generator_threads);
}

TEST(StoredRequest, RefusesWhatItDidNotWriteNamingTheMember) {
  const auto reason = [](const std::string& text) {
    try {
      static_cast<void>(requestFromStoredJson(text));
    } catch (const StoredRequestError& error) {
      return std::string(error.what());
    }
    return std::string("accepted");
  };
  const std::string good = storedRequestJson(everythingSet());
  const auto replaced = [&good](const std::string& from, const std::string& to) {
    std::string text = good;
    const std::size_t at = text.find(from);
    EXPECT_NE(at, std::string::npos) << from << " in " << good;
    return at == std::string::npos ? text : text.replace(at, from.size(), to);
  };
  EXPECT_EQ(reason("not json"), "stored run request: not a JSON object");
  EXPECT_EQ(reason("[1]"), "stored run request: not a JSON object");
  EXPECT_EQ(reason(replaced(R"("version":1)", R"("version":2)")),
            "stored run request of version 2, which this benchd does not read (it reads "
            "version 1)");
  EXPECT_EQ(reason(replaced(R"("repeats":10)", R"("repeats":-1)")),
            "stored run request: 'repeats' is not an integer from 0 to 4294967295");
  EXPECT_EQ(reason(replaced(R"("keepCsv":true)", R"("keepCsv":1)")),
            "stored run request: 'keepCsv' is not true or false");
  EXPECT_EQ(reason(replaced(R"("cpus":"split",)", "")), "stored run request: 'cpus' is missing");
  EXPECT_EQ(reason(replaced(R"("orderSeed":"18446744073709551614")", R"("orderSeed":"12x")")),
            "stored run request: 'orderSeed' is not a decimal 64-bit number");
  EXPECT_EQ(reason(replaced(R"("serverCpus":[1,3])", R"("serverCpus":["1"])")),
            "stored run request: 'serverCpus' is not an integer from 0 to 4294967295");
}

}  // namespace
}  // namespace benchd::runner
