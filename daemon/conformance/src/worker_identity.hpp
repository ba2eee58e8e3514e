#pragma once
// The certificate a check of the `tls`, `h2` and `h2c` rules serves its workers with: made for
// the check, never kept.

#include <benchd/conformance/http_client.hpp>
#include <benchd/tls/tls_identity.hpp>

#include <filesystem>
#include <string>
#include <vector>

namespace benchd::conformance {

/// A fresh key and self-signed certificate naming 127.0.0.1, in a private temporary folder that
/// goes with the object. Throws std::runtime_error (or tls::TlsIdentityError) when the folder
/// or the identity cannot be made.
class WorkerIdentity {
 public:
  WorkerIdentity();
  ~WorkerIdentity();
  WorkerIdentity(const WorkerIdentity&) = delete;
  WorkerIdentity& operator=(const WorkerIdentity&) = delete;

  /// The worker's arguments for `profile` with this identity: --profile P --tls-cert --tls-key.
  [[nodiscard]] std::vector<std::string> serveArguments(const std::string& profile) const;
  /// A client that trusts only this certificate and offers `alpn`.
  [[nodiscard]] ClientTls client(std::vector<std::string> alpn = {}) const;
  [[nodiscard]] const tls::IdentityFiles& files() const noexcept { return files_; }
  [[nodiscard]] const std::filesystem::path& folder() const noexcept { return folder_; }

 private:
  std::filesystem::path folder_;
  tls::IdentityFiles files_;
};

}  // namespace benchd::conformance
