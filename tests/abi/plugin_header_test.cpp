// The plugin ABI header compiles alone as C++ (first include) and gives C++ the same layout
// as C for every field of every struct (and the LP64 layout plugin.h documents), every struct
// starts with its size, and versions follow the documented rules.
#include "abi_layout.h"

#include <benchd/plugin.h>

#include <gtest/gtest.h>

#include <array>
#include <cstddef>
#include <string>

namespace {

benchd_abi_layout layoutAsCpp() {
  benchd_abi_layout layout{};
  // sizeof of pointer fields is what is meant here.
  BENCHD_ABI_FILL_LAYOUT(&layout);  // NOLINT(bugprone-sizeof-expression)
  return layout;
}

#define BENCHD_ABI_STRUCT_NAME(type) #type,
#define BENCHD_ABI_FIELD_NAME(type, field) #type "." #field,
constexpr std::array<const char*, BENCHD_ABI_STRUCT_COUNT> kStructNames = {
    BENCHD_ABI_STRUCTS(BENCHD_ABI_STRUCT_NAME)};
constexpr std::array<const char*, BENCHD_ABI_FIELD_COUNT> kFieldNames = {
    BENCHD_ABI_FIELDS(BENCHD_ABI_FIELD_NAME)};

TEST(PluginHeader, CAndCppSeeTheSameLayout) {
  benchd_abi_layout as_c{};
  benchd_abi_layout_as_c(&as_c);
  const benchd_abi_layout as_cpp = layoutAsCpp();
  for (std::size_t i = 0; i < BENCHD_ABI_STRUCT_COUNT; ++i) {
    EXPECT_EQ(as_c.struct_sizes[i], as_cpp.struct_sizes[i]) << kStructNames[i];
  }
  for (std::size_t i = 0; i < BENCHD_ABI_FIELD_COUNT; ++i) {
    EXPECT_EQ(as_c.field_offsets[i], as_cpp.field_offsets[i]) << kFieldNames[i];
    EXPECT_EQ(as_c.field_sizes[i], as_cpp.field_sizes[i]) << kFieldNames[i];
  }
}

TEST(PluginHeader, FieldsFollowEachOtherWithOnlyAlignmentPadding) {
  // Declaration order is layout order, and no field overlaps the next or the struct's end.
  const benchd_abi_layout layout = layoutAsCpp();
  std::size_t struct_index = 0;
  for (std::size_t i = 0; i < BENCHD_ABI_FIELD_COUNT; ++i) {
    const std::string name = kFieldNames[i];
    while (!name.starts_with(std::string(kStructNames[struct_index]) + "."))
      ++struct_index;
    const std::size_t end = layout.field_offsets[i] + layout.field_sizes[i];
    const bool last_of_struct =
        i + 1 == BENCHD_ABI_FIELD_COUNT ||
        !std::string(kFieldNames[i + 1]).starts_with(std::string(kStructNames[struct_index]) + ".");
    if (last_of_struct) {
      EXPECT_LE(end, layout.struct_sizes[struct_index]) << name;
      EXPECT_LT(layout.struct_sizes[struct_index] - end, alignof(std::max_align_t)) << name;
    } else {
      EXPECT_LE(end, layout.field_offsets[i + 1]) << name;
      EXPECT_LT(layout.field_offsets[i + 1] - end, sizeof(void*)) << name << ": padding";
    }
  }
}

/// The LP64 layout (x86-64 and aarch64 Linux) the sizes in plugin.h's comments state.
TEST(PluginHeader, Lp64LayoutIsTheDocumentedOne) {
  if (sizeof(void*) != 8 || sizeof(long) != 8)
    GTEST_SKIP() << "not an LP64 platform";
  EXPECT_EQ(sizeof(benchd_error), 520u);
  EXPECT_EQ(offsetof(benchd_error, message), 8u);

  EXPECT_EQ(sizeof(benchd_host_api), 128u);
  EXPECT_EQ(offsetof(benchd_host_api, host_context), 8u);
  EXPECT_EQ(offsetof(benchd_host_api, epoch_millis), 16u);
  EXPECT_EQ(offsetof(benchd_host_api, movies_by_director), 24u);
  EXPECT_EQ(offsetof(benchd_host_api, save_movies), 32u);
  EXPECT_EQ(offsetof(benchd_host_api, delete_movie), 40u);
  EXPECT_EQ(offsetof(benchd_host_api, log), 48u);
  // 2.1: appended, so a 2.0 plugin reads the 2.0 table's first 56 bytes unchanged.
  EXPECT_EQ(offsetof(benchd_host_api, db_pool_size), 56u);
  EXPECT_EQ(offsetof(benchd_host_api, db_open), 64u);
  EXPECT_EQ(offsetof(benchd_host_api, db_close), 72u);
  EXPECT_EQ(offsetof(benchd_host_api, db_begin_movies_by_director), 80u);
  EXPECT_EQ(offsetof(benchd_host_api, db_begin_save_movies), 88u);
  EXPECT_EQ(offsetof(benchd_host_api, db_begin_delete_movie), 96u);
  EXPECT_EQ(offsetof(benchd_host_api, db_continue), 104u);
  EXPECT_EQ(offsetof(benchd_host_api, db_finish), 112u);
  EXPECT_EQ(offsetof(benchd_host_api, db_abandon), 120u);
  EXPECT_EQ(sizeof(benchd_db_step), 24u);
  EXPECT_EQ(offsetof(benchd_db_step, wait), 8u);
  EXPECT_EQ(offsetof(benchd_db_step, socket), 12u);
  EXPECT_EQ(offsetof(benchd_db_step, socket_serial), 16u);

  EXPECT_EQ(sizeof(benchd_option), 24u);
  EXPECT_EQ(offsetof(benchd_option, key), 8u);
  EXPECT_EQ(offsetof(benchd_option, value), 16u);

  EXPECT_EQ(sizeof(benchd_server_config), 72u);
  EXPECT_EQ(offsetof(benchd_server_config, bind_address), 8u);
  EXPECT_EQ(offsetof(benchd_server_config, port), 16u);
  EXPECT_EQ(offsetof(benchd_server_config, threads), 20u);
  EXPECT_EQ(offsetof(benchd_server_config, profiles), 24u);
  EXPECT_EQ(offsetof(benchd_server_config, profile_count), 32u);
  EXPECT_EQ(offsetof(benchd_server_config, options), 40u);
  EXPECT_EQ(offsetof(benchd_server_config, option_count), 48u);
  EXPECT_EQ(offsetof(benchd_server_config, tls_certificate_file), 56u);
  EXPECT_EQ(offsetof(benchd_server_config, tls_private_key_file), 64u);

  EXPECT_EQ(sizeof(benchd_plugin_descriptor), 128u);
  EXPECT_EQ(offsetof(benchd_plugin_descriptor, name), 16u);
  EXPECT_EQ(offsetof(benchd_plugin_descriptor, version), 24u);
  EXPECT_EQ(offsetof(benchd_plugin_descriptor, description), 32u);
  EXPECT_EQ(offsetof(benchd_plugin_descriptor, concurrency_model), 40u);
  EXPECT_EQ(offsetof(benchd_plugin_descriptor, io_stack), 48u);
  EXPECT_EQ(offsetof(benchd_plugin_descriptor, create), 56u);
  EXPECT_EQ(offsetof(benchd_plugin_descriptor, start), 64u);
  EXPECT_EQ(offsetof(benchd_plugin_descriptor, bound_port), 72u);
  EXPECT_EQ(offsetof(benchd_plugin_descriptor, stats), 80u);
  EXPECT_EQ(offsetof(benchd_plugin_descriptor, stop), 88u);
  EXPECT_EQ(offsetof(benchd_plugin_descriptor, destroy), 96u);
  EXPECT_EQ(offsetof(benchd_plugin_descriptor, implemented_profiles), 104u);
  EXPECT_EQ(offsetof(benchd_plugin_descriptor, implemented_profile_count), 112u);
  EXPECT_EQ(offsetof(benchd_plugin_descriptor, contract_exceptions), 120u);
}

TEST(PluginHeader, StringBoundsAreTheDocumentedOnes) {
  EXPECT_EQ(BENCHD_MAX_NAME_SIZE, 256);
  EXPECT_EQ(BENCHD_MAX_MESSAGE_SIZE, 4096);
  EXPECT_EQ(sizeof(benchd_error::message), 512u);
}

TEST(PluginHeader, EveryCrossingStructStartsWithItsSize) {
  EXPECT_EQ(offsetof(benchd_plugin_descriptor, struct_size), 0u);
  EXPECT_EQ(offsetof(benchd_host_api, struct_size), 0u);
  EXPECT_EQ(offsetof(benchd_server_config, struct_size), 0u);
  EXPECT_EQ(offsetof(benchd_error, struct_size), 0u);
  EXPECT_EQ(offsetof(benchd_option, struct_size), 0u);
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
