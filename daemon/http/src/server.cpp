#include "server_core.hpp"
#include "session.hpp"

#include <benchd/http/server.hpp>

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>

#include <pthread.h>

#include <condition_variable>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

namespace benchd::http {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;
using error_code = boost::system::error_code;

namespace {

using detail::Core;
using detail::Loop;

/// Backoff after a failed accept (e.g. out of file descriptors), so it does not spin.
constexpr std::chrono::milliseconds kAcceptRetryDelay{50};

/// The server whose loop the current thread runs, if any (so stop() can refuse to join itself).
thread_local const void* tl_current_server = nullptr;

}  // namespace

struct HttpServer::Impl {
  Impl(Router router, ServerOptions options) : core(std::move(router), std::move(options)) {}

  void accept();
  void onAccept(error_code error, tcp::socket socket, Loop& target);
  [[nodiscard]] bool onServerThread() const;
  void stop();

  Core core;
  std::vector<std::unique_ptr<Loop>> loops;
  /// On loops[0]; declared after `loops` so it is destroyed before them.
  std::optional<tcp::acceptor> acceptor;
  std::optional<asio::steady_timer> accept_retry;
  std::size_t next_loop = 0;  ///< loops[0]'s thread only
  std::uint16_t bound_port = 0;
  std::string bound_address;

  std::mutex stop_mutex;  ///< serialises stop(); held for its whole run
  bool stopped = false;   ///< guarded by stop_mutex
  std::mutex exit_mutex;
  std::condition_variable exited;
  std::size_t running_threads = 0;  ///< guarded by exit_mutex
};

void HttpServer::Impl::accept() {
  Loop& target = *loops[next_loop++ % loops.size()];
  acceptor->async_accept(target.io, [this, &target](error_code error, tcp::socket socket) {
    onAccept(error, std::move(socket), target);
  });
}

void HttpServer::Impl::onAccept(error_code error, tcp::socket socket, Loop& target) {
  if (error == asio::error::operation_aborted || core.stopping || !acceptor->is_open())
    return;
  if (error) {
    // Typically EMFILE/ENFILE: wait a little instead of spinning on the failing accept.
    accept_retry->expires_after(kAcceptRetryDelay);
    accept_retry->async_wait([this](error_code wait_error) {
      if (!wait_error && !core.stopping)
        accept();
    });
    return;
  }
  if (core.connections.load() >= core.options.max_connections) {
    error_code ignored;
    socket.close(ignored);  // over the limit: refuse by closing, costs nothing to keep
  } else {
    core.connections.fetch_add(1);
    if (core.tls) {
      auto session =
          std::make_shared<detail::Session<detail::TlsStream>>(core, target, std::move(socket));
      asio::post(target.io, [session] { session->start(); });
    } else {
      auto session =
          std::make_shared<detail::Session<detail::PlainStream>>(core, target, std::move(socket));
      asio::post(target.io, [session] { session->start(); });
    }
  }
  accept();
}

bool HttpServer::Impl::onServerThread() const {
  return tl_current_server == this;
}

void HttpServer::Impl::stop() {
  if (onServerThread())
    throw std::logic_error("HttpServer::stop() must not be called from a server thread");
  std::lock_guard stop_lock(stop_mutex);
  if (stopped)
    return;
  core.stopping = true;
  asio::post(loops[0]->io, [this] {
    error_code ignored;
    acceptor->close(ignored);
    accept_retry->cancel();
  });
  for (auto& loop : loops) {
    asio::post(loop->io, [&target = *loop] {
      const std::vector<detail::LoopSession*> sessions(target.sessions.begin(),
                                                       target.sessions.end());
      for (auto* session : sessions)
        session->shutdown();
      target.work.reset();
    });
  }
  {
    std::unique_lock lock(exit_mutex);
    exited.wait_for(lock, core.options.stop_grace, [this] { return running_threads == 0; });
  }
  for (auto& loop : loops)
    loop->io.stop();  // whatever is still open after the grace period is cut off
  for (auto& loop : loops) {
    if (loop->thread.joinable())
      loop->thread.join();
  }
  core.sweepStreams();
  stopped = true;
}

HttpServer::HttpServer(Router router, ServerOptions options)
    : impl_(std::make_unique<Impl>(std::move(router), std::move(options))) {
  auto& impl = *impl_;
  const auto& opts = impl.core.options;
  if (opts.threads == 0)
    throw std::invalid_argument("HttpServer: threads must be at least 1");
  error_code error;
  const auto address = asio::ip::make_address(opts.address, error);
  if (error) {
    throw std::invalid_argument("HttpServer: '" + opts.address +
                                "' is not a numeric IPv4 or IPv6 address");
  }
  for (unsigned i = 0; i < opts.threads; ++i) {
    impl.loops.push_back(std::make_unique<Loop>());
    impl.loops.back()->work.emplace(impl.loops.back()->io.get_executor());
  }
  const tcp::endpoint endpoint(address, opts.port);
  const std::string where = opts.address + " port " + std::to_string(opts.port);
  impl.acceptor.emplace(impl.loops[0]->io);
  impl.accept_retry.emplace(impl.loops[0]->io);
  impl.acceptor->open(endpoint.protocol(), error);
  if (!error)
    impl.acceptor->set_option(asio::socket_base::reuse_address(true), error);
  if (!error)
    impl.acceptor->bind(endpoint, error);
  if (!error)
    impl.acceptor->listen(asio::socket_base::max_listen_connections, error);
  if (error) {
    throw std::system_error(error.value(), std::generic_category(),
                            "HttpServer: cannot listen on " + where);
  }
  const auto local = impl.acceptor->local_endpoint();
  impl.bound_port = local.port();
  impl.bound_address = local.address().to_string();
  impl.accept();
  impl.running_threads = impl.loops.size();
  std::size_t index = 0;
  for (auto& loop : impl.loops) {
    loop->thread = std::thread([&impl, &own = *loop] {
      tl_current_server = &impl;
      // A handler's exception never reaches here (dispatch() catches them); anything else that
      // escapes must not end a loop that other connections depend on.
      for (;;) {
        try {
          own.io.run();
          break;
        } catch (...) {
        }
      }
      {
        std::lock_guard lock(impl.exit_mutex);
        --impl.running_threads;
      }
      impl.exited.notify_all();
    });
    // Named so per-thread CPU in /proc/<pid>/task/*/comm tells the server from its host
    // process's other threads (bench/daemon/sse-cpu.sh).
    const std::string name = "benchd-http-" + std::to_string(index++);
    ::pthread_setname_np(loop->thread.native_handle(), name.c_str());
  }
}

HttpServer::~HttpServer() {
  stop();
}

std::uint16_t HttpServer::port() const noexcept {
  return impl_->bound_port;
}

std::string HttpServer::address() const {
  return impl_->bound_address;
}

ServerStats HttpServer::stats() const noexcept {
  ServerStats stats;
  stats.open_connections = impl_->core.connections.load();
  stats.open_streams = impl_->core.streams.load();
  stats.requests = impl_->core.requests.load();
  return stats;
}

void HttpServer::stop() {
  impl_->stop();
}

}  // namespace benchd::http
