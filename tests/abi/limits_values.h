/* Every macro of benchd/limits.h, so that a C translation unit can report the values it sees
 * and the C++ test can compare them with the C++ SDK's constants. */
#ifndef BENCHD_TEST_LIMITS_VALUES_H
#define BENCHD_TEST_LIMITS_VALUES_H

/* A C header: C++ modernisation and C++ naming rules do not apply. */
/* NOLINTBEGIN(modernize-*,readability-identifier-naming) */
#ifdef __cplusplus
extern "C" {
#endif

/* Every macro of benchd/limits.h, in its order. */
#define BENCHD_LIMIT_MACROS(X)              \
  X(BENCHD_MAX_DELAY_CALL_DEPTH)            \
  X(BENCHD_MAX_DELAY_MILLIS)                \
  X(BENCHD_MAX_REQUEST_BODY_BYTES)          \
  X(BENCHD_MAX_REQUEST_HEADER_BYTES)        \
  X(BENCHD_MAX_UNPARSED_REQUEST_BYTES)      \
  X(BENCHD_MIN_CHUNK_LINE_BYTES)            \
  X(BENCHD_IO_TIMEOUT_MILLIS)               \
  X(BENCHD_HEADER_DEADLINE_MILLIS)          \
  X(BENCHD_DISCARD_TIMEOUT_MILLIS)          \
  X(BENCHD_ACCEPT_BACKOFF_MILLIS)           \
  X(BENCHD_CONNECT_TIMEOUT_MILLIS)          \
  X(BENCHD_UPSTREAM_POOL_CAPACITY)          \
  X(BENCHD_UPSTREAM_RESPONSE_MARGIN_MILLIS) \
  X(BENCHD_UPSTREAM_IDLE_TIMEOUT_MILLIS)    \
  X(BENCHD_UPSTREAM_IDLE_SWEEP_INTERVAL_MILLIS)

/* The index of a macro's value in the array benchd_limits_as_c99() fills. */
#define BENCHD_LIMIT_INDEX(name) name##_INDEX,
enum benchd_limit_index { BENCHD_LIMIT_MACROS(BENCHD_LIMIT_INDEX) BENCHD_LIMIT_COUNT };

/* Writes every macro's value as a C99 translation unit sees it into values[0] to
 * values[BENCHD_LIMIT_COUNT - 1], by benchd_limit_index. */
void benchd_limits_as_c99(long long* values);

#ifdef __cplusplus
}
#endif

/* NOLINTEND(modernize-*,readability-identifier-naming) */
#endif
