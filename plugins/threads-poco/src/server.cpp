#include "server.hpp"

#include "connection.hpp"
#include "deadline_socket.hpp"

#include <benchd/sdk/counted.hpp>
#include <benchd/sdk/limits.hpp>

#include <Poco/Exception.h>
#include <Poco/Net/HTTPServerParams.h>
#include <Poco/Net/NetException.h>
#include <Poco/Net/ServerSocket.h>
#include <Poco/Net/SocketAddress.h>

#include <cerrno>
#include <thread>
#include <vector>

namespace benchd::threads_poco {

namespace {

/// Server-side read, write and keep-alive idle timeouts (sdk::kIoTimeout).
const Poco::Timespan kIoTimeout(sdk::kIoTimeout.count(), 0);

Poco::Net::ServerSocket listenOn(const sdk::ServerSettings& settings, int backlog) {
  const std::string where = settings.bind_address + ":" + std::to_string(settings.port);
  Poco::Net::SocketAddress address;
  try {
    address = Poco::Net::SocketAddress(settings.bind_address, settings.port);
  } catch (const Poco::Exception& e) {
    throw sdk::PluginError(BENCHD_ERR_INVALID_ARGUMENT,
                           "bind address '" + settings.bind_address + "': " + e.displayText());
  }
  DeadlineServerSocket socket;  // its connections can be held to the request deadlines
  try {
    // SO_REUSEADDR for quick restarts, but not SO_REUSEPORT: a second server on the same port
    // must fail, not share it.
    socket.bind(address, true, false);
    socket.listen(backlog);
  } catch (const Poco::Exception& e) {
    if (e.code() == EADDRINUSE || e.displayText().find("in use") != std::string::npos) {
      throw sdk::PluginError(BENCHD_ERR_ADDRESS_IN_USE, "port " + std::to_string(settings.port) +
                                                            " on " + settings.bind_address +
                                                            " is already in use");
    }
    throw sdk::PluginError(BENCHD_ERR_IO, "cannot listen on " + where + ": " + e.displayText());
  }
  return socket;
}

}  // namespace

Server::Server(const benchd_host_api* host, sdk::ServerSettings settings)
    : settings_(std::move(settings)),
      pool_settings_(sdk::ThreadPoolSettings::from(settings_)),
      state_(host, settings_) {
  state_.no_keep_alive = settings_.hasProfile("no-keep-alive");
}

Server::~Server() {
  if (server_ && !stopped_)
    stop(std::chrono::milliseconds(0));
}

void Server::start() {
  if (server_)
    throw sdk::PluginError(BENCHD_ERR_STATE, "server already started");
  Poco::Net::ServerSocket socket = listenOn(settings_, pool_settings_.backlog);
  port_ = socket.address().port();
  const bool any_address = socket.address().host().isWildcard();
  state_.nested_client->setEndpoint(any_address ? "127.0.0.1" : settings_.bind_address, port_);

  Poco::Net::HTTPServerParams::Ptr params(new Poco::Net::HTTPServerParams);
  params->setMaxThreads(pool_settings_.max_threads);
  params->setMaxQueued(pool_settings_.max_queued);
  params->setThreadIdleTime(kIoTimeout);
  params->setTimeout(kIoTimeout);
  params->setKeepAlive(true);
  params->setKeepAliveTimeout(kIoTimeout);
  params->setMaxKeepAliveRequests(0);  // unlimited
  thread_pool_ = std::make_unique<Poco::ThreadPool>(
      pool_settings_.min_threads, pool_settings_.max_threads, 60, pool_settings_.stack_kib * 1024);
  state_.stream_pool = thread_pool_.get();
  connections_ = new ConnectionFactory(params, state_);
  // A TCPServer with our own Connection rather than Poco's HTTPServer: see Connection.
  server_ = std::make_unique<Poco::Net::TCPServer>(connections_, *thread_pool_, socket, params);
  server_->start();
}

bool Server::stop(std::chrono::milliseconds timeout) {
  if (!server_ || stopped_)
    return true;
  stopped_ = true;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  state_.draining.store(true, std::memory_order_relaxed);
  state_.drain.raise();
  // Idle pooled client connections free their server-side threads; the listener keeps
  // accepting because requests in flight may still make nested calls.
  state_.nested_client->drain();
  const bool drained = sdk::waitForNoneInFlight(state_.requests_in_flight, deadline);
  server_->stop();
  if (state_.database)
    state_.database->stop();  // requests queued for a session answer 503 at once
  connections_->stopConnections();
  state_.nested_client->drain();
  const auto close_deadline = std::chrono::steady_clock::now() + std::chrono::seconds(1);
  while (server_->currentConnections() > 0 && std::chrono::steady_clock::now() < close_deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  thread_pool_->joinAll();
  return drained;
}

std::span<const std::string_view> Server::knownOptions() {
  return sdk::kThreadPoolServerOptions;
}

void Server::reportCounters(benchd_counter_sink sink, void* sink_context) const {
  const auto relaxed = std::memory_order_relaxed;
  sink(sink_context, "requests_served", state_.requests_served.load(relaxed));
  sink(sink_context, "requests_in_flight", state_.requests_in_flight.load(relaxed));
  sink(sink_context, "upstream_calls", state_.upstream_calls.load(relaxed));
  sink(sink_context, "upstream_connections_open", state_.nested_client->connectionsOpen());
  if (!server_)
    return;
  sink(sink_context, "connections_open", server_->currentConnections());
  sink(sink_context, "connections_queued", server_->queuedConnections());
  sink(sink_context, "connections_refused", server_->refusedConnections());
  sink(sink_context, "pool_threads_busy", thread_pool_->used());
  sink(sink_context, "pool_threads_allocated", thread_pool_->allocated());
  sink(sink_context, "pool_threads_max", pool_settings_.max_threads);
  if (state_.database)
    state_.database->reportCounters(sink, sink_context);
}

}  // namespace benchd::threads_poco
