/* Test fixture: a plugin built against a newer minor version of this ABI than the host. */
#include <benchd/plugin.h>

static const benchd_plugin_descriptor descriptor = {sizeof(benchd_plugin_descriptor),
                                                    BENCHD_ABI_MAJOR,
                                                    BENCHD_ABI_MINOR + 1,
                                                    "newer-minor",
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
