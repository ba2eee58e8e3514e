// sdk::ThreadPoolSettings: the pool options of the thread-per-connection plugins, with their
// defaults, the starting size taken from --threads and capped by the maximum, and a clear
// refusal naming the option for a value out of range.
#include <benchd/sdk/thread_pool_settings.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <tuple>

namespace benchd::sdk {
namespace {

ServerSettings settingsWith(unsigned threads,
                            std::map<std::string, std::string, std::less<>> options) {
  ServerSettings settings;
  settings.threads = threads;
  settings.options = std::move(options);
  return settings;
}

TEST(ThreadPoolSettings, DefaultsAreTheOriginalsPlatformThreadServer) {
  const ThreadPoolSettings pool = ThreadPoolSettings::from(settingsWith(4, {}));
  EXPECT_EQ(pool.min_threads, 4);
  EXPECT_EQ(pool.max_threads, 5000);
  EXPECT_EQ(pool.max_queued, 5000);
  EXPECT_EQ(pool.backlog, 2000);
  EXPECT_EQ(pool.stack_kib, 256);
}

TEST(ThreadPoolSettings, OptionsSetTheLimitsAndTheMaximumCapsTheStartingSize) {
  const ThreadPoolSettings pool = ThreadPoolSettings::from(settingsWith(
      7, {{"max_threads", "3"}, {"max_queued", "9"}, {"backlog", "11"}, {"stack_kib", "64"}}));
  EXPECT_EQ(pool.min_threads, 3);
  EXPECT_EQ(pool.max_threads, 3);
  EXPECT_EQ(pool.max_queued, 9);
  EXPECT_EQ(pool.backlog, 11);
  EXPECT_EQ(pool.stack_kib, 64);
}

TEST(ThreadPoolSettings, ABadValueIsRefusedNamingTheOptionAndItsRange) {
  for (const auto& [name, value, range] : {std::tuple{"max_threads", "0", "from 1 to 100000"},
                                           std::tuple{"max_queued", "x", "from 1 to 1000000"},
                                           std::tuple{"backlog", "-1", "from 1 to 1000000"},
                                           std::tuple{"stack_kib", "63", "from 64 to 65536"},
                                           std::tuple{"max_threads", "5 ", "from 1 to 100000"}}) {
    try {
      (void)ThreadPoolSettings::from(settingsWith(2, {{name, value}}));
      ADD_FAILURE() << name << "=" << value << " was accepted";
    } catch (const PluginError& e) {
      EXPECT_EQ(e.status(), BENCHD_ERR_INVALID_ARGUMENT);
      const std::string message = e.what();
      EXPECT_NE(message.find(std::string("option ") + name), std::string::npos) << message;
      EXPECT_NE(message.find(range), std::string::npos) << message;
      EXPECT_NE(message.find(std::string("'") + value + "'"), std::string::npos) << message;
    }
  }
}

TEST(ThreadPoolSettings, AServerTakesThePoolAndTheDeadlineOptions) {
  for (const std::string_view name : ThreadPoolSettings::kOptionNames) {
    EXPECT_NE(std::find(kThreadPoolServerOptions.begin(), kThreadPoolServerOptions.end(), name),
              kThreadPoolServerOptions.end())
        << name;
  }
  for (const std::string_view name : kRequestDeadlineOptions) {
    EXPECT_NE(std::find(kThreadPoolServerOptions.begin(), kThreadPoolServerOptions.end(), name),
              kThreadPoolServerOptions.end())
        << name;
  }
}

}  // namespace
}  // namespace benchd::sdk
