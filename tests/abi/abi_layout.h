/* Layout facts of every struct of the plugin ABI, filled in by C and by C++ code for
 * comparison, and checked against the sizes plugin.h documents. */
#ifndef BENCHD_TEST_ABI_LAYOUT_H
#define BENCHD_TEST_ABI_LAYOUT_H

/* A C header: C++ modernisation and C++ naming rules do not apply. */
/* NOLINTBEGIN(modernize-*,readability-identifier-naming) */
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Every struct of plugin.h. */
#define BENCHD_ABI_STRUCTS(X) \
  X(benchd_error)             \
  X(benchd_host_api)          \
  X(benchd_db_step)           \
  X(benchd_option)            \
  X(benchd_server_config)     \
  X(benchd_plugin_descriptor)

/* Every field of every struct of plugin.h, in declaration order. */
#define BENCHD_ABI_FIELDS(X)                        \
  X(benchd_error, struct_size)                      \
  X(benchd_error, message)                          \
  X(benchd_host_api, struct_size)                   \
  X(benchd_host_api, host_context)                  \
  X(benchd_host_api, epoch_millis)                  \
  X(benchd_host_api, movies_by_director)            \
  X(benchd_host_api, save_movies)                   \
  X(benchd_host_api, delete_movie)                  \
  X(benchd_host_api, log)                           \
  X(benchd_host_api, db_pool_size)                  \
  X(benchd_host_api, db_open)                       \
  X(benchd_host_api, db_close)                      \
  X(benchd_host_api, db_begin_movies_by_director)   \
  X(benchd_host_api, db_begin_save_movies)          \
  X(benchd_host_api, db_begin_delete_movie)         \
  X(benchd_host_api, db_continue)                   \
  X(benchd_host_api, db_finish)                     \
  X(benchd_host_api, db_abandon)                    \
  X(benchd_db_step, struct_size)                    \
  X(benchd_db_step, wait)                           \
  X(benchd_db_step, socket)                         \
  X(benchd_db_step, socket_serial)                  \
  X(benchd_option, struct_size)                     \
  X(benchd_option, key)                             \
  X(benchd_option, value)                           \
  X(benchd_server_config, struct_size)              \
  X(benchd_server_config, bind_address)             \
  X(benchd_server_config, port)                     \
  X(benchd_server_config, threads)                  \
  X(benchd_server_config, profiles)                 \
  X(benchd_server_config, profile_count)            \
  X(benchd_server_config, options)                  \
  X(benchd_server_config, option_count)             \
  X(benchd_server_config, tls_certificate_file)     \
  X(benchd_server_config, tls_private_key_file)     \
  X(benchd_plugin_descriptor, struct_size)          \
  X(benchd_plugin_descriptor, abi_major)            \
  X(benchd_plugin_descriptor, abi_minor)            \
  X(benchd_plugin_descriptor, name)                 \
  X(benchd_plugin_descriptor, version)              \
  X(benchd_plugin_descriptor, description)          \
  X(benchd_plugin_descriptor, concurrency_model)    \
  X(benchd_plugin_descriptor, io_stack)             \
  X(benchd_plugin_descriptor, create)               \
  X(benchd_plugin_descriptor, start)                \
  X(benchd_plugin_descriptor, bound_port)           \
  X(benchd_plugin_descriptor, stats)                \
  X(benchd_plugin_descriptor, stop)                 \
  X(benchd_plugin_descriptor, destroy)              \
  X(benchd_plugin_descriptor, implemented_profiles) \
  X(benchd_plugin_descriptor, implemented_profile_count)

#define BENCHD_ABI_STRUCT_INDEX(type) BENCHD_ABI_STRUCT_##type,
#define BENCHD_ABI_FIELD_INDEX(type, field) BENCHD_ABI_FIELD_##type##_##field,
enum benchd_abi_struct_index {
  BENCHD_ABI_STRUCTS(BENCHD_ABI_STRUCT_INDEX) BENCHD_ABI_STRUCT_COUNT
};
enum benchd_abi_field_index { BENCHD_ABI_FIELDS(BENCHD_ABI_FIELD_INDEX) BENCHD_ABI_FIELD_COUNT };

struct benchd_abi_layout {
  size_t struct_sizes[BENCHD_ABI_STRUCT_COUNT]; /* sizeof, by benchd_abi_struct_index */
  size_t field_offsets[BENCHD_ABI_FIELD_COUNT]; /* offsetof, by benchd_abi_field_index */
  size_t field_sizes[BENCHD_ABI_FIELD_COUNT];   /* sizeof the field */
};

#ifdef __cplusplus
#define BENCHD_ABI_FIELD_SIZE(type, field) sizeof(type::field)
#else
#define BENCHD_ABI_FIELD_SIZE(type, field) sizeof(((type*)0)->field)
#endif
#define BENCHD_ABI_FILL_STRUCT(type) \
  filled_layout->struct_sizes[BENCHD_ABI_STRUCT_##type] = sizeof(type);
#define BENCHD_ABI_FILL_FIELD(type, field)                                                 \
  filled_layout->field_offsets[BENCHD_ABI_FIELD_##type##_##field] = offsetof(type, field); \
  filled_layout->field_sizes[BENCHD_ABI_FIELD_##type##_##field] =                          \
      BENCHD_ABI_FIELD_SIZE(type, field);
/* Fills `layout` as the including language compiles the structs. */
#define BENCHD_ABI_FILL_LAYOUT(layout_pointer)                  \
  do {                                                          \
    struct benchd_abi_layout* filled_layout = (layout_pointer); \
    BENCHD_ABI_STRUCTS(BENCHD_ABI_FILL_STRUCT)                  \
    BENCHD_ABI_FIELDS(BENCHD_ABI_FILL_FIELD)                    \
  } while (0)

void benchd_abi_layout_as_c(struct benchd_abi_layout* layout);

#ifdef __cplusplus
}
#endif

/* NOLINTEND(modernize-*,readability-identifier-naming) */
#endif
