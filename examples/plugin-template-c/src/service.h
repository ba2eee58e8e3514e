/* SPDX-License-Identifier: MIT-0 */
/*
 * The microservice's requests and answers: which operation a request asks for and whether its
 * parameters are valid (CONTRACT.md sections 2 to 4), and the answers (section 5). Pure
 * functions but for service_answer(), which calls the host's core. Thread-safe.
 */
#ifndef TEMPLATE_C_SERVICE_H
#define TEMPLATE_C_SERVICE_H

#include "http_request.h"

#include <benchd/plugin.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum operation {
  OP_HEALTH = 1,
  OP_EPOCH_MILLIS,
  OP_GET_MOVIES,
  OP_POST_MOVIES,
  OP_DELETE_MOVIE
} operation;

/* A valid request. Only the innermost of delay_call_depth nested calls waits delay_millis. */
typedef struct service_request {
  operation operation;
  int delay_call_depth;
  int64_t delay_millis;
  buffer director_last_name; /* OP_GET_MOVIES: percent-decoded; free with buffer_free() */
  int64_t movie_id;          /* OP_DELETE_MOVIE */
} service_request;

/* An answer to send: the status, its body, and the Allow header of a 405. */
typedef struct reply {
  int status;
  const char* allow; /* static text, or NULL */
  buffer body;
} reply;

/* Classifies `method` and `target` for the plugin named `approach`. True: *request is valid.
 * False: *answer holds the error answer (400, 404, 405) to send instead. */
bool service_classify(const char* approach, const char* method, size_t method_size,
                      const char* target, size_t target_size, service_request* request,
                      reply* answer);

/* The target of the nested call a request at depth > 0 makes: this plugin's epoch-millis one
 * level shallower, with the same delay. */
void service_nested_target(const char* approach, const service_request* request, char* target,
                           size_t target_size);

/* Runs the operation on the host's core (after the wait) and sets *answer. */
void service_answer(const benchd_host_api* host, const service_request* request, const char* body,
                    size_t body_size, reply* answer);

/* Sets *answer to the JSON error answer {"status":..,"error":..,"message":..}; the message is
 * printf-formatted. */
void service_error(reply* answer, int status, const char* allow, const char* format, ...)
    __attribute__((format(printf, 4, 5)));

/* The standard reason phrase of a status. */
const char* service_reason(int status);

#endif /* TEMPLATE_C_SERVICE_H */
