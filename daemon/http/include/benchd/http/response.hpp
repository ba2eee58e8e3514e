#pragma once

#include <benchd/http/event_stream.hpp>
#include <benchd/http/headers.hpp>

#include <optional>
#include <string>

namespace benchd::http {

/// What a handler answers: a status, header fields and a body, or an event stream.
///
/// The server adds `Content-Length` (from the body) and `Connection`; a `Content-Type` is the
/// handler's business (the factories below set one). A plain value type.
struct Response {
  unsigned status = 200;
  HeaderList headers;
  std::string body;
  /// Set: answer with a Server-Sent Events stream (see event_stream.hpp); `status` must be 200
  /// and `body` empty; `headers` are sent along (e.g. a custom one), except framing fields.
  std::optional<EventStreamCallbacks> stream;

  /// A body with the given content type (default plain UTF-8 text).
  [[nodiscard]] static Response text(unsigned status, std::string body,
                                     std::string content_type = "text/plain; charset=utf-8");
  /// A body already serialised as JSON, sent as `application/json`. See also json_response.hpp.
  [[nodiscard]] static Response json(unsigned status, std::string json_text);
  /// A status without a body (e.g. 204, or 202 with a `Location` added by the caller).
  [[nodiscard]] static Response empty(unsigned status);
  /// An event stream; `callbacks.on_open` receives the sink.
  [[nodiscard]] static Response eventStream(EventStreamCallbacks callbacks);

  /// Sets a header field (replacing earlier ones of that name) and returns *this, so that
  /// `return Response::empty(202).header("Location", url);` reads naturally.
  Response& header(std::string name, std::string value) &;
  Response&& header(std::string name, std::string value) &&;
};

/// The standard reason phrase of a status code ("Not Found"), or "Unknown Status".
[[nodiscard]] const char* reasonPhrase(unsigned status) noexcept;

}  // namespace benchd::http
