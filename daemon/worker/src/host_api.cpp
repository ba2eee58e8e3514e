#include "host_api.hpp"

#include <benchd/common/epoch_time.hpp>
#include <benchd/sdk/plugin_support.hpp>

#include <chrono>
#include <cstdio>
#include <mutex>
#include <string_view>

namespace benchd::worker {

namespace {

HostApi& self(void* host_context) {
  return *static_cast<HostApi*>(host_context);
}

/// The calling thread's entry into the core: first the instruments' capacity and CPU cost, if any.
HostApi& enter(void* host_context) {
  HostApi& host = self(host_context);
  host.rateCap().wait();
  host.cpuSpin().spend();
  return host;
}

std::int64_t epochMillis(void* host_context) {
  enter(host_context);
  return common::epochMillisNow();
}

benchd_status moviesByDirector(void* host_context, const char* last_name, std::size_t size,
                               benchd_byte_sink sink, void* sink_context, benchd_error* error) {
  return sdk::guardedCall(error, [&] {
    const auto json = enter(host_context).service().moviesByDirector({last_name, size});
    sink(sink_context, json->data(), json->size());
  });
}

benchd_status saveMovies(void* host_context, const char* body, std::size_t body_size,
                         benchd_byte_sink sink, void* sink_context, benchd_error* error) {
  return sdk::guardedCall(error, [&] {
    try {
      const std::string json = enter(host_context).service().saveMovies({body, body_size});
      sink(sink_context, json.data(), json.size());
    } catch (const microservice::InvalidMoviesError& e) {
      throw sdk::PluginError(BENCHD_ERR_INVALID_ARGUMENT, e.what());
    }
  });
}

benchd_status deleteMovie(void* host_context, std::int64_t movie_id, benchd_error* error) {
  return sdk::guardedCall(error, [&] { enter(host_context).service().deleteMovie(movie_id); });
}

std::uint32_t dbPoolSize(void* host_context) {
  return self(host_context).database().settings().pool_size;
}

benchd_status dbOpen(void* host_context, benchd_db_session** session, benchd_error* error) {
  return sdk::guardedCall(error, [&] {
    if (session == nullptr) {
      throw sdk::PluginError(BENCHD_ERR_INVALID_ARGUMENT, "db_open: `session` is NULL");
    }
    *session = self(host_context).database().openSession();
  });
}

void logLine(void* host_context, benchd_log_level level, const char* message, std::size_t size) {
  static std::mutex stderr_mutex;
  std::string_view level_name = "info";
  switch (level) {
    case BENCHD_LOG_DEBUG:
      level_name = "debug";
      break;
    case BENCHD_LOG_INFO:
      break;
    case BENCHD_LOG_WARNING:
      level_name = "warning";
      break;
    case BENCHD_LOG_ERROR:
      level_name = "error";
      break;
  }
  // Bounded like every string from a plugin (plugin.h, log()).
  constexpr std::size_t kMaxLength = BENCHD_MAX_MESSAGE_SIZE - 1;
  std::string_view text =
      message == nullptr ? std::string_view("(NULL message)") : std::string_view(message, size);
  const bool cut = text.size() > kMaxLength;
  text = text.substr(0, kMaxLength);
  const std::lock_guard lock(stderr_mutex);
  std::fprintf(stderr, "benchd-worker [%s] %.*s: %.*s%s\n", self(host_context).pluginName().c_str(),
               static_cast<int>(level_name.size()), level_name.data(),
               static_cast<int>(text.size()), text.data(), cut ? " [cut at 4095 bytes]" : "");
}

}  // namespace

HostApi::HostApi(microservice::MovieService& service, std::string plugin_name,
                 DatabaseSettings database, std::chrono::nanoseconds cpu_cost,
                 std::uint32_t max_rate)
    : service_(service),
      plugin_name_(std::move(plugin_name)),
      database_(service, std::move(database)),
      cpu_spin_(cpu_cost),
      rate_cap_(max_rate) {
  table_.struct_size = sizeof(table_);
  table_.host_context = this;
  table_.epoch_millis = &epochMillis;
  table_.movies_by_director = &moviesByDirector;
  table_.save_movies = &saveMovies;
  table_.delete_movie = &deleteMovie;
  table_.log = &logLine;
  table_.db_pool_size = &dbPoolSize;
  table_.db_open = &dbOpen;
  HostDatabase::fillSessionFunctions(table_);
}

}  // namespace benchd::worker
