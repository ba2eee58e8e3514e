#pragma once

#include "counters.hpp"
#include "upstream_client.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/asio/executor_work_guard.hpp>

#include <optional>
#include <thread>
#include <unordered_set>

namespace benchd::callbacks_asio {

class Session;
class Server;

/// One io_context run by one thread. Every session and upstream connection lives on exactly
/// one loop and is only touched from its thread, so per-loop state needs no locks.
struct EventLoop {
  explicit EventLoop(Server& owner);

  Server& server;
  LoopCounters counters;
  /// Sessions currently waiting for their next request; closed when the server drains.
  /// Only touched on this loop's thread. Declared before the io_context so that it outlives
  /// the handlers the io_context destroys.
  std::unordered_set<Session*> idle_sessions;
  boost::asio::io_context io{1};
  std::optional<boost::asio::executor_work_guard<boost::asio::io_context::executor_type>> work;
  UpstreamClient upstream;
  std::thread thread;
};

}  // namespace benchd::callbacks_asio
