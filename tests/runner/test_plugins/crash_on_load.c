/* Test fixture: a library that crashes (SIGSEGV) while it is being loaded, before the host can
 * even look up its entry symbol. Inspection must report it rejected, never crash benchd. */
#include <benchd/plugin.h>

#include <signal.h>

__attribute__((constructor)) static void crashWhileLoading(void) {
  raise(SIGSEGV);
}

/* Never reached: present so the only thing wrong with this library is its constructor. */
BENCHD_PLUGIN_EXPORT const benchd_plugin_descriptor* benchd_plugin_entry(void) {
  return NULL;
}
