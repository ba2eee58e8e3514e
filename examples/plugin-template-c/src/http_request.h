/* SPDX-License-Identifier: MIT-0 */
/*
 * Reading HTTP/1.1 requests: the framing rules of CONTRACT.md section 7 ("Connections and HTTP
 * framing"), which every plugin must apply as Boost.Beast's parser does. Pure functions over
 * bytes already received: plugin.c reads the socket and calls them again with more bytes
 * whenever they ask for more. Thread-safe (no shared state).
 */
#ifndef TEMPLATE_C_HTTP_REQUEST_H
#define TEMPLATE_C_HTTP_REQUEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A growable byte buffer. */
typedef struct buffer {
  char* data;
  size_t size;
  size_t capacity;
} buffer;

/* Appends `size` bytes; false when memory ran out (the buffer is unchanged). */
bool buffer_append(buffer* to, const void* data, size_t size);
void buffer_free(buffer* freed);

typedef enum body_framing {
  BODY_NONE = 1, /* neither Content-Length nor chunked: no body */
  BODY_LENGTH,   /* Content-Length bytes */
  BODY_CHUNKED   /* Transfer-Encoding: chunked */
} body_framing;

/* The header section of a request as http_parse_head() read it. Offsets point into the bytes
 * it was given. */
typedef struct http_head {
  size_t method_at, method_size;
  size_t target_at, target_size;
  int version; /* 10 or 11 */
  bool keep_alive;
  body_framing framing;
  uint64_t content_length; /* BODY_LENGTH only */
  /* Reading state, for the field lines: */
  bool has_length, has_transfer_encoding, has_connection, connection_close, connection_keep_alive;
} http_head;

/* Parses the header section at the start of data[0, size).
 * Returns the size of the header section (its empty line included) once it is complete and
 * valid; 0 when more bytes are needed; -400 when it breaks a rule (malformed, or larger than
 * BENCHD_MAX_REQUEST_HEADER_BYTES), -413 when it declares a body over
 * BENCHD_MAX_REQUEST_BODY_BYTES. Errors in complete lines are found before the section ends.
 * Every error ends the connection. */
long http_parse_head(const char* data, size_t size, http_head* head);

/* The state of a chunked body being decoded. Zero-initialise it before the first call. */
typedef struct http_chunks {
  int state;
  uint64_t chunk_left;  /* bytes of the current chunk still to come */
  uint64_t body_size;   /* bytes decoded so far */
  size_t trailer_bytes; /* bytes of trailer fields so far */
  bool done;            /* the last chunk and the trailer were read */
} http_chunks;

/* Decodes what it can of a chunked body from data[0, size), appending the chunk data to
 * `body`. Returns the number of bytes consumed; *status is 0 while all is well (check
 * chunks->done), 400 for broken framing, 413 when the body would exceed
 * BENCHD_MAX_REQUEST_BODY_BYTES, 500 when memory ran out. */
size_t http_decode_chunks(http_chunks* chunks, const char* data, size_t size, buffer* body,
                          int* status);

#endif /* TEMPLATE_C_HTTP_REQUEST_H */
