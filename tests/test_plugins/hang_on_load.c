/* Test fixture: a library whose constructor never returns. Inspection must give up after its
 * timeout, kill the inspecting process and report the plugin rejected. */
#include <benchd/plugin.h>

#include <unistd.h>

__attribute__((constructor)) static void hangWhileLoading(void) {
  for (;;)
    pause();
}

BENCHD_PLUGIN_EXPORT const benchd_plugin_descriptor* benchd_plugin_entry(void) {
  return NULL;
}
