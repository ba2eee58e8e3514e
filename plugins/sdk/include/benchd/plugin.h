/*
 * benchd plugin ABI.
 *
 * A plugin is a shared library that serves the benchmark microservice in one concurrency
 * style. The host (benchd-worker) loads it with dlopen, looks up one entry symbol and talks to
 * it only through the plain C structs below, so a plugin can be written in any language that
 * can export a C function, and it never links against benchd.
 *
 * Compatibility rules
 *   - Every struct that crosses the boundary starts with `struct_size`, set by whoever fills
 *     the struct to sizeof() as that side compiled it. Structs only ever grow at their end; a
 *     reader must not touch a field that lies beyond the `struct_size` it was handed.
 *   - An array of structs (benchd_server_config.options) is read by stride: every element has
 *     the same struct_size, and element i starts i * struct_size bytes after element 0, so the
 *     elements of a newer writer stay readable by an older reader.
 *   - The host refuses a plugin built for another ABI major version, or for a newer minor
 *     version than the host's. A minor bump only appends fields or functions.
 *   - Zero is never a valid value of an enum, so a zero-filled struct is always detectably
 *     incomplete.
 *   - Errors cross as a status code plus a message written into a caller-owned buffer, never
 *     as C++ exceptions. Plugin code must catch everything before returning to the host.
 *   - Memory is freed on the side that allocated it. Strings handed across are valid only for
 *     the duration of the call unless a function says otherwise.
 *   - Strings a plugin hands the host are NUL-terminated within a bound (the NUL counts), and
 *     the host never reads past it: BENCHD_MAX_NAME_SIZE for names (plugin name, version,
 *     io_stack, counter names), BENCHD_MAX_MESSAGE_SIZE for the description and log messages,
 *     and for benchd_error the bound it states. See each field for what happens to a string
 *     that is not.
 *   - The host never dlcloses a plugin.
 *
 * The host process (benchd-worker), before it loads the plugin to serve: ignores SIGPIPE, so a
 * write to a closed socket fails with EPIPE instead of killing the process; blocks SIGTERM and
 * SIGINT, so every thread the plugin starts inherits them blocked and only the host consumes
 * them (a plugin must not unblock them or install handlers for them); raises the soft limit of
 * open files to the hard limit.
 *
 * This header is the binary interface only. What the plugin serves (endpoints, answers,
 * framing, stopping, counters) is in plugins/sdk/CONTRACT.md, and the limits it applies
 * (delay bounds, body and header sizes, timeouts) are the macros of benchd/limits.h, which a
 * plugin includes beside this one.
 *
 * Lifecycle (all calls below come from one host thread, in this order):
 *   benchd_plugin_entry() -> create() -> start() -> bound_port() / stats() (repeatedly)
 *   -> stop() -> destroy().
 * stats() may also be called between create() and start() and after stop().
 */
#ifndef BENCHD_PLUGIN_H
#define BENCHD_PLUGIN_H

/* A C header: C++ modernisation and C++ naming rules do not apply. */
/* NOLINTBEGIN(modernize-*,readability-identifier-naming) */
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ABI history:
 *   1.0  first version.
 *   2.0  benchd_option starts with struct_size (an incompatible layout change, hence a new
 *        major); string bounds (BENCHD_MAX_*_SIZE); bound_port() may not fail.
 *   2.1  the database of the `postgres` profile: benchd_host_api's db_* functions, which run
 *        a query without waiting themselves, BENCHD_ERR_UNAVAILABLE, and the descriptor's
 *        implemented_profiles. A 2.0 plugin keeps loading; rows with `postgres` fail for it
 *        with "plugin X does not implement postgres".
 *   2.2  TLS: benchd_server_config's tls_certificate_file and tls_private_key_file, set for a
 *        row with the `tls` profile. A 2.1 plugin keeps loading; the host refuses `tls` for it
 *        (benchd-worker exits 3) even if it lists the name. Later appended: the descriptor's
 *        contract_exceptions, read only when struct_size reaches it (an earlier 2.2 plugin
 *        declares none). */
#define BENCHD_ABI_MAJOR 2
#define BENCHD_ABI_MINOR 2

/* Bounds, in bytes including the terminating NUL, on the strings a plugin hands the host. */
#define BENCHD_MAX_NAME_SIZE 256     /* name, version, io_stack, counter names */
#define BENCHD_MAX_MESSAGE_SIZE 4096 /* description, log messages */

/* The one symbol the host looks up. */
#define BENCHD_PLUGIN_ENTRY_SYMBOL "benchd_plugin_entry"

#if defined(__GNUC__)
#define BENCHD_PLUGIN_EXPORT __attribute__((visibility("default")))
#else
#define BENCHD_PLUGIN_EXPORT
#endif

/* Outcome of a call. BENCHD_OK is 1, not 0: zero is never a valid enum value. */
typedef enum benchd_status {
  BENCHD_OK = 1,
  BENCHD_ERR_INVALID_ARGUMENT = 2, /* bad config, bad request body, unknown id ... */
  BENCHD_ERR_ADDRESS_IN_USE = 3,   /* the requested port is taken */
  BENCHD_ERR_IO = 4,               /* other socket or file errors */
  BENCHD_ERR_STATE = 5,            /* call out of lifecycle order */
  BENCHD_ERR_INTERNAL = 6,         /* anything else; the message says what */
  BENCHD_ERR_TIMEOUT = 7,          /* stop() gave up waiting for in-flight requests */
  BENCHD_ERR_UNAVAILABLE = 8       /* 2.1: the database cannot be reached now (answer 503) */
} benchd_status;

/* How the plugin runs its request handlers. Reported in results; the host does not branch
 * on it. */
typedef enum benchd_concurrency_model {
  BENCHD_MODEL_OS_THREADS = 1,    /* one OS thread per request or connection, blocking I/O */
  BENCHD_MODEL_GREEN_THREADS = 2, /* user-space threads (fibers) written in blocking style */
  BENCHD_MODEL_CALLBACKS = 3,     /* event loop with completion handlers */
  BENCHD_MODEL_COROUTINES = 4,    /* event loop with stackless coroutines */
  BENCHD_MODEL_OTHER = 5
} benchd_concurrency_model;

typedef enum benchd_log_level {
  BENCHD_LOG_DEBUG = 1,
  BENCHD_LOG_INFO = 2,
  BENCHD_LOG_WARNING = 3,
  BENCHD_LOG_ERROR = 4
} benchd_log_level;

/* Error details, owned by the caller, who sets struct_size to sizeof(benchd_error). Whenever
 * it returns something other than BENCHD_OK, the callee writes a NUL-terminated message of at
 * most min(sizeof(message), struct_size - offsetof(benchd_error, message)) bytes, NUL
 * included (truncating if needed), and nothing when struct_size does not reach message. The
 * reader never reads past that bound: a message that lacks the NUL is taken as its bytes up to
 * it. LP64: 520 bytes. */
typedef struct benchd_error {
  size_t struct_size;
  char message[512];
} benchd_error;

/* Receives bytes produced by the host. `data` is valid only during the call; copy what you
 * need. Called at most once per host call unless stated otherwise. */
typedef void (*benchd_byte_sink)(void* sink_context, const char* data, size_t size);

/* Receives one named counter from stats(). `name` is valid only during the call, must not be
 * NULL or empty and must be NUL-terminated within BENCHD_MAX_NAME_SIZE bytes. The host skips a
 * counter whose name is not, reports the problem once on its stderr as a warning naming it,
 * and keeps serving: a bad statistic never stops a benchmark. */
typedef void (*benchd_counter_sink)(void* sink_context, const char* name, int64_t value);

/* 2.1: one connection to the database of the `postgres` profile, owned by the host, which
 * carries one operation at a time. Opaque. */
typedef struct benchd_db_session benchd_db_session;

/* 2.1: what a database operation waits for before db_continue() can make progress. */
typedef enum benchd_db_wait {
  BENCHD_DB_DONE = 1,     /* finished: collect the outcome with db_finish() */
  BENCHD_DB_READABLE = 2, /* call db_continue() once `socket` is readable */
  BENCHD_DB_WRITABLE = 3  /* call db_continue() once `socket` is writable */
} benchd_db_wait;

/* 2.1: the state of a database operation, filled by the host (the caller sets struct_size).
 * LP64: 24 bytes. */
typedef struct benchd_db_step {
  size_t struct_size;
  benchd_db_wait wait;
  /* The descriptor to wait on unless done. The host's: never close it; registering a dup()
   * of it with an event loop is the safe way. */
  int socket;
  /* Changes whenever `socket` may be another socket than at the previous step (while the
   * session connects): register the descriptor again when it changes. */
  uint64_t socket_serial;
} benchd_db_step;

/*
 * The microservice core, owned by the host and identical for every plugin. The plugin owns
 * transport and concurrency; these functions own the business logic.
 *
 * Thread-safety: every function may be called from any plugin thread at any time between
 * create() and the return of stop(), concurrently. None of them blocks on I/O; they may take
 * short internal locks. `host_context` must be passed back unchanged.
 * The table stays valid until destroy() returns. LP64: 56 bytes (2.0), 128 bytes (2.1).
 */
typedef struct benchd_host_api {
  size_t struct_size;
  void* host_context;

  /* Current wall-clock time in milliseconds since the Unix epoch. */
  int64_t (*epoch_millis)(void* host_context);

  /* Writes the compact JSON array of movies whose director has this last name (possibly
   * "[]") to `sink`, exactly once on success. Served from the host's cache unless the
   * no-cache profile is active. */
  benchd_status (*movies_by_director)(void* host_context, const char* last_name,
                                      size_t last_name_size, benchd_byte_sink sink,
                                      void* sink_context, benchd_error* error);

  /* Saves a JSON array of movies (the POST body) and writes the JSON answer to `sink`: the
   * input re-serialised when the repository is read-only (the default), the stored movies
   * with their new ids under the read-write profile. A body that is not such an array yields
   * BENCHD_ERR_INVALID_ARGUMENT with the reason; the plugin answers 400. */
  benchd_status (*save_movies)(void* host_context, const char* body, size_t body_size,
                               benchd_byte_sink sink, void* sink_context, benchd_error* error);

  /* Deletes a movie by id (read-write profile); a no-op when read-only or when the id does
   * not exist. */
  benchd_status (*delete_movie)(void* host_context, int64_t movie_id, benchd_error* error);

  /* Writes one log line on the host's log. Cheap enough for errors, too slow for every
   * request. The host writes at most BENCHD_MAX_MESSAGE_SIZE - 1 bytes of `message` (and says
   * when it cut it); a NULL message is logged as such. */
  void (*log)(void* host_context, benchd_log_level level, const char* message, size_t message_size);

  /* ---- 2.1: the database of the `postgres` profile ----
   * Present when struct_size reaches them. Under the `postgres` profile the movies live in
   * PostgreSQL and the plugin answers /movies through these functions instead of the three
   * above; the host keeps the SQL, the row mapping, the cache, the read-only rule and the JSON,
   * so answers equal the other rows' byte for byte. None of them waits: each returns what the
   * operation waits for next, and the plugin waits for that in its own way (a blocked thread
   * in poll(), its event loop, a suspended fiber or coroutine), then calls db_continue().
   *
   * Sessions and the pool: the plugin opens at most db_pool_size() sessions and lends them to
   * its requests, one operation per session at a time; a request that finds none free queues
   * in the plugin's own way. Thread-safety: a session is used by one thread at a time; the
   * functions may be called for different sessions concurrently. */

  /* The number of sessions every plugin gets (the same for all, set by the run); 0 when the
   * row has no `postgres` profile. */
  uint32_t (*db_pool_size)(void* host_context);

  /* A new session; no I/O (it connects during its first operation, without waiting).
   * Fails with BENCHD_ERR_STATE when db_pool_size() sessions are open. */
  benchd_status (*db_open)(void* host_context, benchd_db_session** session, benchd_error* error);

  /* Closes a session and its connection; an operation still running is abandoned. */
  void (*db_close)(benchd_db_session* session);

  /* Start an operation on an idle session and fill `step`. A cached answer or a read-only
   * save finishes at once (BENCHD_DB_DONE). db_begin_save_movies refuses a body that is not a
   * JSON array of movies with BENCHD_ERR_INVALID_ARGUMENT (answer 400) and nothing started. */
  benchd_status (*db_begin_movies_by_director)(benchd_db_session* session, const char* last_name,
                                               size_t last_name_size, benchd_db_step* step,
                                               benchd_error* error);
  benchd_status (*db_begin_save_movies)(benchd_db_session* session, const char* body,
                                        size_t body_size, benchd_db_step* step,
                                        benchd_error* error);
  benchd_status (*db_begin_delete_movie)(benchd_db_session* session, int64_t movie_id,
                                         benchd_db_step* step, benchd_error* error);

  /* Makes progress once the socket is as `step` asked, and fills `step` again. A call before
   * that is harmless. */
  benchd_status (*db_continue)(benchd_db_session* session, benchd_db_step* step,
                               benchd_error* error);

  /* After BENCHD_DB_DONE: writes the answer to `sink` exactly once and returns BENCHD_OK (a
   * delete writes nothing), or returns BENCHD_ERR_UNAVAILABLE (the database cannot be reached:
   * answer 503) or BENCHD_ERR_IO (the database refused the statement: answer 500) with
   * PostgreSQL's message. The session is idle again either way. */
  benchd_status (*db_finish)(benchd_db_session* session, benchd_byte_sink sink, void* sink_context,
                             benchd_error* error);

  /* Gives up the running operation (its request's deadline passed or its client left): the
   * session drops its connection and is idle; its next operation connects again. */
  void (*db_abandon)(benchd_db_session* session);
} benchd_host_api;

/* A free-form key=value setting from the worker's command line (e.g. max_threads=5000).
 * Handed over as an array read by stride (see the compatibility rules). LP64: 24 bytes. */
typedef struct benchd_option {
  size_t struct_size;
  const char* key;   /* never NULL */
  const char* value; /* never NULL */
} benchd_option;

/* Settings for create(). All pointers are valid only during create(); copy what you keep.
 * LP64: 56 bytes (2.0), 72 bytes (2.2). */
typedef struct benchd_server_config {
  size_t struct_size;
  const char* bind_address; /* numeric IPv4 or IPv6 address, e.g. "127.0.0.1" */
  uint16_t port;            /* 0 asks for an ephemeral port; see bound_port() */
  uint32_t threads;         /* 1 to 1024 (--threads); what it counts: CONTRACT.md section 1 */
  /* Server profiles in effect, e.g. "no-keep-alive". Plugins ignore profiles they do not
   * know; the host's core handles "no-cache" and "read-write" itself. */
  const char* const* profiles;
  size_t profile_count;
  /* Plugin-specific settings (--option KEY=VALUE), in command-line order; a key may repeat.
   * create() refuses a key it does not know, or a value it cannot use, with
   * BENCHD_ERR_INVALID_ARGUMENT and a message naming the key. */
  const benchd_option* options;
  size_t option_count;

  /* ---- 2.2: TLS ----
   * Under the `tls` profile (HTTP/1.1 over TLS on the one listening port; CONTRACT.md,
   * "TLS"): the PEM files of the server's certificate (chain) and private key, which the
   * plugin loads in create(). NULL otherwise. The host made them for this run. */
  const char* tls_certificate_file;
  const char* tls_private_key_file;
} benchd_server_config;

/* 2.2 (appended): the contract exceptions a plugin may declare in its descriptor's
 * contract_exceptions, for what its HTTP stack decides and the plugin cannot change
 * (plugins/sdk/CONTRACT.md, "Contract exceptions"). `benchd verify-plugin` reports the rules
 * they cover as deviations the plugin declared, not as failures. */
/* The stack frames requests itself: to malformed or conflicting framing, an oversized head or a
 * hostile request it gives its own status and body, or closes, and it may read a body to its
 * end before it answers that the body is over the limit. */
#define BENCHD_CONTRACT_EXCEPTION_STACK_FRAMING 0x1u
/* The stack's header timeout is an idle timeout between reads, not a total from the first
 * byte: a client that trickles its header holds its connection. */
#define BENCHD_CONTRACT_EXCEPTION_IDLE_HEADER_TIMEOUT 0x2u
/* Every bit defined above. */
#define BENCHD_CONTRACT_EXCEPTIONS_KNOWN 0x3u

/* Opaque server instance owned by the plugin. */
typedef struct benchd_server benchd_server;

/* LP64: 104 bytes (2.0), 120 bytes (2.1), 128 bytes (2.2 with contract_exceptions). */
typedef struct benchd_plugin_descriptor {
  size_t struct_size;
  uint32_t abi_major; /* BENCHD_ABI_MAJOR the plugin was built with */
  uint32_t abi_minor; /* BENCHD_ABI_MINOR the plugin was built with */

  /* Static NUL-terminated strings that live as long as the library. `name` is also the first
   * path segment of the plugin's endpoints: 1 to 64 lower case letters, digits and '-'.
   * `name`, `version` and `io_stack` must end within BENCHD_MAX_NAME_SIZE bytes,
   * `description` within BENCHD_MAX_MESSAGE_SIZE; `version`, `description` and `io_stack` may
   * be NULL (read as empty). The host refuses a plugin whose strings break these rules, with a
   * message naming the field (benchd-worker exits 3). */
  const char* name;
  const char* version;
  const char* description;
  benchd_concurrency_model concurrency_model;
  const char* io_stack; /* e.g. "Boost.Asio 1.81 + Beast" */

  /* Validates the config and prepares a server; must not accept connections yet. On success
   * stores a new instance in *server, which the host later passes to destroy(). `host` stays
   * valid until destroy() returns. Fails with BENCHD_ERR_INVALID_ARGUMENT for a config it
   * refuses (unknown option, bad value: benchd-worker exits 2, "bad plugin options"); any
   * other failure means the server could not be set up (benchd-worker exits 4). */
  benchd_status (*create)(const benchd_host_api* host, const benchd_server_config* config,
                          benchd_server** server, benchd_error* error);

  /* Binds, listens and starts serving on the plugin's own threads, then returns without
   * blocking. Fails with BENCHD_ERR_ADDRESS_IN_USE when the port is taken. */
  benchd_status (*start)(benchd_server* server, benchd_error* error);

  /* The port actually bound; valid after a successful start(). Cannot fail (it must not
   * throw); returns 0 when the port is unknown, which the host treats as a failed start. */
  uint16_t (*bound_port)(const benchd_server* server);

  /* Reports the plugin's counters, one sink call each, e.g. "requests_in_flight",
   * "upstream_calls", "live_fibers". Names are lower snake case, stable across calls and
   * bounded as benchd_counter_sink says.
   * May be called from the host thread while request threads run; values may be slightly
   * stale. */
  benchd_status (*stats)(benchd_server* server, benchd_counter_sink sink, void* sink_context,
                         benchd_error* error);

  /* Graceful stop (a drain). From the call on the plugin takes up no new request: it may close
   * idle keep-alive connections at once and serves no further request on a connection after
   * the current one. Every request already read (in flight) is finished and answered, with
   * "Connection: close".
   * The listening socket stays open until those requests are done, because a request in
   * flight may still connect to this same server for its nested call. Nothing marks a nested
   * request, and the plugin need not tell one from a new request: a connection accepted during
   * the drain may be closed unanswered or have its requests answered with "Connection: close".
   * A nested request the server had already read when stop() was called is in flight and
   * finishes; one sent later may fail, and its caller answers 502.
   * Once nothing is in flight, or after `timeout_millis`, the plugin closes the listener and
   * every connection, ends every wait (a sleeping request must not outlast the timeout) and
   * joins every thread it started, then returns BENCHD_OK, or BENCHD_ERR_TIMEOUT when requests
   * were cut off (benchd-worker exits 5). The threads are joined either way. See
   * plugins/sdk/CONTRACT.md, "Stopping". */
  benchd_status (*stop)(benchd_server* server, uint32_t timeout_millis, benchd_error* error);

  /* Frees the instance. Called once, after stop() or instead of start() when start() failed. */
  void (*destroy)(benchd_server* server);

  /* 2.1: the server profiles the plugin implements itself, beyond the core's "no-cache" and
   * "read-write": e.g. "no-keep-alive", "postgres". Static strings, bounded like `name`. The
   * host refuses to run a row whose profile the plugin does not list ("plugin X does not
   * implement postgres"). NULL (with a count of 0) means what ABI 2.0 meant: "no-keep-alive",
   * nothing else; so does a 2.0 plugin. A plugin that implements none of them points at a list
   * and gives the count 0. */
  const char* const* implemented_profiles;
  size_t implemented_profile_count;

  /* 2.2 (appended): the BENCHD_CONTRACT_EXCEPTION_* bits the plugin declares, 0 for none. The
   * host reads it when struct_size reaches it and refuses bits it does not know (benchd-worker
   * exits 3). */
  uint64_t contract_exceptions;
} benchd_plugin_descriptor;

/* The entry symbol every plugin exports. Returns a pointer to a static descriptor; may be
 * called more than once and from any thread. */
typedef const benchd_plugin_descriptor* (*benchd_plugin_entry_fn)(void);

#ifdef __cplusplus
} /* extern "C" */
#endif

/* NOLINTEND(modernize-*,readability-identifier-naming) */
#endif /* BENCHD_PLUGIN_H */
