#pragma once

#include <benchd/tls/tls_identity.hpp>

#include <filesystem>
#include <string>

namespace benchd::tls {

/// The identity a long-lived server keeps (`benchd serve` over TLS, an agent): key.pem and
/// cert.pem in `folder`. Made at the first start from `request` (writeIdentity: the key created
/// exclusively, 0600), read as they are at every later start, so the certificate peers pinned
/// stays the same. Throws TlsIdentityError, naming the file, when only one of the two exists
/// (delete it to get a new identity) or when others may read the key (chmod 600 it).
[[nodiscard]] IdentityFiles loadOrCreateIdentity(const std::filesystem::path& folder,
                                                 const IdentityRequest& request);

/// The whole text of `file`. Throws TlsIdentityError naming it when it cannot be read.
[[nodiscard]] std::string readPemFile(const std::filesystem::path& file);

}  // namespace benchd::tls
