// The plugin ABI header compiles alone as C++ (first include) and gives C++ the same layout
// as C, every struct starts with its size, and versions follow the documented rules.
#include "abi_layout.h"

#include <benchd/plugin.h>

#include <gtest/gtest.h>

namespace {

benchd_abi_layout layoutAsCpp() {
  benchd_abi_layout layout{};
  layout.descriptor_size = sizeof(benchd_plugin_descriptor);
  layout.descriptor_abi_major = offsetof(benchd_plugin_descriptor, abi_major);
  layout.descriptor_create = offsetof(benchd_plugin_descriptor, create);
  layout.descriptor_destroy = offsetof(benchd_plugin_descriptor, destroy);
  layout.host_api_size = sizeof(benchd_host_api);
  layout.host_api_log = offsetof(benchd_host_api, log);
  layout.config_size = sizeof(benchd_server_config);
  layout.config_options = offsetof(benchd_server_config, options);
  layout.error_size = sizeof(benchd_error);
  return layout;
}

TEST(PluginHeader, CAndCppSeeTheSameLayout) {
  benchd_abi_layout as_c{};
  benchd_abi_layout_as_c(&as_c);
  const benchd_abi_layout as_cpp = layoutAsCpp();
  EXPECT_EQ(as_c.descriptor_size, as_cpp.descriptor_size);
  EXPECT_EQ(as_c.descriptor_abi_major, as_cpp.descriptor_abi_major);
  EXPECT_EQ(as_c.descriptor_create, as_cpp.descriptor_create);
  EXPECT_EQ(as_c.descriptor_destroy, as_cpp.descriptor_destroy);
  EXPECT_EQ(as_c.host_api_size, as_cpp.host_api_size);
  EXPECT_EQ(as_c.host_api_log, as_cpp.host_api_log);
  EXPECT_EQ(as_c.config_size, as_cpp.config_size);
  EXPECT_EQ(as_c.config_options, as_cpp.config_options);
  EXPECT_EQ(as_c.error_size, as_cpp.error_size);
}

TEST(PluginHeader, EveryCrossingStructStartsWithItsSize) {
  EXPECT_EQ(offsetof(benchd_plugin_descriptor, struct_size), 0u);
  EXPECT_EQ(offsetof(benchd_host_api, struct_size), 0u);
  EXPECT_EQ(offsetof(benchd_server_config, struct_size), 0u);
  EXPECT_EQ(offsetof(benchd_error, struct_size), 0u);
}

TEST(PluginHeader, VersionFieldsComeRightAfterTheSize) {
  // The host reads the ABI version before trusting anything else, so these offsets may never
  // change in any future version.
  EXPECT_EQ(offsetof(benchd_plugin_descriptor, abi_major), sizeof(size_t));
  EXPECT_EQ(offsetof(benchd_plugin_descriptor, abi_minor), sizeof(size_t) + sizeof(uint32_t));
}

TEST(PluginHeader, NoEnumHasAZeroValue) {
  for (const int value : std::initializer_list<int>{
           BENCHD_OK, BENCHD_ERR_INVALID_ARGUMENT, BENCHD_ERR_ADDRESS_IN_USE, BENCHD_ERR_IO,
           BENCHD_ERR_STATE, BENCHD_ERR_INTERNAL, BENCHD_ERR_TIMEOUT, BENCHD_MODEL_OS_THREADS,
           BENCHD_MODEL_GREEN_THREADS, BENCHD_MODEL_CALLBACKS, BENCHD_MODEL_COROUTINES,
           BENCHD_MODEL_OTHER, BENCHD_LOG_DEBUG, BENCHD_LOG_INFO, BENCHD_LOG_WARNING,
           BENCHD_LOG_ERROR}) {
    EXPECT_NE(value, 0);
  }
}

}  // namespace
