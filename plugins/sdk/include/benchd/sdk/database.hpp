#pragma once
// Header-only plugin SDK: the database of the `postgres` profile (ABI 2.1) as a C++ session
// that turns the host's db_* functions into the final reply of a request. Every plugin uses
// it, whatever way it waits, so the statuses and error bodies are the same everywhere:
//   200  the answer (a delete's is empty)
//   400  a save whose body is not a JSON array of movies (nothing was sent to the database)
//   503  the database cannot be reached, or the request ran out of its database deadline
//        (sdk::databaseDeadline) waiting for a session or for its statement
//   500  the database refused the statement, or the host failed otherwise
// The session never waits itself: begin() and resume() say what its socket must become
// (readable or writable) before the next resume(), or that the operation is done.

#include <benchd/plugin.h>
#include <benchd/sdk/plugin_support.hpp>
#include <benchd/sdk/service_request.hpp>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace benchd::sdk {

/// Whether `request` goes to the database under the `postgres` profile: the /movies
/// operations do, health and time do not.
[[nodiscard]] inline bool usesDatabase(const ServiceRequest& request) noexcept {
  return request.operation == Operation::kGetMovies ||
         request.operation == Operation::kPostMovies ||
         request.operation == Operation::kDeleteMovie;
}

/// Whether the host's table has the 2.1 db_* functions and the row has a database.
[[nodiscard]] inline bool hostHasDatabase(const benchd_host_api* api) noexcept {
  constexpr std::size_t kEnd =
      offsetof(benchd_host_api, db_abandon) + sizeof(benchd_host_api::db_abandon);
  return api != nullptr && api->struct_size >= kEnd && api->db_pool_size != nullptr &&
         api->db_pool_size(api->host_context) > 0;
}

/// The 503 of a request that waited `deadline` for the database in vain; `what` says for what.
[[nodiscard]] inline Reply databaseDeadlineReply(std::string_view what,
                                                 std::chrono::milliseconds deadline) {
  return errorReply(503, std::string(what) + " within the database deadline of " +
                             std::to_string(deadline.count()) + " ms");
}

/// One host session (benchd_db_session), owned: closed on destruction. Used by one thread at
/// a time; handing it to another thread needs a happens-before (a mutex, a post).
class DatabaseSession {
 public:
  /// What an operation waits for next: its step, or the request's final reply.
  using Progress = std::variant<benchd_db_step, Reply>;

  DatabaseSession() = default;
  /// Opens a session (no I/O). Throws PluginError when the host refuses (its pool is full).
  explicit DatabaseSession(const benchd_host_api* api) : api_(api) {
    benchd_error error = freshError();
    if (api_->db_open(api_->host_context, &session_, &error) != BENCHD_OK || session_ == nullptr)
      throw PluginError(BENCHD_ERR_STATE, std::string("db_open failed: ") + error.message);
  }
  DatabaseSession(DatabaseSession&& other) noexcept
      : api_(other.api_), session_(std::exchange(other.session_, nullptr)) {}
  DatabaseSession& operator=(DatabaseSession&& other) noexcept {
    if (this != &other) {
      close();
      api_ = other.api_;
      session_ = std::exchange(other.session_, nullptr);
    }
    return *this;
  }
  DatabaseSession(const DatabaseSession&) = delete;
  DatabaseSession& operator=(const DatabaseSession&) = delete;
  ~DatabaseSession() { close(); }

  [[nodiscard]] bool isOpen() const noexcept { return session_ != nullptr; }

  /// Starts `request`'s operation (usesDatabase(request) must hold); `body` is a save's body.
  [[nodiscard]] Progress begin(const ServiceRequest& request, std::string_view body) {
    benchd_db_step step = freshStep();
    benchd_error error = freshError();
    benchd_status status = BENCHD_ERR_INTERNAL;
    switch (request.operation) {
      case Operation::kGetMovies:
        status =
            api_->db_begin_movies_by_director(session_, request.director_last_name.data(),
                                              request.director_last_name.size(), &step, &error);
        break;
      case Operation::kPostMovies:
        status = api_->db_begin_save_movies(session_, body.data(), body.size(), &step, &error);
        break;
      case Operation::kDeleteMovie:
        status = api_->db_begin_delete_movie(session_, request.movie_id, &step, &error);
        break;
      default:
        return errorReply(500, "not a database operation");
    }
    return progressOf(status, step, error);
  }

  /// Makes progress once the socket is as the last step asked.
  [[nodiscard]] Progress resume() {
    benchd_db_step step = freshStep();
    benchd_error error = freshError();
    return progressOf(api_->db_continue(session_, &step, &error), step, error);
  }

  /// After BENCHD_DB_DONE: the reply. The session is idle again.
  [[nodiscard]] Reply finish() {
    Reply reply;
    benchd_error error = freshError();
    const benchd_status status = api_->db_finish(session_, &appendTo, &reply.body, &error);
    if (status == BENCHD_OK)
      return reply;
    return failureReply(status, error);
  }

  /// Gives up the running operation (its deadline passed): the session drops its connection
  /// and is idle; its next operation connects again.
  void abandon() noexcept { api_->db_abandon(session_); }

 private:
  static benchd_error freshError() noexcept {
    benchd_error error{};
    error.struct_size = sizeof(error);
    return error;
  }
  static benchd_db_step freshStep() noexcept {
    benchd_db_step step{};
    step.struct_size = sizeof(step);
    return step;
  }
  static void appendTo(void* sink_context, const char* data, std::size_t size) {
    static_cast<std::string*>(sink_context)->append(data, size);
  }
  static Progress progressOf(benchd_status status, const benchd_db_step& step,
                             const benchd_error& error) {
    if (status == BENCHD_OK)
      return step;
    if (status == BENCHD_ERR_INVALID_ARGUMENT)
      return errorReply(400, error.message);
    return failureReply(status, error);
  }
  /// A failed host call's reply: 503 when the database cannot be reached, 500 otherwise.
  static Reply failureReply(benchd_status status, const benchd_error& error) {
    return errorReply(status == BENCHD_ERR_UNAVAILABLE ? 503 : 500, error.message);
  }
  void close() noexcept {
    if (session_ != nullptr)
      api_->db_close(std::exchange(session_, nullptr));
  }

  const benchd_host_api* api_ = nullptr;
  benchd_db_session* session_ = nullptr;
};

/// What a plugin's pool reports about requests waiting for a session, as counters:
/// db_pool_waits (requests that found none free), db_pool_wait_micros (their total wait) and
/// db_pool_timeouts (requests that ran out of their deadline waiting). Thread-safe.
class DatabaseWaitCounters {
 public:
  void waited(std::chrono::steady_clock::duration wait) noexcept {
    waits_.fetch_add(1, std::memory_order_relaxed);
    wait_micros_.fetch_add(std::chrono::duration_cast<std::chrono::microseconds>(wait).count(),
                           std::memory_order_relaxed);
  }
  void timedOut() noexcept { timeouts_.fetch_add(1, std::memory_order_relaxed); }

  void report(benchd_counter_sink sink, void* sink_context) const {
    sink(sink_context, "db_pool_waits", waits_.load(std::memory_order_relaxed));
    sink(sink_context, "db_pool_wait_micros", wait_micros_.load(std::memory_order_relaxed));
    sink(sink_context, "db_pool_timeouts", timeouts_.load(std::memory_order_relaxed));
  }

 private:
  std::atomic<std::int64_t> waits_{0};
  std::atomic<std::int64_t> wait_micros_{0};
  std::atomic<std::int64_t> timeouts_{0};
};

}  // namespace benchd::sdk
