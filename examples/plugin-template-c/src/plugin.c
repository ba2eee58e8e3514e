/* SPDX-License-Identifier: MIT-0 */
/*
 * template-c: a complete benchd approach plugin in plain C11 to copy. One OS thread per
 * connection, blocking I/O on POSIX sockets, its own HTTP/1.1 reader (http_request.c).
 *
 * What the plugin must do is plugins/sdk/CONTRACT.md (installed beside plugin.h); plugin.h is
 * the binary interface, benchd/limits.h every shared limit. This file holds the server:
 *   - the lifecycle functions of plugin.h (create, start, bound_port, stats, stop, destroy);
 *   - threads: one accepting thread, and one connection thread per open connection, which
 *     serves it from accept to close, then waits for the next one while fewer than `threads`
 *     (the worker's --threads) wait, or ends; `threads` of them wait from the start;
 *   - waits: every blocking wait is a poll() that also watches the two stop signals (drain_fd,
 *     stop_fd), so a stop never waits for a socket;
 *   - the nested calls' client, with its pool of idle keep-alive connections.
 * service.c routes requests and writes answers; http_request.c reads the HTTP framing.
 */
#define _GNU_SOURCE /* POLLRDHUP, accept4, eventfd: Linux, like benchd */

#include "http_request.h"
#include "service.h"

#include <benchd/limits.h>
#include <benchd/plugin.h>

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/eventfd.h>
#include <sys/socket.h>

/* The plugin's name: also the first path segment of its endpoints (/template-c/movies). */
#define PLUGIN_NAME "template-c"
/* Stack of a connection thread; the buffers on its deepest call path take about 25 KiB. */
#define THREAD_STACK_BYTES (256 * 1024)
/* A connection's input buffer: a whole header section, or a line of a chunked body, must fit
 * (the parser refuses longer ones before the buffer is full); bodies are moved out of it. */
#define INPUT_BYTES BENCHD_MAX_REQUEST_HEADER_BYTES
/* A nested call's answer (the server's own epoch-millis answer or error) fits in this. */
#define NESTED_ANSWER_BYTES 16384

typedef struct server server;

/* A connection thread and the connection it serves (fd -1: none yet). */
typedef struct connection {
  server* server;
  int fd;
  pthread_t thread;
  struct connection* prev; /* in server.live, or (next only) server.ended */
  struct connection* next;
  char input[INPUT_BYTES]; /* received and not parsed yet: input[0, input_size) */
  size_t input_size;
} connection;

/* An idle pooled connection of the nested calls' client. */
typedef struct idle_upstream {
  int fd;
  int64_t idle_since;
  struct idle_upstream* next; /* older */
} idle_upstream;

struct server {
  const benchd_host_api* host;
  struct sockaddr_storage bind_address, self_address; /* listen on; nested calls go to */
  socklen_t address_size;
  uint16_t port;
  bool no_keep_alive;
  int64_t header_deadline, upstream_margin, upstream_idle, sweep_interval; /* ms */
  int listen_fd, drain_fd, stop_fd;
  atomic_bool draining, stopped;
  bool started;
  pthread_t acceptor;

  unsigned threads; /* connection threads kept waiting for a connection (config threads) */

  pthread_mutex_t mutex; /* guards the members below but the counters */
  pthread_cond_t connection_ended, connection_pending;
  connection* live;         /* connection threads running */
  connection* ended;        /* connection threads that returned, not joined yet */
  unsigned waiting_threads; /* connection threads waiting in next_connection() */
  int* pending;             /* accepted connections handed to waiting threads (< threads) */
  unsigned pending_count;
  idle_upstream* idle; /* the pool of nested-call connections, most recently returned first */

  atomic_int_fast64_t requests_served, requests_in_flight, upstream_calls, connections_open,
      upstream_connections_open, accept_errors;
};

/* ---- Time, errors, signals ------------------------------------------------------------ */

static int64_t now_ms(void) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (int64_t)now.tv_sec * 1000 + now.tv_nsec / 1000000;
}

/* Writes a message into the caller's error buffer as plugin.h says: within its struct_size. */
static void set_error(benchd_error* error, const char* format, ...)
    __attribute__((format(printf, 2, 3)));
static void set_error(benchd_error* error, const char* format, ...) {
  const size_t at = offsetof(benchd_error, message);
  if (error == NULL || error->struct_size <= at)
    return;
  const size_t room = error->struct_size - at;
  va_list arguments;
  va_start(arguments, format);
  vsnprintf(error->message, room < sizeof error->message ? room : sizeof error->message, format,
            arguments);
  va_end(arguments);
}

/* Raises a stop signal: its eventfd turns readable and stays so, waking every poll(). */
static void raise_signal(atomic_bool* flag, int fd) {
  atomic_store(flag, true);
  const uint64_t one = 1;
  const ssize_t written = write(fd, &one, sizeof one); /* fails only on a counter overflow */
  (void)written;
}

/* ---- Waiting and socket I/O ----------------------------------------------------------- */

typedef enum wait_end {
  WAIT_READY = 1,   /* the socket has the events asked for (or an error to report) */
  WAIT_TIMEOUT,     /* the deadline passed */
  WAIT_STOPPED,     /* the stop gave up, or the drain began during an idle wait */
  WAIT_CLIENT_GONE, /* the watched client shut down or reset its connection */
  WAIT_FAILED       /* poll() itself failed */
} wait_end;

/* Waits until `fd` has one of `events` (POLLIN, POLLOUT; 0: none), until `deadline` (ms of
 * now_ms()), the stop, the drain when `idle`, or the departure of the client on `watched_fd`
 * (-1: none). */
static wait_end wait_for(server* s, int fd, short events, int64_t deadline, bool idle,
                         int watched_fd) {
  for (;;) {
    struct pollfd fds[4] = {{fd, events, 0},
                            {s->stop_fd, POLLIN, 0},
                            {idle ? s->drain_fd : -1, POLLIN, 0},
                            {watched_fd, POLLRDHUP, 0}};
    const int64_t left = deadline - now_ms();
    const int ready = poll(fds, 4, left < 0 ? 0 : left > INT32_MAX ? INT32_MAX : (int)left);
    if (ready < 0 && errno != EINTR)
      return WAIT_FAILED;
    if (fds[1].revents != 0 || fds[2].revents != 0)
      return WAIT_STOPPED;
    if (fds[3].revents != 0)
      return WAIT_CLIENT_GONE;
    if (ready > 0 && fds[0].revents != 0)
      return WAIT_READY;
    if (ready == 0 && now_ms() >= deadline)
      return WAIT_TIMEOUT;
  }
}

/* Receives up to `size` bytes: their number, 0 at the end of the stream, -1 on an error or
 * when a wait ended (*end says how; errno is set for WAIT_READY). */
static ssize_t receive(server* s, int fd, char* data, size_t size, int64_t deadline, int watched_fd,
                       wait_end* end) {
  for (;;) {
    const ssize_t received = recv(fd, data, size, 0);
    *end = WAIT_READY;
    if (received >= 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR))
      return received;
    *end = wait_for(s, fd, POLLIN, deadline, false, watched_fd);
    if (*end != WAIT_READY)
      return -1;
  }
}

/* Sends all of data[0, size) (MSG_NOSIGNAL: a closed peer is an error, not SIGPIPE). */
static bool send_all(server* s, int fd, const char* data, size_t size, int64_t deadline,
                     int watched_fd, wait_end* end) {
  while (size > 0) {
    const ssize_t sent = send(fd, data, size, MSG_NOSIGNAL);
    *end = WAIT_READY;
    if (sent < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
      return false;
    if (sent > 0) {
      data += sent;
      size -= (size_t)sent;
    } else if ((*end = wait_for(s, fd, POLLOUT, deadline, false, watched_fd)) != WAIT_READY) {
      return false;
    }
  }
  return true;
}

/* ---- Nested calls (CONTRACT.md section 6) --------------------------------------------- */

/* The outcome of a nested call. */
typedef struct nested_call {
  int status;       /* the nested answer's status, when error is empty */
  char error[160];  /* why the call failed (answer 502), or empty */
  bool client_gone; /* the client the call was made for left: answer nothing */
} nested_call;

static void close_upstream(server* s, int fd) {
  close(fd);
  atomic_fetch_sub(&s->upstream_connections_open, 1);
}

/* Closes the idle connections from `first` on (the caller took them out of the pool). */
static void close_idle_list(server* s, idle_upstream* first) {
  while (first != NULL) {
    idle_upstream* next = first->next;
    close_upstream(s, first->fd);
    free(first);
    first = next;
  }
}

/* The most recently returned idle connection that is still usable (not expired, neither closed
 * nor written to by the server meanwhile), or -1. Expired and unusable ones are closed. */
static int take_idle(server* s) {
  int fd = -1;
  pthread_mutex_lock(&s->mutex);
  while (fd < 0 && s->idle != NULL) {
    idle_upstream* taken = s->idle;
    s->idle = taken->next;
    struct pollfd check = {taken->fd, POLLIN | POLLRDHUP, 0};
    if (now_ms() - taken->idle_since < s->upstream_idle && poll(&check, 1, 0) == 0)
      fd = taken->fd;
    else
      close_upstream(s, taken->fd);
    free(taken);
  }
  pthread_mutex_unlock(&s->mutex);
  return fd;
}

/* Puts a connection back into the pool (closes it once the drain began). */
static void give_back(server* s, int fd) {
  idle_upstream* idle = atomic_load(&s->draining) ? NULL : malloc(sizeof *idle);
  if (idle == NULL) {
    close_upstream(s, fd);
    return;
  }
  pthread_mutex_lock(&s->mutex);
  *idle = (idle_upstream){fd, now_ms(), s->idle};
  s->idle = idle;
  pthread_mutex_unlock(&s->mutex);
}

/* Closes the idle connections older than the idle timeout (the oldest are at the end). */
static void sweep_idle(server* s) {
  const int64_t now = now_ms();
  pthread_mutex_lock(&s->mutex);
  idle_upstream** link = &s->idle;
  while (*link != NULL && now - (*link)->idle_since < s->upstream_idle)
    link = &(*link)->next;
  idle_upstream* expired = *link;
  *link = NULL;
  pthread_mutex_unlock(&s->mutex);
  close_idle_list(s, expired);
}

static void close_all_idle(server* s) {
  pthread_mutex_lock(&s->mutex);
  idle_upstream* all = s->idle;
  s->idle = NULL;
  pthread_mutex_unlock(&s->mutex);
  close_idle_list(s, all);
}

/* Describes why a wait or a call failed into call->error. */
static void describe(nested_call* call, wait_end end, const char* what) {
  char scratch[64];
  if (end == WAIT_TIMEOUT)
    snprintf(call->error, sizeof call->error, "%s timed out", what);
  else if (end == WAIT_READY || end == WAIT_FAILED) /* strerror_r: strerror is not thread-safe */
    snprintf(call->error, sizeof call->error, "%s: %s", what,
             strerror_r(errno, scratch, sizeof scratch));
  else
    snprintf(call->error, sizeof call->error, "%s ended by the stop", what);
  call->client_gone = end == WAIT_CLIENT_GONE;
}

/* A new connection to the server itself, or -1 with call->error set. */
static int open_upstream(server* s, int client_fd, nested_call* call) {
  if (atomic_fetch_add(&s->upstream_connections_open, 1) >= BENCHD_UPSTREAM_POOL_CAPACITY) {
    atomic_fetch_sub(&s->upstream_connections_open, 1);
    snprintf(call->error, sizeof call->error, "no upstream connection left (%d open)",
             BENCHD_UPSTREAM_POOL_CAPACITY);
    return -1;
  }
  const int fd = socket(s->self_address.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    describe(call, WAIT_READY, "socket");
    atomic_fetch_sub(&s->upstream_connections_open, 1);
    return -1;
  }
  wait_end end = WAIT_READY;
  bool connected = connect(fd, (const struct sockaddr*)&s->self_address, s->address_size) == 0;
  if (!connected && errno == EINPROGRESS) { /* the usual case: wait until it is writable */
    end = wait_for(s, fd, POLLOUT, now_ms() + BENCHD_CONNECT_TIMEOUT_MILLIS, false, client_fd);
    int result = 0;
    socklen_t result_size = sizeof result;
    if (end == WAIT_READY && getsockopt(fd, SOL_SOCKET, SO_ERROR, &result, &result_size) == 0)
      connected = (errno = result) == 0;
  }
  if (!connected) {
    describe(call, end, "connect");
    close_upstream(s, fd);
    return -1;
  }
  const int on = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
  return fd;
}

/* Reads the nested answer's status line and headers in answer[0, head_size): its status, body
 * length and whether the connection stays open. Only the server's own answers come here. */
static bool parse_nested_answer(const char* answer, size_t head_size, int* status, size_t* length,
                                bool* keep_alive) {
  if (head_size < 12 || memcmp(answer, "HTTP/1.", 7) != 0 || sscanf(answer + 9, "%3d", status) != 1)
    return false;
  bool has_length = false;
  *keep_alive = answer[7] == '1';
  for (const char* line = strstr(answer, "\r\n") + 2; line < answer + head_size;
       line = strstr(line, "\r\n") + 2) {
    if (strncasecmp(line, "content-length:", 15) == 0)
      has_length = sscanf(line + 15, "%zu", length) == 1;
    else if (strncasecmp(line, "connection:", 11) == 0 && strncasecmp(line + 11, " close", 6) == 0)
      *keep_alive = false;
  }
  return has_length && *length <= NESTED_ANSWER_BYTES;
}

/* Sends the request on `fd` and reads the answer within `deadline`. Sets *stale when the
 * connection ended before any byte of the answer (a pooled one the server had closed). */
static void exchange(server* s, int fd, const char* request, int64_t deadline, int client_fd,
                     nested_call* call, bool* keep_alive, bool* stale) {
  char answer[NESTED_ANSWER_BYTES + 1];
  size_t size = 0;
  size_t head_size = 0;
  size_t length = 0;
  wait_end end;
  *stale = false;
  if (!send_all(s, fd, request, strlen(request), deadline, client_fd, &end)) {
    *stale = end == WAIT_READY && (errno == EPIPE || errno == ECONNRESET);
    describe(call, end, "send");
    return;
  }
  while (head_size == 0 || size < head_size + length) {
    const ssize_t received =
        receive(s, fd, answer + size, sizeof answer - 1 - size, deadline, client_fd, &end);
    if (received <= 0) {
      *stale = size == 0 && (received == 0 || (end == WAIT_READY && errno == ECONNRESET));
      if (received == 0)
        snprintf(call->error, sizeof call->error, "connection closed before the answer ended");
      else
        describe(call, end, "receive");
      return;
    }
    size += (size_t)received;
    answer[size] = '\0';
    const char* blank = head_size == 0 ? strstr(answer, "\r\n\r\n") : NULL;
    if (blank != NULL) {
      head_size = (size_t)(blank - answer) + 4;
      if (!parse_nested_answer(answer, head_size, &call->status, &length, keep_alive)) {
        snprintf(call->error, sizeof call->error, "malformed answer");
        return;
      }
    }
    if (head_size != 0 && size > head_size + length)
      *keep_alive = false; /* more than one answer: out of step, not reusable */
    if (size == sizeof answer - 1 && (head_size == 0 || size < head_size + length)) {
      snprintf(call->error, sizeof call->error, "answer too large");
      return;
    }
  }
}

/* GET `target` on the server itself for the client on `client_fd`, whose departure ends the
 * call at once. The answer may take the forwarded delay plus the margin. A pooled connection
 * the server closed while it sat in the pool is replaced once; nothing else is retried. */
static nested_call call_upstream(server* s, const char* target, int64_t delay_millis,
                                 int client_fd) {
  char request[256];
  snprintf(request, sizeof request, "GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", target);
  const int64_t deadline = now_ms() + delay_millis + s->upstream_margin;
  int fd = take_idle(s);
  bool reused = fd >= 0;
  for (;;) {
    nested_call call = {0};
    if (fd < 0) {
      reused = false;
      if ((fd = open_upstream(s, client_fd, &call)) < 0)
        return call;
    }
    bool keep_alive = false;
    bool stale = false;
    exchange(s, fd, request, deadline, client_fd, &call, &keep_alive, &stale);
    if (call.error[0] == '\0' && keep_alive)
      give_back(s, fd);
    else
      close_upstream(s, fd);
    if (call.error[0] == '\0' || !reused || !stale)
      return call;
    fd = -1; /* the stale pooled connection: once more on a new one */
  }
}

/* ---- Serving a connection ------------------------------------------------------------- */

/* A request read whole. */
typedef struct request {
  char method[BENCHD_MAX_REQUEST_HEADER_BYTES]; /* "<method>\0<target>\0" */
  const char* target;
  size_t method_size, target_size;
  bool keep_alive;
  buffer body;
} request;

static void consume(connection* c, size_t size) {
  memmove(c->input, c->input + size, c->input_size - size);
  c->input_size -= size;
}

/* Receives more input within `deadline`: 1, 0 at the end of the stream, -1 otherwise. */
static int receive_more(connection* c, int64_t deadline) {
  wait_end end;
  const ssize_t received = receive(c->server, c->fd, c->input + c->input_size,
                                   sizeof c->input - c->input_size, deadline, -1, &end);
  if (received > 0)
    c->input_size += (size_t)received;
  return received > 0 ? 1 : (int)received;
}

/* Reads one request (CONTRACT.md section 7): its first byte within the idle timeout (or until
 * the drain begins), its header section within the header deadline, its body within
 * BENCHD_IO_TIMEOUT_MILLIS. Returns 0 when read whole, the status to answer (400, 413, 500)
 * for a request that breaks the framing, or -1 when there is nobody to answer. */
static int read_request(connection* c, request* r) {
  server* s = c->server;
  if (c->input_size == 0 &&
      wait_for(s, c->fd, POLLIN, now_ms() + BENCHD_IO_TIMEOUT_MILLIS, true, -1) != WAIT_READY)
    return -1;
  int64_t deadline = now_ms() + s->header_deadline;
  http_head head;
  long head_size;
  while ((head_size = http_parse_head(c->input, c->input_size, &head)) == 0) {
    const int more = receive_more(c, deadline);
    if (more <= 0) /* the client closed in the middle of a request: a malformed one */
      return more == 0 && c->input_size > 0 ? 400 : -1;
  }
  if (head_size < 0)
    return (int)-head_size;
  memcpy(r->method, c->input + head.method_at, head.method_size);
  r->method[head.method_size] = '\0';
  r->target = r->method + head.method_size + 1;
  memcpy(r->method + head.method_size + 1, c->input + head.target_at, head.target_size);
  r->method_size = head.method_size;
  r->target_size = head.target_size;
  r->keep_alive = head.keep_alive;
  consume(c, (size_t)head_size);

  deadline = now_ms() + BENCHD_IO_TIMEOUT_MILLIS;
  http_chunks chunks = {0};
  for (;;) {
    if (head.framing == BODY_NONE)
      return 0;
    if (head.framing == BODY_LENGTH) {
      size_t take = (size_t)head.content_length - r->body.size;
      take = take < c->input_size ? take : c->input_size;
      if (!buffer_append(&r->body, c->input, take))
        return 500;
      consume(c, take);
      if (r->body.size == head.content_length)
        return 0;
    } else {
      int status;
      consume(c, http_decode_chunks(&chunks, c->input, c->input_size, &r->body, &status));
      if (status != 0)
        return status;
      if (chunks.done)
        return 0;
    }
    const int more = receive_more(c, deadline);
    if (more <= 0)
      return more == 0 ? 400 : -1;
  }
}

/* The answer to a valid request, after the wait or the nested call (CONTRACT.md sections 4
 * and 6). False when nobody is to be answered: the client left, or the stop gave up. */
static bool handle(connection* c, const request* r, reply* answer) {
  server* s = c->server;
  service_request service;
  if (!service_classify(PLUGIN_NAME, r->method, r->method_size, r->target, r->target_size, &service,
                        answer))
    return true;
  bool answered = true;
  if (service.delay_call_depth > 0) {
    atomic_fetch_add(&s->upstream_calls, 1);
    char target[128];
    service_nested_target(PLUGIN_NAME, &service, target, sizeof target);
    const nested_call nested = call_upstream(s, target, service.delay_millis, c->fd);
    if (nested.client_gone || atomic_load(&s->stopped))
      answered = false;
    else if (nested.error[0] != '\0')
      service_error(answer, 502, NULL, "nested call failed: %s", nested.error);
    else if (nested.status != 200)
      service_error(answer, 502, NULL, "nested call answered %d", nested.status);
    else
      service_answer(s->host, &service, r->body.data, r->body.size, answer);
  } else {
    /* Depth 0: sleep the delay unless the client leaves (pipelined bytes stay unread). */
    answered = service.delay_millis == 0 ||
               wait_for(s, c->fd, 0, now_ms() + service.delay_millis, false, c->fd) == WAIT_TIMEOUT;
    if (answered)
      service_answer(s->host, &service, r->body.data, r->body.size, answer);
  }
  buffer_free(&service.director_last_name);
  return answered;
}

/* Sends an answer as CONTRACT.md section 5 says: HTTP/1.1, Content-Length, Content-Type on
 * every answer with a body and every error, Allow on 405, Connection: close on the last. */
static bool send_reply(connection* c, const reply* answer, bool keep_alive) {
  char head[256];
  const bool has_type = answer->body.size > 0 || answer->status != 200;
  const int head_size =
      snprintf(head, sizeof head,
               "HTTP/1.1 %d %s\r\nServer: benchd " PLUGIN_NAME
               "\r\n%s%s%s%s%s"
               "Content-Length: %zu\r\n\r\n",
               answer->status, service_reason(answer->status),
               has_type ? "Content-Type: application/json\r\n" : "", answer->allow ? "Allow: " : "",
               answer->allow ? answer->allow : "", answer->allow ? "\r\n" : "",
               keep_alive ? "" : "Connection: close\r\n", answer->body.size);
  buffer bytes = {0}; /* one send for head and body */
  bool sent = buffer_append(&bytes, head, (size_t)head_size) &&
              buffer_append(&bytes, answer->body.data, answer->body.size);
  wait_end end;
  sent = sent && send_all(c->server, c->fd, bytes.data, bytes.size,
                          now_ms() + BENCHD_IO_TIMEOUT_MILLIS, -1, &end);
  buffer_free(&bytes);
  return sent;
}

/* After an answer that ends the connection: stop sending, and read and drop what the client
 * still sends for up to BENCHD_DISCARD_TIMEOUT_MILLIS, so the close cannot reset the answer
 * away before the client read it. */
static void discard_input(connection* c) {
  shutdown(c->fd, SHUT_WR);
  const int64_t deadline = now_ms() + BENCHD_DISCARD_TIMEOUT_MILLIS;
  c->input_size = 0;
  while (receive_more(c, deadline) > 0)
    c->input_size = 0;
}

/* One connection, start to end: read a request, answer it, until the client closes, the
 * connection must close, or the drain begins. */
static void serve(connection* c) {
  server* s = c->server;
  const int on = 1;
  setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
  while (!atomic_load(&s->draining)) {
    request r;
    r.body = (buffer){0};
    const int read_status = read_request(c, &r);
    if (read_status < 0) {
      buffer_free(&r.body);
      break;
    }
    atomic_fetch_add(&s->requests_in_flight, 1);
    reply answer = {0};
    bool keep_alive = false;
    bool answered = true;
    if (read_status == 413)
      service_error(&answer, 413, NULL, "request body exceeds %d bytes",
                    BENCHD_MAX_REQUEST_BODY_BYTES);
    else if (read_status == 400)
      service_error(&answer, 400, NULL, "malformed HTTP request: broken framing");
    else if (read_status != 0)
      service_error(&answer, read_status, NULL, "out of memory");
    else if ((answered = handle(c, &r, &answer)))
      keep_alive = r.keep_alive && !s->no_keep_alive && !atomic_load(&s->draining);
    const bool sent = answered && send_reply(c, &answer, keep_alive);
    if (answered)
      atomic_fetch_add(&s->requests_served, 1);
    atomic_fetch_sub(&s->requests_in_flight, 1);
    buffer_free(&answer.body);
    buffer_free(&r.body);
    if (!sent)
      break;
    if (!keep_alive) {
      discard_input(c);
      break;
    }
  }
}

/* The next accepted connection, for a thread that may wait for one; -1 when enough threads
 * wait already, or at the stop. */
static int next_connection(server* s) {
  int fd = -1;
  pthread_mutex_lock(&s->mutex);
  if (s->waiting_threads < s->threads) {
    ++s->waiting_threads;
    while (s->pending_count == 0 && !atomic_load(&s->stopped))
      pthread_cond_wait(&s->connection_pending, &s->mutex);
    --s->waiting_threads;
    if (s->pending_count > 0)
      fd = s->pending[--s->pending_count];
  }
  pthread_mutex_unlock(&s->mutex);
  return fd;
}

/* A connection thread: serves connections one at a time, each from accept to close. Between
 * them it waits for the next while fewer than `threads` threads wait; otherwise it ends. */
static void* connection_main(void* argument) {
  connection* c = argument;
  server* s = c->server;
  while (c->fd >= 0 || (c->fd = next_connection(s)) >= 0) {
    atomic_fetch_add(&s->connections_open, 1);
    c->input_size = 0;
    serve(c);
    close(c->fd);
    c->fd = -1;
    atomic_fetch_sub(&s->connections_open, 1);
  }
  pthread_mutex_lock(&s->mutex); /* from live to ended, for the accepting thread to join */
  if (c->prev != NULL)
    c->prev->next = c->next;
  else
    s->live = c->next;
  if (c->next != NULL)
    c->next->prev = c->prev;
  c->next = s->ended;
  s->ended = c;
  pthread_cond_broadcast(&s->connection_ended);
  pthread_mutex_unlock(&s->mutex);
  return NULL;
}

/* Joins the connection threads that returned, and frees their connections. */
static void join_ended(server* s) {
  pthread_mutex_lock(&s->mutex);
  connection* ended = s->ended;
  s->ended = NULL;
  pthread_mutex_unlock(&s->mutex);
  while (ended != NULL) {
    connection* next = ended->next;
    pthread_join(ended->thread, NULL);
    free(ended);
    ended = next;
  }
}

/* Starts a connection thread that serves `fd` first, or (-1) first waits for a connection.
 * False when no thread could start. Called with the mutex held. */
static bool start_thread_locked(server* s, int fd) {
  connection* c = malloc(sizeof *c);
  if (c == NULL)
    return false;
  *c = (connection){.server = s, .fd = fd, .next = s->live};
  pthread_attr_t attributes;
  pthread_attr_init(&attributes);
  pthread_attr_setstacksize(&attributes, THREAD_STACK_BYTES);
  const bool started = pthread_create(&c->thread, &attributes, connection_main, c) == 0;
  pthread_attr_destroy(&attributes);
  if (!started) {
    free(c);
    return false;
  }
  if (s->live != NULL) /* the thread unlinks itself only after this, under the mutex */
    s->live->prev = c;
  s->live = c;
  return true;
}

/* Hands an accepted connection to a waiting thread, or to a new one; closes it when no thread
 * can start. */
static void dispatch(server* s, int fd) {
  pthread_mutex_lock(&s->mutex);
  bool handed = true;
  if (s->pending_count < s->waiting_threads) {
    s->pending[s->pending_count++] = fd;
    pthread_cond_signal(&s->connection_pending);
  } else {
    handed = start_thread_locked(s, fd);
  }
  pthread_mutex_unlock(&s->mutex);
  if (!handed) {
    atomic_fetch_add(&s->accept_errors, 1);
    close(fd);
  }
}

/* The accepting thread, until the stop gives up. Between accepts it closes expired idle
 * upstream connections and joins ended connection threads. */
static void* accept_main(void* argument) {
  server* s = argument;
  for (;;) {
    struct pollfd fds[2] = {{s->listen_fd, POLLIN, 0}, {s->stop_fd, POLLIN, 0}};
    poll(fds, 2, (int)s->sweep_interval);
    if (fds[1].revents != 0)
      return NULL;
    sweep_idle(s);
    join_ended(s);
    if (fds[0].revents == 0)
      continue;
    const int fd = accept4(s->listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd >= 0) {
      dispatch(s, fd);
    } else if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
      /* Out of descriptors or memory: accepting again at once would fail again at once (the
       * connection stays in the backlog), so wait instead of spinning. */
      atomic_fetch_add(&s->accept_errors, 1);
      struct pollfd stop_signal = {s->stop_fd, POLLIN, 0};
      poll(&stop_signal, 1, BENCHD_ACCEPT_BACKOFF_MILLIS);
    } else if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
      atomic_fetch_add(&s->accept_errors, 1);
    }
  }
}

/* ---- The lifecycle of plugin.h -------------------------------------------------------- */

/* The value of a timeout option: 1 to `limit` ms, digits only. */
static bool parse_option(const char* text, int64_t limit, int64_t* value) {
  *value = 0;
  for (const char* c = text; *c != '\0'; ++c) {
    if (*c < '0' || *c > '9' || *value > limit)
      return false;
    *value = *value * 10 + (*c - '0');
  }
  return *text != '\0' && *value >= 1 && *value <= limit;
}

static benchd_status create(const benchd_host_api* host, const benchd_server_config* config,
                            benchd_server** out, benchd_error* error) {
  const size_t config_needed = offsetof(benchd_server_config, option_count) + sizeof(size_t);
  if (host == NULL || out == NULL || config == NULL || config->struct_size < config_needed) {
    set_error(error, "host table, config or server out-pointer missing, or config too old");
    return BENCHD_ERR_INVALID_ARGUMENT;
  }
  server* s = calloc(1, sizeof *s);
  if (s == NULL) {
    set_error(error, "out of memory");
    return BENCHD_ERR_INTERNAL;
  }
  *s = (server){.host = host,
                .port = config->port,
                .listen_fd = -1,
                .drain_fd = -1,
                .stop_fd = -1,
                .header_deadline = BENCHD_HEADER_DEADLINE_MILLIS,
                .upstream_margin = BENCHD_UPSTREAM_RESPONSE_MARGIN_MILLIS,
                .upstream_idle = BENCHD_UPSTREAM_IDLE_TIMEOUT_MILLIS};
  benchd_status status = BENCHD_ERR_INVALID_ARGUMENT;
  struct sockaddr_in* v4 = (struct sockaddr_in*)&s->bind_address;
  struct sockaddr_in6* v6 = (struct sockaddr_in6*)&s->bind_address;
  const char* address = config->bind_address != NULL ? config->bind_address : "127.0.0.1";
  if (inet_pton(AF_INET, address, &v4->sin_addr) == 1) {
    v4->sin_family = AF_INET;
    v4->sin_port = htons(config->port);
    s->address_size = sizeof *v4;
  } else if (inet_pton(AF_INET6, address, &v6->sin6_addr) == 1) {
    v6->sin6_family = AF_INET6;
    v6->sin6_port = htons(config->port);
    s->address_size = sizeof *v6;
  } else {
    set_error(error, "bind address '%s' is not a numeric IPv4 or IPv6 address", address);
    goto failed;
  }
  if ((config->profile_count > 0 && config->profiles == NULL) ||
      (config->option_count > 0 && config->options == NULL)) {
    set_error(error, "profiles or options missing");
    goto failed;
  }
  for (size_t i = 0; i < config->profile_count; ++i) {
    if (config->profiles[i] != NULL && strcmp(config->profiles[i], "no-keep-alive") == 0)
      s->no_keep_alive = true; /* other profiles are the host's, or unknown: ignored */
  }
  /* Options are read by stride (plugin.h); only the three test timeouts are known. */
  const size_t stride = config->option_count > 0 ? config->options[0].struct_size : 0;
  for (size_t i = 0; i < config->option_count; ++i) {
    const benchd_option* option = (const benchd_option*)((const char*)config->options + i * stride);
    if (stride < offsetof(benchd_option, value) + sizeof(char*) || option->struct_size != stride ||
        option->key == NULL || option->value == NULL) {
      set_error(error, "option %zu is malformed", i);
      goto failed;
    }
    int64_t* target = strcmp(option->key, "header_deadline_ms") == 0   ? &s->header_deadline
                      : strcmp(option->key, "upstream_margin_ms") == 0 ? &s->upstream_margin
                      : strcmp(option->key, "upstream_idle_ms") == 0   ? &s->upstream_idle
                                                                       : NULL;
    if (target == NULL) {
      set_error(error,
                "unknown option '%s' (known: header_deadline_ms, upstream_margin_ms, "
                "upstream_idle_ms)",
                option->key);
      goto failed;
    }
    const int64_t limit = *target; /* still the default: the longest value allowed */
    if (!parse_option(option->value, limit, target)) {
      set_error(error, "option %s: expected an integer from 1 to %lld (milliseconds), got '%s'",
                option->key, (long long)limit, option->value);
      goto failed;
    }
  }
  s->sweep_interval = s->upstream_idle < BENCHD_UPSTREAM_IDLE_SWEEP_INTERVAL_MILLIS
                          ? s->upstream_idle
                          : BENCHD_UPSTREAM_IDLE_SWEEP_INTERVAL_MILLIS;
  status = BENCHD_ERR_IO;
  s->drain_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  s->stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (s->drain_fd < 0 || s->stop_fd < 0) {
    set_error(error, "eventfd: %s", strerror(errno));
    goto failed;
  }
  s->threads = config->threads;
  s->pending = malloc(sizeof(int) * (config->threads > 0 ? config->threads : 1));
  if (s->pending == NULL) {
    set_error(error, "out of memory");
    goto failed;
  }
  pthread_mutex_init(&s->mutex, NULL);
  pthread_cond_init(&s->connection_ended, NULL);
  pthread_cond_init(&s->connection_pending, NULL);
  *out = (benchd_server*)s;
  return BENCHD_OK;

failed:
  if (s->drain_fd >= 0)
    close(s->drain_fd);
  if (s->stop_fd >= 0)
    close(s->stop_fd);
  free(s);
  return status;
}

static benchd_status start(benchd_server* server_handle, benchd_error* error) {
  server* s = (server*)server_handle;
  const int family = s->bind_address.ss_family;
  const int on = 1;
  s->listen_fd = socket(family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (s->listen_fd < 0 || setsockopt(s->listen_fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on) != 0 ||
      bind(s->listen_fd, (const struct sockaddr*)&s->bind_address, s->address_size) != 0 ||
      listen(s->listen_fd, SOMAXCONN) != 0) {
    const int failure = errno;
    set_error(error, "cannot listen on port %u: %s", (unsigned)s->port, strerror(failure));
    if (s->listen_fd >= 0)
      close(s->listen_fd);
    return failure == EADDRINUSE ? BENCHD_ERR_ADDRESS_IN_USE : BENCHD_ERR_IO;
  }
  /* Nested calls go to the bound address and port, or to loopback when bound to any. */
  s->self_address = s->bind_address;
  socklen_t size = s->address_size;
  getsockname(s->listen_fd, (struct sockaddr*)&s->self_address, &size);
  if (family == AF_INET) {
    struct sockaddr_in* self = (struct sockaddr_in*)&s->self_address;
    s->port = ntohs(self->sin_port);
    if (self->sin_addr.s_addr == htonl(INADDR_ANY))
      self->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  } else {
    struct sockaddr_in6* self = (struct sockaddr_in6*)&s->self_address;
    s->port = ntohs(self->sin6_port);
    if (IN6_IS_ADDR_UNSPECIFIED(&self->sin6_addr))
      self->sin6_addr = in6addr_loopback;
  }
  if (pthread_create(&s->acceptor, NULL, accept_main, s) != 0) {
    set_error(error, "cannot start the accepting thread");
    close(s->listen_fd);
    return BENCHD_ERR_INTERNAL;
  }
  s->started = true;
  pthread_mutex_lock(&s->mutex); /* the threads that wait for connections from the start */
  for (unsigned i = 0; i < s->threads; ++i)
    start_thread_locked(s, -1); /* one that fails is started when a connection comes */
  pthread_mutex_unlock(&s->mutex);
  return BENCHD_OK;
}

static uint16_t bound_port(const benchd_server* server_handle) {
  return ((const server*)server_handle)->port;
}

static benchd_status stats(benchd_server* server_handle, benchd_counter_sink sink,
                           void* sink_context, benchd_error* error) {
  (void)error;
  server* s = (server*)server_handle;
  sink(sink_context, "requests_served", atomic_load(&s->requests_served));
  sink(sink_context, "requests_in_flight", atomic_load(&s->requests_in_flight));
  sink(sink_context, "upstream_calls", atomic_load(&s->upstream_calls));
  sink(sink_context, "connections_open", atomic_load(&s->connections_open));
  sink(sink_context, "upstream_connections_open", atomic_load(&s->upstream_connections_open));
  sink(sink_context, "accept_errors", atomic_load(&s->accept_errors));
  return BENCHD_OK;
}

/* CONTRACT.md section 8: drain (idle connections close, requests in flight finish, the
 * listener stays open for their nested calls), then end every wait and join every thread. */
static benchd_status stop(benchd_server* server_handle, uint32_t timeout_millis,
                          benchd_error* error) {
  server* s = (server*)server_handle;
  if (!s->started)
    return BENCHD_OK;
  const int64_t deadline = now_ms() + timeout_millis;
  raise_signal(&s->draining, s->drain_fd);
  close_all_idle(s);
  while (atomic_load(&s->requests_in_flight) > 0 && now_ms() < deadline)
    nanosleep(&(struct timespec){0, 5000000}, NULL);
  const int64_t cut_off = atomic_load(&s->requests_in_flight);
  raise_signal(&s->stopped, s->stop_fd);
  pthread_join(s->acceptor, NULL);
  close(s->listen_fd);
  pthread_mutex_lock(&s->mutex);
  pthread_cond_broadcast(&s->connection_pending); /* waiting threads see the stop and end */
  while (s->live != NULL)
    pthread_cond_wait(&s->connection_ended, &s->mutex);
  pthread_mutex_unlock(&s->mutex);
  join_ended(s);
  close_all_idle(s);
  s->started = false;
  if (cut_off > 0) {
    set_error(error, "%lld requests still in flight after %u ms were cut off", (long long)cut_off,
              timeout_millis);
    return BENCHD_ERR_TIMEOUT;
  }
  return BENCHD_OK;
}

static void destroy(benchd_server* server_handle) {
  server* s = (server*)server_handle;
  stop(server_handle, 0, NULL);
  close(s->drain_fd);
  close(s->stop_fd);
  pthread_mutex_destroy(&s->mutex);
  pthread_cond_destroy(&s->connection_ended);
  pthread_cond_destroy(&s->connection_pending);
  free(s->pending);
  free(s);
}

/* The profiles this plugin honours itself (the host's core handles no-cache and read-write). */
static const char* const implemented_profiles[] = {"no-keep-alive"};

/* The one exported symbol (BENCHD_PLUGIN_ENTRY_SYMBOL). */
BENCHD_PLUGIN_EXPORT const benchd_plugin_descriptor* benchd_plugin_entry(void) {
  static const benchd_plugin_descriptor descriptor = {
      .struct_size = sizeof(benchd_plugin_descriptor),
      .abi_major = BENCHD_ABI_MAJOR,
      .abi_minor = BENCHD_ABI_MINOR,
      .name = PLUGIN_NAME,
      .version = "1.0.0",
      .description =
          "Template: plain C11, one OS thread per open connection (--threads of "
          "them wait for connections from the start), blocking POSIX sockets, its "
          "own HTTP/1.1 reader, a pooled blocking client for nested calls",
      .concurrency_model = BENCHD_MODEL_OS_THREADS,
      .io_stack = "POSIX sockets + pthreads, blocking",
      .create = create,
      .start = start,
      .bound_port = bound_port,
      .stats = stats,
      .stop = stop,
      .destroy = destroy,
      .implemented_profiles = implemented_profiles,
      .implemented_profile_count = sizeof implemented_profiles / sizeof implemented_profiles[0],
  };
  return &descriptor;
}
