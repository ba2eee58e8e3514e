#include <benchd/http/response.hpp>

#include <boost/beast/http/status.hpp>

namespace benchd::http {

Response Response::text(unsigned status, std::string body, std::string content_type) {
  Response response;
  response.status = status;
  response.body = std::move(body);
  response.headers.set("Content-Type", std::move(content_type));
  return response;
}

Response Response::json(unsigned status, std::string json_text) {
  return text(status, std::move(json_text), "application/json");
}

Response Response::empty(unsigned status) {
  Response response;
  response.status = status;
  return response;
}

Response Response::eventStream(EventStreamCallbacks callbacks) {
  Response response;
  response.stream = std::move(callbacks);
  return response;
}

Response& Response::header(std::string name, std::string value) & {
  headers.set(std::move(name), std::move(value));
  return *this;
}

Response&& Response::header(std::string name, std::string value) && {
  headers.set(std::move(name), std::move(value));
  return std::move(*this);
}

const char* reasonPhrase(unsigned status) noexcept {
  const auto phrase =
      boost::beast::http::obsolete_reason(boost::beast::http::int_to_status(status));
  // obsolete_reason() returns "<unknown-status>" for codes it does not know.
  return phrase.empty() || phrase.front() == '<' ? "Unknown Status" : phrase.data();
}

}  // namespace benchd::http
