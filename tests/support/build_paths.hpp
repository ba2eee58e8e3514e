#pragma once

#include <string>

// Where the build put what the tests run, and where the sources are.
//
// These are functions, not compile definitions, on purpose: an absolute path on a compile
// command changes the ccache hash of every object compiled with it, so a fresh clone (as CI
// makes) recompiled every test that links the test support. Only build_paths.cpp, a library of
// its own, is compiled with the paths.
namespace benchd::testing {

/// The `benchd-worker` executable of this build.
[[nodiscard]] std::string workerPath();
/// The `benchd` executable of this build (empty when the build has none).
[[nodiscard]] std::string cliPath();
/// The `benchd-report` executable of this build (empty when built without Qt).
[[nodiscard]] std::string reportPath();
/// The folder the approach plugins are built to (`<build>/plugins`).
[[nodiscard]] std::string pluginDir();
/// The misbehaving test plugins, each in a folder of its own (tests/test_plugins).
[[nodiscard]] std::string testPluginDir();
/// The plugins that break an ABI rule (tests/test_plugins).
[[nodiscard]] std::string brokenPluginDir();
/// The C plugins that each break one rule of the contract (tests/test_plugins, fixture_plugin.c).
[[nodiscard]] std::string fixturePluginDir();
/// The checkout's top folder.
[[nodiscard]] std::string sourceDir();
/// The build tree's top folder.
[[nodiscard]] std::string buildDir();

}  // namespace benchd::testing
