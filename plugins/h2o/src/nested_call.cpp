// The nested call of a waiting request: a GET of the next depth on this same server, through
// h2o's HTTP/1 client and the loop's pool of keep-alive connections.
#include "event_loop.hpp"
#include "waiting_request.hpp"

#include <benchd/sdk/limits.hpp>

#include <string>

namespace benchd::h2o_plugin {

void WaitingRequest::startNestedCall() {
  phase_ = Phase::kNested;
  ServerState& state = loop_.state();
  state.upstream_calls.fetch_add(1, std::memory_order_relaxed);
  upstream_request_ = "GET " + sdk::upstreamTarget(kApproachName, request_) +
                      " HTTP/1.1\r\nHost: " + loop_.upstreamHost() + "\r\n\r\n";
  upstream_buffer_ = h2o_iovec_init(upstream_request_.data(), upstream_request_.size());
  arm(sdk::upstreamResponseTimeout(request_.delay_millis, state.upstream_margin));
  // A pooled connection may be handed over, and onUpstreamConnected() called, before this
  // returns.
  h2o_http1client_connect_with_pool(&upstream_, this, loop_.upstreamClient(), loop_.upstreamPool(),
                                    &onUpstreamConnected);
}

void WaitingRequest::endNestedCall() {
  // Closes the connection (it is not returned to the pool): the server at the next depth sees
  // its client leave, so the chain ends down to its last call.
  if (upstream_ != nullptr)
    h2o_http1client_cancel(std::exchange(upstream_, nullptr));
}

// In each callback, h2o frees the client itself after an error or the end of the answer: the
// request lets go of it first, so that endNestedCall() does not free it again.

h2o_http1client_head_cb WaitingRequest::onUpstreamConnected(h2o_http1client_t* client,
                                                            const char* error,
                                                            h2o_iovec_t** buffers,
                                                            std::size_t* count,
                                                            int* method_is_head) {
  auto* self = static_cast<WaitingRequest*>(client->data);
  if (error != nullptr) {
    self->upstream_ = nullptr;
    self->answer(sdk::nestedCallFailedReply(error));
    return nullptr;
  }
  *buffers = &self->upstream_buffer_;
  *count = 1;
  *method_is_head = 0;
  return &onUpstreamHead;
}

h2o_http1client_body_cb WaitingRequest::onUpstreamHead(h2o_http1client_t* client, const char* error,
                                                       int /*minor_version*/, int status,
                                                       h2o_iovec_t /*message*/,
                                                       h2o_header_t* /*headers*/,
                                                       std::size_t /*header_count*/,
                                                       int /*header_bytes*/) {
  auto* self = static_cast<WaitingRequest*>(client->data);
  if (error != nullptr && error != h2o_http1client_error_is_eos) {
    self->upstream_ = nullptr;
    self->answer(sdk::nestedCallFailedReply(error));
    return nullptr;
  }
  self->upstream_status_ = status;
  if (error == h2o_http1client_error_is_eos) {
    self->upstream_ = nullptr;  // an answer without a body: it is complete
    self->nestedCallAnswered();
    return nullptr;
  }
  return &onUpstreamBody;
}

int WaitingRequest::onUpstreamBody(h2o_http1client_t* client, const char* error) {
  if (error == nullptr)
    return 0;  // more of the body; h2o drops it with the connection's input at the end
  auto* self = static_cast<WaitingRequest*>(client->data);
  self->upstream_ = nullptr;
  if (error != h2o_http1client_error_is_eos) {
    self->answer(sdk::nestedCallFailedReply(error));
    return -1;
  }
  self->nestedCallAnswered();
  return 0;
}

void WaitingRequest::nestedCallAnswered() {
  if (upstream_status_ != 200) {
    answer(sdk::nestedCallAnsweredReply(upstream_status_));
    return;
  }
  afterDelay();
}

}  // namespace benchd::h2o_plugin
