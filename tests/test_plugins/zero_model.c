/* Test fixture: a descriptor whose concurrency model is zero, never a valid enum value. */
#include <benchd/plugin.h>

static const benchd_plugin_descriptor descriptor = {sizeof(benchd_plugin_descriptor),
                                                    BENCHD_ABI_MAJOR,
                                                    BENCHD_ABI_MINOR,
                                                    "zero-model",
                                                    "1",
                                                    "fixture",
                                                    (benchd_concurrency_model)0,
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
