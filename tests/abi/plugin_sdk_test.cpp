// The header-only SDK at the C boundary: ServerSettings::from reads only what struct_size
// covers and steps through options by their own struct_size; PluginAdapter lets no exception
// out of any descriptor function.
#include <benchd/plugin.h>
#include <benchd/sdk/plugin_entry.hpp>
#include <benchd/sdk/plugin_support.hpp>

#include <gtest/gtest.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using benchd::sdk::PluginError;
using benchd::sdk::ServerSettings;

benchd_server_config fullConfig() {
  benchd_server_config config{};
  config.struct_size = sizeof(config);
  config.bind_address = "127.0.0.1";
  config.threads = 2;
  return config;
}

/// The message of the PluginError that from() throws, or "" when it throws none.
std::string refusal(const benchd_server_config& config,
                    std::span<const std::string_view> known = {}) {
  try {
    (void)ServerSettings::from(&config, known);
  } catch (const PluginError& e) {
    EXPECT_EQ(e.status(), BENCHD_ERR_INVALID_ARGUMENT);
    return e.what();
  }
  return {};
}

TEST(SdkServerSettings, ConfigEndingBeforeTheOptionsIsRefusedUnread) {
  // struct_size stops right before `options`: reading options or option_count would be a read
  // beyond what the writer said it filled.
  const std::array<benchd_option, 1> options = {{{sizeof(benchd_option), "x", "1"}}};
  benchd_server_config config = fullConfig();
  config.options = options.data();
  config.option_count = options.size();
  for (const std::size_t size :
       {offsetof(benchd_server_config, options), offsetof(benchd_server_config, option_count)}) {
    config.struct_size = size;
    EXPECT_NE(refusal(config).find("server config missing or too old"), std::string::npos)
        << "struct_size " << size;
  }
}

TEST(SdkServerSettings, FullConfigIsCopied) {
  static constexpr std::array<std::string_view, 1> kKnown = {"max_threads"};
  const std::array<const char*, 1> profiles = {"no-keep-alive"};
  const std::array<benchd_option, 1> options = {{{sizeof(benchd_option), "max_threads", "7"}}};
  benchd_server_config config = fullConfig();
  config.profiles = profiles.data();
  config.profile_count = profiles.size();
  config.options = options.data();
  config.option_count = options.size();
  const ServerSettings settings = ServerSettings::from(&config, kKnown);
  EXPECT_EQ(settings.threads, 2u);
  EXPECT_TRUE(settings.hasProfile("no-keep-alive"));
  EXPECT_EQ(settings.options.at("max_threads"), "7");
}

/// An option as a newer host might write it: one field more at the end.
struct GrownOption {
  benchd_option base;
  std::uint64_t added_later;
};

TEST(SdkServerSettings, OptionsAreReadByTheirOwnStride) {
  static constexpr std::array<std::string_view, 2> kKnown = {"a", "b"};
  std::array<GrownOption, 2> grown = {
      {{{sizeof(GrownOption), "a", "1"}, 0xdeadbeef}, {{sizeof(GrownOption), "b", "2"}, 0}}};
  benchd_server_config config = fullConfig();
  config.options = &grown[0].base;
  config.option_count = grown.size();
  const ServerSettings settings = ServerSettings::from(&config, kKnown);
  EXPECT_EQ(settings.options.at("a"), "1");
  EXPECT_EQ(settings.options.at("b"), "2");
}

TEST(SdkServerSettings, BadOptionArraysAreRefusedWithTheReason) {
  static constexpr std::array<std::string_view, 1> kKnown = {"a"};
  benchd_server_config config = fullConfig();
  config.option_count = 1;
  EXPECT_NE(refusal(config, kKnown).find("options is NULL"), std::string::npos);

  std::array<benchd_option, 1> options = {{{offsetof(benchd_option, value), "a", "1"}}};
  config.options = options.data();
  EXPECT_NE(refusal(config, kKnown).find("option 0 has struct_size"), std::string::npos);

  options[0] = {sizeof(benchd_option), nullptr, "1"};
  EXPECT_NE(refusal(config, kKnown).find("option 0 has a NULL key or value"), std::string::npos);

  const std::array<const char*, 1> profiles = {nullptr};
  config.option_count = 0;
  config.profiles = profiles.data();
  config.profile_count = 1;
  EXPECT_NE(refusal(config, kKnown).find("profile 0 is NULL"), std::string::npos);
}

/// A server whose every method throws, as a buggy plugin's might.
class ThrowingServer {
 public:
  ThrowingServer(const benchd_host_api* /*host*/, const ServerSettings& /*settings*/) {}
  void start() { throw std::runtime_error("start broke"); }
  [[nodiscard]] std::uint16_t boundPort() const { throw std::runtime_error("port broke"); }
  bool stop(std::chrono::milliseconds /*timeout*/) { throw std::runtime_error("stop broke"); }
  void reportCounters(benchd_counter_sink /*sink*/, void* /*context*/) const {
    throw std::runtime_error("stats broke");
  }
};

TEST(SdkPluginAdapter, NoExceptionCrossesTheBoundary) {
  static constexpr benchd::sdk::PluginFacts kFacts = {"throwing", "1", "test", BENCHD_MODEL_OTHER,
                                                      "none"};
  const benchd_plugin_descriptor* descriptor =
      benchd::sdk::PluginAdapter<ThrowingServer>::describe(kFacts);
  benchd_host_api host{};
  host.struct_size = sizeof(host);
  const benchd_server_config config = fullConfig();
  benchd_error error{};
  error.struct_size = sizeof(error);
  benchd_server* created = nullptr;
  // The owner below frees it through destroy(), which the analyzer does not follow.
  // NOLINTNEXTLINE(clang-analyzer-cplusplus.NewDeleteLeaks)
  ASSERT_EQ(descriptor->create(&host, &config, &created, &error), BENCHD_OK) << error.message;
  const std::unique_ptr<benchd_server, void (*)(benchd_server*)> owner(created,
                                                                       descriptor->destroy);
  benchd_server* server = owner.get();
  EXPECT_EQ(descriptor->start(server, &error), BENCHD_ERR_INTERNAL);
  EXPECT_STREQ(error.message, "start broke");
  std::uint16_t port = 1;
  EXPECT_NO_THROW(port = descriptor->bound_port(server));
  EXPECT_EQ(port, 0u) << "0: port unknown";
  EXPECT_EQ(descriptor->stats(server, nullptr, nullptr, &error), BENCHD_ERR_INTERNAL);
  EXPECT_EQ(descriptor->stop(server, 10, &error), BENCHD_ERR_INTERNAL);
}

}  // namespace
