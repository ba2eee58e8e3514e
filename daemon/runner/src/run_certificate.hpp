#pragma once

#include <benchd/tls/tls_identity.hpp>

#include <filesystem>

namespace benchd::runner {

/// The certificate and key the workers of a run's `tls` rows serve with: made by the first
/// such row (benchd::tls, for 127.0.0.1), kept for the others, in a private temporary folder
/// (0700, the key 0600) that goes with the object. Never a key in the repository or the
/// results folder. Runner thread only.
class RunCertificate {
 public:
  /// Throws tls::TlsIdentityError (or std::filesystem::filesystem_error) naming what failed.
  RunCertificate();
  ~RunCertificate();
  RunCertificate(const RunCertificate&) = delete;
  RunCertificate& operator=(const RunCertificate&) = delete;

  [[nodiscard]] const tls::IdentityFiles& files() const noexcept { return files_; }

 private:
  std::filesystem::path folder_;
  tls::IdentityFiles files_;
};

}  // namespace benchd::runner
