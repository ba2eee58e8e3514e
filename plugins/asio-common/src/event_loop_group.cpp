#include <benchd/asio_common/event_loop_group.hpp>
#include <benchd/asio_common/tls_contexts.hpp>
#include <benchd/h2_session/http2_profiles.hpp>
#include <benchd/sdk/limits.hpp>

#include <boost/asio/post.hpp>

#include <cerrno>
#include <thread>

namespace benchd::asio_common {

namespace asio = boost::asio;
using asio::ip::tcp;

bool isResourceExhaustion(const boost::system::error_code& accept_error) noexcept {
  return accept_error == asio::error::no_descriptors ||
         accept_error == asio::error::no_buffer_space || accept_error == asio::error::no_memory ||
         (accept_error.category() == boost::system::system_category() &&
          accept_error.value() == ENFILE);
}

void openListener(tcp::acceptor& acceptor, const sdk::ServerSettings& settings, int backlog) {
  boost::system::error_code error;
  const auto address = asio::ip::make_address(settings.bind_address, error);
  if (error) {
    throw sdk::PluginError(BENCHD_ERR_INVALID_ARGUMENT,
                           "bind address '" + settings.bind_address + "' is not a numeric IP");
  }
  const std::string where = settings.bind_address + ":" + std::to_string(settings.port);
  const tcp::endpoint endpoint(address, settings.port);
  acceptor.open(endpoint.protocol(), error);
  if (!error)
    acceptor.set_option(asio::socket_base::reuse_address(true), error);
  if (!error)
    acceptor.bind(endpoint, error);
  if (error == asio::error::address_in_use) {
    throw sdk::PluginError(BENCHD_ERR_ADDRESS_IN_USE, "port " + std::to_string(settings.port) +
                                                          " on " + settings.bind_address +
                                                          " is already in use");
  }
  if (!error)
    acceptor.listen(backlog, error);
  if (error)
    throw sdk::PluginError(BENCHD_ERR_IO, "cannot listen on " + where + ": " + error.message());
}

tcp::endpoint selfEndpointOf(const tcp::endpoint& bound) {
  // Nested calls go to loopback when the server listens on every interface.
  const asio::ip::address address = bound.address();
  if (!address.is_unspecified())
    return bound;
  return {address.is_v6() ? asio::ip::address(asio::ip::address_v6::loopback())
                          : asio::ip::address(asio::ip::address_v4::loopback()),
          bound.port()};
}

EventLoop::EventLoop(EventLoopGroup& owner, std::size_t loop_index)
    : group(owner), index(loop_index), upstream(*this) {
  if (owner.settings().hasProfile(kCurlClientProfile))
    curl = std::make_unique<CurlUpstream>(*this);
}

EventLoopGroup::EventLoopGroup(sdk::ServerSettings settings, const benchd_host_api* host)
    : settings_(std::move(settings)),
      no_keep_alive_(settings_.hasProfile("no-keep-alive")),
      h2c_(settings_.hasProfile("h2c")),
      header_deadline_(sdk::headerDeadline(settings_)),
      upstream_response_margin_(sdk::upstreamResponseMargin(settings_)),
      upstream_idle_timeout_(sdk::upstreamIdleTimeout(settings_)) {
  const std::chrono::milliseconds database_deadline = sdk::databaseDeadline(settings_);
  if (sdk::hostHasDatabase(host))
    database_ = std::make_unique<DatabasePool>(host, database_deadline);
  tls_ = makeTlsContexts(settings_);
  if (tls_ && settings_.hasProfile(kCurlClientProfile))
    throw sdk::PluginError(BENCHD_ERR_INVALID_ARGUMENT,
                           std::string(settings_.hasProfile("tls") ? "tls" : "h2") +
                               " with client-curl is not implemented: the nested call's libcurl "
                               "client speaks plain HTTP (use client-beast or no client profile)");
  h2_session::refuseHttp2WithoutKeepAlive(settings_);
  for (std::size_t i = 0; i < settings_.threads; ++i) {
    loops_.push_back(std::make_unique<EventLoop>(*this, i));
  }
}

EventLoopGroup::~EventLoopGroup() {
  if (started_ && !stopped_)
    stop(std::chrono::milliseconds(0));
}

void EventLoopGroup::listen() {
  if (acceptor_)
    throw sdk::PluginError(BENCHD_ERR_STATE, "server already listening");
  acceptor_ = std::make_unique<tcp::acceptor>(loops_.front()->io);
  openListener(*acceptor_, settings_, asio::socket_base::max_listen_connections);
  bound_port_ = acceptor_->local_endpoint().port();
  accept_backoff_ = std::make_unique<asio::steady_timer>(loops_.front()->io);
  self_endpoint_ = selfEndpointOf(acceptor_->local_endpoint());
}

void EventLoopGroup::start(AcceptHandler on_accept, LoopRunner run_loop, LoopStopper stop_loop) {
  if (!acceptor_ || started_)
    throw sdk::PluginError(BENCHD_ERR_STATE, "listen() first, once");
  if (!run_loop)
    run_loop = [](EventLoop& loop) { loop.io.run(); };
  if (!stop_loop)
    stop_loop = [](EventLoop& loop) { loop.io.stop(); };
  on_accept_ = std::move(on_accept);
  stop_loop_ = std::move(stop_loop);
  started_ = true;
  acceptNext();
  for (auto& loop : loops_) {
    loop->work.emplace(loop->io.get_executor());
    loop->thread = std::thread([run_loop, &l = *loop] { run_loop(l); });
  }
}

void EventLoopGroup::acceptNext() {
  EventLoop& target = *loops_[next_loop_];
  next_loop_ = (next_loop_ + 1) % loops_.size();
  acceptor_->async_accept(
      target.io, [this, &target](boost::system::error_code error, tcp::socket socket) {
        if (error == asio::error::operation_aborted || !acceptor_->is_open())
          return;
        if (!error) {
          boost::system::error_code ignored;
          socket.set_option(tcp::no_delay(true), ignored);
          asio::post(target.io, [this, &target, s = std::move(socket)]() mutable {
            on_accept_(target, std::move(s));
          });
          acceptNext();
          return;
        }
        // No error stops the server. Running out of descriptors or memory is waited out (see
        // kAcceptBackoff); anything else (e.g. a connection aborted in the backlog) is retried
        // at once.
        accept_errors_.fetch_add(1, std::memory_order_relaxed);
        if (isResourceExhaustion(error)) {
          acceptAfterBackoff();
        } else {
          acceptNext();
        }
      });
}

void EventLoopGroup::acceptAfterBackoff() {
  accept_backoff_->expires_after(sdk::kAcceptBackoff);
  accept_backoff_->async_wait([this](boost::system::error_code error) {
    if (error || !acceptor_->is_open())
      return;
    acceptNext();
  });
}

std::int64_t EventLoopGroup::sum(std::atomic<std::int64_t> LoopCounters::*counter) const {
  std::int64_t total = 0;
  for (const auto& loop : loops_)
    total += (loop->counters.*counter).load(std::memory_order_relaxed);
  return total;
}

void EventLoopGroup::closeConnections(bool all) {
  for (auto& loop : loops_) {
    asio::post(loop->io, [&l = *loop, all] {
      l.upstream.closeIdle();
      if (l.curl)
        l.curl->closeIdle();
      // Closing may unregister a connection, so iterate over a copy.
      const std::vector<DrainableConnection*> connections(l.connections.begin(),
                                                          l.connections.end());
      for (DrainableConnection* connection : connections) {
        if (all) {
          connection->closeNow();
        } else {
          connection->closeIfIdle();
        }
      }
    });
  }
}

bool EventLoopGroup::stop(std::chrono::milliseconds timeout) {
  if (!started_ || stopped_)
    return true;
  stopped_ = true;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  draining_.store(true, std::memory_order_relaxed);
  // Idle keep-alive connections close now; busy ones close after their current answer. The
  // listener stays open while requests are in flight because their nested calls may need new
  // connections to this same server.
  closeConnections(false);
  bool drained = true;
  while (sum(&LoopCounters::requests_in_flight) > 0) {
    if (std::chrono::steady_clock::now() >= deadline) {
      drained = false;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  if (database_)
    database_->stop();  // requests queued for a session answer 503 at once
  asio::post(loops_.front()->io, [this] {
    boost::system::error_code ignored;
    acceptor_->close(ignored);
    accept_backoff_->cancel();
  });
  closeConnections(true);
  for (auto& loop : loops_)
    loop->work.reset();
  // Give the closes a moment to complete, then stop whatever is left.
  const auto close_deadline = std::chrono::steady_clock::now() + std::chrono::seconds(1);
  while (sum(&LoopCounters::connections_open) > 0 &&
         std::chrono::steady_clock::now() < close_deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  for (auto& loop : loops_)
    stop_loop_(*loop);
  for (auto& loop : loops_) {
    if (loop->thread.joinable())
      loop->thread.join();
  }
  return drained;
}

void EventLoopGroup::reportCounters(benchd_counter_sink sink, void* sink_context,
                                    const char* live_tasks_name) const {
  sink(sink_context, "requests_served", sum(&LoopCounters::requests_served));
  sink(sink_context, "requests_in_flight", sum(&LoopCounters::requests_in_flight));
  sink(sink_context, "upstream_calls", sum(&LoopCounters::upstream_calls));
  sink(sink_context, "connections_open", sum(&LoopCounters::connections_open));
  sink(sink_context, "upstream_connections_open", sum(&LoopCounters::upstream_connections_open));
  sink(sink_context, "event_loops", static_cast<std::int64_t>(loops_.size()));
  sink(sink_context, "accept_errors", accept_errors_.load(std::memory_order_relaxed));
  if (live_tasks_name != nullptr)
    sink(sink_context, live_tasks_name, sum(&LoopCounters::live_tasks));
  if (database_)
    database_->reportCounters(sink, sink_context);
}

}  // namespace benchd::asio_common
