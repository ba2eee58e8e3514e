#include "request_flow.hpp"

#include "blocking_waits.hpp"
#include "connection_acceptor.hpp"
#include "server_state.hpp"
#include "wait_reactor.hpp"

#include <benchd/sdk/database.hpp>
#include <benchd/sdk/limits.hpp>
#include <benchd/sdk/service_request.hpp>

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

namespace benchd::libmicrohttpd {

namespace {

/// One connection's state, made when MHD accepts it and freed when it closes. Its fields
/// describe the request being read; onRequestTarget() resets them for each request.
struct ConnectionContext {
  int fd = -1;
  std::string target;
  std::string body;
  /// The access handler has seen this request's header section.
  bool header_seen = false;
  /// Its body is over sdk::kMaxRequestBodyBytes: the rest is read and dropped.
  bool body_too_large = false;
  /// Counted in requests_in_flight until onRequestEnded().
  bool in_flight = false;
  /// Event-driven modes: the request is suspended in MHD while the reactor runs its waits;
  /// then `reply` holds what to answer (nothing: the client left), set before the reactor
  /// resumes the connection.
  bool waiting = false;
  bool waited = false;
  std::optional<sdk::Reply> reply;
};

ServerState& stateOf(void* cls) {
  return *static_cast<ServerState*>(cls);
}

void endInFlight(ServerState& state, ConnectionContext& context) {
  if (context.in_flight) {
    context.in_flight = false;
    state.requests_in_flight.fetch_sub(1, std::memory_order_relaxed);
  }
}

/// Queues `reply`. The connection closes after it when `keep_alive` is false, under
/// no-keep-alive, or once the server drains.
MHD_Result answer(ServerState& state, MHD_Connection* connection, const sdk::Reply& reply,
                  bool keep_alive) {
  // MUST_COPY: the reply's string dies with this call, MHD sends later.
  MHD_Response* response = MHD_create_response_from_buffer(
      reply.body.size(), const_cast<char*>(reply.body.data()), MHD_RESPMEM_MUST_COPY);
  if (response == nullptr)
    return MHD_NO;
  // DELETE's empty 200 carries no Content-Type (CONTRACT.md section 5).
  if (!(reply.status == 200 && reply.body.empty())) {
    const std::string content_type(reply.content_type);
    MHD_add_response_header(response, MHD_HTTP_HEADER_CONTENT_TYPE, content_type.c_str());
  }
  if (!reply.allow.empty())
    MHD_add_response_header(response, MHD_HTTP_HEADER_ALLOW, reply.allow.c_str());
  if (!keep_alive || state.no_keep_alive || state.draining.load(std::memory_order_relaxed))
    MHD_add_response_header(response, MHD_HTTP_HEADER_CONNECTION, "close");
  const MHD_Result queued =
      MHD_queue_response(connection, static_cast<unsigned>(reply.status), response);
  MHD_destroy_response(response);
  if (queued == MHD_YES)
    state.requests_served.fetch_add(1, std::memory_order_relaxed);
  return queued;
}

/// The refusal of a header section over sdk::kMaxRequestHeaderBytes, which MHD reads into its
/// connection's memory pool whole before the handler sees it.
std::optional<sdk::Reply> headerTooLarge(MHD_Connection* connection) {
  const MHD_ConnectionInfo* info =
      MHD_get_connection_info(connection, MHD_CONNECTION_INFO_REQUEST_HEADER_SIZE);
  if (info == nullptr || info->header_size <= sdk::kMaxRequestHeaderBytes)
    return std::nullopt;
  return sdk::malformedRequestReply("the header section exceeds " +
                                    std::to_string(sdk::kMaxRequestHeaderBytes) + " bytes");
}

/// Whether `request` waits (a delay, a nested call, the database) before its answer; the others
/// are answered on MHD's thread at once.
bool needsToWait(const ServerState& state, const sdk::ServiceRequest& request) {
  return request.delay_call_depth > 0 || request.delay_millis > 0 ||
         (state.has_database && sdk::usesDatabase(request));
}

}  // namespace

void onConnection(void* cls, MHD_Connection* connection, void** socket_context,
                  MHD_ConnectionNotificationCode code) {
  ServerState& state = stateOf(cls);
  if (code == MHD_CONNECTION_NOTIFY_STARTED) {
    auto context = std::make_unique<ConnectionContext>();
    const MHD_ConnectionInfo* info =
        MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    context->fd = info == nullptr ? -1 : info->connect_fd;
    state.connections.add(context->fd);
    state.connections_accepted.fetch_add(1, std::memory_order_relaxed);
    *socket_context = context.release();
    return;
  }
  auto* context = static_cast<ConnectionContext*>(*socket_context);
  if (context == nullptr)
    return;
  endInFlight(state, *context);
  state.connections.remove(context->fd);
  delete context;
  *socket_context = nullptr;
  if (state.acceptor != nullptr)
    state.acceptor->connectionClosed();
}

void* onRequestTarget(void* /*cls*/, const char* uri, MHD_Connection* connection) {
  const MHD_ConnectionInfo* info =
      MHD_get_connection_info(connection, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
  auto* context = info == nullptr ? nullptr : static_cast<ConnectionContext*>(info->socket_context);
  if (context == nullptr)
    return nullptr;
  context->target = uri == nullptr ? std::string() : std::string(uri);
  context->body.clear();
  context->header_seen = false;
  context->body_too_large = false;
  context->waiting = false;
  context->waited = false;
  context->reply.reset();
  return context;
}

MHD_Result onRequest(void* cls, MHD_Connection* connection, const char* /*url*/, const char* method,
                     const char* /*version*/, const char* upload_data,
                     std::size_t* upload_data_size, void** con_cls) {
  ServerState& state = stateOf(cls);
  auto* context = static_cast<ConnectionContext*>(*con_cls);
  if (context == nullptr)
    return MHD_NO;  // no connection context: MHD could not tell us of the connection
  if (context->waiting) {
    // Resumed by the reactor: the waits are over.
    if (!context->waited)
      return MHD_YES;  // a call before the reactor was done (MHD does not call a suspended one)
    context->waiting = false;
    if (!context->reply)
      return MHD_NO;  // the client left while its request waited: MHD closes the connection
    return answer(state, connection, *context->reply, true);
  }
  if (!context->header_seen) {
    // The first call comes with the header section, before any of the body.
    context->header_seen = true;
    if (auto refusal = headerTooLarge(connection))
      return answer(state, connection, *refusal, false);
    // A body over the limit is read and dropped, then refused: an answer queued now would be
    // sent while the client still sends, and MHD then closes with its body unread, which
    // resets the connection and may destroy the answer before the client reads it.
    return MHD_YES;
  }
  if (*upload_data_size != 0) {
    if (!context->body_too_large) {
      if (context->body.size() + *upload_data_size > sdk::kMaxRequestBodyBytes) {
        context->body_too_large = true;
        context->body.clear();
        context->body.shrink_to_fit();
      } else {
        context->body.append(upload_data, *upload_data_size);
      }
    }
    *upload_data_size = 0;
    return MHD_YES;
  }
  // The whole request is read: it is in flight until its answer is sent.
  context->in_flight = true;
  state.requests_in_flight.fetch_add(1, std::memory_order_relaxed);
  if (context->body_too_large)
    return answer(state, connection, sdk::bodyTooLargeReply(), false);
  auto classified = sdk::classifyRequest(method, context->target, kApproachName);
  if (auto* refusal = std::get_if<sdk::Reply>(&classified))
    return answer(state, connection, *refusal, true);
  auto& request = std::get<sdk::ServiceRequest>(classified);
  if (state.reactor != nullptr && needsToWait(state, request)) {
    // Suspended before it is handed over, so the reactor can never resume it too early.
    context->waiting = true;
    MHD_suspend_connection(connection);
    state.reactor->submit(std::move(request), std::move(context->body), context->fd,
                          [context, connection](std::optional<sdk::Reply> reply) {
                            context->reply = std::move(reply);
                            context->waited = true;
                            MHD_resume_connection(connection);
                          });
    return MHD_YES;
  }
  if (state.reactor != nullptr)
    return answer(state, connection, state.host.answer(request, context->body), true);
  auto served = serveBlocking(state, request, context->body, context->fd);
  if (!served)
    return MHD_NO;  // the client left while its request waited: MHD closes the connection
  return answer(state, connection, *served, true);
}

void onRequestEnded(void* cls, MHD_Connection* /*connection*/, void** con_cls,
                    MHD_RequestTerminationCode /*code*/) {
  auto* context = static_cast<ConnectionContext*>(*con_cls);
  if (context != nullptr)
    endInFlight(stateOf(cls), *context);
}

}  // namespace benchd::libmicrohttpd
