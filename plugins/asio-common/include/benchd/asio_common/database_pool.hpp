#pragma once
// The database of the `postgres` profile for the event-loop plugins (callbacks, coroutines,
// fibers), as one Asio asynchronous operation with a completion token:
//
//   pool.asyncRun(loop_executor, request, body, token)   completion: void(sdk::Reply)
//
// The callbacks plugin passes a callback, the coroutines plugin awaits it, the fibers plugin
// passes use_fiber and its fiber suspends; no thread ever blocks on the database. The
// operation queues for one of the pool's sessions (the pool is the worker's, shared by every
// loop, db_pool_size() sessions), then waits for the session's socket on the requesting
// loop's reactor (a dup() of libpq's descriptor in a posix::stream_descriptor, registered anew
// when the session connects again) until the host says the operation is done. The request's
// database deadline (sdk::databaseDeadline) covers both waits: beyond it the answer is a 503
// and a running statement is abandoned.

#include <benchd/sdk/database.hpp>
#include <benchd/sdk/database_session_stock.hpp>

#include <boost/asio/associated_executor.hpp>
#include <boost/asio/async_result.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>

#include <chrono>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <utility>

namespace benchd::asio_common {

using LoopExecutor = boost::asio::io_context::executor_type;

namespace detail {

/// The type-erased completion of one asyncRun (Boost 1.81 has no any_completion_handler).
class DatabaseCompletion {
 public:
  virtual ~DatabaseCompletion() = default;
  /// Hands `reply` to the handler through its associated executor; called once.
  virtual void complete(sdk::Reply reply) = 0;

 protected:
  DatabaseCompletion() = default;
  DatabaseCompletion(const DatabaseCompletion&) = default;
  DatabaseCompletion& operator=(const DatabaseCompletion&) = default;
};

template <typename Handler>
class DatabaseCompletionOf final : public DatabaseCompletion {
 public:
  DatabaseCompletionOf(Handler handler, LoopExecutor loop)
      : handler_(std::move(handler)), loop_(std::move(loop)) {}

  void complete(sdk::Reply reply) override {
    // Always posted, never run inside the caller: the operation may finish inside its own
    // initiation (a cached answer), and a handler must not run there.
    const auto executor = boost::asio::get_associated_executor(handler_, loop_);
    boost::asio::post(executor, Invoke{std::move(handler_), std::move(reply)});
  }

 private:
  struct Invoke {
    Handler handler;
    sdk::Reply reply;
    void operator()() { std::move(handler)(std::move(reply)); }
  };

  Handler handler_;
  LoopExecutor loop_;
};

class DatabaseCall;

}  // namespace detail

/// The worker's database sessions, shared by all its event loops. Thread-safe.
class DatabasePool {
 public:
  /// `api` is the host's table (sdk::hostHasDatabase(api) must hold).
  DatabasePool(const benchd_host_api* api, std::chrono::milliseconds deadline);
  ~DatabasePool();
  DatabasePool(const DatabasePool&) = delete;
  DatabasePool& operator=(const DatabasePool&) = delete;

  /// Runs `request`'s database operation (sdk::usesDatabase(request)) for a request on the
  /// loop of `loop`, and completes with its reply on the handler's associated executor (by
  /// default `loop`). `body` is a save's body.
  template <typename Token>
  auto asyncRun(LoopExecutor loop, sdk::ServiceRequest request, std::string body, Token&& token) {
    return boost::asio::async_initiate<Token, void(sdk::Reply)>(
        // The tokens used here (a callback, use_awaitable, use_fiber) pass on the moved
        // arguments below as rvalues, once.
        [this](auto handler, LoopExecutor executor, sdk::ServiceRequest&& operation,
               std::string&& payload) {
          using Handler = decltype(handler);
          start(executor, std::move(operation), std::move(payload),
                std::make_unique<detail::DatabaseCompletionOf<Handler>>(std::move(handler),
                                                                        executor));
        },
        token, std::move(loop), std::move(request), std::move(body));
  }

  /// Answers every request still waiting for a session with a 503 (the server stops); later
  /// calls too.
  void stop();

  /// db_pool_waits, db_pool_wait_micros, db_pool_timeouts.
  void reportCounters(benchd_counter_sink sink, void* sink_context) const {
    counters_.report(sink, sink_context);
  }

  [[nodiscard]] std::chrono::milliseconds deadline() const noexcept { return deadline_; }

 private:
  friend class detail::DatabaseCall;

  void start(LoopExecutor loop, sdk::ServiceRequest request, std::string body,
             std::unique_ptr<detail::DatabaseCompletion> completion);
  /// Gives `call` a session now, or queues it (false); false with `stopped` when stopping.
  bool acquire(const std::shared_ptr<detail::DatabaseCall>& call, sdk::DatabaseSession& session,
               bool& stopped);
  /// Hands `session` to the first queued call that still waits, or keeps it idle.
  void release(sdk::DatabaseSession session);

  const std::chrono::milliseconds deadline_;
  std::mutex mutex_;
  sdk::DatabaseSessionStock stock_;                        // guarded by mutex_
  std::deque<std::weak_ptr<detail::DatabaseCall>> queue_;  // guarded by mutex_
  bool stopping_ = false;                                  // guarded by mutex_
  sdk::DatabaseWaitCounters counters_;
};

}  // namespace benchd::asio_common
