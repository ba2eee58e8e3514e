#include <benchd/asio_common/response_bytes.hpp>

namespace benchd::asio_common {

std::string responseBytes(const sdk::Reply& reply, bool keep_alive, std::string_view server) {
  const std::string_view reason = sdk::reasonPhrase(reply.status);
  const bool has_content_type = !reply.body.empty() || reply.status != 200;
  std::string bytes;
  bytes.reserve(160 + reply.body.size());
  bytes += "HTTP/1.1 ";
  bytes += std::to_string(reply.status);
  bytes += ' ';
  bytes += reason;
  bytes += "\r\nServer: ";
  bytes += server;
  if (has_content_type) {
    bytes += "\r\nContent-Type: ";
    bytes += reply.content_type;
  }
  if (!reply.allow.empty()) {
    bytes += "\r\nAllow: ";
    bytes += reply.allow;
  }
  // HTTP/1.1 connections persist unless one side says close.
  if (!keep_alive)
    bytes += "\r\nConnection: close";
  bytes += "\r\nContent-Length: ";
  bytes += std::to_string(reply.body.size());
  bytes += "\r\n\r\n";
  bytes += reply.body;
  return bytes;
}

}  // namespace benchd::asio_common
