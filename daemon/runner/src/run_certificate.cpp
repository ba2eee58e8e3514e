#include "run_certificate.hpp"

namespace benchd::runner {

std::unique_ptr<tls::TemporaryIdentity> makeRunCertificate() {
  tls::IdentityRequest request;
  request.common_name = "benchd run worker";
  request.addresses = {"127.0.0.1"};
  request.dns_names = {"localhost"};
  return std::make_unique<tls::TemporaryIdentity>(request, "benchd-tls-",
                                                  "the run's TLS certificate");
}

}  // namespace benchd::runner
