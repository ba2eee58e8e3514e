#include "database_sessions.hpp"

#include <algorithm>

namespace benchd::h2o_plugin {

std::optional<sdk::DatabaseSession> DatabaseSessions::acquire(EventLoop& waiting) {
  std::unique_lock lock(mutex_);
  if (closed_)
    throw sdk::PluginError(BENCHD_ERR_STATE, "the server is closing");
  if (sdk::DatabaseSession session = stock_.take(lock); session.isOpen())
    return session;
  waiting_.push_back(&waiting);
  return std::nullopt;
}

EventLoop* DatabaseSessions::release(sdk::DatabaseSession& session) {
  const std::lock_guard lock(mutex_);
  if (closed_) {
    stock_.closeOne(std::move(session));
    return nullptr;
  }
  if (!waiting_.empty()) {
    EventLoop* next = waiting_.front();
    waiting_.pop_front();
    return next;
  }
  stock_.putBack(std::move(session));
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
  stock_.closeIdle();
  waiting_.clear();
}

std::int64_t DatabaseSessions::opened() const {
  const std::lock_guard lock(mutex_);
  return stock_.opened();
}

}  // namespace benchd::h2o_plugin
