/* Compiles the plugin ABI header alone as C11 (it must be self-contained, first include) and
 * reports the struct layout C sees, so the C++ test can check both languages agree. */
#include "abi_layout.h"

#include <benchd/plugin.h>

_Static_assert(BENCHD_OK != 0, "zero is never a valid enum value");
_Static_assert(BENCHD_MODEL_OS_THREADS != 0, "zero is never a valid enum value");
_Static_assert(BENCHD_LOG_DEBUG != 0, "zero is never a valid enum value");

void benchd_abi_layout_as_c(struct benchd_abi_layout* layout) {
  BENCHD_ABI_FILL_LAYOUT(layout); /* NOLINT(bugprone-sizeof-expression): pointer fields */
}
