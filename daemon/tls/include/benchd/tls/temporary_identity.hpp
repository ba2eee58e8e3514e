#pragma once

#include <benchd/tls/tls_identity.hpp>

#include <filesystem>
#include <string_view>

namespace benchd::tls {

/// A fresh key and self-signed certificate in a private temporary folder (0700, the key 0600)
/// that goes with the object: the identity a short-lived server needs and nobody keeps (the
/// workers of a run's `tls` and `h2` rows, a verify-plugin check's worker). Never a key in the
/// repository or a results folder.
class TemporaryIdentity {
 public:
  /// Makes the folder under the system's temporary folder, named `folder_prefix` followed by
  /// six random characters, and the identity `request` asks for in it. Throws
  /// TlsIdentityError, or std::system_error naming `purpose` when the folder cannot be made;
  /// nothing is left behind either way.
  TemporaryIdentity(const IdentityRequest& request, std::string_view folder_prefix,
                    std::string_view purpose);
  ~TemporaryIdentity();
  TemporaryIdentity(const TemporaryIdentity&) = delete;
  TemporaryIdentity& operator=(const TemporaryIdentity&) = delete;

  [[nodiscard]] const IdentityFiles& files() const noexcept { return files_; }
  [[nodiscard]] const std::filesystem::path& folder() const noexcept { return folder_; }

 private:
  std::filesystem::path folder_;
  IdentityFiles files_;
};

}  // namespace benchd::tls
