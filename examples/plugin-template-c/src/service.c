/* SPDX-License-Identifier: MIT-0 */
/* The microservice's routing, parameters and answers. See service.h. */
#include "service.h"

#include <benchd/limits.h>

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

const char* service_reason(int status) {
  switch (status) {
    case 200:
      return "OK";
    case 400:
      return "Bad Request";
    case 404:
      return "Not Found";
    case 405:
      return "Method Not Allowed";
    case 413:
      return "Payload Too Large";
    case 500:
      return "Internal Server Error";
    case 502:
      return "Bad Gateway";
    case 503:
      return "Service Unavailable";
    default:
      return "Error";
  }
}

void service_error(reply* answer, int status, const char* allow, const char* format, ...) {
  char message[BENCHD_MAX_REQUEST_HEADER_BYTES + 256];
  va_list arguments;
  va_start(arguments, format);
  vsnprintf(message, sizeof message, format, arguments);
  va_end(arguments);
  char head[96];
  snprintf(head, sizeof head, "{\"status\":%d,\"error\":\"%s\",\"message\":\"", status,
           service_reason(status));
  answer->status = status;
  answer->allow = allow;
  answer->body.size = 0;
  bool ok = buffer_append(&answer->body, head, strlen(head));
  /* The message as a JSON string: quote and backslash escaped, control characters as \u00XX,
   * every other byte as it is. */
  for (const char* c = message; *c != '\0' && ok; ++c) {
    char escaped[8];
    if (*c == '"' || *c == '\\')
      snprintf(escaped, sizeof escaped, "\\%c", *c);
    else if ((unsigned char)*c < 0x20)
      snprintf(escaped, sizeof escaped, "\\u%04x", (unsigned)*c);
    else
      snprintf(escaped, sizeof escaped, "%c", *c);
    ok = buffer_append(&answer->body, escaped, strlen(escaped));
  }
  if (!ok || !buffer_append(&answer->body, "\"}", 2))
    answer->body.size = 0; /* out of memory: the status alone */
}

/* ---- Reading the target (section 3) -------------------------------------------------- */

/* The raw value of the first `name=value` pair of the query whose raw name is `name`. Pairs
 * are split at '&' only; a pair without '=' has an empty value. */
static bool query_value(const char* query, size_t query_size, const char* name, const char** value,
                        size_t* value_size) {
  const char* end = query + query_size;
  const size_t name_size = strlen(name);
  for (const char* pair = query; pair < end;) {
    const char* amp = memchr(pair, '&', (size_t)(end - pair));
    const char* pair_end = amp != NULL ? amp : end;
    const char* equals = memchr(pair, '=', (size_t)(pair_end - pair));
    const char* name_end = equals != NULL ? equals : pair_end;
    if ((size_t)(name_end - pair) == name_size && memcmp(pair, name, name_size) == 0) {
      *value = equals != NULL ? equals + 1 : pair_end;
      *value_size = (size_t)(pair_end - *value);
      return true;
    }
    pair = pair_end + 1;
  }
  return false;
}

/* One or more ASCII digits, optionally after a '-' on zero ("-0" is 0), from 0 to max. */
static bool parse_number(const char* text, size_t size, int64_t max, int64_t* value) {
  const bool minus = size > 0 && text[0] == '-';
  if (minus) {
    ++text;
    --size;
  }
  *value = 0;
  for (size_t i = 0; i < size; ++i) {
    const int digit = text[i] - '0';
    if (digit < 0 || digit > 9 || *value > (max - digit) / 10)
      return false;
    *value = *value * 10 + digit;
  }
  return size > 0 && !(minus && *value != 0);
}

static int hex_digit(char c) {
  if (c >= '0' && c <= '9')
    return c - '0';
  if ((c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'))
    return (c | 0x20) - 'a' + 10;
  return -1;
}

/* Percent-decodes a query value: '+' is a space, %XX that byte. False for a broken escape. */
static bool percent_decode(const char* text, size_t size, buffer* decoded) {
  for (size_t i = 0; i < size; ++i) {
    char byte = text[i] == '+' ? ' ' : text[i];
    if (text[i] == '%') {
      if (size - i < 3 || hex_digit(text[i + 1]) < 0 || hex_digit(text[i + 2]) < 0)
        return false;
      byte = (char)(hex_digit(text[i + 1]) * 16 + hex_digit(text[i + 2]));
      i += 2;
    }
    if (!buffer_append(decoded, &byte, 1))
      return false;
  }
  return true;
}

static bool is(const char* text, size_t size, const char* word) {
  return size == strlen(word) && memcmp(text, word, size) == 0;
}

/* ---- The order of the checks (section 4) --------------------------------------------- */

bool service_classify(const char* approach, const char* method, size_t method_size,
                      const char* target, size_t target_size, service_request* request,
                      reply* answer) {
  *request = (service_request){0};
  const char* question = memchr(target, '?', target_size);
  const size_t path_size = question != NULL ? (size_t)(question - target) : target_size;
  const char* query = question != NULL ? question + 1 : target + target_size;
  const size_t query_size = target_size - (size_t)(query - target);
  const int path_length = (int)path_size;
  const bool get = is(method, method_size, "GET");

  /* Path (404), then method (405), then the movie id. */
  if (is(target, path_size, "/health")) {
    if (!get) {
      service_error(answer, 405, "GET", "use GET on /health");
      return false;
    }
    request->operation = OP_HEALTH;
    return true;
  }
  const size_t prefix_size = strlen(approach) + 1; /* "/{a}" */
  const char* resource = target + prefix_size;
  const size_t resource_size = path_size > prefix_size ? path_size - prefix_size : 0;
  if (path_size <= prefix_size || target[0] != '/' ||
      memcmp(target + 1, approach, prefix_size - 1) != 0 || resource[0] != '/') {
    service_error(answer, 404, NULL, "no such path: %.*s", path_length, target);
    return false;
  }
  if (is(resource, resource_size, "/epoch-millis")) {
    request->operation = OP_EPOCH_MILLIS;
    if (!get) {
      service_error(answer, 405, "GET", "use GET on %.*s", path_length, target);
      return false;
    }
  } else if (is(resource, resource_size, "/movies")) {
    request->operation = get ? OP_GET_MOVIES : OP_POST_MOVIES;
    if (!get && !is(method, method_size, "POST")) {
      service_error(answer, 405, "GET, POST", "use GET or POST on %.*s", path_length, target);
      return false;
    }
  } else if (resource_size > 8 && memcmp(resource, "/movies/", 8) == 0 &&
             memchr(resource + 8, '/', resource_size - 8) == NULL) {
    request->operation = OP_DELETE_MOVIE;
    if (!is(method, method_size, "DELETE")) {
      service_error(answer, 405, "DELETE", "use DELETE on %.*s", path_length, target);
      return false;
    }
    if (!parse_number(resource + 8, resource_size - 8, INT64_MAX, &request->movie_id)) {
      service_error(answer, 400, NULL, "movie id must be a non-negative integer");
      return false;
    }
  } else {
    service_error(answer, 404, NULL, "no such path: %.*s", path_length, target);
    return false;
  }

  /* The parameters, in this order: delayCallDepth, delayInMillis, directorLastName. */
  const char* value;
  size_t value_size;
  int64_t depth;
  if (!query_value(query, query_size, "delayCallDepth", &value, &value_size)) {
    service_error(answer, 400, NULL, "missing query parameter delayCallDepth");
    return false;
  }
  if (!parse_number(value, value_size, BENCHD_MAX_DELAY_CALL_DEPTH, &depth)) {
    service_error(answer, 400, NULL, "delayCallDepth must be an integer from 0 to %d, got '%.*s'",
                  BENCHD_MAX_DELAY_CALL_DEPTH, (int)value_size, value);
    return false;
  }
  request->delay_call_depth = (int)depth;
  if (!query_value(query, query_size, "delayInMillis", &value, &value_size)) {
    service_error(answer, 400, NULL, "missing query parameter delayInMillis");
    return false;
  }
  if (!parse_number(value, value_size, BENCHD_MAX_DELAY_MILLIS, &request->delay_millis)) {
    service_error(answer, 400, NULL, "delayInMillis must be an integer from 0 to %d, got '%.*s'",
                  BENCHD_MAX_DELAY_MILLIS, (int)value_size, value);
    return false;
  }
  if (request->operation == OP_GET_MOVIES) {
    if (!query_value(query, query_size, "directorLastName", &value, &value_size)) {
      service_error(answer, 400, NULL, "missing query parameter directorLastName");
      return false;
    }
    if (!percent_decode(value, value_size, &request->director_last_name) ||
        request->director_last_name.size == 0) {
      buffer_free(&request->director_last_name);
      service_error(answer, 400, NULL,
                    "directorLastName must be a non-empty, correctly encoded string");
      return false;
    }
  }
  return true;
}

void service_nested_target(const char* approach, const service_request* request, char* target,
                           size_t target_size) {
  snprintf(target, target_size, "/%s/epoch-millis?delayCallDepth=%d&delayInMillis=%" PRId64,
           approach, request->delay_call_depth - 1, request->delay_millis);
}

/* ---- The operation (section 2) ------------------------------------------------------- */

/* The host's sink: appends its JSON to the reply body (a 500 when memory runs out). */
static void append_to(void* context, const char* data, size_t size) {
  reply* answer = context;
  if (!buffer_append(&answer->body, data, size))
    answer->status = 500;
}

void service_answer(const benchd_host_api* host, const service_request* request, const char* body,
                    size_t body_size, reply* answer) {
  benchd_error error = {.struct_size = sizeof error};
  benchd_status status = BENCHD_OK;
  *answer = (reply){.status = 200};
  switch (request->operation) {
    case OP_HEALTH:
      append_to(answer, "{\"status\":\"UP\"}", 15);
      break;
    case OP_EPOCH_MILLIS: {
      char millis[24];
      const int size =
          snprintf(millis, sizeof millis, "%" PRId64, host->epoch_millis(host->host_context));
      append_to(answer, millis, (size_t)size);
      break;
    }
    case OP_GET_MOVIES:
      status =
          host->movies_by_director(host->host_context, request->director_last_name.data,
                                   request->director_last_name.size, append_to, answer, &error);
      break;
    case OP_POST_MOVIES:
      status = host->save_movies(host->host_context, body, body_size, append_to, answer, &error);
      break;
    case OP_DELETE_MOVIE:
      status = host->delete_movie(host->host_context, request->movie_id, &error);
      break;
  }
  if (status == BENCHD_OK && answer->status == 500) {
    service_error(answer, 500, NULL, "out of memory");
  } else if (status != BENCHD_OK) { /* only a POST body the core refuses is the client's fault */
    error.message[sizeof error.message - 1] = '\0';
    const bool bad_body =
        request->operation == OP_POST_MOVIES && status == BENCHD_ERR_INVALID_ARGUMENT;
    service_error(answer, bad_body ? 400 : 500, NULL, "%s", error.message);
  }
}
