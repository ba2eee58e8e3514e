/* Test fixture: a library that crashes (SIGSEGV) while it is being loaded, before the host can
 * even look up its entry symbol. Inspection must report it rejected, never crash benchd. */
#include <benchd/plugin.h>

#include <signal.h>

__attribute__((constructor)) static void crashWhileLoading(void) {
  /* The default action, not a handler a sanitizer runtime installed (which would report and
   * exit with status 1): the process dies by the signal in every build. */
  signal(SIGSEGV, SIG_DFL);
  raise(SIGSEGV);
}

/* Never reached: present so the only thing wrong with this library is its constructor. */
BENCHD_PLUGIN_EXPORT const benchd_plugin_descriptor* benchd_plugin_entry(void) {
  return NULL;
}
