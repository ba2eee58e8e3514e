#pragma once

#include "buffered_session.hpp"

#include <Poco/Net/HTTPServerParams.h>
#include <Poco/Net/HTTPServerRequest.h>
#include <Poco/Net/HTTPServerResponse.h>
#include <Poco/Net/SocketAddress.h>
#include <Poco/Net/StreamSocket.h>

#include <istream>
#include <memory>
#include <string_view>

namespace benchd::threads_poco {

/// Poco's request object for a head the plugin read and checked itself
/// (BufferedServerSession::readHead): Poco parses the checked bytes where they lie
/// (HTTPRequest::read), so the handler gets Poco's request, method, URI, version and fields as
/// from Poco's own server, without Poco's limit of 100 fields (the contract has none beyond
/// sdk::kMaxRequestHeaderBytes). The body is read from session() by readRequestBody(), which
/// frames it as the contract says; stream() is empty.
class CheckedRequest final : public Poco::Net::HTTPServerRequest {
 public:
  /// Parses `head`. Throws Poco::Net::MessageException for what Poco's parser refuses in a
  /// head the check accepted: a method over 32 bytes or a field name over 256.
  /// `session`, `response`, `params` and the addresses outlive the request.
  CheckedRequest(std::string_view head, BufferedServerSession& session,
                 Poco::Net::HTTPServerResponse& response, const Poco::Net::HTTPServerParams& params,
                 const Poco::Net::SocketAddress& client, const Poco::Net::SocketAddress& server);

  std::istream& stream() override;
  [[nodiscard]] const Poco::Net::SocketAddress& clientAddress() const override { return client_; }
  [[nodiscard]] const Poco::Net::SocketAddress& serverAddress() const override { return server_; }
  [[nodiscard]] const Poco::Net::HTTPServerParams& serverParams() const override { return params_; }
  [[nodiscard]] Poco::Net::HTTPServerResponse& response() const override { return response_; }
  [[nodiscard]] bool secure() const override { return false; }

  /// The connection's session, from which the body and the next requests are read.
  [[nodiscard]] BufferedServerSession& session() noexcept { return session_; }
  [[nodiscard]] Poco::Net::StreamSocket& socket() { return session_.socket(); }

 private:
  BufferedServerSession& session_;
  Poco::Net::HTTPServerResponse& response_;
  const Poco::Net::HTTPServerParams& params_;
  const Poco::Net::SocketAddress& client_;
  const Poco::Net::SocketAddress& server_;
  std::unique_ptr<std::istream> no_body_;  ///< made on the first stream() call only
};

}  // namespace benchd::threads_poco
