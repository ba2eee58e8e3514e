#include "waiting_request.hpp"

#include "event_loop.hpp"

#include <benchd/sdk/limits.hpp>

#include <poll.h>
#include <unistd.h>

#include <h2o/socket/evloop.h>
#include <new>
#include <sys/socket.h>
#include <utility>

namespace benchd::h2o_plugin {

namespace {

/// How often an HTTP/1.x client whose socket holds unread bytes is looked at for its departure.
constexpr std::chrono::milliseconds kDepartureRecheck{100};

/// The client's socket of `req`'s connection (HTTP/1.x or HTTP/2), or null.
h2o_socket_t* clientSocketOf(h2o_req_t* req) {
  if (req->conn == nullptr || req->conn->callbacks->get_socket == nullptr)
    return nullptr;
  return req->conn->callbacks->get_socket(req->conn);
}

}  // namespace

void sendReply(EventLoop& loop, h2o_req_t* req, const sdk::Reply& reply) {
  ServerState& state = loop.state();
  req->res.status = reply.status;
  req->res.reason = sdk::reasonPhrase(reply.status).data();  // static text, NUL-terminated
  // DELETE's empty 200 carries no Content-Type (CONTRACT.md section 5).
  if (!(reply.status == 200 && reply.body.empty())) {
    h2o_add_header(&req->pool, &req->res.headers, H2O_TOKEN_CONTENT_TYPE, nullptr,
                   reply.content_type.data(), reply.content_type.size());
  }
  if (!reply.allow.empty()) {
    const h2o_iovec_t allow = h2o_strdup(&req->pool, reply.allow.data(), reply.allow.size());
    h2o_add_header(&req->pool, &req->res.headers, H2O_TOKEN_ALLOW, nullptr, allow.base, allow.len);
  }
  req->res.content_length = reply.body.size();
  if (state.no_keep_alive || state.draining.load(std::memory_order_relaxed))
    req->http1_is_persistent = 0;
  state.requests_served.fetch_add(1, std::memory_order_relaxed);
  h2o_send_inline(req, reply.body.data(), reply.body.size());  // copies the body into the pool
}

void WaitingRequest::start(EventLoop& loop, h2o_req_t* req, sdk::ServiceRequest request) {
  void* memory = h2o_mem_alloc_shared(&req->pool, sizeof(WaitingRequest), &onDisposed);
  auto* self = new (memory) WaitingRequest(loop, req, std::move(request));
  self->begin();
}

WaitingRequest::WaitingRequest(EventLoop& loop, h2o_req_t* req, sdk::ServiceRequest request)
    : loop_(loop), req_(req), request_(std::move(request)) {
  timer_.entry.cb = &onTimer;
  timer_.owner = this;
  departure_recheck_.entry.cb = &onDepartureRecheck;
  departure_recheck_.owner = this;
}

void WaitingRequest::onDisposed(void* memory) {
  auto* self = static_cast<WaitingRequest*>(memory);
  if (self->phase_ != Phase::kDone)
    self->endWaits(false);  // h2o let go of the request unanswered: its client is gone
  self->~WaitingRequest();
}

void WaitingRequest::begin() {
  phase_ = Phase::kDelay;
  loop_.addWaiting(this);
  if (req_->version < 0x200)
    watchDeparture();
  if (request_.delay_call_depth > 0) {
    startNestedCall();
  } else if (request_.delay_millis > 0) {
    // h2o's timers count from the loop's clock, read once per turn of the loop and in whole
    // milliseconds: one more keeps the wait from ending before the delay is over.
    arm(std::chrono::milliseconds(request_.delay_millis + 1));
  } else {
    afterDelay();
  }
}

void WaitingRequest::afterDelay() {
  if (loop_.state().has_database && sdk::usesDatabase(request_)) {
    startDatabase();
    return;
  }
  answer(loop_.state().host.answer(request_, body()));
}

void WaitingRequest::arm(std::chrono::milliseconds duration) {
  if (h2o_timeout_is_linked(&timer_.entry))
    h2o_timeout_unlink(&timer_.entry);
  h2o_timeout_link(loop_.loop(), loop_.timeoutQueue(duration), &timer_.entry);
}

void WaitingRequest::onTimer(h2o_timeout_entry_t* entry) {
  WaitingRequest& self = *reinterpret_cast<Timer*>(entry)->owner;
  ServerState& state = self.loop_.state();
  switch (self.phase_) {
    case Phase::kDelay:
      self.afterDelay();
      return;
    case Phase::kNested:
      self.answer(sdk::nestedCallFailedReply(
          "no answer within " +
          std::to_string(
              sdk::upstreamResponseTimeout(self.request_.delay_millis, state.upstream_margin)
                  .count()) +
          " ms"));
      return;
    case Phase::kDatabaseQueued:
      state.database_counters.waited(std::chrono::steady_clock::now() - self.database_queued_at_);
      state.database_counters.timedOut();
      self.answer(
          sdk::databaseDeadlineReply("no database connection was free", state.database_deadline));
      return;
    case Phase::kDatabase:
      self.session_.abandon();  // its statement may still run: the session drops its connection
      state.database_counters.timedOut();
      self.answer(
          sdk::databaseDeadlineReply("the database did not answer", state.database_deadline));
      return;
    case Phase::kDone:
      return;
  }
}

void WaitingRequest::watchDeparture() {
  h2o_socket_t* client = clientSocketOf(req_);
  if (client == nullptr)
    return;
  const int watched = ::dup(h2o_socket_get_fd(client));
  if (watched < 0)
    return;  // out of descriptors: the request is served, its departure is not seen
  departure_watch_ = h2o_evloop_socket_create(loop_.loop(), watched, H2O_SOCKET_FLAG_DONT_READ);
  departure_watch_->data = this;
  h2o_socket_read_start(departure_watch_, &onClientReadable);
}

void WaitingRequest::onClientReadable(h2o_socket_t* watch, const char* /*error*/) {
  auto* self = static_cast<WaitingRequest*>(watch->data);
  if (self->clientLeft()) {
    self->cut();
    return;
  }
  // Bytes wait in the socket (a pipelined request, or a TLS close_notify ahead of its FIN):
  // watching for readability would spin on them, so the departure is looked for on a timer.
  h2o_socket_read_stop(watch);
  h2o_timeout_link(self->loop_.loop(), self->loop_.timeoutQueue(kDepartureRecheck),
                   &self->departure_recheck_.entry);
}

void WaitingRequest::onDepartureRecheck(h2o_timeout_entry_t* entry) {
  WaitingRequest& self = *reinterpret_cast<Timer*>(entry)->owner;
  if (self.clientLeft()) {
    self.cut();
    return;
  }
  h2o_timeout_link(self.loop_.loop(), self.loop_.timeoutQueue(kDepartureRecheck),
                   &self.departure_recheck_.entry);
}

bool WaitingRequest::clientLeft() const {
  // POLLRDHUP, not readability: the bytes of a pipelined request are no departure, only the
  // end of the client's sending side (or a reset).
  pollfd state{h2o_socket_get_fd(departure_watch_), POLLRDHUP, 0};
  return ::poll(&state, 1, 0) > 0 && (state.revents & (POLLRDHUP | POLLHUP | POLLERR)) != 0;
}

void WaitingRequest::endWaits(bool answered) {
  if (h2o_timeout_is_linked(&timer_.entry))
    h2o_timeout_unlink(&timer_.entry);
  if (h2o_timeout_is_linked(&departure_recheck_.entry))
    h2o_timeout_unlink(&departure_recheck_.entry);
  if (departure_watch_ != nullptr)
    h2o_socket_close(std::exchange(departure_watch_, nullptr));
  endNestedCall();
  endDatabase(answered);
  phase_ = Phase::kDone;
  loop_.removeWaiting(this);
  loop_.state().requests_in_flight.fetch_sub(1, std::memory_order_relaxed);
}

void WaitingRequest::answer(const sdk::Reply& reply) {
  if (phase_ == Phase::kDone)
    return;
  endWaits(true);
  sendReply(loop_, req_, reply);
}

void WaitingRequest::cut() {
  if (phase_ == Phase::kDone)
    return;
  endWaits(false);
  h2o_socket_t* client = clientSocketOf(req_);
  if (client != nullptr)
    ::shutdown(h2o_socket_get_fd(client), SHUT_RDWR);
  if (req_->version >= 0x200)
    return;  // h2o reads every HTTP/2 connection: it sees the end and lets go of the request
  // h2o does not read an HTTP/1 connection while its request is served: a last answer makes
  // it write, fail and close the connection, which lets go of the request.
  req_->http1_is_persistent = 0;
  req_->res.status = 503;
  req_->res.reason = sdk::reasonPhrase(503).data();  // static text, NUL-terminated
  req_->res.content_length = 0;
  h2o_send_inline(req_, "", 0);
}

}  // namespace benchd::h2o_plugin
