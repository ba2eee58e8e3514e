#include "database_sessions.hpp"

#include <algorithm>

namespace benchd::h2o_plugin {

std::optional<sdk::DatabaseSession> DatabaseSessions::acquire(EventLoop& waiting) {
  std::unique_lock lock(mutex_);
  if (closed_)
    throw sdk::PluginError(BENCHD_ERR_STATE, "the server is closing");
  if (capacity_ < 0)
    capacity_ = static_cast<std::int64_t>(api_->db_pool_size(api_->host_context));
  if (!idle_.empty()) {
    sdk::DatabaseSession session = std::move(idle_.back());
    idle_.pop_back();
    return session;
  }
  if (opened_ < capacity_) {
    ++opened_;
    lock.unlock();
    try {
      return sdk::DatabaseSession(api_);
    } catch (...) {
      const std::lock_guard relock(mutex_);
      --opened_;
      throw;
    }
  }
  waiting_.push_back(&waiting);
  return std::nullopt;
}

EventLoop* DatabaseSessions::release(sdk::DatabaseSession& session) {
  const std::lock_guard lock(mutex_);
  if (closed_) {
    --opened_;
    session = sdk::DatabaseSession();  // closes it
    return nullptr;
  }
  if (!waiting_.empty()) {
    EventLoop* next = waiting_.front();
    waiting_.pop_front();
    return next;
  }
  idle_.push_back(std::move(session));
  return nullptr;
}

void DatabaseSessions::leave(EventLoop& loop) {
  const std::lock_guard lock(mutex_);
  const auto found = std::find(waiting_.begin(), waiting_.end(), &loop);
  if (found != waiting_.end())
    waiting_.erase(found);
}

void DatabaseSessions::close() {
  const std::lock_guard lock(mutex_);
  closed_ = true;
  opened_ -= static_cast<std::int64_t>(idle_.size());
  idle_.clear();
  waiting_.clear();
}

std::int64_t DatabaseSessions::opened() const {
  const std::lock_guard lock(mutex_);
  return opened_;
}

}  // namespace benchd::h2o_plugin
