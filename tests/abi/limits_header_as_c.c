/* Compiles benchd/limits.h alone (first include) as C11 with -Wpedantic and holds its values to
 * the table of CONTRACT.md section 10: changing a limit means changing the contract too. */
#include "limits_values.h"

#include <benchd/limits.h>

_Static_assert(BENCHD_MAX_DELAY_CALL_DEPTH == 64, "CONTRACT.md section 10");
_Static_assert(BENCHD_MAX_DELAY_MILLIS == 3600000, "CONTRACT.md section 10: 1 h");
_Static_assert(BENCHD_MAX_REQUEST_BODY_BYTES == 1024 * 1024, "CONTRACT.md section 10: 1 MiB");
_Static_assert(BENCHD_MAX_REQUEST_HEADER_BYTES == 8 * 1024, "CONTRACT.md section 10: 8 KiB");
_Static_assert(BENCHD_MAX_UNPARSED_REQUEST_BYTES == 16 * 1024, "CONTRACT.md section 10: 16 KiB");
_Static_assert(BENCHD_MIN_CHUNK_LINE_BYTES == 4 * 1024, "CONTRACT.md section 10: 4 KiB");
_Static_assert(BENCHD_IO_TIMEOUT_MILLIS == 60000, "CONTRACT.md section 10: 60 s");
_Static_assert(BENCHD_HEADER_DEADLINE_MILLIS == 20000, "CONTRACT.md section 10: 20 s");
_Static_assert(BENCHD_DISCARD_TIMEOUT_MILLIS == 2000, "CONTRACT.md section 10: 2 s");
_Static_assert(BENCHD_ACCEPT_BACKOFF_MILLIS == 50, "CONTRACT.md section 10: 50 ms");
_Static_assert(BENCHD_CONNECT_TIMEOUT_MILLIS == 20000, "CONTRACT.md section 10: 20 s");
_Static_assert(BENCHD_UPSTREAM_POOL_CAPACITY == 65000, "CONTRACT.md section 10");
_Static_assert(BENCHD_UPSTREAM_RESPONSE_MARGIN_MILLIS == 60000, "CONTRACT.md section 10: 60 s");
_Static_assert(BENCHD_UPSTREAM_IDLE_TIMEOUT_MILLIS == 30000, "CONTRACT.md section 10: 30 s");
_Static_assert(BENCHD_UPSTREAM_IDLE_SWEEP_INTERVAL_MILLIS == 5000, "CONTRACT.md section 10: 5 s");

/* What the header promises of every value: a non-negative constant that holds in a 32-bit int,
 * usable in #if. */
#define BENCHD_LIMIT_IN_INT32(name) \
  _Static_assert((name) >= 0 && (name) <= 2147483647, #name " holds in a 32-bit int");
BENCHD_LIMIT_MACROS(BENCHD_LIMIT_IN_INT32)
#undef BENCHD_LIMIT_IN_INT32

/* The set is coherent (the header checks the same with #error). */
_Static_assert(BENCHD_UPSTREAM_IDLE_TIMEOUT_MILLIS + BENCHD_UPSTREAM_IDLE_SWEEP_INTERVAL_MILLIS <
                   BENCHD_IO_TIMEOUT_MILLIS,
               "pooled connections are retired before the server closes them as idle");
_Static_assert(BENCHD_UPSTREAM_RESPONSE_MARGIN_MILLIS > 0,
               "a nested call outwaits the longest delay it may forward");
