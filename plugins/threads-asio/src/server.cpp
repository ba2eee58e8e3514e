#include "server.hpp"

#include "connection.hpp"

#include <benchd/asio_common/event_loop_group.hpp>
#include <benchd/sdk/counted.hpp>
#include <benchd/sdk/limits.hpp>
#include <benchd/sdk/request_deadline.hpp>

#include <poll.h>

#include <array>
#include <cerrno>

namespace benchd::threads_asio {

namespace asio = boost::asio;
using asio::ip::tcp;
using boost::system::error_code;

namespace {

/// An idle pool thread beyond the starting ones ends after this (Poco's pool: 60 s).
constexpr std::chrono::milliseconds kThreadIdleTimeout = sdk::kIoTimeout;

}  // namespace

Server::Server(const benchd_host_api* host, sdk::ServerSettings settings)
    : settings_(std::move(settings)),
      pool_settings_(sdk::ThreadPoolSettings::from(settings_)),
      state_(host, settings_),
      acceptor_(io_),
      pool_(pool_settings_, kThreadIdleTimeout, [this](tcp::socket socket) {
        // Nothing may end a pool thread: a connection that fails is logged and closed.
        try {
          serveConnection(state_, std::move(socket));
        } catch (const std::exception& e) {
          state_.host.log(BENCHD_LOG_ERROR, std::string("connection failed: ") + e.what());
        }
      }) {}

Server::~Server() {
  if (started_ && !stopped_)
    stop(std::chrono::milliseconds(0));
}

std::span<const std::string_view> Server::knownOptions() {
  return sdk::kThreadPoolServerOptions;
}

void Server::listen() {
  asio_common::openListener(acceptor_, settings_, pool_settings_.backlog);
  error_code error;
  acceptor_.non_blocking(true, error);
  if (error) {
    throw sdk::PluginError(BENCHD_ERR_IO,
                           "cannot make the listener non-blocking: " + error.message());
  }
  port_ = acceptor_.local_endpoint().port();
}

void Server::start() {
  if (started_)
    throw sdk::PluginError(BENCHD_ERR_STATE, "server already started");
  listen();
  const auto self = asio_common::selfEndpointOf(acceptor_.local_endpoint());
  state_.upstream.start(io_, self, state_.tls ? &state_.tls->client : nullptr);
  if (state_.library_client)
    state_.library_client->setEndpoint(self.address().to_string(), self.port());
  state_.stream_runner = &stream_runner_;
  pool_.start();
  started_ = true;
  acceptor_thread_ = std::thread([this] { acceptUntilStopped(); });
}

void Server::acceptUntilStopped() {
  const int stop_fd = state_.signals.stopFd();
  for (;;) {
    std::array<pollfd, 2> fds{};
    fds[0] = {acceptor_.native_handle(), POLLIN, 0};
    fds[1] = {stop_fd, POLLIN, 0};
    if (::poll(fds.data(), fds.size(), -1) < 0 && errno != EINTR)
      return;
    if (fds[1].revents != 0)
      return;
    if (fds[0].revents == 0)
      continue;
    error_code error;
    tcp::socket socket = acceptor_.accept(error);
    if (error == asio::error::would_block || error == asio::error::try_again)
      continue;
    if (error) {
      // No error stops the server. Running out of descriptors or memory is waited out (see
      // sdk::kAcceptBackoff), still watching for the stop; anything else is retried at once.
      accept_errors_.fetch_add(1, std::memory_order_relaxed);
      if (asio_common::isResourceExhaustion(error)) {
        pollfd stop{stop_fd, POLLIN, 0};
        ::poll(&stop, 1, static_cast<int>(sdk::kAcceptBackoff.count()));
      }
      continue;
    }
    pool_.dispatch(std::move(socket));
  }
}

bool Server::stop(std::chrono::milliseconds timeout) {
  if (!started_ || stopped_)
    return true;
  stopped_ = true;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  // Connections waiting for their next request close; the listener keeps accepting, because
  // requests in flight may still make nested calls.
  state_.signals.signalDrain();
  state_.upstream.drain();
  if (state_.library_client)
    state_.library_client->drain();
  const bool drained = sdk::waitForNoneInFlight(state_.requests_in_flight, deadline);
  // Every wait ends: the accepting thread's, and every pool thread's.
  state_.signals.signalStop();
  if (state_.database)
    state_.database->stop();  // requests queued for a session answer 503 at once
  acceptor_thread_.join();
  error_code ignored;
  acceptor_.close(ignored);
  pool_.stopAndJoin();
  return drained;
}

void Server::reportCounters(benchd_counter_sink sink, void* sink_context) const {
  const auto relaxed = std::memory_order_relaxed;
  const PoolCounters pool = pool_.counters();
  sink(sink_context, "requests_served", state_.requests_served.load(relaxed));
  sink(sink_context, "requests_in_flight", state_.requests_in_flight.load(relaxed));
  sink(sink_context, "upstream_calls", state_.upstream_calls.load(relaxed));
  sink(sink_context, "connections_open", state_.connections_open.load(relaxed));
  sink(sink_context, "upstream_connections_open",
       state_.library_client ? state_.library_client->connectionsOpen()
                             : state_.upstream.connectionsOpen());
  sink(sink_context, "accept_errors", accept_errors_.load(relaxed));
  sink(sink_context, "connections_queued", pool.queued);
  sink(sink_context, "connections_refused", pool.refused);
  sink(sink_context, "pool_threads_busy", pool.busy);
  sink(sink_context, "pool_threads_allocated", pool.allocated);
  sink(sink_context, "pool_threads_max", pool_settings_.max_threads);
  if (state_.database)
    state_.database->reportCounters(sink, sink_context);
}

}  // namespace benchd::threads_asio
