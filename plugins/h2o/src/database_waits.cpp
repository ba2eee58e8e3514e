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
  std::optional<sdk::DatabaseSession> session = sessions_.acquire(loop_);
  if (!session)
    queue_.push_back(&request);
  return session;
}

void DatabaseWaits::release(sdk::DatabaseSession session) {
  EventLoop* next = sessions_.release(session);
  if (next == nullptr)
    return;  // kept idle, or closed
  if (next == &loop_)
    takeOver(std::move(session));
  else
    next->handOver(std::move(session));
}

void DatabaseWaits::takeOver(sdk::DatabaseSession session) {
  if (queue_.empty()) {
    // Its request left after the session was promised to this loop: the next one gets it.
    release(std::move(session));
    return;
  }
  WaitingRequest* next = queue_.front();
  queue_.pop_front();
  next->runDatabase(std::move(session));
}

void DatabaseWaits::leaveQueue(WaitingRequest& request) {
  const auto found = std::find(queue_.begin(), queue_.end(), &request);
  if (found == queue_.end())
    return;
  queue_.erase(found);
  sessions_.leave(loop_);
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
