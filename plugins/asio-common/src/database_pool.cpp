#include <benchd/asio_common/database_pool.hpp>

#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/steady_timer.hpp>

#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <optional>

namespace benchd::asio_common {
namespace detail {

/// One asyncRun: queues for a session, then drives the host's operation on its loop. Lives in
/// a shared_ptr held by its pending waits; every member but state_ is touched only on its
/// loop's thread.
///
/// The deadline timer runs from the start: while the call waits for a session it gives up the
/// wait, while the operation runs it abandons it. Who wins the race between a freed session
/// and the deadline is settled by state_ (claim() against giveUp()).
class DatabaseCall : public std::enable_shared_from_this<DatabaseCall> {
 public:
  using Clock = std::chrono::steady_clock;

  DatabaseCall(DatabasePool& pool, LoopExecutor loop, sdk::ServiceRequest request, std::string body,
               std::unique_ptr<DatabaseCompletion> completion)
      : pool_(pool),
        loop_(std::move(loop)),
        request_(std::move(request)),
        body_(std::move(body)),
        completion_(std::move(completion)),
        timer_(loop_) {}

  /// On the loop's thread (asyncRun's initiation).
  void start() {
    deadline_ = Clock::now() + pool_.deadline();
    timer_.expires_at(deadline_);
    timer_.async_wait([self = shared_from_this()](const boost::system::error_code& error) {
      self->onDeadline(error);
    });
    bool stopped = false;
    bool acquired = false;
    try {
      acquired = pool_.acquire(shared_from_this(), session_, stopped);
    } catch (const sdk::PluginError& error) {
      state_.store(State::kGaveUp);
      finish(sdk::errorReply(500, error.what()));
      return;
    }
    if (acquired) {
      state_.store(State::kGranted);
      run();
    } else if (stopped) {
      finish(stoppedReply());
    } else {
      queued_at_ = Clock::now();
    }
  }

  /// Any thread, under the pool's mutex: takes the session for this call if it still waits.
  bool claim() {
    State waiting = State::kWaiting;
    return state_.compare_exchange_strong(waiting, State::kGranted);
  }

  /// On the loop's thread, after a successful claim(): the session is this call's.
  void granted(sdk::DatabaseSession session) {
    session_ = std::move(session);
    pool_.counters_.waited(Clock::now() - queued_at_);
    if (Clock::now() >= deadline_) {
      pool_.counters_.timedOut();
      done(sdk::databaseDeadlineReply("no database connection was free", pool_.deadline()));
      return;
    }
    run();
  }

  /// On the loop's thread, after a successful claim() by stop().
  void stopped() {
    pool_.counters_.waited(Clock::now() - queued_at_);
    finish(stoppedReply());
  }

  /// The loop the call runs on (set once, so any thread may read it).
  [[nodiscard]] const LoopExecutor& loop() const noexcept { return loop_; }

 private:
  enum class State { kWaiting, kGranted, kGaveUp };

  static sdk::Reply stoppedReply() {
    return sdk::errorReply(503, "the server stopped before a database connection was free");
  }

  void run() { handle(session_.begin(request_, body_)); }

  void handle(sdk::DatabaseSession::Progress progress) {
    if (sdk::Reply* reply = std::get_if<sdk::Reply>(&progress)) {
      done(std::move(*reply));
      return;
    }
    const benchd_db_step& step = std::get<benchd_db_step>(progress);
    if (step.wait == BENCHD_DB_DONE) {
      done(session_.finish());
      return;
    }
    if (!socket_ || socket_serial_ != step.socket_serial) {
      socket_.reset();
      // A descriptor of our own: the stream_descriptor closes what it owns, and libpq's
      // socket is the host's.
      const int own = ::dup(step.socket);
      if (own < 0) {
        const int error = errno;
        session_.abandon();
        done(sdk::errorReply(
            503, std::string("cannot watch the database connection: ") + std::strerror(error)));
        return;
      }
      socket_.emplace(loop_, own);
      socket_serial_ = step.socket_serial;
    }
    socket_->async_wait(step.wait == BENCHD_DB_WRITABLE
                            ? boost::asio::posix::stream_descriptor::wait_write
                            : boost::asio::posix::stream_descriptor::wait_read,
                        [self = shared_from_this()](const boost::system::error_code& error) {
                          self->onSocket(error);
                        });
  }

  void onSocket(const boost::system::error_code& error) {
    if (finished_ || error == boost::asio::error::operation_aborted)
      return;
    // Ready, or an error on the socket that libpq reads and reports.
    handle(session_.resume());
  }

  void onDeadline(const boost::system::error_code& error) {
    if (finished_ || error == boost::asio::error::operation_aborted)
      return;
    State waiting = State::kWaiting;
    if (state_.compare_exchange_strong(waiting, State::kGaveUp)) {
      // A wait is counted when it ends, whichever way: here, in granted() or in stopped().
      pool_.counters_.waited(Clock::now() - queued_at_);
      pool_.counters_.timedOut();
      finish(sdk::databaseDeadlineReply("no database connection was free", pool_.deadline()));
      return;
    }
    if (!session_.isOpen())
      return;  // granted, the session on its way: granted() sees the deadline has passed
    socket_.reset();
    session_.abandon();
    pool_.counters_.timedOut();
    done(sdk::databaseDeadlineReply("the database did not answer", pool_.deadline()));
  }

  /// Gives the session back and completes.
  void done(sdk::Reply reply) {
    socket_.reset();  // before another loop may use the session
    if (session_.isOpen())
      pool_.release(std::move(session_));
    finish(std::move(reply));
  }

  void finish(sdk::Reply reply) {
    finished_ = true;
    timer_.cancel();
    socket_.reset();
    completion_->complete(std::move(reply));
  }

  DatabasePool& pool_;
  LoopExecutor loop_;
  sdk::ServiceRequest request_;
  std::string body_;
  std::unique_ptr<DatabaseCompletion> completion_;
  boost::asio::steady_timer timer_;
  std::optional<boost::asio::posix::stream_descriptor> socket_;
  std::uint64_t socket_serial_ = 0;
  sdk::DatabaseSession session_;
  Clock::time_point deadline_;
  Clock::time_point queued_at_;
  std::atomic<State> state_{State::kWaiting};
  bool finished_ = false;
};

}  // namespace detail

DatabasePool::DatabasePool(const benchd_host_api* api, std::chrono::milliseconds deadline)
    : deadline_(deadline), stock_(api) {}

DatabasePool::~DatabasePool() = default;

void DatabasePool::start(LoopExecutor loop, sdk::ServiceRequest request, std::string body,
                         std::unique_ptr<detail::DatabaseCompletion> completion) {
  std::make_shared<detail::DatabaseCall>(*this, std::move(loop), std::move(request),
                                         std::move(body), std::move(completion))
      ->start();
}

bool DatabasePool::acquire(const std::shared_ptr<detail::DatabaseCall>& call,
                           sdk::DatabaseSession& session, bool& stopped) {
  const std::lock_guard lock(mutex_);
  if (stopping_) {
    stopped = true;
    return false;
  }
  session = stock_.take();
  if (session.isOpen())
    return true;
  queue_.push_back(call);
  return false;
}

void DatabasePool::release(sdk::DatabaseSession session) {
  const std::lock_guard lock(mutex_);
  while (!queue_.empty()) {
    const std::shared_ptr<detail::DatabaseCall> call = queue_.front().lock();
    queue_.pop_front();
    if (call && call->claim()) {
      // The session moves to the call's loop; the mutex orders this thread's last use of it
      // before that loop's first.
      auto executor = call->loop();
      boost::asio::post(executor, [call, owned = std::move(session)]() mutable {
        call->granted(std::move(owned));
      });
      return;
    }
  }
  stock_.putBack(std::move(session));
}

void DatabasePool::stop() {
  std::deque<std::weak_ptr<detail::DatabaseCall>> waiting;
  {
    const std::lock_guard lock(mutex_);
    stopping_ = true;
    waiting.swap(queue_);
  }
  for (const auto& entry : waiting) {
    const std::shared_ptr<detail::DatabaseCall> call = entry.lock();
    if (call && call->claim())
      boost::asio::post(call->loop(), [call] { call->stopped(); });
  }
}

}  // namespace benchd::asio_common
