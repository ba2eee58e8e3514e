#include <benchd/agent/agent_client.hpp>
#include <benchd/tls/tls_identity.hpp>

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>
#include <boost/beast/ssl/ssl_stream.hpp>

#include <memory>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <optional>
#include <utility>

namespace benchd::agent {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace bhttp = boost::beast::http;
using tcp = asio::ip::tcp;
using error_code = boost::system::error_code;

namespace {

/// The SHA-256 fingerprint of the certificate the peer of `ssl` showed; empty without one.
std::string peerFingerprint(SSL* ssl) {
  const std::unique_ptr<X509, decltype(&X509_free)> certificate(SSL_get1_peer_certificate(ssl),
                                                                &X509_free);
  return certificate ? tls::certificateFingerprint(*certificate) : "";
}

}  // namespace

struct AgentClient::Connection {
  /// The context verifies nothing: the pin checked after the handshake is the whole check.
  Connection() : context(asio::ssl::context::tls_client), stream(io, context) {
    SSL_CTX_set_min_proto_version(context.native_handle(), TLS1_2_VERSION);
  }

  /// Runs what was started on `io` to its end; the stream's timer ends it at the deadline.
  void run() {
    io.restart();
    io.run();
  }

  asio::io_context io;
  asio::ssl::context context;
  beast::ssl_stream<beast::tcp_stream> stream;
  beast::flat_buffer buffer;
  std::size_t exchanges = 0;
};

AgentClient::AgentClient(AgentEndpoint endpoint, std::chrono::milliseconds deadline)
    : endpoint_(std::move(endpoint)), deadline_(deadline) {}

AgentClient::~AgentClient() = default;

std::unique_ptr<AgentClient::Connection> AgentClient::open(const KnownAgent& agent,
                                                           std::chrono::milliseconds deadline,
                                                           std::string& fingerprint) {
  const std::string who = "agent " + agent.name + " (" + agent.url + ")";
  auto connection = std::make_unique<Connection>();
  auto& stream = connection->stream;

  error_code failure;
  const char* step = "resolve";
  tcp::resolver resolver(connection->io);
  const auto endpoints = resolver.resolve(agent.host, std::to_string(agent.port),
                                          tcp::resolver::numeric_service, failure);
  if (!failure) {
    step = "connect";
    beast::get_lowest_layer(stream).expires_after(deadline);
    beast::get_lowest_layer(stream).async_connect(endpoints, [&](const error_code& error,
                                                                 const tcp::endpoint&) {
      if (error) {
        failure = error;
        return;
      }
      step = "TLS handshake";
      error_code not_numeric;
      (void)asio::ip::make_address(agent.host, not_numeric);
      if (not_numeric)  // a name: sent as SNI, as any TLS client does
        SSL_ctrl(stream.native_handle(), SSL_CTRL_SET_TLSEXT_HOSTNAME, TLSEXT_NAMETYPE_host_name,
                 const_cast<char*>(agent.host.c_str()));  // SSL_set_tlsext_host_name
      stream.async_handshake(asio::ssl::stream_base::client,
                             [&](const error_code& handshake_error) { failure = handshake_error; });
    });
    connection->run();
  }
  if (failure) {
    const std::string reason = failure == beast::error::timeout
                                   ? "no answer within " + std::to_string(deadline.count()) + " ms"
                                   : failure.message();
    throw AgentError(AgentError::Kind::kUnreachable,
                     who + " is unreachable: " + step + ": " + reason);
  }
  fingerprint = peerFingerprint(stream.native_handle());
  return connection;
}

std::string AgentClient::certificateOf(const KnownAgent& agent,
                                       std::chrono::milliseconds deadline) {
  std::string fingerprint;
  (void)open(agent, deadline, fingerprint);
  return fingerprint;
}

void AgentClient::connect() {
  const KnownAgent& agent = endpoint_.agent;
  std::string shown;
  auto connection = open(agent, deadline_, shown);
  if (shown != agent.fingerprint) {
    throw AgentError(AgentError::Kind::kCertificateMismatch,
                     "agent " + agent.name + " (" + agent.url + ") showed the certificate sha256:" +
                         shown + ", but sha256:" + agent.fingerprint +
                         " is pinned; nothing was sent. If the agent has a new identity, check "
                         "its fingerprint on the agent and pin it again: benchd agents add " +
                         agent.name + " " + agent.url + " --fingerprint sha256:" + shown);
  }
  ++connections_made_;
  connection_ = std::move(connection);
}

AgentReply AgentClient::call(const std::string& method, const std::string& target,
                             const std::string& body) {
  const KnownAgent& agent = endpoint_.agent;
  for (int attempt = 0;; ++attempt) {
    if (!connection_)
      connect();
    Connection& connection = *connection_;
    bhttp::request<bhttp::string_body> request(bhttp::string_to_verb(method), target, 11);
    // An IPv6 host goes in brackets, as in its URL.
    const bool ipv6 = agent.host.find(':') != std::string::npos;
    request.set(bhttp::field::host,
                (ipv6 ? "[" + agent.host + "]" : agent.host) + ":" + std::to_string(agent.port));
    request.set(bhttp::field::authorization, "Bearer " + endpoint_.token);
    if (!body.empty())
      request.set(bhttp::field::content_type, "application/json");
    request.body() = body;
    request.keep_alive(true);
    request.prepare_payload();
    bhttp::response<bhttp::string_body> response;
    error_code failure;
    beast::get_lowest_layer(connection.stream).expires_after(deadline_);
    bhttp::async_write(connection.stream, request, [&](const error_code& error, std::size_t) {
      if (error) {
        failure = error;
        return;
      }
      bhttp::async_read(connection.stream, connection.buffer, response,
                        [&](const error_code& read_error, std::size_t) { failure = read_error; });
    });
    connection.run();
    const bool reused = connection.exchanges > 0;
    ++connection.exchanges;
    if (failure) {
      connection_.reset();
      // The agent may have closed a connection that idled: one fresh attempt, for requests
      // that may be sent twice (a POST may have started something already).
      const bool idempotent = method == "GET" || method == "HEAD" || method == "DELETE";
      if (reused && idempotent && attempt == 0 && failure != beast::error::timeout)
        continue;
      const std::string reason =
          failure == beast::error::timeout
              ? "no answer within " + std::to_string(deadline_.count()) + " ms"
              : failure.message();
      std::string what = "agent " + agent.name;
      what.append(" (").append(agent.url).append(") is unreachable: ").append(method);
      what.append(" ").append(target).append(": ").append(reason);
      throw AgentError(AgentError::Kind::kUnreachable, what);
    }
    if (!response.keep_alive())
      connection_.reset();
    if (response.result_int() == 401) {
      throw AgentError(AgentError::Kind::kRefusedToken,
                       "agent " + agent.name + " (" + agent.url + ") refused the token in " +
                           agent.token_file.string() +
                           " (401): copy the agent's token file there again");
    }
    return {response.result_int(), std::move(response.body())};
  }
}

}  // namespace benchd::agent
