#include "event_loop.hpp"

#include "waiting_request.hpp"

#include <benchd/sdk/limits.hpp>

#include <unistd.h>

#include <arpa/inet.h>
#include <array>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <h2o/socket/evloop.h>
#include <sys/socket.h>
#include <vector>

namespace benchd::h2o_plugin {

namespace {

/// The loop whose thread this is: h2o's callbacks without a pointer of ours (a connection's
/// close, the command queue) find their loop here.
thread_local EventLoop* t_current_loop = nullptr;

/// How long exit() lets h2o close the connections close() shut down.
constexpr std::chrono::milliseconds kExitGrace{1000};

/// The Host header naming `address`: "127.0.0.1:8080", "[::1]:8080".
std::string hostHeaderOf(const sockaddr_storage& address) {
  std::array<char, INET6_ADDRSTRLEN> text{};
  if (address.ss_family == AF_INET6) {
    const auto& v6 = reinterpret_cast<const sockaddr_in6&>(address);
    ::inet_ntop(AF_INET6, &v6.sin6_addr, text.data(), text.size());
    return "[" + std::string(text.data()) + "]:" + std::to_string(ntohs(v6.sin6_port));
  }
  const auto& v4 = reinterpret_cast<const sockaddr_in&>(address);
  ::inet_ntop(AF_INET, &v4.sin_addr, text.data(), text.size());
  return std::string(text.data()) + ":" + std::to_string(ntohs(v4.sin_port));
}

}  // namespace

struct EventLoop::CommandMessage {
  h2o_multithread_message_t message;  // first: the queue hands back its link
  Command command;
  sdk::DatabaseSession session;  // kDatabaseSession's
};

EventLoop::EventLoop(ServerState& state, h2o_globalconf_t& config, SSL_CTX* ssl_context,
                     int listen_fd, Upstream upstream)
    : state_(state),
      config_(config),
      ssl_context_(ssl_context),
      listen_fd_(listen_fd),
      upstream_(upstream),
      database_(std::make_unique<DatabaseWaits>(*this, state.database_sessions)) {
  accept_pause_.cb = &onAcceptPaused;
}

EventLoop::~EventLoop() {
  if (thread_.joinable()) {
    post(Command::kClose);
    exit();
  }
}

EventLoop& EventLoop::of(h2o_context_t* context) {
  return *reinterpret_cast<Context*>(context)->owner;
}

void EventLoop::start() {
  std::promise<void> ready;
  auto started = ready.get_future();
  thread_ = std::thread([this, &ready] { run(ready); });
  try {
    started.get();
  } catch (...) {
    thread_.join();
    throw;
  }
}

void EventLoop::drain() {
  post(Command::kDrain);
}

void EventLoop::close() {
  post(Command::kClose);
}

void EventLoop::exit() {
  if (!thread_.joinable())
    return;
  post(Command::kExit);
  thread_.join();
}

void EventLoop::handOver(sdk::DatabaseSession session) {
  post(Command::kDatabaseSession, std::move(session));
}

void EventLoop::post(Command command, sdk::DatabaseSession session) {
  auto* message = new CommandMessage{{}, command, std::move(session)};
  h2o_multithread_send_message(&commands_, &message->message);
}

void EventLoop::run(std::promise<void>& ready) {
  t_current_loop = this;
  try {
    loop_ = h2o_evloop_create();
    h2o_context_init(&context_.context, loop_, &config_);
    context_.owner = this;
    h2o_multithread_register_receiver(context_.context.queue, &commands_, &onCommands);
    accept_context_.ctx = &context_.context;
    accept_context_.hosts = config_.hosts;
    accept_context_.ssl_ctx = ssl_context_;
    // Each loop accepts on its own duplicate: h2o closes the socket it wraps.
    const int listener = ::dup(listen_fd_);
    if (listener < 0)
      throw sdk::PluginError(BENCHD_ERR_IO, std::string("dup: ") + std::strerror(errno));
    listener_ = h2o_evloop_socket_create(loop_, listener, H2O_SOCKET_FLAG_DONT_READ);
    listener_->data = this;
    h2o_socket_read_start(listener_, &onAccept);

    // The nested calls' own deadline (WaitingRequest) is the one that counts: h2o's I/O
    // timeout stays beyond the longest of them.
    h2o_timeout_init(
        loop_, &upstream_io_timeout_,
        static_cast<std::uint64_t>(
            sdk::upstreamResponseTimeout(sdk::kMaxDelayMillis, state_.upstream_margin).count()));
    h2o_socketpool_init_by_address(&upstream_pool_, reinterpret_cast<sockaddr*>(&upstream_.address),
                                   upstream_.length, state_.tls ? 1 : 0,
                                   sdk::kUpstreamPoolCapacity);
    h2o_socketpool_set_timeout(&upstream_pool_, loop_,
                               static_cast<std::uint64_t>(state_.upstream_idle.count()));
    upstream_client_.loop = loop_;
    upstream_client_.getaddr_receiver = &context_.context.receivers.hostinfo_getaddr;
    upstream_client_.io_timeout = &upstream_io_timeout_;
    upstream_client_.websocket_timeout = nullptr;
    upstream_client_.ssl_ctx = upstream_.ssl_context;
    upstream_host_ = hostHeaderOf(upstream_.address);
  } catch (...) {
    ready.set_exception(std::current_exception());
    return;
  }
  ready.set_value();

  for (;;) {
    h2o_evloop_run(loop_, exiting_ ? 10 : INT32_MAX);
    if (exiting_ && (connections_.empty() || std::chrono::steady_clock::now() >= exit_deadline_))
      break;
  }
  dispose();
}

void EventLoop::onCommands(h2o_multithread_receiver_t* /*receiver*/, h2o_linklist_t* messages) {
  // Taken off h2o's list whole before any is applied (and freed).
  std::vector<std::unique_ptr<CommandMessage>> received;
  while (!h2o_linklist_is_empty(messages)) {
    h2o_linklist_t* link = messages->next;
    h2o_linklist_unlink(link);
    received.emplace_back(reinterpret_cast<CommandMessage*>(link));
  }
  for (const auto& message : received)
    t_current_loop->apply(*message);
}

void EventLoop::apply(CommandMessage& message) {
  switch (message.command) {
    case Command::kDatabaseSession:
      database_->takeOver(std::move(message.session));
      return;
    case Command::kDrain:
      // HTTP/2 connections get GOAWAY; HTTP/1.1 answers close theirs (ServerState::draining).
      h2o_context_request_shutdown(&context_.context);
      return;
    case Command::kClose: {
      if (closed_)
        return;
      closed_ = true;
      closeListener();
      database_->close();
      // The waiting requests end unanswered; every connection is shut down, which h2o sees
      // on its next read (an HTTP/1.1 connection between requests, every HTTP/2 connection).
      const std::vector<WaitingRequest*> waiting(waiting_.begin(), waiting_.end());
      for (WaitingRequest* request : waiting)
        request->cut();
      for (h2o_socket_t* connection : connections_)
        ::shutdown(h2o_socket_get_fd(connection), SHUT_RDWR);
      return;
    }
    case Command::kExit:
      exiting_ = true;
      exit_deadline_ = std::chrono::steady_clock::now() + kExitGrace;
      return;
  }
}

void EventLoop::onAccept(h2o_socket_t* listener, const char* error) {
  if (error != nullptr)
    return;
  EventLoop& self = *static_cast<EventLoop*>(listener->data);
  h2o_socket_t* connection = h2o_evloop_socket_accept(listener);
  if (connection == nullptr) {
    if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
      // Out of descriptors: the listener stays readable, so it pauses instead of spinning.
      self.state_.accept_errors.fetch_add(1, std::memory_order_relaxed);
      h2o_socket_read_stop(listener);
      h2o_timeout_link(self.loop_, self.timeoutQueue(sdk::kAcceptBackoff), &self.accept_pause_);
    }
    return;  // another loop took it, or the client left before its accept
  }
  self.connections_.insert(connection);
  connection->on_close.cb = &onConnectionClosed;
  connection->on_close.data = connection;
  self.state_.connections_accepted.fetch_add(1, std::memory_order_relaxed);
  self.state_.connections_open.fetch_add(1, std::memory_order_relaxed);
  h2o_accept(&self.accept_context_, connection);
}

void EventLoop::onAcceptPaused(h2o_timeout_entry_t* /*entry*/) {
  EventLoop& self = *t_current_loop;
  if (self.listener_ != nullptr)
    h2o_socket_read_start(self.listener_, &onAccept);
}

void EventLoop::onConnectionClosed(void* data) {
  EventLoop& self = *t_current_loop;
  self.connections_.erase(static_cast<h2o_socket_t*>(data));
  self.state_.connections_open.fetch_sub(1, std::memory_order_relaxed);
}

void EventLoop::closeListener() {
  if (h2o_timeout_is_linked(&accept_pause_))
    h2o_timeout_unlink(&accept_pause_);
  if (listener_ != nullptr) {
    h2o_socket_read_stop(listener_);
    h2o_socket_close(std::exchange(listener_, nullptr));
  }
}

h2o_timeout_t* EventLoop::timeoutQueue(std::chrono::milliseconds duration) {
  auto& queue = timeouts_[duration];
  if (!queue) {
    queue = std::make_unique<h2o_timeout_t>();
    h2o_timeout_init(loop_, queue.get(), static_cast<std::uint64_t>(duration.count()));
  }
  return queue.get();
}

std::int64_t EventLoop::upstreamConnectionsOpen() const noexcept {
  return static_cast<std::int64_t>(
      __atomic_load_n(&upstream_pool_._shared.count, __ATOMIC_RELAXED));
}

void EventLoop::dispose() {
  closeListener();
  h2o_multithread_unregister_receiver(context_.context.queue, &commands_);
  h2o_socketpool_dispose(&upstream_pool_);
  if (!connections_.empty() || !waiting_.empty()) {
    // Connections h2o did not close within the grace still link their timeouts into the
    // loop: their memory stays until the process ends rather than be freed under them.
    return;
  }
  // The drain's GOAWAY resend (h2o_context_request_shutdown) may still be due: h2o's context
  // dispose asserts that no timer of its own is.
  h2o_timeout_entry_t& goaway_resend = context_.context.http2._graceful_shutdown_timeout;
  if (h2o_timeout_is_linked(&goaway_resend))
    h2o_timeout_unlink(&goaway_resend);
  for (auto& [duration, queue] : timeouts_)
    h2o_timeout_dispose(loop_, queue.get());
  timeouts_.clear();
  h2o_timeout_dispose(loop_, &upstream_io_timeout_);
  // h2o 2.2.5's h2o_multithread_destroy_queue (called by the context's dispose) frees the
  // queue only under libuv: on its own loop the queue itself is left to the caller.
  h2o_multithread_queue_t* queue = context_.context.queue;
  h2o_context_dispose(&context_.context);
  std::free(queue);
  h2o_evloop_destroy(loop_);
  // The socket buffers h2o keeps for reuse are this thread's, and gone with it: freed here.
  // (Its memory pools' chunks, kept the same way, are out of reach: tests/sanitizers/lsan.supp.)
  h2o_mem_recycle_t& buffers = h2o_socket_buffer_prototype.allocator;
  while (buffers.cnt > 0)
    std::free(h2o_mem_alloc_recycle(&buffers, 0));
  loop_ = nullptr;
}

}  // namespace benchd::h2o_plugin
