#pragma once

#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

using X509 = struct x509_st;  // OpenSSL's certificate, <openssl/x509.h>

namespace benchd::tls {

/// A TLS identity could not be made, written or read; the message names the file or the
/// OpenSSL step and its reason.
class TlsIdentityError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// What a self-signed certificate says about its holder.
struct IdentityRequest {
  std::string common_name;             ///< the subject's CN, e.g. "benchd run 2026-12-07"
  std::vector<std::string> addresses;  ///< numeric IPv4/IPv6 addresses, as IP subject names
  std::vector<std::string> dns_names;  ///< host names, as DNS subject names
  int valid_days = 1;                  ///< from now; at least 1
};

/// A private key and the self-signed certificate of its public half, both PEM.
struct TlsIdentity {
  std::string private_key_pem;
  std::string certificate_pem;
};

/// Makes a fresh ECDSA P-256 key and a self-signed X.509 v3 certificate for it (random serial,
/// SHA-256 signature, the request's subject names), as a server's identity: for the worker of
/// a `tls` or `h2` row (one per run), and for an agent at its first start. Throws
/// TlsIdentityError naming the OpenSSL step that failed, or a request OpenSSL cannot express
/// (an address that is not numeric).
[[nodiscard]] TlsIdentity makeSelfSignedIdentity(const IdentityRequest& request);

/// The files an identity lives in.
struct IdentityFiles {
  std::filesystem::path private_key;
  std::filesystem::path certificate;
};

/// Writes `identity` into `folder` as key.pem and cert.pem. The key file is created
/// exclusively with mode 0600 (an existing file is an error, never overwritten, so a key cannot
/// leak through a file someone else made first); the certificate is 0644 and replaced.
[[nodiscard]] IdentityFiles writeIdentity(const TlsIdentity& identity,
                                          const std::filesystem::path& folder);

/// The SHA-256 fingerprint of a PEM certificate's DER encoding, as `openssl x509 -noout
/// -fingerprint -sha256` prints it after its '=': 32 upper-case hex pairs joined by ':'.
/// Throws TlsIdentityError when `certificate_pem` holds no certificate.
[[nodiscard]] std::string certificateFingerprint(const std::string& certificate_pem);
/// The same of a parsed certificate (e.g. the one a TLS peer showed).
[[nodiscard]] std::string certificateFingerprint(const X509& certificate);

}  // namespace benchd::tls
