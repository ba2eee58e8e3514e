#pragma once

#include <benchd/sdk/database.hpp>
#include <benchd/sdk/service_request.hpp>

#include <chrono>
#include <cstdint>
#include <h2o.h>
#include <h2o/http1client.h>
#include <string>

namespace benchd::h2o_plugin {

class EventLoop;

/// A request that waits before its answer: a nested call (depth > 0), else its delay, then the
/// database under `postgres`. It lives in the request's h2o memory pool (create()), so that
/// h2o's disposal of the request (its HTTP/2 stream reset, its connection closed) ends its
/// waits: a timer, the nested call's client and the database step are never left behind.
///
/// An HTTP/1.1 connection is not read while its request is served, so h2o would not see its
/// client leave: the request watches a dup() of the client's socket on the loop and, when the
/// client's side ends, ends the connection. Everything here runs on the request's loop thread.
class WaitingRequest {
 public:
  /// Makes the request's waiting state in `req`'s pool and starts its first wait.
  static void start(EventLoop& loop, h2o_req_t* req, sdk::ServiceRequest request);

  WaitingRequest(const WaitingRequest&) = delete;
  WaitingRequest& operator=(const WaitingRequest&) = delete;

  /// Ends every wait and sends `reply`. `this` may be gone when it returns.
  void answer(const sdk::Reply& reply);
  /// Ends every wait without an answer and ends the client's connection (its client left, or
  /// the server closes).
  void cut();

  // For the nested call and the database (nested_call.cpp, database_waits.cpp).
  [[nodiscard]] EventLoop& loop() noexcept { return loop_; }
  [[nodiscard]] const sdk::ServiceRequest& request() const noexcept { return request_; }
  [[nodiscard]] std::string_view body() const noexcept {
    return {req_->entity.base == nullptr ? "" : req_->entity.base, req_->entity.len};
  }
  /// The database session's turn: a session is this request's (DatabaseWaits).
  void runDatabase(sdk::DatabaseSession session);

 private:
  enum class Phase { kNested, kDelay, kDatabaseQueued, kDatabase, kDone };
  struct Timer {
    h2o_timeout_entry_t entry;  // first: the callback finds the Timer from it
    WaitingRequest* owner;
  };

  WaitingRequest(EventLoop& loop, h2o_req_t* req, sdk::ServiceRequest request);
  ~WaitingRequest() = default;

  void begin();
  void afterDelay();
  void arm(std::chrono::milliseconds duration);
  /// Ends the waits in place (timer, departure watch, nested call, database). With `answered`
  /// false a database statement still running is abandoned.
  void endWaits(bool answered);
  void watchDeparture();
  void startNestedCall();
  void nestedCallAnswered();
  void endNestedCall();
  void startDatabase();
  void continueDatabase(sdk::DatabaseSession::Progress progress);
  void endDatabase(bool answered);

  static void onDisposed(void* self);
  static void onTimer(h2o_timeout_entry_t* entry);
  static void onClientReadable(h2o_socket_t* watch, const char* error);
  static void onDepartureRecheck(h2o_timeout_entry_t* entry);
  [[nodiscard]] bool clientLeft() const;
  static void onDatabaseReady(h2o_socket_t* socket, const char* error);
  static h2o_http1client_head_cb onUpstreamConnected(h2o_http1client_t* client, const char* error,
                                                     h2o_iovec_t** buffers, std::size_t* count,
                                                     int* method_is_head);
  static h2o_http1client_body_cb onUpstreamHead(h2o_http1client_t* client, const char* error,
                                                int minor_version, int status, h2o_iovec_t message,
                                                h2o_header_t* headers, std::size_t header_count,
                                                int header_bytes);
  static int onUpstreamBody(h2o_http1client_t* client, const char* error);

  EventLoop& loop_;
  h2o_req_t* req_;
  sdk::ServiceRequest request_;
  Phase phase_ = Phase::kDone;
  Timer timer_{};
  /// HTTP/1.x: a dup() of the client's socket, watched for the end of the client's side; once
  /// bytes wait in it (a pipelined request, a TLS close_notify ahead of the FIN), looked at
  /// again every kDepartureRecheck instead.
  h2o_socket_t* departure_watch_ = nullptr;
  Timer departure_recheck_{};
  // The nested call: h2o's client while it runs, the request it sends, the status it got.
  h2o_http1client_t* upstream_ = nullptr;
  std::string upstream_request_;
  h2o_iovec_t upstream_buffer_{};
  int upstream_status_ = 0;
  // The database: the session while it runs, a dup() of its socket while it waits on it.
  sdk::DatabaseSession session_;
  h2o_socket_t* database_socket_ = nullptr;
  std::uint64_t database_serial_ = 0;
  std::chrono::steady_clock::time_point database_queued_at_;
};

/// Sends `reply` on `req` (status, Content-Type unless an empty 200, Allow, Content-Length), the
/// connection closing after it under no-keep-alive or once the server drains. Counts it.
void sendReply(EventLoop& loop, h2o_req_t* req, const sdk::Reply& reply);

}  // namespace benchd::h2o_plugin
