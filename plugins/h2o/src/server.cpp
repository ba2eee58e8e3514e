#include "server.hpp"

#include "request_flow.hpp"

#include <benchd/sdk/counted.hpp>
#include <benchd/sdk/limits.hpp>
#include <benchd/sdk/listening_socket.hpp>
#include <benchd/sdk/request_deadline.hpp>

#include <unistd.h>

#include <cstring>
#include <string>

namespace benchd::h2o_plugin {

namespace {

/// The listen(2) backlog, as the other event-loop plugins'.
constexpr int kBacklog = 2000;

std::uint64_t millisOf(std::chrono::milliseconds duration) {
  return static_cast<std::uint64_t>(duration.count());
}

}  // namespace

ServerState::ServerState(const benchd_host_api* api, const sdk::ServerSettings& settings)
    : host_api(api),
      host(api),
      has_database(sdk::hostHasDatabase(api)),
      no_keep_alive(settings.hasProfile("no-keep-alive")),
      tls(settings.hasProfile("tls") || settings.hasProfile("h2")),
      header_deadline(sdk::headerDeadline(settings)),
      upstream_margin(sdk::upstreamResponseMargin(settings)),
      upstream_idle(sdk::upstreamIdleTimeout(settings)),
      database_deadline(sdk::databaseDeadline(settings)) {}

Server::Server(const benchd_host_api* host, sdk::ServerSettings settings)
    : settings_(std::move(settings)), state_(host, settings_) {
  if (state_.tls) {
    server_tls_ = tls_support::newServerContext();
    tls_support::configureServer(server_tls_.get(), settings_, settings_.hasProfile("h2"));
    upstream_tls_ = tls_support::newClientContext();
    tls_support::configureClient(upstream_tls_.get());
  }
  h2o_config_init(&config_);
  h2o_hostconf_t* host_config =
      h2o_config_register_host(&config_, h2o_iovec_init(H2O_STRLIT("default")), 65535);
  h2o_pathconf_t* path_config = h2o_config_register_path(host_config, "/", 0);
  h2o_handler_t* handler = h2o_create_handler(path_config, sizeof(h2o_handler_t));
  handler->on_req = &onRequest;
  // h2o reads a body up to twice the limit, so that the handler answers one just over it with
  // the contract's 413; beyond that h2o answers in its own words, and it reads heads up to its
  // own H2O_MAX_REQLEN: the stack-framing exception.
  config_.max_request_entity_size = 2 * sdk::kMaxRequestBodyBytes;
  // h2o's request timeout runs from when a connection starts waiting for a request, idle time
  // included: the idle-header-timeout exception.
  config_.http1.req_timeout = millisOf(state_.header_deadline);
  config_.handshake_timeout = millisOf(state_.header_deadline);
  // Prior-knowledge HTTP/2 ("PRI * HTTP/2.0") on the clear port only under h2c.
  config_.http1.upgrade_to_http2 = settings_.hasProfile("h2c") ? 1 : 0;
  config_.http2.idle_timeout =
      millisOf(std::chrono::duration_cast<std::chrono::milliseconds>(sdk::kIoTimeout));
}

Server::~Server() {
  if (started_ && !stopped_)
    stop(std::chrono::milliseconds(0));
  loops_.clear();
  h2o_config_dispose(&config_);
  if (listen_fd_ >= 0)
    ::close(listen_fd_);
}

std::span<const std::string_view> Server::knownOptions() {
  return sdk::kRequestDeadlineOptions;
}

void Server::start() {
  if (started_)
    throw sdk::PluginError(BENCHD_ERR_STATE, "server already started");
  listen_fd_ = sdk::listenOn(settings_.bind_address, settings_.port, kBacklog);
  port_ = sdk::boundPortOf(listen_fd_);
  const bool any_address = settings_.bind_address == "0.0.0.0" || settings_.bind_address == "::";
  EventLoop::Upstream upstream{};
  upstream.address = sdk::socketAddressOf(any_address ? "127.0.0.1" : settings_.bind_address, port_,
                                          upstream.length);
  upstream.ssl_context = upstream_tls_.get();
  started_ = true;
  for (unsigned i = 0; i < settings_.threads; ++i) {
    loops_.push_back(
        std::make_unique<EventLoop>(state_, config_, server_tls_.get(), listen_fd_, upstream));
    loops_.back()->start();
  }
}

bool Server::stop(std::chrono::milliseconds timeout) {
  if (!started_ || stopped_)
    return true;
  stopped_ = true;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  state_.draining.store(true, std::memory_order_relaxed);
  for (auto& loop : loops_)
    loop->drain();
  const bool drained = sdk::waitForNoneInFlight(state_.requests_in_flight, deadline);
  for (auto& loop : loops_)
    loop->close();
  for (auto& loop : loops_)
    loop->exit();
  state_.database_sessions.close();
  ::close(listen_fd_);
  listen_fd_ = -1;
  return drained;
}

void Server::reportCounters(benchd_counter_sink sink, void* sink_context) const {
  const auto relaxed = std::memory_order_relaxed;
  sink(sink_context, "requests_served", state_.requests_served.load(relaxed));
  sink(sink_context, "requests_in_flight", state_.requests_in_flight.load(relaxed));
  sink(sink_context, "upstream_calls", state_.upstream_calls.load(relaxed));
  std::int64_t upstream_open = 0;
  for (const auto& loop : loops_)
    upstream_open += loop->upstreamConnectionsOpen();
  sink(sink_context, "upstream_connections_open", upstream_open);
  sink(sink_context, "connections_open", state_.connections_open.load(relaxed));
  sink(sink_context, "connections_accepted", state_.connections_accepted.load(relaxed));
  sink(sink_context, "accept_errors", state_.accept_errors.load(relaxed));
  sink(sink_context, "event_loops", static_cast<std::int64_t>(settings_.threads));
  if (state_.has_database)
    state_.database_counters.report(sink, sink_context);
}

}  // namespace benchd::h2o_plugin
