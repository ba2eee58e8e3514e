#include "server.hpp"

#include "request_flow.hpp"
#include "wait_reactor.hpp"

#include <benchd/curl_support/blocking_curl_client.hpp>
#include <benchd/sdk/counted.hpp>
#include <benchd/sdk/limits.hpp>
#include <benchd/sdk/listening_socket.hpp>
#include <benchd/sdk/request_deadline.hpp>
#include <benchd/tls_support/tls_context.hpp>

#include <unistd.h>

#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace benchd::libmicrohttpd {

namespace {

/// MHD's connection timeout: the contract's idle and I/O timeout, in MHD's whole seconds.
constexpr unsigned kIoTimeoutSeconds = static_cast<unsigned>(
    std::chrono::duration_cast<std::chrono::seconds>(sdk::kIoTimeout).count());

/// MHD's error messages, to the host's log at debug level: it reports every client's broken
/// request, which the contract lets a client send as often as it likes.
void logFromMhd(void* cls, const char* format, va_list arguments) {
  char message[BENCHD_MAX_MESSAGE_SIZE];
  const int length = std::vsnprintf(message, sizeof(message), format, arguments);
  if (length <= 0)
    return;
  std::string_view text(
      message, std::min<std::size_t>(static_cast<std::size_t>(length), sizeof(message) - 1));
  while (!text.empty() && text.back() == '\n')
    text.remove_suffix(1);
  static_cast<const sdk::Host*>(cls)->log(BENCHD_LOG_DEBUG, text);
}

/// The PEM text of a `tls` row's certificate or key file; empty without `tls`. The pair is
/// first checked with OpenSSL as every plugin checks it (tls_support::configureServer: a file
/// that cannot be loaded, or a key that is not the certificate's, is refused naming the file),
/// so MHD, which loads them with GnuTLS only at start, gets a pair known to be good.
std::string tlsFile(const sdk::ServerSettings& settings, const std::string& path) {
  if (!settings.hasProfile("tls"))
    return {};
  const auto checked = tls_support::newServerContext();
  tls_support::configureServer(checked.get(), settings, false);
  std::ifstream file(path, std::ios::binary);
  std::string text((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  if (!file && !file.eof())
    throw sdk::PluginError(BENCHD_ERR_INVALID_ARGUMENT, "cannot read " + path);
  return text;
}

}  // namespace

void OpenConnections::shutDownAll() {
  const std::lock_guard lock(mutex_);
  for (const int fd : fds_)
    ::shutdown(fd, SHUT_RDWR);
}

ServerState::ServerState(const benchd_host_api* api, const sdk::ServerSettings& settings)
    : host_api(api),
      host(api),
      mhd(MhdSettings::from(settings)),
      has_database(sdk::hostHasDatabase(api)),
      no_keep_alive(settings.hasProfile("no-keep-alive")),
      tls_certificate_pem(tlsFile(settings, settings.tls_certificate_file)),
      tls_key_pem(tlsFile(settings, settings.tls_private_key_file)) {
  (void)sdk::headerDeadline(settings);  // refuses a bad header_deadline_ms (MHD keeps its own)
  if (mhd.mode != Mode::kPerConnection)
    return;
  nested_client = std::make_unique<curl_support::BlockingCurlClient>(
      sdk::upstreamResponseMargin(settings), sdk::upstreamIdleTimeout(settings), -1, tls());
  if (has_database)
    database = std::make_unique<sdk::BlockingDatabasePool>(api, sdk::databaseDeadline(settings));
}

Server::Server(const benchd_host_api* host, sdk::ServerSettings settings)
    : settings_(std::move(settings)), state_(host, settings_) {
  if (state_.mhd.mode != Mode::kPerConnection) {
    reactor_ = std::make_unique<WaitReactor>(
        state_, WaitReactor::Settings{sdk::upstreamResponseMargin(settings_),
                                      sdk::upstreamIdleTimeout(settings_),
                                      sdk::databaseDeadline(settings_), state_.tls()});
    state_.reactor = reactor_.get();
  }
}

Server::~Server() {
  if (daemon_ != nullptr && !stopped_)
    stop(std::chrono::milliseconds(0));
  if (listen_fd_ >= 0)
    ::close(listen_fd_);
}

std::span<const std::string_view> Server::knownOptions() {
  return MhdSettings::knownOptions();
}

void Server::start() {
  if (daemon_ != nullptr)
    throw sdk::PluginError(BENCHD_ERR_STATE, "server already started");
  listen_fd_ =
      sdk::listenOn(settings_.bind_address, settings_.port, static_cast<int>(state_.mhd.backlog));
  port_ = sdk::boundPortOf(listen_fd_);
  const bool any_address = settings_.bind_address == "0.0.0.0" || settings_.bind_address == "::";
  const std::string self = any_address ? "127.0.0.1" : settings_.bind_address;
  if (reactor_) {
    reactor_->setEndpoint(self, port_);
    reactor_->start();
  } else {
    state_.nested_client->setEndpoint(self, port_);
  }

  // The acceptor hands MHD its connections (MHD_USE_NO_LISTEN_SOCKET), but MHD cannot take
  // them with a thread pool, so in pool mode MHD accepts on the plugin's socket itself.
  // MHD_USE_ITC lets MHD_add_connection, MHD_resume_connection and MHD_quiesce_daemon wake
  // the polling threads. Every mode polls with poll(): select() could not watch descriptors
  // above 1023, and MHD 0.9.75's epoll mode left about half of 64 concurrent clients that send
  // a partial request and close their sending side unanswered and open until its timeout.
  const bool own_accept = state_.mhd.mode != Mode::kPool;
  unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ITC | MHD_USE_ERROR_LOG;
  flags |= state_.mhd.mode == Mode::kPerConnection ? MHD_USE_THREAD_PER_CONNECTION | MHD_USE_POLL
                                                   : MHD_USE_POLL | MHD_ALLOW_SUSPEND_RESUME;
  if (own_accept)
    flags |= MHD_USE_NO_LISTEN_SOCKET;
  if (state_.tls())
    flags |= MHD_USE_TLS;
  // With the acceptor, MHD's own cap stays above the acceptor's, which keeps the excess in the
  // backlog; without it MHD closes connections over max_threads at once.
  const auto mhd_limit = static_cast<unsigned>(state_.mhd.max_threads + (own_accept ? 64 : 0));
  const auto stack_bytes = static_cast<std::size_t>(state_.mhd.stack_kib) * 1024;
  // The logger first: MHD reports options it reads before it with its own logger (stderr).
  std::vector<MHD_OptionItem> options = {
      {MHD_OPTION_EXTERNAL_LOGGER, reinterpret_cast<intptr_t>(&logFromMhd), &state_.host},
      {MHD_OPTION_CONNECTION_TIMEOUT, kIoTimeoutSeconds, nullptr},
      {MHD_OPTION_CONNECTION_LIMIT, mhd_limit, nullptr},
      {MHD_OPTION_THREAD_STACK_SIZE, static_cast<intptr_t>(stack_bytes), nullptr},
      {MHD_OPTION_NOTIFY_CONNECTION, reinterpret_cast<intptr_t>(&onConnection), &state_},
      {MHD_OPTION_URI_LOG_CALLBACK, reinterpret_cast<intptr_t>(&onRequestTarget), &state_},
      {MHD_OPTION_NOTIFY_COMPLETED, reinterpret_cast<intptr_t>(&onRequestEnded), &state_},
  };
  if (state_.tls()) {
    // GnuTLS's priority string for TLS 1.2 and 1.3 only, as every plugin serves.
    static constexpr char kTls12AndUp[] = "NORMAL:-VERS-ALL:+VERS-TLS1.3:+VERS-TLS1.2";
    options.push_back(
        {MHD_OPTION_HTTPS_MEM_CERT, 0, const_cast<char*>(state_.tls_certificate_pem.c_str())});
    options.push_back({MHD_OPTION_HTTPS_MEM_KEY, 0, const_cast<char*>(state_.tls_key_pem.c_str())});
    options.push_back({MHD_OPTION_HTTPS_PRIORITIES, 0, const_cast<char*>(kTls12AndUp)});
  }
  if (!own_accept) {
    options.push_back({MHD_OPTION_LISTEN_SOCKET, listen_fd_, nullptr});
    options.push_back({MHD_OPTION_THREAD_POOL_SIZE, state_.mhd.pool_threads, nullptr});
  }
  options.push_back({MHD_OPTION_END, 0, nullptr});
  daemon_ = MHD_start_daemon(flags, 0, nullptr, nullptr, &onRequest, &state_, MHD_OPTION_ARRAY,
                             options.data(), MHD_OPTION_END);
  if (daemon_ == nullptr) {
    throw sdk::PluginError(BENCHD_ERR_INTERNAL, "MHD_start_daemon failed in mode " +
                                                    std::string(modeName(state_.mhd.mode)));
  }
  if (!own_accept)
    return;
  acceptor_ =
      std::make_unique<ConnectionAcceptor>(listen_fd_, daemon_, state_, state_.mhd.max_threads);
  state_.acceptor = acceptor_.get();
  acceptor_->start();
}

bool Server::stop(std::chrono::milliseconds timeout) {
  if (daemon_ == nullptr || stopped_)
    return true;
  stopped_ = true;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  state_.draining.store(true, std::memory_order_relaxed);
  // Idle pooled client connections free their server-side threads; the listener keeps
  // accepting because requests in flight may still make nested calls.
  if (reactor_)
    reactor_->drain();
  else
    state_.nested_client->drain();
  const bool drained = sdk::waitForNoneInFlight(state_.requests_in_flight, deadline);
  if (acceptor_)
    acceptor_->stop();
  else
    (void)MHD_quiesce_daemon(daemon_);  // MHD stops accepting; the socket stays ours to close
  if (state_.database)
    state_.database->stop();  // requests queued for a session answer 503 at once
  // The reactor's waits end unanswered, and their connections are resumed, as MHD needs
  // before it stops. Every blocking wait watches its client's descriptor, so the shutdown
  // ends them all; MHD's own reads end too.
  if (reactor_)
    reactor_->stop();
  state_.connections.shutDownAll();
  MHD_stop_daemon(daemon_);
  daemon_ = nullptr;
  ::close(listen_fd_);
  listen_fd_ = -1;
  if (state_.nested_client)
    state_.nested_client->drain();
  return drained;
}

void Server::reportCounters(benchd_counter_sink sink, void* sink_context) const {
  const auto relaxed = std::memory_order_relaxed;
  sink(sink_context, "requests_served", state_.requests_served.load(relaxed));
  sink(sink_context, "requests_in_flight", state_.requests_in_flight.load(relaxed));
  sink(sink_context, "upstream_calls", state_.upstream_calls.load(relaxed));
  sink(sink_context, "upstream_connections_open",
       reactor_ ? reactor_->upstreamConnectionsOpen() : state_.nested_client->connectionsOpen());
  sink(sink_context, "connections_open", state_.connections.count());
  sink(sink_context, "connections_accepted", state_.connections_accepted.load(relaxed));
  if (reactor_) {
    sink(sink_context, "event_loops",
         state_.mhd.mode == Mode::kPool ? static_cast<std::int64_t>(state_.mhd.pool_threads) : 1);
    sink(sink_context, "reactor_waits", reactor_->waiting());
    if (state_.has_database)
      reactor_->reportDatabaseCounters(sink, sink_context);
  } else {
    // A connection's thread lives as long as the connection, and is busy while its request
    // is in flight.
    sink(sink_context, "pool_threads_busy", state_.requests_in_flight.load(relaxed));
    sink(sink_context, "pool_threads_allocated", state_.connections.count());
    sink(sink_context, "pool_threads_max", state_.mhd.max_threads);
  }
  if (acceptor_)
    sink(sink_context, "accept_errors", acceptor_->acceptErrors());
  if (state_.database)
    state_.database->reportCounters(sink, sink_context);
}

}  // namespace benchd::libmicrohttpd
