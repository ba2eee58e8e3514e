#pragma once

#include "database_waits.hpp"
#include "server_state.hpp"

#include <atomic>
#include <chrono>
#include <cstdint>
#include <future>
#include <h2o.h>
#include <h2o/http1client.h>
#include <h2o/socketpool.h>
#include <map>
#include <memory>
#include <netinet/in.h>
#include <string>
#include <thread>
#include <unordered_set>

namespace benchd::h2o_plugin {

class WaitingRequest;

/// One of the plugin's event loops: a thread running an h2o evloop with its own h2o context,
/// accepting on a dup() of the server's listening socket, serving the connections it accepted
/// (HTTP/1.1, TLS, HTTP/2) and running every wait of their requests: the delays in h2o timers,
/// the nested calls in h2o's HTTP/1 client and socket pool, the database on the host's sockets.
///
/// Threads: start(), drain(), close() and exit() are the host thread's; everything else runs
/// on the loop's thread (h2o's callbacks and the members they reach). The commands reach the
/// loop through h2o's multithread queue.
class EventLoop {
 public:
  /// Where the nested calls go: the server's own address, and under TLS the client context
  /// (which verifies nothing: the call goes to this same server).
  struct Upstream {
    sockaddr_storage address;
    socklen_t length;
    SSL_CTX* ssl_context;
  };

  /// `config` (hosts, handler, limits), `ssl_context` (null in clear) and the upstream's
  /// context are the server's and outlive the loop.
  EventLoop(ServerState& state, h2o_globalconf_t& config, SSL_CTX* ssl_context, int listen_fd,
            Upstream upstream);
  ~EventLoop();
  EventLoop(const EventLoop&) = delete;
  EventLoop& operator=(const EventLoop&) = delete;

  /// Starts the thread; returns once it accepts. Throws sdk::PluginError when h2o cannot be set
  /// up (the listening socket cannot be duplicated).
  void start();
  /// HTTP/2 connections get GOAWAY (h2o's graceful shutdown); HTTP/1.1 answers close their
  /// connections from now on (ServerState::draining).
  void drain();
  /// Stops accepting and ends every connection: the requests still waiting end unanswered.
  void close();
  /// Ends the thread once its connections are gone (or after a short grace) and joins it.
  void exit();
  /// Any thread: `session` goes to this loop's first request waiting for one
  /// (DatabaseWaits::takeOver), or back to the shared sessions.
  void handOver(sdk::DatabaseSession session);

  /// The loop's own context, from an h2o request (h2o_req_t::conn->ctx). Loop thread.
  static EventLoop& of(h2o_context_t* context);

  // ---- loop thread only -------------------------------------------------------------------
  [[nodiscard]] ServerState& state() noexcept { return state_; }
  [[nodiscard]] h2o_loop_t* loop() noexcept { return loop_; }
  /// h2o 2.2 keeps one duration per timeout queue: the queue for `duration`, made on first use.
  h2o_timeout_t* timeoutQueue(std::chrono::milliseconds duration);
  [[nodiscard]] h2o_http1client_ctx_t* upstreamClient() noexcept { return &upstream_client_; }
  [[nodiscard]] h2o_socketpool_t* upstreamPool() noexcept { return &upstream_pool_; }
  /// The Host header of the nested calls: the server's own address and port.
  [[nodiscard]] const std::string& upstreamHost() const noexcept { return upstream_host_; }
  [[nodiscard]] DatabaseWaits& database() noexcept { return *database_; }
  /// The requests that wait, so close() can end them.
  void addWaiting(WaitingRequest* request) { waiting_.insert(request); }
  void removeWaiting(WaitingRequest* request) { waiting_.erase(request); }
  [[nodiscard]] std::int64_t upstreamConnectionsOpen() const noexcept;

 private:
  enum class Command { kDrain, kClose, kExit, kDatabaseSession };
  struct CommandMessage;
  /// The h2o context first, so that of() finds the loop from h2o's context pointer.
  struct Context {
    h2o_context_t context;
    EventLoop* owner;
  };

  void post(Command command, sdk::DatabaseSession session = {});
  void run(std::promise<void>& ready);
  void apply(CommandMessage& message);
  void closeListener();
  void dispose();
  static void onCommands(h2o_multithread_receiver_t* receiver, h2o_linklist_t* messages);
  static void onAccept(h2o_socket_t* listener, const char* error);
  static void onConnectionClosed(void* data);
  static void onAcceptPaused(h2o_timeout_entry_t* entry);

  ServerState& state_;
  h2o_globalconf_t& config_;
  SSL_CTX* ssl_context_;
  int listen_fd_;
  Upstream upstream_;
  std::thread thread_;
  h2o_loop_t* loop_ = nullptr;
  Context context_{};
  h2o_accept_ctx_t accept_context_{};
  h2o_multithread_receiver_t commands_{};
  h2o_socket_t* listener_ = nullptr;
  /// After an accept failed for want of descriptors: the listener waits, not spins.
  h2o_timeout_entry_t accept_pause_{};
  /// Every accepted connection's socket, to shut them down at close().
  std::unordered_set<h2o_socket_t*> connections_;
  std::unordered_set<WaitingRequest*> waiting_;
  std::map<std::chrono::milliseconds, std::unique_ptr<h2o_timeout_t>> timeouts_;
  h2o_timeout_t upstream_io_timeout_{};
  h2o_http1client_ctx_t upstream_client_{};
  h2o_socketpool_t upstream_pool_{};
  std::string upstream_host_;
  std::unique_ptr<DatabaseWaits> database_;
  bool exiting_ = false;
  bool closed_ = false;
  std::chrono::steady_clock::time_point exit_deadline_;
};

}  // namespace benchd::h2o_plugin
