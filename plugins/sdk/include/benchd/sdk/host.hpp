#pragma once
// Header-only plugin SDK: a C++ view of the host function table that produces the final reply
// of a request once the plugin has done its waiting and nested calls.

#include <benchd/plugin.h>
#include <benchd/sdk/service_request.hpp>

#include <cstdint>
#include <string>
#include <string_view>

namespace benchd::sdk {

/// Wraps a benchd_host_api the plugin received in create(). Cheap to copy; thread-safe
/// because the table's functions are.
class Host {
 public:
  explicit Host(const benchd_host_api* api) : api_(api) {}

  [[nodiscard]] std::int64_t epochMillis() const { return api_->epoch_millis(api_->host_context); }

  void log(benchd_log_level level, std::string_view message) const {
    api_->log(api_->host_context, level, message.data(), message.size());
  }

  /// The reply to a validated request whose delay and nested calls are done. `body` is the
  /// request body (POST only). Never throws for bad client input: that becomes a 400 reply.
  [[nodiscard]] Reply answer(const ServiceRequest& request, std::string_view body) const {
    Reply reply;
    benchd_error error{};
    error.struct_size = sizeof(error);
    switch (request.operation) {
      case Operation::kHealth:
        reply.body = R"({"status":"UP"})";
        return reply;
      case Operation::kEpochMillis:
        reply.body = std::to_string(epochMillis());
        return reply;
      case Operation::kGetMovies: {
        const auto& name = request.director_last_name;
        const benchd_status status = api_->movies_by_director(
            api_->host_context, name.data(), name.size(), &appendTo, &reply.body, &error);
        if (status != BENCHD_OK)
          return errorReply(500, error.message);
        return reply;
      }
      case Operation::kPostMovies: {
        const benchd_status status = api_->save_movies(api_->host_context, body.data(), body.size(),
                                                       &appendTo, &reply.body, &error);
        if (status == BENCHD_ERR_INVALID_ARGUMENT)
          return errorReply(400, error.message);
        if (status != BENCHD_OK)
          return errorReply(500, error.message);
        return reply;
      }
      case Operation::kDeleteMovie: {
        const benchd_status status =
            api_->delete_movie(api_->host_context, request.movie_id, &error);
        if (status != BENCHD_OK)
          return errorReply(500, error.message);
        reply.body.clear();
        return reply;
      }
    }
    return errorReply(500, "unknown operation");
  }

 private:
  static void appendTo(void* sink_context, const char* data, std::size_t size) {
    static_cast<std::string*>(sink_context)->append(data, size);
  }

  const benchd_host_api* api_;
};

}  // namespace benchd::sdk
