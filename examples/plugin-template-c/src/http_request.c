/* SPDX-License-Identifier: MIT-0 */
/* The HTTP/1.1 request framing of CONTRACT.md section 7. See http_request.h. */
#include "http_request.h"

#include <benchd/limits.h>

#include <stdlib.h>
#include <string.h>

/* A chunk-size line, and the trailer fields together, may be this long; longer is 400. The
 * contract asks to accept at least 4,096 and 8,192 bytes, and to refuse beyond
 * BENCHD_MAX_UNPARSED_REQUEST_BYTES. */
#define MAX_CHUNK_LINE_BYTES BENCHD_MAX_REQUEST_HEADER_BYTES

bool buffer_append(buffer* to, const void* data, size_t size) {
  if (to->capacity - to->size < size) {
    size_t capacity = to->capacity < 256 ? 256 : to->capacity;
    while (capacity - to->size < size)
      capacity *= 2;
    char* grown = realloc(to->data, capacity);
    if (grown == NULL)
      return false;
    to->data = grown;
    to->capacity = capacity;
  }
  if (size > 0)
    memcpy(to->data + to->size, data, size);
  to->size += size;
  return true;
}

void buffer_free(buffer* freed) {
  free(freed->data);
  *freed = (buffer){0};
}

/* ---- Characters (RFC 9110) ------------------------------------------------------------ */

/* tchar: the characters of a method, a field name, a chunk extension name. */
static bool is_token_char(unsigned char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         (c != 0 && strchr("!#$%&'*+-.^_`|~", c) != NULL);
}

/* A request target: visible ASCII and bytes >= 0x80, no blank, no control character. */
static bool is_target_char(unsigned char c) {
  return c > 0x20 && c != 0x7f;
}

/* A field value: visible ASCII, blanks, bytes >= 0x80; no control character but HTAB. */
static bool is_value_char(unsigned char c) {
  return c == '\t' || (c >= 0x20 && c != 0x7f);
}

/* The value of a hex digit, or -1. */
static int hex_value(char c) {
  if (c >= '0' && c <= '9')
    return c - '0';
  if ((c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'))
    return (c | 0x20) - 'a' + 10;
  return -1;
}

static bool is_blank(char c) {
  return c == ' ' || c == '\t';
}

/* Cuts blanks off both ends of [*text, *text + *size). */
static void trim(const char** text, size_t* size) {
  while (*size > 0 && is_blank(**text)) {
    ++*text;
    --*size;
  }
  while (*size > 0 && is_blank((*text)[*size - 1]))
    --*size;
}

/* Whether `text` is `word` (lower case) in any letter case, ASCII only. */
static bool equals_ignoring_case(const char* text, size_t size, const char* word) {
  if (size != strlen(word))
    return false;
  for (size_t i = 0; i < size; ++i) {
    const char c = text[i] >= 'A' && text[i] <= 'Z' ? (char)(text[i] + 32) : text[i];
    if (c != word[i])
      return false;
  }
  return true;
}

/* The next element of the comma-separated list at *list (NULL after the last), trimmed. */
static bool next_element(const char** list, const char* end, const char** element, size_t* size) {
  if (*list == NULL)
    return false;
  const char* comma = memchr(*list, ',', (size_t)(end - *list));
  *element = *list;
  *size = (size_t)((comma != NULL ? comma : end) - *list);
  trim(element, size);
  *list = comma != NULL ? comma + 1 : NULL;
  return true;
}

/* Decimal digits only, no sign, within 64 bits. */
static bool parse_decimal(const char* text, size_t size, uint64_t* value) {
  *value = 0;
  for (size_t i = 0; i < size; ++i) {
    const unsigned digit = (unsigned)(text[i] - '0');
    if (digit > 9 || *value > (UINT64_MAX - digit) / 10)
      return false;
    *value = *value * 10 + digit;
  }
  return size > 0;
}

/* ---- The header section --------------------------------------------------------------- */

/* `method SP target SP HTTP/1.x`: a token, a target without blanks, version 1.0 or 1.1. */
static bool parse_request_line(const char* line, size_t size, http_head* head) {
  size_t at = 0;
  while (at < size && is_token_char((unsigned char)line[at]))
    ++at;
  if (at == 0 || at == size || line[at] != ' ')
    return false;
  head->method_size = at;
  head->target_at = ++at;
  while (at < size && is_target_char((unsigned char)line[at]))
    ++at;
  if (at == head->target_at || at == size || line[at] != ' ')
    return false;
  head->target_size = at - head->target_at;
  ++at;
  if (size - at != 8 || memcmp(line + at, "HTTP/1.", 7) != 0 ||
      (line[at + 7] != '0' && line[at + 7] != '1'))
    return false;
  head->version = 10 + (line[at + 7] - '0');
  return true;
}

/* `name ":" OWS value OWS`: a token name right before the colon, a value of value characters.
 * Sets the name's size and the trimmed value. */
static bool parse_field_line(const char* line, size_t size, size_t* name_size, const char** value,
                             size_t* value_size) {
  size_t at = 0;
  while (at < size && is_token_char((unsigned char)line[at]))
    ++at;
  if (at == 0 || at == size || line[at] != ':')
    return false;
  *name_size = at;
  *value = line + at + 1;
  *value_size = size - at - 1;
  for (size_t i = 0; i < *value_size; ++i) {
    if (!is_value_char((unsigned char)(*value)[i]))
      return false;
  }
  trim(value, value_size);
  return true;
}

/* What a field means for the framing (RFC 9112 section 6), as Beast reads it: 0, or the
 * status of the refusal. */
static int apply_field(http_head* head, const char* name, size_t name_size, const char* value,
                       size_t value_size) {
  const char* end = value + value_size;
  const char* element;
  size_t size;
  if (equals_ignoring_case(name, name_size, "content-length")) {
    /* One or more equal decimal values (also over repeated fields); never beside
     * Transfer-Encoding. */
    if (head->has_transfer_encoding)
      return 400;
    while (next_element(&value, end, &element, &size)) {
      uint64_t length;
      if (!parse_decimal(element, size, &length) ||
          (head->has_length && length != head->content_length))
        return 400;
      head->content_length = length;
      head->has_length = true;
    }
    head->framing = BODY_LENGTH;
  } else if (equals_ignoring_case(name, name_size, "transfer-encoding")) {
    /* Chunked when "chunked" is the last coding (any case); other codings are not decoded
     * and leave the request without a body, as Beast does. */
    if (head->has_length || head->framing == BODY_CHUNKED)
      return 400;
    head->has_transfer_encoding = true;
    bool chunked_seen = false;
    bool last_is_chunked = false;
    while (next_element(&value, end, &element, &size)) {
      last_is_chunked = !chunked_seen && equals_ignoring_case(element, size, "chunked");
      chunked_seen = chunked_seen || equals_ignoring_case(element, size, "chunked");
    }
    if (last_is_chunked)
      head->framing = BODY_CHUNKED;
  } else if (equals_ignoring_case(name, name_size, "connection") && !head->has_connection) {
    head->has_connection = true; /* only the first Connection field counts */
    while (next_element(&value, end, &element, &size)) {
      head->connection_close |= equals_ignoring_case(element, size, "close");
      head->connection_keep_alive |= equals_ignoring_case(element, size, "keep-alive");
    }
  }
  return 0;
}

long http_parse_head(const char* data, size_t size, http_head* head) {
  *head = (http_head){.framing = BODY_NONE};
  /* The field being read: a field line may continue on lines that start with a blank
   * (obs-fold), so a field is applied when the next field line or the end begins. */
  char value[BENCHD_MAX_REQUEST_HEADER_BYTES];
  size_t value_size = 0;
  const char* name = NULL;
  size_t name_size = 0;
  size_t at = 0;
  for (;;) {
    const char* newline = memchr(data + at, '\n', size - at);
    if (newline == NULL)
      return size >= BENCHD_MAX_REQUEST_HEADER_BYTES ? -400 : 0;
    const size_t line_end = (size_t)(newline - data) + 1;
    if (line_end > BENCHD_MAX_REQUEST_HEADER_BYTES)
      return -400;
    if (line_end - at < 2 || newline[-1] != '\r')
      return -400; /* a line ended by LF alone */
    const char* line = data + at;
    size_t line_size = line_end - at - 2;
    at = line_end;

    if (head->version == 0) {
      if (!parse_request_line(line, line_size, head))
        return -400;
      continue;
    }
    if (line_size > 0 && is_blank(line[0])) { /* obs-fold: continues the field before */
      if (name == NULL)
        return -400;
      for (size_t i = 0; i < line_size; ++i) {
        if (!is_value_char((unsigned char)line[i]))
          return -400;
      }
      trim(&line, &line_size);
      if (line_size > 0 && value_size > 0)
        value[value_size++] = ' ';
      memcpy(value + value_size, line, line_size);
      value_size += line_size;
      continue;
    }
    if (name != NULL) {
      const int refused = apply_field(head, name, name_size, value, value_size);
      if (refused != 0)
        return -refused;
    }
    if (line_size == 0)
      break; /* the empty line: the header section is complete */
    const char* field_value;
    if (!parse_field_line(line, line_size, &name_size, &field_value, &value_size))
      return -400;
    name = line;
    memcpy(value, field_value, value_size);
  }
  if (head->framing == BODY_LENGTH && head->content_length > BENCHD_MAX_REQUEST_BODY_BYTES)
    return -413; /* refused from the header alone, without waiting for the body */
  head->keep_alive = head->version == 11 ? !head->connection_close : head->connection_keep_alive;
  return (long)at;
}

/* ---- Chunked bodies ------------------------------------------------------------------- */

enum { CHUNK_SIZE_LINE = 0, CHUNK_DATA, CHUNK_DATA_END, CHUNK_TRAILER };

/* Advances over blanks. */
static const char* skip_blanks(const char* at, const char* end) {
  while (at < end && is_blank(*at))
    ++at;
  return at;
}

/* Chunk extensions up to the end of the line, as Beast reads them:
 * *( BWS ";" BWS name [ BWS "=" BWS ( token / quoted-string ) ] ). */
static bool valid_extensions(const char* at, const char* end) {
  for (;;) {
    if (at == end)
      return true;
    at = skip_blanks(at, end); /* blanks only before a ';' */
    if (at == end || *at != ';')
      return false;
    do { /* one ";name[=value]" */
      at = skip_blanks(at + 1, end);
      if (at == end || !is_token_char((unsigned char)*at))
        return false;
      while (at < end && is_token_char((unsigned char)*at))
        ++at;
      const char* after_name = at;
      at = skip_blanks(at, end);
      if (at == end)
        return at == after_name; /* blanks before the end of the line are refused */
    } while (*at == ';');
    if (*at != '=')
      return false;
    at = skip_blanks(at + 1, end);
    if (at == end)
      return false;
    if (*at == '"') {
      for (++at; at < end && *at != '"'; ++at) {
        if (*at == '\\')
          ++at;
      }
      if (at >= end)
        return false;
      ++at;
    } else {
      if (!is_token_char((unsigned char)*at))
        return false;
      while (at < end && is_token_char((unsigned char)*at))
        ++at;
    }
  }
}

size_t http_decode_chunks(http_chunks* chunks, const char* data, size_t size, buffer* body,
                          int* status) {
  size_t at = 0;
  *status = 0;
  while (!chunks->done) {
    if (chunks->state == CHUNK_DATA) {
      size_t take = size - at;
      if (take > chunks->chunk_left)
        take = (size_t)chunks->chunk_left;
      if (take == 0)
        return at;
      if (!buffer_append(body, data + at, take)) {
        *status = 500;
        return at;
      }
      at += take;
      chunks->chunk_left -= take;
      if (chunks->chunk_left == 0)
        chunks->state = CHUNK_DATA_END;
      continue;
    }
    if (chunks->state == CHUNK_DATA_END) { /* the CRLF after the data */
      if (size - at < 2)
        return at;
      if (data[at] != '\r' || data[at + 1] != '\n') {
        *status = 400;
        return at;
      }
      at += 2;
      chunks->state = CHUNK_SIZE_LINE;
      continue;
    }
    /* A line: a chunk size, or a trailer field. */
    const char* newline = memchr(data + at, '\n', size - at);
    if (newline == NULL) {
      if (size - at >= MAX_CHUNK_LINE_BYTES)
        *status = 400;
      return at;
    }
    const char* line = data + at;
    const char* line_end = newline - 1; /* the CR */
    if (newline == line || *line_end != '\r' || line_end - line > MAX_CHUNK_LINE_BYTES) {
      *status = 400;
      return at;
    }
    at = (size_t)(newline - data) + 1;
    if (chunks->state == CHUNK_SIZE_LINE) {
      /* 1*HEXDIG (leading zeros fine, 64 bits at most), extensions, CRLF. */
      uint64_t chunk_size = 0;
      const char* digit = line;
      for (; digit < line_end && hex_value(*digit) >= 0; ++digit) {
        if (chunk_size > UINT64_MAX / 16) {
          *status = 400;
          return at;
        }
        chunk_size = chunk_size * 16 + (uint64_t)hex_value(*digit);
      }
      if (digit == line) {
        *status = 400;
        return at;
      }
      if (chunk_size > BENCHD_MAX_REQUEST_BODY_BYTES - chunks->body_size) {
        *status = 413;
        return at;
      }
      if (!valid_extensions(digit, line_end)) {
        *status = 400;
        return at;
      }
      chunks->body_size += chunk_size;
      chunks->chunk_left = chunk_size;
      chunks->state = chunk_size == 0 ? CHUNK_TRAILER : CHUNK_DATA;
      continue;
    }
    /* CHUNK_TRAILER: field lines (read and ignored) up to an empty line. */
    const size_t line_size = (size_t)(line_end - line);
    if (line_size == 0) {
      chunks->done = true;
      break;
    }
    chunks->trailer_bytes += line_size + 2;
    if (chunks->trailer_bytes > MAX_CHUNK_LINE_BYTES) {
      *status = 400;
      return at;
    }
    size_t name_size, value_size;
    const char* value;
    if (is_blank(*line) ? chunks->trailer_bytes == line_size + 2
                        : !parse_field_line(line, line_size, &name_size, &value, &value_size) ||
                              equals_ignoring_case(line, name_size, "content-length") ||
                              equals_ignoring_case(line, name_size, "transfer-encoding")) {
      *status = 400; /* a fold before any field, a broken field, or framing in the trailer */
      return at;
    }
  }
  return at;
}
