#include "run_certificate.hpp"

#include <benchd/common/temp_folder.hpp>

#include <system_error>

namespace benchd::runner {

namespace {

tls::IdentityFiles makeIdentity(const std::filesystem::path& folder) {
  tls::IdentityRequest request;
  request.common_name = "benchd run worker";
  request.addresses = {"127.0.0.1"};
  request.dns_names = {"localhost"};
  return tls::writeIdentity(tls::makeSelfSignedIdentity(request), folder);
}

}  // namespace

RunCertificate::RunCertificate()
    : folder_(common::makePrivateTempFolder("benchd-tls-", "the run's TLS certificate")) {
  try {
    files_ = makeIdentity(folder_);
  } catch (...) {
    std::error_code ignored;
    std::filesystem::remove_all(folder_, ignored);
    throw;
  }
}

RunCertificate::~RunCertificate() {
  std::error_code ignored;
  std::filesystem::remove_all(folder_, ignored);
}

}  // namespace benchd::runner
