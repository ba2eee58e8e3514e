// resolveApproaches: which accepted plugins a run uses, and the errors for names it cannot.
#include <benchd/runner/plugin_catalog.hpp>

#include <gtest/gtest.h>

namespace benchd::runner {
namespace {

PluginDescription plugin(const std::string& name) {
  PluginDescription description;
  description.name = name;
  description.path = "/plugins/" + name + ".so";
  return description;
}

PluginCatalog catalog() {
  PluginCatalog result;
  result.folders = {{{"/plugins", FolderOrigin::kBuiltIn}, true, {}}};
  // Search order, deliberately not name order.
  result.accepted = {plugin("threads-poco"), plugin("callbacks-asio"), plugin("fibers-asio")};
  result.rejected = {{"/plugins/old-thing.so", "old-thing",
                      "plugin /plugins/old-thing.so: built "
                      "for plugin ABI 2.0, ..."}};
  return result;
}

std::vector<std::string> names(const std::vector<PluginDescription>& plugins) {
  std::vector<std::string> result;
  result.reserve(plugins.size());
  for (const PluginDescription& description : plugins)
    result.push_back(description.name);
  return result;
}

std::string errorOf(const PluginCatalog& plugins, const std::vector<std::string>& requested) {
  try {
    resolveApproaches(plugins, requested);
  } catch (const UnknownApproachError& error) {
    return error.what();
  }
  return "(no error)";
}

TEST(ResolveApproaches, AnEmptyRequestMeansEveryAcceptedPluginInNameOrder) {
  EXPECT_EQ(names(resolveApproaches(catalog(), {})),
            (std::vector<std::string>{"callbacks-asio", "fibers-asio", "threads-poco"}));
}

TEST(ResolveApproaches, RequestedNamesKeepTheirOrderAndRepeatsAreDropped) {
  const auto chosen =
      resolveApproaches(catalog(), {"threads-poco", "callbacks-asio", "threads-poco"});
  EXPECT_EQ(names(chosen), (std::vector<std::string>{"threads-poco", "callbacks-asio"}));
  EXPECT_EQ(chosen[0].path, "/plugins/threads-poco.so");
}

TEST(ResolveApproaches, AnUnknownNameListsTheAvailableOnes) {
  EXPECT_EQ(errorOf(catalog(), {"callbacks-asio", "green-goblin"}),
            "unknown approach 'green-goblin'; available approaches: callbacks-asio, "
            "fibers-asio, threads-poco");
}

TEST(ResolveApproaches, ARejectedNameGivesTheRejectionReason) {
  EXPECT_EQ(errorOf(catalog(), {"old-thing"}),
            "approach 'old-thing' (/plugins/old-thing.so) was rejected: plugin "
            "/plugins/old-thing.so: built for plugin ABI 2.0, ...; available approaches: "
            "callbacks-asio, fibers-asio, threads-poco");
}

TEST(ResolveApproaches, NothingAcceptedIsAnErrorNamingTheFolders) {
  PluginCatalog empty = catalog();
  empty.accepted.clear();
  EXPECT_EQ(errorOf(empty, {}), "no approach plugin was accepted in /plugins; 1 rejected");
  try {
    resolveApproaches(empty, {});
  } catch (const UnknownApproachError& error) {
    EXPECT_TRUE(error.noneAccepted());
  }
  try {
    resolveApproaches(catalog(), {"old-thing"});
  } catch (const UnknownApproachError& error) {
    EXPECT_FALSE(error.noneAccepted()) << "the name, not the folders, is the problem";
  }
}

}  // namespace
}  // namespace benchd::runner
