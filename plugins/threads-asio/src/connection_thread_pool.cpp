#include "connection_thread_pool.hpp"

#include <benchd/sdk/plugin_support.hpp>

#include <algorithm>
#include <climits>
#include <cstring>
#include <string>

namespace benchd::threads_asio {

ConnectionThreadPool::ConnectionThreadPool(const sdk::ThreadPoolSettings& settings,
                                           std::chrono::milliseconds idle_timeout, Serve serve)
    : min_threads_(settings.min_threads),
      max_threads_(settings.max_threads),
      max_queued_(static_cast<std::size_t>(settings.max_queued)),
      stack_bytes_(std::max(static_cast<std::size_t>(settings.stack_kib) * 1024,
                            static_cast<std::size_t>(PTHREAD_STACK_MIN))),
      idle_timeout_(idle_timeout),
      serve_(std::move(serve)) {}

ConnectionThreadPool::~ConnectionThreadPool() {
  stopAndJoin();
}

void ConnectionThreadPool::start() {
  const std::lock_guard lock(mutex_);
  for (int i = 0; i < min_threads_; ++i) {
    if (!spawnLocked() && allocated_ == 0) {
      throw sdk::PluginError(BENCHD_ERR_IO,
                             "cannot start a pool thread: " + std::string(std::strerror(errno)));
    }
  }
}

bool ConnectionThreadPool::spawnLocked() {
  pthread_attr_t attributes;
  if (pthread_attr_init(&attributes) != 0)
    return false;
  pthread_attr_setstacksize(&attributes, stack_bytes_);
  pthread_t thread{};
  const int failed = pthread_create(&thread, &attributes, &threadMain, this);
  pthread_attr_destroy(&attributes);
  if (failed != 0) {
    errno = failed;
    return false;
  }
  live_.insert(thread);
  ++allocated_;
  return true;
}

void* ConnectionThreadPool::threadMain(void* pool) {
  static_cast<ConnectionThreadPool*>(pool)->serveUntilStopped();
  return nullptr;
}

void ConnectionThreadPool::serveUntilStopped() {
  std::unique_lock lock(mutex_);
  for (;;) {
    while (queue_.empty() && !stopping_) {
      const bool woken =
          work_.wait_for(lock, idle_timeout_, [this] { return !queue_.empty() || stopping_; });
      if (!woken && allocated_ > min_threads_) {
        // Idle too long with more threads than the pool keeps: end, to be joined later.
        --allocated_;
        live_.erase(pthread_self());
        retired_.push_back(pthread_self());
        return;
      }
    }
    // Stopping: the connections were taken out of the queue; tasks still run.
    if (queue_.empty())
      return;
    auto work = std::move(queue_.front());
    queue_.pop_front();
    ++busy_;
    lock.unlock();
    if (auto* socket = std::get_if<boost::asio::ip::tcp::socket>(&work)) {
      serve_(std::move(*socket));
    } else {
      std::get<std::function<void()>>(work)();
    }
    lock.lock();
    --busy_;
  }
}

bool ConnectionThreadPool::tryRun(std::function<void()> task) {
  const std::lock_guard lock(mutex_);
  if (stopping_)
    return false;
  if (waitingLocked() < 0 || (allocated_ < max_threads_ && spawnLocked())) {
    queue_.emplace_back(std::move(task));
    work_.notify_one();
    return true;
  }
  return false;
}

bool ConnectionThreadPool::dispatch(boost::asio::ip::tcp::socket socket) {
  std::vector<pthread_t> retired;
  bool taken = false;
  {
    const std::lock_guard lock(mutex_);
    retired.swap(retired_);
    taken = !stopping_ && (waitingLocked() < 0 || (allocated_ < max_threads_ && spawnLocked()) ||
                           queue_.size() < max_queued_);
    if (taken) {
      queue_.emplace_back(std::move(socket));
      work_.notify_one();
    } else if (!stopping_) {
      ++refused_;
    }
  }
  joinThreads(retired);
  return taken;  // a socket not taken is closed as it goes
}

void ConnectionThreadPool::stopAndJoin() {
  std::vector<pthread_t> threads;
  std::vector<boost::asio::ip::tcp::socket> queued;
  {
    const std::lock_guard lock(mutex_);
    stopping_ = true;
    // The connections go (closed below); the tasks stay for the threads promised to them.
    for (auto work = queue_.begin(); work != queue_.end();) {
      if (auto* socket = std::get_if<boost::asio::ip::tcp::socket>(&*work)) {
        queued.push_back(std::move(*socket));
        work = queue_.erase(work);
      } else {
        ++work;
      }
    }
    threads.assign(live_.begin(), live_.end());
    threads.insert(threads.end(), retired_.begin(), retired_.end());
    live_.clear();
    retired_.clear();
    allocated_ = 0;
    work_.notify_all();
  }
  queued.clear();  // closes them
  joinThreads(threads);
}

void ConnectionThreadPool::joinThreads(const std::vector<pthread_t>& threads) {
  for (const pthread_t thread : threads)
    pthread_join(thread, nullptr);
}

std::int64_t ConnectionThreadPool::waitingLocked() const {
  return static_cast<std::int64_t>(queue_.size()) - (allocated_ - busy_);
}

PoolCounters ConnectionThreadPool::counters() const {
  const std::lock_guard lock(mutex_);
  PoolCounters counters;
  counters.busy = busy_;
  counters.allocated = allocated_;
  counters.queued = std::max<std::int64_t>(waitingLocked(), 0);
  counters.refused = refused_;
  return counters;
}

}  // namespace benchd::threads_asio
