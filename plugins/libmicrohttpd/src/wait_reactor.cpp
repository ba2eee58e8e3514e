#include "wait_reactor.hpp"

#include <benchd/curl_support/curl_support.hpp>
#include <benchd/sdk/limits.hpp>
#include <benchd/sdk/plugin_support.hpp>

#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <climits>
#include <cstring>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <utility>
#include <variant>

namespace benchd::libmicrohttpd {

namespace {

/// What an epoll event's data says: the wait's id times 2, plus 1 for its database socket
/// (else its client's watch).
constexpr std::uint64_t kDatabaseTag = 1;

/// The epoll data of the wake-up eventfd: no wait's id (ids count up from 1, times 2).
constexpr std::uint64_t kWakeTag = ~std::uint64_t{0};

/// The longest the loop sleeps without a timer, so a drain's sweep is not late.
constexpr int kLongestSleepMillis = 500;

}  // namespace

/// One request waiting. Reactor thread only.
struct WaitReactor::Wait {
  std::uint64_t id = 0;
  sdk::ServiceRequest request;
  std::string body;
  WaitDone done;
  /// A dup() of the client's socket, in the epoll instance for EPOLLRDHUP; -1 once closed.
  int watch_fd = -1;
  std::optional<std::multimap<Clock::time_point, std::uint64_t>::iterator> timer;
  enum class Phase { kUpstream, kDelay, kDatabaseQueued, kDatabase } phase = Phase::kDelay;
  // The nested call.
  CURL* easy = nullptr;
  curl_support::AnswerSink answer;
  // The database: the session while it runs, a dup() of its socket while it waits.
  sdk::DatabaseSession session;
  int database_fd = -1;
  std::uint64_t database_serial = 0;
  Clock::time_point database_queued_at;
};

WaitReactor::WaitReactor(ServerState& state, Settings settings)
    : state_(state), settings_(settings), database_sessions_(state.host_api) {
  curl_support::initialiseCurlOnce();
  epoll_fd_ = ::epoll_create1(EPOLL_CLOEXEC);
  if (epoll_fd_ < 0)
    throw sdk::PluginError(BENCHD_ERR_IO, std::string("epoll_create1: ") + std::strerror(errno));
  // Other threads wake the loop through this, not curl_multi_wakeup(): the loop replaces its
  // multi handle (sweepIdleUpstream), so no other thread may touch it.
  wake_fd_ = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  epoll_event wake{};
  wake.events = EPOLLIN;
  wake.data.u64 = kWakeTag;
  if (wake_fd_ < 0 || ::epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, wake_fd_, &wake) != 0)
    throw sdk::PluginError(BENCHD_ERR_IO, std::string("eventfd: ") + std::strerror(errno));
  headers_ = curl_support::nestedCallHeaders();
  multi_ = newMulti();
}

WaitReactor::~WaitReactor() {
  stop();
  if (multi_ != nullptr)
    curl_multi_cleanup(multi_);
  curl_slist_free_all(headers_);
  if (wake_fd_ >= 0)
    ::close(wake_fd_);
  if (epoll_fd_ >= 0)
    ::close(epoll_fd_);
}

CURLM* WaitReactor::newMulti() {
  CURLM* multi = curl_multi_init();
  if (multi == nullptr)
    throw sdk::PluginError(BENCHD_ERR_INTERNAL, "libcurl could not make a multi handle");
  return multi;
}

void WaitReactor::setEndpoint(const std::string& address, std::uint16_t port) {
  base_url_ = curl_support::baseUrlOf(address, port, settings_.tls);
}

void WaitReactor::start() {
  thread_ = std::thread([this] { run(); });
}

void WaitReactor::stop() {
  if (!thread_.joinable())
    return;
  {
    const std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake();
  thread_.join();
}

void WaitReactor::submit(sdk::ServiceRequest request, std::string body, int client_fd,
                         WaitDone done) {
  waiting_.fetch_add(1, std::memory_order_relaxed);
  {
    const std::lock_guard lock(mutex_);
    if (!stopping_) {
      submissions_.push_back({std::move(request), std::move(body), client_fd, std::move(done)});
      wake();
      return;
    }
  }
  waiting_.fetch_sub(1, std::memory_order_relaxed);
  done(std::nullopt);  // stopped: nobody will be answered
}

void WaitReactor::drain() {
  draining_.store(true, std::memory_order_relaxed);
  wake();
}

void WaitReactor::wake() noexcept {
  const std::uint64_t one = 1;
  (void)!::write(wake_fd_, &one, sizeof(one));
}

void WaitReactor::run() {
  for (;;) {
    curl_waitfd events{epoll_fd_, CURL_WAIT_POLLIN, 0};
    curl_multi_poll(multi_, &events, 1, millisToNextTimer(), nullptr);
    {
      const std::lock_guard lock(mutex_);
      if (stopping_)
        break;
    }
    // Read before the submissions are taken, so a wake-up for a later one is never lost.
    std::uint64_t wakes = 0;
    (void)!::read(wake_fd_, &wakes, sizeof(wakes));
    takeSubmissions();
    int running = 0;
    curl_multi_perform(multi_, &running);
    readTransfers();
    handleEvents();
    fireTimers();
    sweepIdleUpstream();
  }
  // Stopping: every wait ends unanswered, every transfer and session is dropped (a session a
  // wait gives back goes to no queued wait).
  shutting_down_ = true;
  takeSubmissions();
  while (!waits_.empty())
    finish(*waits_.begin()->second, std::nullopt);
  database_sessions_.closeIdle();
}

void WaitReactor::takeSubmissions() {
  std::vector<Submission> taken;
  {
    const std::lock_guard lock(mutex_);
    taken.swap(submissions_);
  }
  for (Submission& submission : taken) {
    auto wait = std::make_unique<Wait>();
    wait->id = next_id_++;
    wait->request = std::move(submission.request);
    wait->body = std::move(submission.body);
    wait->done = std::move(submission.done);
    wait->watch_fd = ::dup(submission.client_fd);
    begin(std::move(wait));
  }
}

void WaitReactor::begin(std::unique_ptr<Wait> owned) {
  Wait& wait = *owned;
  waits_.emplace(wait.id, std::move(owned));
  if (wait.watch_fd < 0) {
    finish(wait, std::nullopt);  // no descriptor to watch the client with: out of them
    return;
  }
  // EPOLLRDHUP, not EPOLLIN: pipelined bytes must not end the wait, only the end of the
  // client's sending side (EPOLLHUP and EPOLLERR come anyway).
  epoll_event watch{};
  watch.events = EPOLLRDHUP;
  watch.data.u64 = wait.id * 2;
  ::epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, wait.watch_fd, &watch);
  if (wait.request.delay_call_depth > 0) {
    startUpstream(wait);
  } else if (wait.request.delay_millis > 0) {
    wait.phase = Wait::Phase::kDelay;
    setTimer(wait, Clock::now() + std::chrono::milliseconds(wait.request.delay_millis));
  } else {
    afterWaits(wait);
  }
}

void WaitReactor::afterWaits(Wait& wait) {
  if (state_.has_database && sdk::usesDatabase(wait.request)) {
    startDatabase(wait);
    return;
  }
  finish(wait, state_.host.answer(wait.request, wait.body));
}

void WaitReactor::finish(Wait& wait, std::optional<sdk::Reply> reply) {
  cancelTimer(wait);
  stopTransfer(wait);
  if (wait.phase == Wait::Phase::kDatabaseQueued) {
    std::erase(database_queue_, wait.id);
  }
  forget(wait.database_fd);
  if (wait.session.isOpen()) {
    if (wait.phase == Wait::Phase::kDatabase && !reply)
      wait.session.abandon();  // its statement may still run: drop the connection
    releaseSession(std::exchange(wait.session, sdk::DatabaseSession()));
  }
  forget(wait.watch_fd);
  const WaitDone done = std::move(wait.done);
  waits_.erase(wait.id);  // `wait` is gone from here
  waiting_.fetch_sub(1, std::memory_order_relaxed);
  done(std::move(reply));
}

void WaitReactor::forget(int& fd) noexcept {
  if (fd < 0)
    return;
  // Closing a dup() would leave it registered while the original stays open (epoll watches
  // the open file, not the descriptor), so it is taken out first.
  ::epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, fd, nullptr);
  ::close(fd);
  fd = -1;
}

void WaitReactor::setTimer(Wait& wait, Clock::time_point at) {
  cancelTimer(wait);
  wait.timer = timers_.emplace(at, wait.id);
}

void WaitReactor::cancelTimer(Wait& wait) {
  if (wait.timer) {
    timers_.erase(*wait.timer);
    wait.timer.reset();
  }
}

int WaitReactor::millisToNextTimer() const {
  if (timers_.empty())
    return kLongestSleepMillis;
  const auto left =
      std::chrono::ceil<std::chrono::milliseconds>(timers_.begin()->first - Clock::now());
  return static_cast<int>(std::clamp<std::int64_t>(left.count(), 0, kLongestSleepMillis));
}

void WaitReactor::fireTimers() {
  const auto now = Clock::now();
  while (!timers_.empty() && timers_.begin()->first <= now) {
    const std::uint64_t id = timers_.begin()->second;
    timers_.erase(timers_.begin());
    const auto found = waits_.find(id);
    if (found == waits_.end())
      continue;
    Wait& wait = *found->second;
    wait.timer.reset();
    if (wait.phase == Wait::Phase::kDelay) {
      afterWaits(wait);
    } else {
      databaseDeadlinePassed(wait);
    }
  }
}

void WaitReactor::handleEvents() {
  std::array<epoll_event, 256> events{};
  for (;;) {
    const int ready = ::epoll_wait(epoll_fd_, events.data(), static_cast<int>(events.size()), 0);
    if (ready <= 0)
      return;
    for (int index = 0; index < ready; ++index) {
      if (events[static_cast<std::size_t>(index)].data.u64 == kWakeTag)
        continue;  // read in run(), before the submissions are taken
      const std::uint64_t id = events[static_cast<std::size_t>(index)].data.u64 / 2;
      const bool database = (events[static_cast<std::size_t>(index)].data.u64 & 1) == kDatabaseTag;
      const auto found = waits_.find(id);
      if (found == waits_.end())
        continue;  // ended by an earlier event of this batch
      Wait& wait = *found->second;
      if (!database) {
        clientLeft(wait);
      } else if (wait.phase == Wait::Phase::kDatabase) {
        runDatabase(wait, wait.session.resume());
      }
    }
    if (static_cast<std::size_t>(ready) < events.size())
      return;
  }
}

void WaitReactor::clientLeft(Wait& wait) {
  finish(wait, std::nullopt);
}

// ---- nested calls ------------------------------------------------------------------------

curl_socket_t WaitReactor::openSocket(void* data, curlsocktype /*purpose*/,
                                      curl_sockaddr* address) {
  const curl_socket_t fd =
      ::socket(address->family, address->socktype | SOCK_CLOEXEC, address->protocol);
  if (fd != CURL_SOCKET_BAD)
    static_cast<WaitReactor*>(data)->upstream_sockets_.fetch_add(1, std::memory_order_relaxed);
  return fd;
}

int WaitReactor::closeSocket(void* data, curl_socket_t socket) {
  static_cast<WaitReactor*>(data)->upstream_sockets_.fetch_sub(1, std::memory_order_relaxed);
  return ::close(socket);
}

void WaitReactor::startUpstream(Wait& wait) {
  wait.phase = Wait::Phase::kUpstream;
  state_.upstream_calls.fetch_add(1, std::memory_order_relaxed);
  wait.easy = curl_easy_init();
  if (wait.easy == nullptr) {
    finish(wait, sdk::nestedCallFailedReply("libcurl could not make a handle"));
    return;
  }
  const std::string target = sdk::upstreamTarget(kApproachName, wait.request);
  curl_support::setNestedCallOptions(wait.easy, headers_, wait.answer, settings_.upstream_idle);
  if (settings_.tls)
    curl_support::setTlsOptions(wait.easy);
  curl_support::setCallOptions(wait.easy, base_url_ + target,
                               sdk::upstreamResponseTimeoutFor(target, settings_.upstream_margin));
  curl_easy_setopt(wait.easy, CURLOPT_OPENSOCKETFUNCTION, &WaitReactor::openSocket);
  curl_easy_setopt(wait.easy, CURLOPT_OPENSOCKETDATA, this);
  curl_easy_setopt(wait.easy, CURLOPT_CLOSESOCKETFUNCTION, &WaitReactor::closeSocket);
  curl_easy_setopt(wait.easy, CURLOPT_CLOSESOCKETDATA, this);
  transfers_.emplace(wait.easy, wait.id);
  curl_multi_add_handle(multi_, wait.easy);
  ++transfers_running_;
}

void WaitReactor::stopTransfer(Wait& wait) {
  if (wait.easy == nullptr)
    return;
  // Removed mid-way, a transfer's connection is closed: the callee's own wait ends in turn.
  curl_multi_remove_handle(multi_, wait.easy);
  transfers_.erase(wait.easy);
  curl_easy_cleanup(wait.easy);
  wait.easy = nullptr;
  --transfers_running_;
  last_transfer_end_ = Clock::now();
}

void WaitReactor::readTransfers() {
  int queued = 0;
  while (const CURLMsg* message = curl_multi_info_read(multi_, &queued)) {
    if (message->msg != CURLMSG_DONE)
      continue;
    const auto transfer = transfers_.find(message->easy_handle);
    if (transfer == transfers_.end())
      continue;
    const CURLcode result = message->data.result;
    const auto found = waits_.find(transfer->second);
    if (found == waits_.end())
      continue;
    Wait& wait = *found->second;
    long status = 0;
    curl_easy_getinfo(wait.easy, CURLINFO_RESPONSE_CODE, &status);
    stopTransfer(wait);
    if (result != CURLE_OK) {
      const std::string error =
          wait.answer.too_large
              ? "answer larger than " + std::to_string(curl_support::kMaxAnswerBytes) + " bytes"
              : std::string(curl_easy_strerror(result));
      finish(wait, sdk::nestedCallFailedReply(error));
    } else if (status != 200) {
      finish(wait, sdk::nestedCallAnsweredReply(status));
    } else {
      afterWaits(wait);
    }
  }
}

void WaitReactor::sweepIdleUpstream() {
  // libcurl prunes its cache of idle connections only when a transfer looks for one; with none
  // running, a cache whose connections have all idled out (or a draining server's) is replaced,
  // which closes them.
  if (transfers_running_ > 0 || upstream_sockets_.load(std::memory_order_relaxed) == 0)
    return;
  const bool idled_out = Clock::now() - last_transfer_end_ >= settings_.upstream_idle;
  if (!idled_out && !draining_.load(std::memory_order_relaxed))
    return;
  CURLM* fresh = newMulti();
  curl_multi_cleanup(std::exchange(multi_, fresh));
  // Every connection of the old handle is closed now. libcurl 7.88 closes the socket of a
  // transfer removed while it connected without the close callback (seen here: a client that
  // left at once), so the count is set rather than trusted to have come down.
  upstream_sockets_.store(0, std::memory_order_relaxed);
}

// ---- the database ------------------------------------------------------------------------

void WaitReactor::startDatabase(Wait& wait) {
  setTimer(wait, Clock::now() + settings_.database_deadline);
  try {
    wait.session = database_sessions_.take();
  } catch (const std::exception& error) {
    finish(wait, sdk::errorReply(500, error.what()));
    return;
  }
  if (!wait.session.isOpen()) {
    wait.phase = Wait::Phase::kDatabaseQueued;
    wait.database_queued_at = Clock::now();
    database_queue_.push_back(wait.id);
    return;
  }
  wait.phase = Wait::Phase::kDatabase;
  runDatabase(wait, wait.session.begin(wait.request, wait.body));
}

void WaitReactor::runDatabase(Wait& wait, sdk::DatabaseSession::Progress progress) {
  if (auto* reply = std::get_if<sdk::Reply>(&progress)) {
    finish(wait, std::move(*reply));
    return;
  }
  const benchd_db_step step = std::get<benchd_db_step>(progress);
  if (step.wait == BENCHD_DB_DONE) {
    finish(wait, wait.session.finish());
    return;
  }
  epoll_event event{};
  event.events = (step.wait == BENCHD_DB_READABLE ? EPOLLIN : EPOLLOUT) | EPOLLONESHOT;
  event.data.u64 = wait.id * 2 + kDatabaseTag;
  if (wait.database_fd >= 0 && step.socket_serial == wait.database_serial) {
    ::epoll_ctl(epoll_fd_, EPOLL_CTL_MOD, wait.database_fd, &event);
    return;
  }
  // The session's socket is the host's: the reactor waits on a dup() of it.
  forget(wait.database_fd);
  wait.database_fd = ::dup(step.socket);
  wait.database_serial = step.socket_serial;
  if (wait.database_fd < 0 || ::epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, wait.database_fd, &event) != 0)
    finish(wait, sdk::errorReply(
                     503, "cannot wait for the database: " + std::string(std::strerror(errno))));
}

void WaitReactor::releaseSession(sdk::DatabaseSession session) {
  while (!shutting_down_ && !database_queue_.empty()) {
    const std::uint64_t next = database_queue_.front();
    database_queue_.pop_front();
    const auto found = waits_.find(next);
    if (found == waits_.end())
      continue;
    Wait& wait = *found->second;
    database_counters_.waited(Clock::now() - wait.database_queued_at);
    wait.session = std::move(session);
    wait.phase = Wait::Phase::kDatabase;
    runDatabase(wait, wait.session.begin(wait.request, wait.body));
    return;
  }
  database_sessions_.putBack(std::move(session));
}

void WaitReactor::databaseDeadlinePassed(Wait& wait) {
  if (wait.phase == Wait::Phase::kDatabaseQueued) {
    database_counters_.waited(Clock::now() - wait.database_queued_at);
    database_counters_.timedOut();
    finish(wait, sdk::databaseDeadlineReply("no database connection was free",
                                            settings_.database_deadline));
    return;
  }
  wait.session.abandon();
  database_counters_.timedOut();
  finish(wait,
         sdk::databaseDeadlineReply("the database did not answer", settings_.database_deadline));
}

}  // namespace benchd::libmicrohttpd
