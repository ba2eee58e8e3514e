#include "server.hpp"

#include "session.hpp"

#include <boost/asio/post.hpp>

#include <thread>

namespace benchd::callbacks_asio {

namespace asio = boost::asio;
using asio::ip::tcp;

EventLoop::EventLoop(Server& owner) : server(owner), upstream(*this) {}

Server::Server(const benchd_host_api* host, sdk::ServerSettings settings)
    : host_(host),
      settings_(std::move(settings)),
      no_keep_alive_(settings_.hasProfile("no-keep-alive")) {
  for (unsigned i = 0; i < settings_.threads; ++i) {
    loops_.push_back(std::make_unique<EventLoop>(*this));
  }
}

Server::~Server() {
  if (started_ && !stopped_) stop(std::chrono::milliseconds(0));
}

void Server::start() {
  if (started_) throw sdk::PluginError(BENCHD_ERR_STATE, "server already started");
  boost::system::error_code error;
  const auto address = asio::ip::make_address(settings_.bind_address, error);
  if (error) {
    throw sdk::PluginError(BENCHD_ERR_INVALID_ARGUMENT,
                           "bind address '" + settings_.bind_address + "' is not a numeric IP");
  }
  acceptor_ = std::make_unique<tcp::acceptor>(loops_.front()->io);
  const tcp::endpoint endpoint(address, settings_.port);
  acceptor_->open(endpoint.protocol());
  acceptor_->set_option(asio::socket_base::reuse_address(true));
  acceptor_->bind(endpoint, error);
  if (error == asio::error::address_in_use) {
    throw sdk::PluginError(BENCHD_ERR_ADDRESS_IN_USE,
                           "port " + std::to_string(settings_.port) + " on " +
                               settings_.bind_address + " is already in use");
  }
  if (error) {
    throw sdk::PluginError(BENCHD_ERR_IO, "cannot bind " + settings_.bind_address + ":" +
                                              std::to_string(settings_.port) + ": " +
                                              error.message());
  }
  acceptor_->listen(asio::socket_base::max_listen_connections);
  bound_port_ = acceptor_->local_endpoint().port();
  // Nested calls go to loopback when the server listens on every interface.
  auto self_address = address;
  if (address.is_unspecified()) {
    self_address = address.is_v6() ? asio::ip::address(asio::ip::address_v6::loopback())
                                   : asio::ip::address(asio::ip::address_v4::loopback());
  }
  self_endpoint_ = tcp::endpoint(self_address, bound_port_);

  started_ = true;
  acceptNext();
  for (auto& loop : loops_) {
    loop->work.emplace(loop->io.get_executor());
    loop->thread = std::thread([&io = loop->io] { io.run(); });
  }
}

void Server::acceptNext() {
  EventLoop& target = *loops_[next_loop_];
  next_loop_ = (next_loop_ + 1) % loops_.size();
  acceptor_->async_accept(target.io, [this, &target](boost::system::error_code error,
                                                     tcp::socket socket) {
    if (error == asio::error::operation_aborted || !acceptor_->is_open()) return;
    if (!error) {
      boost::system::error_code ignored;
      socket.set_option(tcp::no_delay(true), ignored);
      asio::post(target.io, [&target, s = std::move(socket)]() mutable {
        std::make_shared<Session>(target, std::move(s))->start();
      });
    }
    // Errors such as EMFILE must not stop the server: keep accepting.
    acceptNext();
  });
}

std::int64_t Server::requestsInFlight() const {
  std::int64_t total = 0;
  for (const auto& loop : loops_) {
    total += loop->counters.requests_in_flight.load(std::memory_order_relaxed);
  }
  return total;
}

bool Server::stop(std::chrono::milliseconds timeout) {
  if (!started_ || stopped_) return true;
  stopped_ = true;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  draining_.store(true, std::memory_order_relaxed);
  // Idle keep-alive connections close now; busy ones close after their current answer. The
  // acceptor stays open while requests are in flight because their nested calls may need new
  // connections to this same server.
  for (auto& loop : loops_) {
    asio::post(loop->io, [&l = *loop] {
      l.upstream.closeIdle();
      for (Session* session : l.idle_sessions) session->closeIfIdle();
    });
  }
  bool drained = true;
  while (requestsInFlight() > 0) {
    if (std::chrono::steady_clock::now() >= deadline) {
      drained = false;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  asio::post(loops_.front()->io, [this] {
    boost::system::error_code ignored;
    acceptor_->close(ignored);
  });
  for (auto& loop : loops_) {
    loop->work.reset();
    asio::post(loop->io, [&l = *loop] {
      l.upstream.closeIdle();
      for (Session* session : l.idle_sessions) session->closeIfIdle();
    });
  }
  // Give the closes a moment to complete, then stop whatever is left (timeouts only).
  const auto close_deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(200);
  for (auto& loop : loops_) {
    while (loop->counters.connections_open.load(std::memory_order_relaxed) > 0 &&
           std::chrono::steady_clock::now() < close_deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    loop->io.stop();
  }
  for (auto& loop : loops_) {
    if (loop->thread.joinable()) loop->thread.join();
  }
  return drained;
}

void Server::reportCounters(benchd_counter_sink sink, void* sink_context) const {
  LoopCounters totals;
  for (const auto& loop : loops_) {
    const auto& c = loop->counters;
    LoopCounters::add(totals.requests_served, c.requests_served.load(std::memory_order_relaxed));
    LoopCounters::add(totals.requests_in_flight,
                      c.requests_in_flight.load(std::memory_order_relaxed));
    LoopCounters::add(totals.upstream_calls, c.upstream_calls.load(std::memory_order_relaxed));
    LoopCounters::add(totals.connections_open, c.connections_open.load(std::memory_order_relaxed));
    LoopCounters::add(totals.upstream_connections_open,
                      c.upstream_connections_open.load(std::memory_order_relaxed));
  }
  sink(sink_context, "requests_served", totals.requests_served.load());
  sink(sink_context, "requests_in_flight", totals.requests_in_flight.load());
  sink(sink_context, "upstream_calls", totals.upstream_calls.load());
  sink(sink_context, "connections_open", totals.connections_open.load());
  sink(sink_context, "upstream_connections_open", totals.upstream_connections_open.load());
  sink(sink_context, "event_loops", static_cast<std::int64_t>(loops_.size()));
}

bool Server::reserveUpstreamConnection() noexcept {
  if (upstream_connections_.fetch_add(1, std::memory_order_relaxed) >= kUpstreamPoolCapacity) {
    upstream_connections_.fetch_sub(1, std::memory_order_relaxed);
    return false;
  }
  return true;
}

void Server::releaseUpstreamConnection() noexcept {
  upstream_connections_.fetch_sub(1, std::memory_order_relaxed);
}

}  // namespace benchd::callbacks_asio
