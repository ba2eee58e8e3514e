#include "worker_identity.hpp"

namespace benchd::conformance {
namespace {

tls::IdentityRequest verifyRequest() {
  tls::IdentityRequest request;
  request.common_name = "benchd verify-plugin";
  request.addresses = {"127.0.0.1"};
  return request;
}

}  // namespace

WorkerIdentity::WorkerIdentity()
    : identity_(verifyRequest(), "benchd-verify-tls-", "the worker's certificate") {}

std::vector<std::string> WorkerIdentity::serveArguments(const std::string& profile) const {
  return {"--profile",  profile,
          "--tls-cert", files().certificate.string(),
          "--tls-key",  files().private_key.string()};
}

ClientTls WorkerIdentity::client(std::vector<std::string> alpn) const {
  return {files().certificate, std::move(alpn)};
}

}  // namespace benchd::conformance
