#include "server_core.hpp"

#include <benchd/http/problem.hpp>

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <stdexcept>
#include <string>

namespace benchd::http::detail {
namespace {

/// OpenSSL's last queued error as text, or `fallback` when it queued none.
std::string openSslReason(const char* fallback) {
  const unsigned long code = ERR_get_error();
  ERR_clear_error();
  if (code == 0)
    return fallback;
  char text[256] = {};
  ERR_error_string_n(code, text, sizeof(text));
  return text;
}

/// A server context from the PEM files in `files`: the certificate chain and its private key,
/// checked to be a pair, TLS 1.2 at least. Throws std::invalid_argument naming the file.
boost::asio::ssl::context serverContext(const TlsFiles& files) {
  boost::asio::ssl::context context(boost::asio::ssl::context::tls_server);
  SSL_CTX* native = context.native_handle();
  SSL_CTX_set_min_proto_version(native, TLS1_2_VERSION);
  SSL_CTX_set_options(native, SSL_OP_NO_RENEGOTIATION);
  if (SSL_CTX_use_certificate_chain_file(native, files.certificate.c_str()) != 1) {
    throw std::invalid_argument("HttpServer: cannot use the TLS certificate " +
                                files.certificate.string() + ": " +
                                openSslReason("not a PEM certificate"));
  }
  if (SSL_CTX_use_PrivateKey_file(native, files.private_key.c_str(), SSL_FILETYPE_PEM) != 1) {
    if (ERR_GET_REASON(ERR_peek_last_error()) == X509_R_KEY_VALUES_MISMATCH) {
      ERR_clear_error();
      throw std::invalid_argument("HttpServer: the TLS key " + files.private_key.string() +
                                  " is not the key of the certificate " +
                                  files.certificate.string());
    }
    throw std::invalid_argument("HttpServer: cannot use the TLS key " + files.private_key.string() +
                                ": " + openSslReason("not a PEM private key"));
  }
  if (SSL_CTX_check_private_key(native) != 1) {
    throw std::invalid_argument("HttpServer: the TLS key " + files.private_key.string() +
                                " is not the key of the certificate " + files.certificate.string());
  }
  return context;
}

}  // namespace

Core::Core(Router r, ServerOptions o) : router(std::move(r)), options(std::move(o)) {
  if (options.tls)
    tls.emplace(serverContext(*options.tls));
}

Response Core::dispatch(Request& request) const {
  auto parsed = parseTarget(request.target);
  if (!parsed.ok)
    return problemResponse(400, parsed.reason, parsed.detail);
  request.path = std::move(parsed.path);
  request.segments = std::move(parsed.segments);
  request.query = std::move(parsed.query);
  auto match = router.match(request.method, request.segments, parsed.trailing_slash);
  const RouteTraits traits{match.kind != Router::Match::Kind::NotFound,
                           match.kind != Router::Match::Kind::NotFound && match.options.is_public};
  // Policies run before 404/405 so that a caller without a token cannot map the routes.
  try {
    for (const auto& policy : options.policies) {
      if (auto refusal = policy(request, traits))
        return std::move(*refusal);
    }
    switch (match.kind) {
      case Router::Match::Kind::NotFound:
        return problemResponse(404, "unknown-route",
                               "no resource at " + request.path.substr(0, 200));
      case Router::Match::Kind::MethodNotAllowed: {
        auto refusal = problemResponse(
            405, "method-not-allowed",
            request.method.substr(0, 32) + " is not allowed here; allowed: " + match.allow);
        refusal.headers.set("Allow", match.allow);
        return refusal;
      }
      case Router::Match::Kind::Found:
        break;
    }
    request.path_params = std::move(match.params);
    return (*match.handler)(request);
  } catch (const std::exception& error) {
    if (options.on_handler_error)
      options.on_handler_error(request, error.what());
  } catch (...) {
    if (options.on_handler_error)
      options.on_handler_error(request, "unknown exception");
  }
  return problemResponse(500, "internal-error", "the server failed to handle the request");
}

void Core::registerStream(const std::shared_ptr<StreamState>& state) {
  std::lock_guard lock(live_mutex);
  std::erase_if(live_streams, [](const auto& weak) { return weak.expired(); });
  live_streams.push_back(state);
}

void Core::sweepStreams() {
  std::vector<std::shared_ptr<StreamState>> alive;
  {
    std::lock_guard lock(live_mutex);
    for (const auto& weak : live_streams) {
      if (auto state = weak.lock())
        alive.push_back(std::move(state));
    }
    live_streams.clear();
  }
  for (const auto& state : alive) {
    state->markClosed(StreamEnd::ServerStopping);
    state->notifyClosed();
  }
}

}  // namespace benchd::http::detail
