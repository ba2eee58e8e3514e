#include "sql_text.hpp"

#include <benchd/microservice/movie_json.hpp>
#include <benchd/microservice/movie_storage.hpp>
#include <benchd/postgres/movie_session.hpp>

#include <algorithm>
#include <cctype>
#include <libpq-fe.h>
#include <optional>
#include <string>
#include <utility>

namespace benchd::postgres {
namespace {

using microservice::Movie;

/// The core's query (movie_database_connection.cpp), with SQLite's NULL order made explicit:
/// SQLite sorts NULLs first, PostgreSQL last unless told.
constexpr const char* kFindByDirector =
    "SELECT movie.document FROM movie WHERE movie.id IN ("
    "SELECT movie_director.movie_id FROM movie_director WHERE movie_director.last_name = $1) "
    "ORDER BY movie.title, movie.release_year NULLS FIRST, movie.genre NULLS FIRST, movie.id";

/// The ids of a save, in ascending order (one session's nextval() calls of one statement are
/// consecutive unless another session draws in between; any order of distinct ids is valid).
constexpr const char* kReserveIdsSql =
    "SELECT nextval('movie_object_id') AS id FROM generate_series(1, $1::bigint) ORDER BY id";

/// Every movie and director row of a save in one statement, so it is stored whole or not at
/// all. The foreign key is checked at the statement's end, after both inserts.
constexpr const char* kInsertMovies =
    "WITH new_movie AS (INSERT INTO movie (id, title, release_year, genre, rating, document) "
    "SELECT * FROM unnest($1::bigint[], $2::text[], $3::integer[], $4::text[], "
    "$5::double precision[], $6::text[])) "
    "INSERT INTO movie_director (movie_id, last_name) SELECT * FROM unnest($7::bigint[], "
    "$8::text[])";

constexpr const char* kDeleteMovie =
    "WITH gone_director AS (DELETE FROM movie_director WHERE movie_id = $1 RETURNING last_name), "
    "gone_movie AS (DELETE FROM movie WHERE id = $1) "
    "SELECT DISTINCT last_name FROM gone_director ORDER BY last_name";

enum class Phase { kIdle, kConnecting, kSending, kReceiving, kDone };
enum class Operation { kFind, kReserveIds, kInsert, kDelete };

std::string trimmed(const char* message) {
  std::string text = message == nullptr ? std::string() : std::string(message);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back())) != 0) {
    text.pop_back();
  }
  return text.empty() ? std::string("no error message") : text;
}

/// SQLSTATE classes that mean "the database is not available now" rather than "this statement
/// is wrong": 08 connection exception, 53 insufficient resources (too many connections), 57
/// operator intervention (shutdown, cancel), 58 system error.
bool unavailableState(const char* sqlstate) {
  if (sqlstate == nullptr) {
    return true;  // no server answer at all
  }
  const std::string_view code(sqlstate);
  return code.starts_with("08") || code.starts_with("53") || code.starts_with("57") ||
         code.starts_with("58");
}

std::optional<std::string> textOf(const std::optional<std::int64_t>& value) {
  return value ? std::optional(std::to_string(*value)) : std::nullopt;
}

std::vector<std::string> distinctDirectors(const std::vector<Movie>& movies) {
  std::vector<std::string> last_names;
  for (const Movie& movie : movies) {
    const microservice::MovieRow row = microservice::movieRowOf(movie);
    last_names.insert(last_names.end(), row.director_last_names.begin(),
                      row.director_last_names.end());
  }
  std::sort(last_names.begin(), last_names.end());
  last_names.erase(std::unique(last_names.begin(), last_names.end()), last_names.end());
  return last_names;
}

}  // namespace

struct MovieSession::State {
  std::string conninfo;
  PGconn* connection = nullptr;
  std::uint64_t serial = 0;
  Phase phase = Phase::kIdle;
  Operation operation = Operation::kFind;
  std::string sql;
  std::vector<std::optional<std::string>> parameters;
  std::vector<Movie> movies;           ///< a save's movies, ids assigned after kReserveIds
  std::vector<std::string> rows;       ///< column 0 of the running statement's rows
  std::optional<SessionResult> error;  ///< the running statement's failure, if any
  SessionResult result;
  std::int64_t queries = 0;

  ~State() { closeConnection(); }

  void closeConnection() noexcept {
    if (connection != nullptr) {
      PQfinish(std::exchange(connection, nullptr));
    }
  }

  [[nodiscard]] SessionStep waitFor(SessionWait wait) const {
    return {wait, connection == nullptr ? -1 : PQsocket(connection), serial};
  }

  SessionStep finish(SessionResult outcome) {
    result = std::move(outcome);
    phase = Phase::kDone;
    return {SessionWait::kDone, -1, serial};
  }

  /// Ends the operation as unavailable and drops the connection, so the next one reconnects.
  SessionStep connectionLost(const std::string& what) {
    std::string message = "PostgreSQL: " + what;
    if (connection != nullptr) {
      message += ": " + trimmed(PQerrorMessage(connection));
    }
    closeConnection();
    return finish({SessionOutcome::kUnavailable, std::move(message), {}});
  }

  SessionStep begin(Operation kind, std::string statement,
                    std::vector<std::optional<std::string>> values) {
    operation = kind;
    sql = std::move(statement);
    parameters = std::move(values);
    result = {};
    if (connection != nullptr && PQstatus(connection) == CONNECTION_OK) {
      return send();
    }
    closeConnection();
    // client_encoding in the startup packet: every text benchd handles is UTF-8, and setting
    // it there costs no round trip.
    connection = PQconnectStart((conninfo + " client_encoding=UTF8").c_str());
    ++serial;
    if (connection == nullptr) {
      return finish({SessionOutcome::kUnavailable, "PostgreSQL: libpq is out of memory", {}});
    }
    if (PQstatus(connection) == CONNECTION_BAD) {
      return connectionLost("cannot connect");
    }
    phase = Phase::kConnecting;
    // libpq: start as if PQconnectPoll had returned PGRES_POLLING_WRITING.
    return waitFor(SessionWait::kWritable);
  }

  SessionStep connect() {
    const PostgresPollingStatusType polled = PQconnectPoll(connection);
    ++serial;  // the socket may change during the connection (libpq's rule)
    switch (polled) {
      case PGRES_POLLING_READING:
        return waitFor(SessionWait::kReadable);
      case PGRES_POLLING_WRITING:
        return waitFor(SessionWait::kWritable);
      case PGRES_POLLING_OK:
        if (PQsetnonblocking(connection, 1) != 0) {
          return connectionLost("cannot switch to non-blocking mode");
        }
        return send();
      default:
        return connectionLost("cannot connect");
    }
  }

  SessionStep send() {
    std::vector<const char*> values;
    values.reserve(parameters.size());
    for (const std::optional<std::string>& parameter : parameters) {
      values.push_back(parameter ? parameter->c_str() : nullptr);
    }
    rows.clear();
    error.reset();
    if (PQsendQueryParams(connection, sql.c_str(), static_cast<int>(values.size()), nullptr,
                          values.data(), nullptr, nullptr, 0) == 0) {
      return connectionLost("cannot send the query");
    }
    ++queries;
    phase = Phase::kSending;
    return flush();
  }

  SessionStep flush() {
    const int flushed = PQflush(connection);
    if (flushed < 0) {
      return connectionLost("cannot send the query");
    }
    if (flushed > 0) {
      return waitFor(SessionWait::kWritable);
    }
    phase = Phase::kReceiving;
    return waitFor(SessionWait::kReadable);
  }

  SessionStep receive() {
    if (PQconsumeInput(connection) == 0) {
      return connectionLost("the connection broke");
    }
    while (PQisBusy(connection) == 0) {
      PGresult* raw = PQgetResult(connection);
      if (raw == nullptr) {
        return statementDone();
      }
      keep(raw);
      PQclear(raw);
    }
    return waitFor(SessionWait::kReadable);
  }

  void keep(PGresult* raw) {
    const ExecStatusType status = PQresultStatus(raw);
    if (status == PGRES_TUPLES_OK || status == PGRES_COMMAND_OK) {
      for (int row = 0; row < PQntuples(raw); ++row) {
        rows.emplace_back(PQgetvalue(raw, row, 0),
                          static_cast<std::size_t>(PQgetlength(raw, row, 0)));
      }
      return;
    }
    if (!error) {
      const char* sqlstate = PQresultErrorField(raw, PG_DIAG_SQLSTATE);
      const bool unavailable = unavailableState(sqlstate) || PQstatus(connection) == CONNECTION_BAD;
      error = SessionResult{unavailable ? SessionOutcome::kUnavailable : SessionOutcome::kFailed,
                            "PostgreSQL: " + trimmed(PQresultErrorMessage(raw)),
                            {}};
    }
  }

  SessionStep statementDone() {
    if (error) {
      if (error->outcome == SessionOutcome::kUnavailable) {
        closeConnection();
      }
      return finish(std::move(*error));
    }
    switch (operation) {
      case Operation::kFind:
        return finish({SessionOutcome::kSucceeded, documentsArray(), {}});
      case Operation::kReserveIds:
        return insertWithIds();
      case Operation::kInsert:
        return finish({SessionOutcome::kSucceeded, microservice::serializeMovies(movies),
                       distinctDirectors(movies)});
      case Operation::kDelete:
        return finish({SessionOutcome::kSucceeded, "", std::move(rows)});
    }
    return finish({SessionOutcome::kFailed, "PostgreSQL: unknown operation", {}});
  }

  [[nodiscard]] std::string documentsArray() const {
    std::string json = "[";
    for (const std::string& document : rows) {
      if (json.size() > 1) {
        json += ',';
      }
      json += document;
    }
    return json + "]";
  }

  SessionStep insertWithIds() {
    std::size_t next = 0;
    const std::vector<std::string> ids = std::move(rows);
    std::vector<std::optional<std::string>> id, title, year, genre, rating, document, director_id,
        last_name;
    for (Movie& movie : movies) {
      microservice::assignObjectIds(movie, [&] { return std::stoll(ids.at(next++)); });
      const microservice::MovieRow row = microservice::movieRowOf(movie);
      id.emplace_back(std::to_string(row.id));
      title.emplace_back(row.title);
      year.push_back(textOf(row.release_year));
      genre.push_back(row.genre ? std::optional(std::string(*row.genre)) : std::nullopt);
      rating.push_back(row.rating ? std::optional(exactText(*row.rating)) : std::nullopt);
      document.emplace_back(row.document);
      for (const std::string& name : row.director_last_names) {
        director_id.emplace_back(std::to_string(row.id));
        last_name.emplace_back(name);
      }
    }
    return begin(Operation::kInsert, kInsertMovies,
                 {arrayLiteral(id), arrayLiteral(title), arrayLiteral(year), arrayLiteral(genre),
                  arrayLiteral(rating), arrayLiteral(document), arrayLiteral(director_id),
                  arrayLiteral(last_name)});
  }
};

MovieSession::MovieSession(std::string conninfo) : state_(std::make_unique<State>()) {
  state_->conninfo = std::move(conninfo);
}

MovieSession::~MovieSession() = default;
MovieSession::MovieSession(MovieSession&&) noexcept = default;
MovieSession& MovieSession::operator=(MovieSession&&) noexcept = default;

SessionStep MovieSession::beginFindByDirector(std::string_view last_name) {
  return state_->begin(Operation::kFind, kFindByDirector, {std::string(last_name)});
}

SessionStep MovieSession::beginInsert(std::vector<Movie> movies) {
  std::size_t ids = 0;
  for (const Movie& movie : movies) {
    ids += microservice::objectIdCount(movie);
  }
  state_->movies = std::move(movies);
  if (state_->movies.empty()) {
    state_->result = {};
    return state_->finish({SessionOutcome::kSucceeded, "[]", {}});
  }
  return state_->begin(Operation::kReserveIds, kReserveIdsSql, {std::to_string(ids)});
}

SessionStep MovieSession::beginDelete(std::int64_t movie_id) {
  return state_->begin(Operation::kDelete, kDeleteMovie, {std::to_string(movie_id)});
}

SessionStep MovieSession::advance() {
  switch (state_->phase) {
    case Phase::kConnecting:
      return state_->connect();
    case Phase::kSending:
      return state_->flush();
    case Phase::kReceiving:
      return state_->receive();
    case Phase::kIdle:
    case Phase::kDone:
      break;
  }
  return {SessionWait::kDone, -1, state_->serial};
}

SessionResult MovieSession::take() {
  state_->phase = Phase::kIdle;
  state_->movies.clear();
  state_->rows.clear();
  return std::move(state_->result);
}

void MovieSession::abandon() noexcept {
  state_->closeConnection();
  state_->phase = Phase::kIdle;
  state_->movies.clear();
}

bool MovieSession::busy() const noexcept {
  return state_->phase != Phase::kIdle;
}

std::int64_t MovieSession::queriesSent() const noexcept {
  return state_->queries;
}

}  // namespace benchd::postgres
