#pragma once
// One connection to the postgres profile's movie database on libpq's non-blocking API: the
// request path of every approach plugin. A session runs one operation at a time as a small
// state machine that never waits itself: each call returns what the session waits for next
// (its socket readable or writable, or nothing because the operation is done), and the caller
// waits for that in its own way (a blocked thread in poll(), an event loop, a suspended fiber
// or coroutine) and then calls advance(). So one implementation serves every concurrency model
// without a hidden thread.
//
// The SQL and the row mapping are the core's (movie_storage.hpp): a session answers a GET with
// the same bytes as the core's SQLite repository (text compares as in the C locale of
// PrivateCluster's databases; NULLs sort first as in SQLite), numbers stored objects with the
// same rule from the database's sequence, and reports the directors a change touched so the
// caller can evict its cache. Caching and the read-only profile are the caller's business.
//
// Connections: the session connects on its first operation (PQconnectStart/PQconnectPoll, also
// without blocking) and again on the first operation after it lost its connection, so a
// database that went away and came back is used again. Every query is sent on its own in
// libpq's extended protocol (PQsendQueryParams), a statement of its own transaction.
//
// Thread-safety: none; one thread at a time per session (libpq's rule for a PGconn).
// Different sessions may run on different threads.

#include <benchd/microservice/movie.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace benchd::postgres {

/// What a session waits for before advance() can make progress.
enum class SessionWait {
  kDone = 1,      ///< the operation has finished; take() its outcome
  kReadable = 2,  ///< wait until socket() is readable
  kWritable = 3,  ///< wait until socket() is writable
};

/// The state after a begin...() or advance() call.
struct SessionStep {
  SessionWait wait = SessionWait::kDone;
  /// The descriptor to wait on unless done; libpq's, never to be closed by the caller.
  int socket = -1;
  /// Changes whenever the descriptor may be a different socket than at the last step (every
  /// connection step): a caller that registered the descriptor with an event loop registers it
  /// again when this changes.
  std::uint64_t socket_serial = 0;
};

/// How an operation ended.
enum class SessionOutcome {
  kSucceeded = 1,
  /// The database could not be reached or the connection broke: a service unavailable (503)
  /// situation. The session connects again on its next operation.
  kUnavailable = 2,
  /// The database refused the statement (message with PostgreSQL's own words): a 500.
  kFailed = 3,
};

/// What take() returns.
struct SessionResult {
  SessionOutcome outcome = SessionOutcome::kFailed;
  /// kSucceeded: the JSON answer (a GET's array; a save's stored movies); empty for a delete.
  /// Otherwise the reason, e.g. "PostgreSQL: connection to server ... failed: ...".
  std::string text;
  /// The distinct last names of the directors of the movies a save or delete changed.
  std::vector<std::string> changed_directors;
};

class MovieSession {
 public:
  /// Takes a libpq conninfo; no I/O happens before the first operation.
  explicit MovieSession(std::string conninfo);
  /// Closes the connection (PQfinish; a running query is abandoned, see abandon()).
  ~MovieSession();
  MovieSession(const MovieSession&) = delete;
  MovieSession& operator=(const MovieSession&) = delete;

  /// Starts GET /movies?directorLastName=...: the compact JSON array of the director's movies,
  /// ordered by title, release year, genre and id. Precondition: no operation is running.
  SessionStep beginFindByDirector(std::string_view last_name);
  /// Starts storing `movies` (read-write profile): reserves their ids from the database's
  /// sequence, then inserts movies and directors in one statement. The answer is the movies
  /// with their ids, as the core serialises them.
  SessionStep beginInsert(std::vector<microservice::Movie> movies);
  /// Starts deleting a movie and its director rows in one statement; an unknown id changes
  /// nothing and succeeds.
  SessionStep beginDelete(std::int64_t movie_id);

  /// Makes progress once the socket is as the last step asked (a spurious call is harmless).
  SessionStep advance();

  /// The outcome, once a step said kDone; the session is then ready for the next operation.
  SessionResult take();

  /// Gives up the running operation (e.g. its request's deadline passed): closes the
  /// connection, which ends the server's work on it at the server's next check, and leaves the
  /// session ready for a new operation on a new connection. Harmless when idle.
  void abandon() noexcept;

  /// True while an operation is running (between a begin and its take()).
  [[nodiscard]] bool busy() const noexcept;
  /// Statements sent since construction (a save counts two).
  [[nodiscard]] std::int64_t queriesSent() const noexcept;

  MovieSession(MovieSession&&) noexcept;
  MovieSession& operator=(MovieSession&&) noexcept;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace benchd::postgres
