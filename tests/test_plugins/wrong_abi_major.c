/* Test fixture: a plugin built for a future ABI major version. The host must refuse it before
 * calling anything else. */
#include <benchd/plugin.h>

static const benchd_plugin_descriptor descriptor = {sizeof(benchd_plugin_descriptor),
                                                    BENCHD_ABI_MAJOR + 1,
                                                    0,
                                                    "wrong-major",
                                                    "1",
                                                    "fixture",
                                                    BENCHD_MODEL_OTHER,
                                                    "none",
                                                    0,
                                                    0,
                                                    0,
                                                    0,
                                                    0,
                                                    0};

BENCHD_PLUGIN_EXPORT const benchd_plugin_descriptor* benchd_plugin_entry(void) {
  return &descriptor;
}
