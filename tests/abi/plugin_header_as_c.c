/* Compiles the plugin ABI header alone as C11 (it must be self-contained, first include) and
 * reports the struct layout C sees, so the C++ test can check both languages agree. */
#include "abi_layout.h"

#include <benchd/plugin.h>

_Static_assert(BENCHD_OK != 0, "zero is never a valid enum value");
_Static_assert(BENCHD_MODEL_OS_THREADS != 0, "zero is never a valid enum value");
_Static_assert(BENCHD_LOG_DEBUG != 0, "zero is never a valid enum value");

void benchd_abi_layout_as_c(struct benchd_abi_layout* layout) {
  layout->descriptor_size = sizeof(benchd_plugin_descriptor);
  layout->descriptor_abi_major = offsetof(benchd_plugin_descriptor, abi_major);
  layout->descriptor_create = offsetof(benchd_plugin_descriptor, create);
  layout->descriptor_destroy = offsetof(benchd_plugin_descriptor, destroy);
  layout->host_api_size = sizeof(benchd_host_api);
  layout->host_api_log = offsetof(benchd_host_api, log);
  layout->config_size = sizeof(benchd_server_config);
  layout->config_options = offsetof(benchd_server_config, options);
  layout->error_size = sizeof(benchd_error);
}
