/* Layout facts of the ABI structs, filled in by C and by C++ code for comparison. */
#ifndef BENCHD_TEST_ABI_LAYOUT_H
#define BENCHD_TEST_ABI_LAYOUT_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

struct benchd_abi_layout {
  size_t descriptor_size;
  size_t descriptor_abi_major;
  size_t descriptor_create;
  size_t descriptor_destroy;
  size_t host_api_size;
  size_t host_api_log;
  size_t config_size;
  size_t config_options;
  size_t error_size;
};

void benchd_abi_layout_as_c(struct benchd_abi_layout* layout);

#ifdef __cplusplus
}
#endif

#endif
