/* Compiles benchd/limits.h alone (first include) as C99 with -Wpedantic, the oldest C it
 * promises, and reports the values C sees so the C++ test can compare them with the SDK's
 * constants. */
#include "limits_values.h"

#include <benchd/limits.h>

void benchd_limits_as_c99(long long* values) {
#define BENCHD_LIMIT_FILL(name) values[name##_INDEX] = name;
  BENCHD_LIMIT_MACROS(BENCHD_LIMIT_FILL)
#undef BENCHD_LIMIT_FILL
}
