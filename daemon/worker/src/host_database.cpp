#include "host_database.hpp"

#include <benchd/microservice/movie_json.hpp>
#include <benchd/postgres/movie_session.hpp>
#include <benchd/sdk/plugin_support.hpp>

#include <optional>
#include <string>
#include <utility>

/// A session as the plugin holds it (plugin.h's opaque benchd_db_session).
struct benchd_db_session {
  benchd::worker::HostDatabase* database;
  benchd::postgres::MovieSession session;
  /// The answer of an operation that finished without the database (a cache hit, a read-only
  /// save), handed out by db_finish.
  std::optional<std::string> answered_at_once;
  /// A GET that missed the cache: its director and the cache generation of the miss, so
  /// db_finish can cache the loaded answer.
  std::optional<std::string> caching_director;
  std::uint64_t cache_generation = 0;
  bool running = false;
  std::int64_t queries_at_begin = 0;
};

namespace benchd::worker {
namespace {

void fill(benchd_db_step* step, const postgres::SessionStep& from) {
  step->wait = from.wait == postgres::SessionWait::kReadable   ? BENCHD_DB_READABLE
               : from.wait == postgres::SessionWait::kWritable ? BENCHD_DB_WRITABLE
                                                               : BENCHD_DB_DONE;
  step->socket = from.socket;
  step->socket_serial = from.socket_serial;
}

void requireStep(const benchd_db_step* step) {
  if (step == nullptr || step->struct_size < sizeof(benchd_db_step)) {
    throw sdk::PluginError(BENCHD_ERR_INVALID_ARGUMENT,
                           "benchd_db_step is NULL or its struct_size is too small");
  }
}

void requireIdle(const benchd_db_session* session) {
  if (session == nullptr) {
    throw sdk::PluginError(BENCHD_ERR_INVALID_ARGUMENT, "the session is NULL");
  }
  if (session->running) {
    throw sdk::PluginError(BENCHD_ERR_STATE,
                           "the session still runs an operation (db_finish or db_abandon it)");
  }
}

void started(benchd_db_session* session) {
  session->running = true;
  session->queries_at_begin = session->session.queriesSent();
  session->database->operationStarted();
}

void ended(benchd_db_session* session) {
  session->running = false;
  session->database->operationEnded(session->session.queriesSent() - session->queries_at_begin);
}

void finishAtOnce(benchd_db_session* session, std::string answer, benchd_db_step* step) {
  started(session);
  session->answered_at_once = std::move(answer);
  fill(step, {postgres::SessionWait::kDone, -1, 0});
}

void close(benchd_db_session* session) {
  if (session == nullptr) {
    return;
  }
  if (session->running) {
    session->session.abandon();
    ended(session);
  }
  session->database->closeSession();
  delete session;
}

benchd_status beginFind(benchd_db_session* session, const char* last_name, std::size_t size,
                        benchd_db_step* step, benchd_error* error) {
  return sdk::guardedCall(error, [&] {
    requireIdle(session);
    requireStep(step);
    const std::string_view name(last_name == nullptr ? "" : last_name, size);
    microservice::MovieService::CacheLookup cached =
        session->database->service().lookupMoviesByDirector(name);
    if (cached.json) {
      finishAtOnce(session, *cached.json, step);
      return;
    }
    session->caching_director = std::string(name);
    session->cache_generation = cached.generation;
    started(session);
    fill(step, session->session.beginFindByDirector(name));
  });
}

benchd_status beginSave(benchd_db_session* session, const char* body, std::size_t size,
                        benchd_db_step* step, benchd_error* error) {
  return sdk::guardedCall(error, [&] {
    requireIdle(session);
    requireStep(step);
    std::vector<microservice::Movie> movies;
    try {
      movies = microservice::parseMovies({body == nullptr ? "" : body, size});
    } catch (const microservice::InvalidMoviesError& e) {
      throw sdk::PluginError(BENCHD_ERR_INVALID_ARGUMENT, e.what());
    }
    if (session->database->service().profile().read_only) {
      finishAtOnce(session, microservice::serializeMovies(movies), step);
      return;
    }
    started(session);
    fill(step, session->session.beginInsert(std::move(movies)));
  });
}

benchd_status beginDelete(benchd_db_session* session, std::int64_t movie_id, benchd_db_step* step,
                          benchd_error* error) {
  return sdk::guardedCall(error, [&] {
    requireIdle(session);
    requireStep(step);
    if (session->database->service().profile().read_only) {
      finishAtOnce(session, "", step);
      return;
    }
    started(session);
    fill(step, session->session.beginDelete(movie_id));
  });
}

benchd_status advance(benchd_db_session* session, benchd_db_step* step, benchd_error* error) {
  return sdk::guardedCall(error, [&] {
    requireStep(step);
    if (session == nullptr || !session->running) {
      throw sdk::PluginError(BENCHD_ERR_STATE, "db_continue: no operation is running");
    }
    if (session->answered_at_once) {
      fill(step, {postgres::SessionWait::kDone, -1, 0});
      return;
    }
    fill(step, session->session.advance());
  });
}

benchd_status finish(benchd_db_session* session, benchd_byte_sink sink, void* sink_context,
                     benchd_error* error) {
  return sdk::guardedCall(error, [&] {
    if (session == nullptr || !session->running) {
      throw sdk::PluginError(BENCHD_ERR_STATE, "db_finish: no operation is running");
    }
    if (session->answered_at_once) {
      const std::string answer = std::move(*session->answered_at_once);
      session->answered_at_once.reset();
      ended(session);
      if (!answer.empty()) {
        sink(sink_context, answer.data(), answer.size());
      }
      return;
    }
    if (session->session.busy() &&
        session->session.advance().wait != postgres::SessionWait::kDone) {
      throw sdk::PluginError(BENCHD_ERR_STATE,
                             "db_finish: the operation has not finished (wait for its step)");
    }
    postgres::SessionResult result = session->session.take();
    std::optional<std::string> director = std::move(session->caching_director);
    session->caching_director.reset();
    ended(session);
    switch (result.outcome) {
      case postgres::SessionOutcome::kSucceeded:
        break;
      case postgres::SessionOutcome::kUnavailable:
        throw sdk::PluginError(BENCHD_ERR_UNAVAILABLE, result.text);
      case postgres::SessionOutcome::kFailed:
        throw sdk::PluginError(BENCHD_ERR_IO, result.text);
    }
    microservice::MovieService& service = session->database->service();
    service.forgetDirectors(result.changed_directors);
    if (director) {
      service.rememberMoviesByDirector(*director, result.text, session->cache_generation);
    }
    if (!result.text.empty()) {
      sink(sink_context, result.text.data(), result.text.size());
    }
  });
}

void abandon(benchd_db_session* session) {
  if (session == nullptr || !session->running) {
    return;
  }
  session->session.abandon();
  session->answered_at_once.reset();
  session->caching_director.reset();
  ended(session);
}

}  // namespace

HostDatabase::HostDatabase(microservice::MovieService& service, DatabaseSettings settings)
    : service_(service), settings_(std::move(settings)) {}

benchd_db_session* HostDatabase::openSession() {
  if (settings_.pool_size == 0) {
    throw sdk::PluginError(BENCHD_ERR_STATE, "db_open: this row has no `postgres` profile");
  }
  std::int64_t open = open_.load();
  do {
    if (open >= static_cast<std::int64_t>(settings_.pool_size)) {
      throw sdk::PluginError(
          BENCHD_ERR_STATE,
          "db_open: all " + std::to_string(settings_.pool_size) + " sessions of the pool are open");
    }
  } while (!open_.compare_exchange_weak(open, open + 1));
  return new benchd_db_session{
      this, postgres::MovieSession(settings_.conninfo), std::nullopt, std::nullopt, 0, false, 0};
}

void HostDatabase::fillSessionFunctions(benchd_host_api& table) {
  table.db_close = &close;
  table.db_begin_movies_by_director = &beginFind;
  table.db_begin_save_movies = &beginSave;
  table.db_begin_delete_movie = &beginDelete;
  table.db_continue = &advance;
  table.db_finish = &finish;
  table.db_abandon = &abandon;
}

}  // namespace benchd::worker
