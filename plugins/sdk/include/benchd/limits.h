/*
 * benchd plugin limits: the bounds every approach plugin applies to what it serves, defined
 * once, for C and C++.
 *
 * These macros are the one definition. The C++ SDK's constants (benchd/sdk/limits.hpp,
 * namespace benchd::sdk) are made from them, and plugins/sdk/CONTRACT.md states the rules that
 * use them ("Limits"). A plugin written in C includes this header beside benchd/plugin.h; it
 * is not part of the binary interface (plugin.h): a limit can change without an ABI version.
 *
 * Every value is a plain integer constant, usable in #if and in static assertions, and holds
 * in a 32-bit int. Sizes are in bytes; times are in milliseconds. Each value says why it has
 * it. The #error checks at the end hold the set coherent; limits.hpp adds the checks that need
 * C++.
 *
 * C99 and later, and C++; includes nothing.
 */
#ifndef BENCHD_LIMITS_H
#define BENCHD_LIMITS_H

/* ---- Request parameters --------------------------------------------------------------- */

/* Largest delayCallDepth (larger: 400). Bounds the recursion of nested calls: each level holds
 * one inbound and one upstream connection of the same server, so a typo cannot exhaust it. */
#define BENCHD_MAX_DELAY_CALL_DEPTH 64

/* Largest delayInMillis, 1 h (larger: 400). Long enough for any benchmark's slow-backend
 * model, short enough that a typo cannot park a connection for days. */
#define BENCHD_MAX_DELAY_MILLIS 3600000

/* Largest request body, 1 MiB (larger: 413). A movie document is a few hundred bytes, and a
 * bound keeps a hostile client from making the server buffer without limit. */
#define BENCHD_MAX_REQUEST_BODY_BYTES 1048576

/* Largest request header section, 8 KiB: the request line and the header fields with their
 * line ends and the empty line that ends them (larger: 400). Boost.Beast's default, which the
 * Asio plugins always had, held to every plugin. The service's requests need a few hundred
 * bytes. */
#define BENCHD_MAX_REQUEST_HEADER_BYTES 8192

/* The most bytes of one request a plugin holds before it has parsed them, 16 KiB: the header
 * section, a chunk-size line with its extensions, or the trailer section after the last chunk
 * (body bytes are parsed as they arrive and do not count). More: 400, or the connection is
 * closed; the plugin keeps serving. Twice the header limit, so a full header section and the
 * start of a pipelined request fit. A bound is needed beyond the header limit because a
 * trailer section is not a header: without one, a client could make the server buffer an
 * unbounded trailer, and a trailer field of 64 KiB or more made Boost.Beast's field storage
 * throw out of the read handler, which ended the worker process. */
#define BENCHD_MAX_UNPARSED_REQUEST_BYTES 16384

/* The longest chunk-size line (size, extensions and CRLF) every plugin must read, 4 KiB; a
 * plugin may refuse a longer one with 400 and end the connection, and must refuse one over
 * BENCHD_MAX_UNPARSED_REQUEST_BYTES. Trailer sections must be read up to
 * BENCHD_MAX_REQUEST_HEADER_BYTES in total (a header section's bound). */
#define BENCHD_MIN_CHUNK_LINE_BYTES 4096

/* ---- Inbound connections -------------------------------------------------------------- */

/* Waiting for the first byte of a request on an idle keep-alive connection, reading a body
 * (in total), and each write time out after this: the original service's 60 s client and
 * server timeouts. */
#define BENCHD_IO_TIMEOUT_MILLIS 60000

/* A request header must arrive within this, counted from its first byte and in total over
 * every read. A total rather than a timeout per read, because a timeout per read lets a client
 * that sends one byte every 50 s hold a connection (and, for a thread-per-connection server, a
 * thread) forever. Every real client sends its header in one write; 20 s covers a congested
 * link or a loaded client many times over and still frees a slot held by a trickling client
 * quickly. The option header_deadline_ms shortens it (for tests). */
#define BENCHD_HEADER_DEADLINE_MILLIS 20000

/* After an answer that ends a connection, unread input is read and dropped for at most this
 * long, so the close does not reset the connection before the client has read the answer. */
#define BENCHD_DISCARD_TIMEOUT_MILLIS 2000

/* How long the listener waits before accepting again after the process ran out of descriptors
 * (EMFILE, ENFILE) or kernel memory (ENOBUFS, ENOMEM). Accepting again at once fails again at
 * once: the pending connection stays in the backlog, so the listener stays readable and the
 * accepting thread would spin at 100 % of a core. 50 ms costs nothing and is short enough that
 * a freed descriptor is used at once by human standards; the waiting connections are not
 * lost. */
#define BENCHD_ACCEPT_BACKOFF_MILLIS 50

/* ---- Nested calls (upstream connections to the server's own endpoint) ----------------- */

/* Connecting to the server's own endpoint for a nested call: the original's 20 s. */
#define BENCHD_CONNECT_TIMEOUT_MILLIS 20000

/* Upper bound on upstream connections per server (one worker), like the original's client
 * pool. A nested call that finds none left fails (502). */
#define BENCHD_UPSTREAM_POOL_CAPACITY 65000

/* What a nested call may take beyond the delay it forwards: the callee's own work and its
 * queueing under load. Its answer timeout is the forwarded delayInMillis plus this margin, so
 * the longest allowed delay never ends in a 502. 60 s, the original's client timeout, which
 * the nested call had as its whole budget before the timeout grew with the delay. The option
 * upstream_margin_ms shortens it (for tests). */
#define BENCHD_UPSTREAM_RESPONSE_MARGIN_MILLIS 60000

/* An idle pooled upstream connection is closed after this. Below BENCHD_IO_TIMEOUT_MILLIS,
 * after which the server closes an idle keep-alive connection itself: the client retires its
 * connections first, so none is left half-closed (CLOSE_WAIT) holding a descriptor, and a
 * connection handed out is unlikely to be closed by the server while the request is on its
 * way. The option upstream_idle_ms shortens it (for tests). */
#define BENCHD_UPSTREAM_IDLE_TIMEOUT_MILLIS 30000

/* How often a pool closes expired idle connections when nobody takes any (after a burst, or
 * when nested calls stop altogether). A connection lives at most
 * BENCHD_UPSTREAM_IDLE_TIMEOUT_MILLIS + BENCHD_UPSTREAM_IDLE_SWEEP_INTERVAL_MILLIS idle, still
 * below BENCHD_IO_TIMEOUT_MILLIS. */
#define BENCHD_UPSTREAM_IDLE_SWEEP_INTERVAL_MILLIS 5000

/* ---- The database of the `postgres` profile (ABI 2.1) ----------------------------------- */

/* How long a request may spend on the database: waiting for a free session of the pool and
 * then for its statement, in total. Beyond it the request is answered 503 and a statement
 * still running is abandoned (its connection is dropped), so neither a scarce pool nor a
 * stuck server holds requests forever. The option db_deadline_ms shortens it (for tests). */
#define BENCHD_DATABASE_DEADLINE_MILLIS 10000

/* ---- Coherence ------------------------------------------------------------------------ */

#if BENCHD_UPSTREAM_IDLE_TIMEOUT_MILLIS + BENCHD_UPSTREAM_IDLE_SWEEP_INTERVAL_MILLIS >= \
    BENCHD_IO_TIMEOUT_MILLIS
#error "pooled upstream connections must be retired before the server closes them as idle"
#endif
#if BENCHD_MAX_UNPARSED_REQUEST_BYTES < 2 * BENCHD_MAX_REQUEST_HEADER_BYTES
#error "a full header section and the start of the next request must fit unparsed"
#endif
#if BENCHD_UPSTREAM_RESPONSE_MARGIN_MILLIS <= 0
#error "a nested call must outwait the longest delay it may forward"
#endif

#endif /* BENCHD_LIMITS_H */
