// The database's part of a waiting request: the loop's share of the host's sessions, and the
// request's steps on the session's socket.
#include "database_waits.hpp"

#include "event_loop.hpp"
#include "waiting_request.hpp"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <h2o/socket/evloop.h>
#include <string>

namespace benchd::h2o_plugin {

std::optional<sdk::DatabaseSession> DatabaseWaits::acquire(WaitingRequest& request) {
  if (closed_)
    throw sdk::PluginError(BENCHD_ERR_STATE, "the server is closing");
  if (capacity_ == 0) {
    const auto sessions =
        static_cast<std::int64_t>(state_.host_api->db_pool_size(state_.host_api->host_context));
    capacity_ = std::max<std::int64_t>(1, sessions / static_cast<std::int64_t>(loops_));
  }
  if (!idle_.empty()) {
    sdk::DatabaseSession session = std::move(idle_.back());
    idle_.pop_back();
    return session;
  }
  if (opened_ < capacity_) {
    sdk::DatabaseSession session(state_.host_api);
    ++opened_;
    return session;
  }
  queue_.push_back(&request);
  return std::nullopt;
}

void DatabaseWaits::release(sdk::DatabaseSession session) {
  if (!closed_ && !queue_.empty()) {
    WaitingRequest* next = queue_.front();
    queue_.pop_front();
    next->runDatabase(std::move(session));
    return;
  }
  if (closed_) {
    --opened_;
    return;  // the session closes here
  }
  idle_.push_back(std::move(session));
}

void DatabaseWaits::leaveQueue(WaitingRequest& request) {
  std::erase(queue_, &request);
}

void DatabaseWaits::close() {
  closed_ = true;
  opened_ -= static_cast<std::int64_t>(idle_.size());
  idle_.clear();
}

// ---- WaitingRequest's database steps ------------------------------------------------------

void WaitingRequest::startDatabase() {
  phase_ = Phase::kDatabase;
  arm(loop_.state().database_deadline);
  std::optional<sdk::DatabaseSession> session;
  try {
    session = loop_.database().acquire(*this);
  } catch (const std::exception& error) {
    answer(sdk::errorReply(503, error.what()));
    return;
  }
  if (!session) {
    phase_ = Phase::kDatabaseQueued;  // runDatabase() when a session is free
    database_queued_at_ = std::chrono::steady_clock::now();
    return;
  }
  runDatabase(std::move(*session));
}

void WaitingRequest::runDatabase(sdk::DatabaseSession session) {
  if (phase_ == Phase::kDatabaseQueued)
    loop_.state().database_counters.waited(std::chrono::steady_clock::now() - database_queued_at_);
  phase_ = Phase::kDatabase;
  session_ = std::move(session);
  continueDatabase(session_.begin(request_, body()));
}

void WaitingRequest::continueDatabase(sdk::DatabaseSession::Progress progress) {
  if (auto* reply = std::get_if<sdk::Reply>(&progress)) {
    answer(*reply);
    return;
  }
  const benchd_db_step step = std::get<benchd_db_step>(progress);
  if (step.wait == BENCHD_DB_DONE) {
    answer(session_.finish());
    return;
  }
  if (database_socket_ == nullptr || step.socket_serial != database_serial_) {
    // The session's socket is the host's: the loop waits on a dup() of it, never reading it.
    if (database_socket_ != nullptr)
      h2o_socket_close(std::exchange(database_socket_, nullptr));
    const int watched = ::dup(step.socket);
    if (watched < 0) {
      answer(sdk::errorReply(503,
                             "cannot wait for the database: " + std::string(std::strerror(errno))));
      return;
    }
    database_socket_ = h2o_evloop_socket_create(loop_.loop(), watched, H2O_SOCKET_FLAG_DONT_READ);
    database_socket_->data = this;
    database_serial_ = step.socket_serial;
  }
  if (step.wait == BENCHD_DB_READABLE)
    h2o_socket_read_start(database_socket_, &onDatabaseReady);
  else
    h2o_socket_notify_write(database_socket_, &onDatabaseReady);
}

void WaitingRequest::onDatabaseReady(h2o_socket_t* socket, const char* /*error*/) {
  auto* self = static_cast<WaitingRequest*>(socket->data);
  h2o_socket_read_stop(socket);
  // An error on the socket is the session's to find: db_continue reports it.
  self->continueDatabase(self->session_.resume());
}

void WaitingRequest::endDatabase(bool answered) {
  if (database_socket_ != nullptr)
    h2o_socket_close(std::exchange(database_socket_, nullptr));
  if (phase_ == Phase::kDatabaseQueued)
    loop_.database().leaveQueue(*this);
  if (!session_.isOpen())
    return;
  if (phase_ == Phase::kDatabase && !answered)
    session_.abandon();  // its statement may still run: the session drops its connection
  loop_.database().release(std::exchange(session_, sdk::DatabaseSession()));
}

}  // namespace benchd::h2o_plugin
