/* Test fixture: a shared library that is not a benchd plugin (no entry symbol). */
#include <benchd/plugin.h>

BENCHD_PLUGIN_EXPORT int some_other_function(void) {
  return 42;
}
