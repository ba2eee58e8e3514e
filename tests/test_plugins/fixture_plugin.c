/* Test fixture: a minimal C plugin that breaks one rule of the ABI, chosen by one FIXTURE_*
 * definition at build time (tests/test_plugins/CMakeLists.txt builds one library per rule). It
 * never listens: start() does nothing and bound_port() names a port nobody serves, which is enough
 * for the worker's load checks, ready line and stats. Without exceptions or C++ on its side,
 * nothing the host throws into it could be caught here. */
#include <benchd/plugin.h>

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define TEN_A "aaaaaaaaaa"
#define HUNDRED_A TEN_A TEN_A TEN_A TEN_A TEN_A TEN_A TEN_A TEN_A TEN_A TEN_A
#define THREE_HUNDRED_A HUNDRED_A HUNDRED_A HUNDRED_A
#define THOUSAND_A                                                                          \
  HUNDRED_A HUNDRED_A HUNDRED_A HUNDRED_A HUNDRED_A HUNDRED_A HUNDRED_A HUNDRED_A HUNDRED_A \
      HUNDRED_A

struct benchd_server {
  int unused;
};

#if defined(FIXTURE_SCRIBBLES_ERROR_SIZE)
/* Checks that the host handed a benchd_error of the full size, then scribbles over its
 * struct_size, as a careless plugin might: a host that set it once and reused the buffer would
 * hand the next call a wrong size and fail it. Nothing is written into a buffer of the wrong
 * size. */
static int errorSizeWrong(benchd_error* error) {
  if (error == NULL || error->struct_size != sizeof(benchd_error))
    return 1;
  error->struct_size = 0;
  return 0;
}
#define CHECK_ERROR_SIZE(error)   \
  do {                            \
    if (errorSizeWrong(error))    \
      return BENCHD_ERR_INTERNAL; \
  } while (0)
#else
#define CHECK_ERROR_SIZE(error) ((void)(error))
#endif

/* Writes `text` as the call's error message (the host's buffer is sizeof(benchd_error)). */
static void setMessage(benchd_error* error, const char* text) {
  strncpy(error->message, text, sizeof(error->message) - 1);
  error->message[sizeof(error->message) - 1] = '\0';
}

static benchd_status fixtureCreate(const benchd_host_api* host, const benchd_server_config* config,
                                   benchd_server** server, benchd_error* error) {
  (void)host;
  (void)config;
  CHECK_ERROR_SIZE(error);
#if defined(FIXTURE_CREATE_FAILS)
  /* An internal failure with a message that fills the buffer and lacks its NUL. */
  (void)server;
  memset(error->message, 'x', sizeof(error->message)); /* NOLINT(clang-analyzer-security.*) */
  return BENCHD_ERR_INTERNAL;
#else
  (void)error;
  *server = (benchd_server*)calloc(1, sizeof(benchd_server));
  return BENCHD_OK;
#endif
}

static benchd_status fixtureStart(benchd_server* server, benchd_error* error) {
  (void)server;
  CHECK_ERROR_SIZE(error);
  return BENCHD_OK;
}

static uint16_t fixtureBoundPort(const benchd_server* server) {
  (void)server;
#if defined(FIXTURE_NO_PORT)
  return 0; /* "unknown", as the SDK reports a boundPort() that threw */
#else
  return 9; /* discard: nobody serves it, and nothing here is asked to */
#endif
}

static benchd_status fixtureStats(benchd_server* server, benchd_counter_sink sink,
                                  void* sink_context, benchd_error* error) {
  (void)server;
  CHECK_ERROR_SIZE(error);
#if defined(FIXTURE_STATS_FAILS)
  (void)sink;
  (void)sink_context;
  setMessage(error, "counters unavailable");
  return BENCHD_ERR_INTERNAL;
#endif
  sink(sink_context, "requests_served", 1);
#if defined(FIXTURE_NULL_COUNTER_NAME)
  sink(sink_context, NULL, 7);
#elif defined(FIXTURE_LONG_COUNTER_NAME)
  sink(sink_context, THREE_HUNDRED_A, 7);
#endif
  sink(sink_context, "requests_in_flight", 0);
  return BENCHD_OK;
}

static benchd_status fixtureStop(benchd_server* server, uint32_t timeout_millis,
                                 benchd_error* error) {
  (void)server;
  (void)timeout_millis;
  CHECK_ERROR_SIZE(error);
#if defined(FIXTURE_STOP_FAILS)
  setMessage(error, "cannot stop");
  return BENCHD_ERR_INTERNAL;
#else
  return BENCHD_OK;
#endif
}

static void fixtureDestroy(benchd_server* server) {
  free(server);
}

#if defined(FIXTURE_ABI_2_0)
/* Built as a 2.0 plugin was: the descriptor ends at destroy, so it implements no-keep-alive
 * implicitly and nothing else (no postgres). */
#define FIXTURE_DESCRIPTOR_SIZE offsetof(benchd_plugin_descriptor, implemented_profiles)
#define FIXTURE_ABI_MINOR 0
#elif defined(FIXTURE_ABI_2_1_LISTS_TLS)
/* A 2.1 plugin that lists "tls", which 2.1 had no certificate fields for. */
#define FIXTURE_DESCRIPTOR_SIZE sizeof(benchd_plugin_descriptor)
#define FIXTURE_ABI_MINOR 1
#else
#define FIXTURE_DESCRIPTOR_SIZE sizeof(benchd_plugin_descriptor)
#define FIXTURE_ABI_MINOR BENCHD_ABI_MINOR
#endif

#if defined(FIXTURE_TOO_MANY_PROFILES)
static const char* const fixtureProfiles[65] = {"no-keep-alive"};
#define FIXTURE_PROFILE_COUNT 65
#elif defined(FIXTURE_NULL_PROFILES)
static const char* const* const fixtureProfiles = NULL;
#define FIXTURE_PROFILE_COUNT 1
#elif defined(FIXTURE_PROFILES_LEFT_NULL)
/* A 2.0 plugin's source rebuilt against the 2.1 header: the new fields stay zero. */
static const char* const* const fixtureProfiles = NULL;
#define FIXTURE_PROFILE_COUNT 0
#elif defined(FIXTURE_ABI_2_1_LISTS_TLS)
static const char* const fixtureProfiles[] = {"no-keep-alive", "tls"};
#define FIXTURE_PROFILE_COUNT 2
#elif defined(FIXTURE_NO_PROFILES)
/* A 2.1 plugin that implements none of the optional profiles: a list, empty. */
static const char* const fixtureProfiles[1] = {NULL};
#define FIXTURE_PROFILE_COUNT 0
#else
static const char* const fixtureProfiles[] = {"no-keep-alive"};
#define FIXTURE_PROFILE_COUNT 1
#endif

#if defined(FIXTURE_UNKNOWN_CONTRACT_EXCEPTION)
/* A bit this host does not know, as a plugin from a newer SDK might set. */
#define FIXTURE_CONTRACT_EXCEPTIONS 0x80u
#elif defined(FIXTURE_DECLARES_STACK_FRAMING)
#define FIXTURE_CONTRACT_EXCEPTIONS BENCHD_CONTRACT_EXCEPTION_STACK_FRAMING
#else
#define FIXTURE_CONTRACT_EXCEPTIONS 0u
#endif

static const benchd_plugin_descriptor descriptor = {
    FIXTURE_DESCRIPTOR_SIZE,
    BENCHD_ABI_MAJOR,
    FIXTURE_ABI_MINOR,
#if defined(FIXTURE_LONG_NAME)
    THREE_HUNDRED_A,
#elif defined(FIXTURE_BAD_NAME_CHARS)
    "Fixture_1", /* upper case and '_' are not in a-z, 0-9 and '-' */
#else
    "fixture",
#endif
#if defined(FIXTURE_LONG_VERSION)
    THREE_HUNDRED_A,
#else
    "1",
#endif
#if defined(FIXTURE_LONG_DESCRIPTION)
    THOUSAND_A THOUSAND_A THOUSAND_A THOUSAND_A THOUSAND_A,
#else
    "a plugin that breaks one rule",
#endif
    BENCHD_MODEL_OTHER,
    "none",
    &fixtureCreate,
    &fixtureStart,
    &fixtureBoundPort,
    &fixtureStats,
#if defined(FIXTURE_MISSING_STOP)
    NULL,
#else
    &fixtureStop,
#endif
    &fixtureDestroy,
    fixtureProfiles,
    FIXTURE_PROFILE_COUNT,
    FIXTURE_CONTRACT_EXCEPTIONS};

/* The ABI's C name. */
/* NOLINTNEXTLINE(readability-identifier-naming) */
BENCHD_PLUGIN_EXPORT const benchd_plugin_descriptor* benchd_plugin_entry(void) {
  return &descriptor;
}
