#include <benchd/asio_common/beast_reply.hpp>

#include <boost/beast/http/field.hpp>

namespace benchd::asio_common {

namespace http = boost::beast::http;

http::response<http::string_body> beastResponse(sdk::Reply reply, bool keep_alive,
                                                std::string_view server) {
  http::response<http::string_body> response;
  response.version(11);
  response.result(static_cast<unsigned>(reply.status));
  response.set(http::field::server, server);
  if (!reply.body.empty() || reply.status != 200) {
    response.set(http::field::content_type, reply.content_type);
  }
  if (!reply.allow.empty()) response.set(http::field::allow, reply.allow);
  response.body() = std::move(reply.body);
  response.keep_alive(keep_alive);
  response.prepare_payload();
  return response;
}

}  // namespace benchd::asio_common
