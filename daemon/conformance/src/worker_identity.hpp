#pragma once
// The certificate a check of the `tls`, `h2` and `h2c` rules serves its workers with: made for
// the check, never kept.

#include <benchd/conformance/http_client.hpp>
#include <benchd/tls/temporary_identity.hpp>

#include <string>
#include <vector>

namespace benchd::conformance {

/// A fresh key and self-signed certificate naming 127.0.0.1 (tls::TemporaryIdentity), with
/// what a check does with it. Throws what TemporaryIdentity throws.
class WorkerIdentity {
 public:
  WorkerIdentity();

  /// The worker's arguments for `profile` with this identity: --profile P --tls-cert --tls-key.
  [[nodiscard]] std::vector<std::string> serveArguments(const std::string& profile) const;
  /// A client that trusts only this certificate and offers `alpn`.
  [[nodiscard]] ClientTls client(std::vector<std::string> alpn = {}) const;
  [[nodiscard]] const tls::IdentityFiles& files() const noexcept { return identity_.files(); }

 private:
  tls::TemporaryIdentity identity_;
};

}  // namespace benchd::conformance
