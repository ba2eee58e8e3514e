#include "worker_identity.hpp"

#include <benchd/common/temp_folder.hpp>

#include <system_error>

namespace benchd::conformance {

WorkerIdentity::WorkerIdentity()
    : folder_(common::makePrivateTempFolder("benchd-verify-tls-", "the worker's certificate")) {
  try {
    tls::IdentityRequest request;
    request.common_name = "benchd verify-plugin";
    request.addresses = {"127.0.0.1"};
    files_ = tls::writeIdentity(tls::makeSelfSignedIdentity(request), folder_);
  } catch (...) {
    std::error_code ignored;
    std::filesystem::remove_all(folder_, ignored);
    throw;
  }
}

WorkerIdentity::~WorkerIdentity() {
  std::error_code ignored;
  std::filesystem::remove_all(folder_, ignored);
}

std::vector<std::string> WorkerIdentity::serveArguments(const std::string& profile) const {
  return {"--profile",  profile,
          "--tls-cert", files_.certificate.string(),
          "--tls-key",  files_.private_key.string()};
}

ClientTls WorkerIdentity::client(std::vector<std::string> alpn) const {
  return {files_.certificate, std::move(alpn)};
}

}  // namespace benchd::conformance
