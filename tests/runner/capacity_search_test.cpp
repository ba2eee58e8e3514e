// The capacity search on its own: oracles stand in for trials (a server whose capacity is X
// passes every rate up to X), so the search's rates, bracket and verdict are checked exactly.
// Real trials against workers of known capacity are the runner's tests.
#include <benchd/runner/capacity_search.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <stdexcept>

namespace benchd::runner {
namespace {

/// Runs `search` to its end, asking `oracle` for each trial's outcome.
void runSearch(CapacitySearch& search, const std::function<TrialOutcome(double)>& oracle) {
  for (int guard = 0; guard < 1000; ++guard) {
    const auto rate = search.nextRate();
    if (!rate) {
      return;
    }
    search.record(oracle(*rate));
  }
  FAIL() << "the search did not end within 1000 trials";
}

std::function<TrialOutcome(double)> capacityOf(double capacity) {
  return [capacity](double rate) {
    return rate <= capacity ? TrialOutcome::kPass : TrialOutcome::kFail;
  };
}

TEST(CapacitySearch, FindsAKnownCapacityWithinTheResolutionFromAnyDistance) {
  for (const double capacity : {3.0, 17.0, 400.0, 999.0, 1000.0, 1001.0, 7'321.0, 300'000.0}) {
    CapacitySearch search({.start_rate = 1'000.0, .resolution = 0.03});
    runSearch(search, capacityOf(capacity));
    ASSERT_EQ(search.verdict(), CapacityVerdict::kFound) << capacity;
    ASSERT_TRUE(search.failedAt().has_value()) << capacity;
    EXPECT_LE(search.capacity(), capacity);
    EXPECT_GT(*search.failedAt(), capacity);
    // Within the resolution, or within 1 req/s (trials run at whole rates).
    const double width = *search.failedAt() - search.capacity();
    EXPECT_TRUE(width / search.capacity() <= 0.03 || width <= 1.0) << capacity << " " << width;
    EXPECT_LE(search.trials().size(), 20U) << capacity;
    // The rate reported passed twice: the last trial confirmed it.
    EXPECT_TRUE(search.trials().back().confirmation);
    EXPECT_EQ(search.trials().back().rate, search.capacity());
    EXPECT_EQ(search.trials().back().outcome, TrialOutcome::kPass);
  }
}

TEST(CapacitySearch, StepsByDoublingAndHalvingThenBisectsGeometrically) {
  CapacitySearch search({.start_rate = 100.0, .resolution = 0.05});
  runSearch(search, capacityOf(450.0));
  const auto& trials = search.trials();
  ASSERT_GE(trials.size(), 5U);
  EXPECT_DOUBLE_EQ(trials[0].rate, 100.0);
  EXPECT_DOUBLE_EQ(trials[1].rate, 200.0);
  EXPECT_DOUBLE_EQ(trials[2].rate, 400.0);
  EXPECT_DOUBLE_EQ(trials[3].rate, 800.0);
  EXPECT_EQ(trials[3].outcome, TrialOutcome::kFail);
  EXPECT_DOUBLE_EQ(trials[4].rate, std::sqrt(400.0 * 800.0));

  CapacitySearch down({.start_rate = 1'000.0, .resolution = 0.05});
  runSearch(down, capacityOf(300.0));
  EXPECT_DOUBLE_EQ(down.trials()[1].rate, 500.0);
  EXPECT_DOUBLE_EQ(down.trials()[2].rate, 250.0);
  EXPECT_EQ(down.trials()[2].outcome, TrialOutcome::kPass);
}

TEST(CapacitySearch, AWarmStartNearTheCapacityFindsItInFewerTrials) {
  // Where a later round starts: at the rate earlier rounds found, in steps of a quarter.
  for (const double capacity : {760.0, 1'000.0, 1'240.0}) {
    CapacitySearch cold({.start_rate = 100.0, .resolution = 0.03});
    runSearch(cold, capacityOf(capacity));
    CapacitySearch warm(
        {.start_rate = 1'000.0, .resolution = 0.03, .step_factor = kWarmStepFactor});
    runSearch(warm, capacityOf(capacity));
    ASSERT_EQ(warm.verdict(), CapacityVerdict::kFound) << capacity;
    EXPECT_LE(warm.capacity(), capacity);
    EXPECT_LE((*warm.failedAt() - warm.capacity()) / warm.capacity(), 0.03) << capacity;
    EXPECT_LT(warm.trials().size(), cold.trials().size()) << capacity;
    EXPECT_DOUBLE_EQ(warm.trials()[1].rate, capacity >= 1'000.0 ? 1'250.0 : 800.0) << capacity;
  }
}

TEST(CapacitySearch, ALuckyPassIsNotReportedWhenItsConfirmationFails) {
  // 1,000 passes once (a quiet moment) and fails every later time; the server holds 900.
  int trials_at_lucky_rate = 0;
  CapacitySearch search({.start_rate = 1'000.0, .resolution = 0.03});
  runSearch(search, [&](double rate) {
    if (rate == 1'000.0 && trials_at_lucky_rate++ == 0) {
      return TrialOutcome::kPass;
    }
    return rate <= 900.0 ? TrialOutcome::kPass : TrialOutcome::kFail;
  });
  ASSERT_EQ(search.verdict(), CapacityVerdict::kFound);
  EXPECT_GE(trials_at_lucky_rate, 2);
  EXPECT_LE(search.capacity(), 900.0);
  EXPECT_GT(*search.failedAt(), 900.0);
  EXPECT_LE((*search.failedAt() - search.capacity()) / search.capacity(), 0.03);
}

TEST(CapacitySearch, AGeneratorThatSaturatesBoundsTheSearchAndItsRateIsALowerBound) {
  // The server never fails; above 5,000 req/s the load generator cannot keep up.
  CapacitySearch search({.start_rate = 1'000.0, .resolution = 0.03});
  runSearch(search, [](double rate) {
    return rate <= 5'000.0 ? TrialOutcome::kPass : TrialOutcome::kGeneratorSaturated;
  });
  EXPECT_EQ(search.verdict(), CapacityVerdict::kGeneratorSaturated);
  EXPECT_EQ(verdictName(search.verdict()), "generator-saturated");
  // Narrowed to the generator's limit, not stopped at the last doubling (4,000).
  EXPECT_LE(search.capacity(), 5'000.0);
  ASSERT_TRUE(search.failedAt().has_value());
  EXPECT_GT(*search.failedAt(), 5'000.0);
  EXPECT_LE((*search.failedAt() - search.capacity()) / search.capacity(), 0.03);

  // A server that fails below the generator's limit is found as usual, even after the
  // generator saturated higher up.
  CapacitySearch server({.start_rate = 1'000.0, .resolution = 0.03});
  runSearch(server, [](double rate) {
    return rate > 5'000.0   ? TrialOutcome::kGeneratorSaturated
           : rate > 4'500.0 ? TrialOutcome::kFail
                            : TrialOutcome::kPass;
  });
  EXPECT_EQ(server.verdict(), CapacityVerdict::kFound);
  EXPECT_LE(server.capacity(), 4'500.0);
  EXPECT_GT(*server.failedAt(), 4'500.0);
}

TEST(CapacitySearch, NothingPassingDownToTheMinimumIsCapacityZero) {
  CapacitySearch search({.start_rate = 64.0, .min_rate = 1.0});
  runSearch(search, [](double) { return TrialOutcome::kFail; });
  EXPECT_EQ(search.verdict(), CapacityVerdict::kNone);
  EXPECT_EQ(search.capacity(), 0.0);
  EXPECT_DOUBLE_EQ(search.trials().back().rate, 1.0);
}

TEST(CapacitySearch, EndsAtTheMaximumRateOrTheTrialLimitAndSaysSo) {
  CapacitySearch fast({.start_rate = 1'000.0, .max_rate = 5'000.0});
  runSearch(fast, [](double) { return TrialOutcome::kPass; });
  EXPECT_EQ(fast.verdict(), CapacityVerdict::kAtMaximum);
  EXPECT_DOUBLE_EQ(fast.capacity(), 5'000.0);

  CapacitySearch short_search({.start_rate = 1.0, .max_trials = 4});
  runSearch(short_search, capacityOf(1e6));
  EXPECT_EQ(short_search.verdict(), CapacityVerdict::kTrialLimit);
  EXPECT_EQ(short_search.trials().size(), 4U);
  EXPECT_DOUBLE_EQ(short_search.capacity(), 8.0);
  EXPECT_THROW(short_search.record(TrialOutcome::kPass), std::logic_error);
}

TEST(CapacitySearch, SettingsOutOfRangeAreRefusedByName) {
  const auto message = [](CapacitySearchSettings settings) -> std::string {
    try {
      CapacitySearch search(settings);
    } catch (const std::invalid_argument& error) {
      return error.what();
    }
    return "";
  };
  EXPECT_NE(message({.start_rate = 0.5}).find("start_rate"), std::string::npos);
  EXPECT_NE(message({.resolution = 0.0}).find("resolution"), std::string::npos);
  EXPECT_NE(message({.max_trials = 1}).find("max_trials"), std::string::npos);
  EXPECT_NE(message({.min_rate = 0.0}).find("min_rate"), std::string::npos);
  EXPECT_NE(message({.step_factor = 1.0}).find("step_factor"), std::string::npos);
  EXPECT_EQ(message({}), "");
}

}  // namespace
}  // namespace benchd::runner
