#include "run_certificate.hpp"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>
#include <system_error>

namespace benchd::runner {

namespace {

std::filesystem::path makePrivateFolder() {
  std::string pattern = (std::filesystem::temp_directory_path() / "benchd-tls-XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr)
    throw std::system_error(errno, std::generic_category(),
                            "cannot make a folder for the run's TLS certificate in " +
                                std::filesystem::temp_directory_path().string());
  return pattern;
}

tls::IdentityFiles makeIdentity(const std::filesystem::path& folder) {
  tls::IdentityRequest request;
  request.common_name = "benchd run worker";
  request.addresses = {"127.0.0.1"};
  request.dns_names = {"localhost"};
  return tls::writeIdentity(tls::makeSelfSignedIdentity(request), folder);
}

}  // namespace

RunCertificate::RunCertificate() : folder_(makePrivateFolder()) {
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
