#include <benchd/tls/tls_identity.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <array>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <memory>
#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <sys/stat.h>

namespace benchd::tls {

namespace {

template <auto Free>
struct Freer {
  template <typename T>
  void operator()(T* pointer) const noexcept {
    Free(pointer);
  }
};
using KeyPtr = std::unique_ptr<EVP_PKEY, Freer<EVP_PKEY_free>>;
using CertificatePtr = std::unique_ptr<X509, Freer<X509_free>>;
using BioPtr = std::unique_ptr<BIO, Freer<BIO_free>>;
using BignumPtr = std::unique_ptr<BIGNUM, Freer<BN_free>>;
using ExtensionPtr = std::unique_ptr<X509_EXTENSION, Freer<X509_EXTENSION_free>>;

/// `step` and OpenSSL's reason for the newest error on this thread's queue, which it empties.
[[noreturn]] void failAt(const std::string& step) {
  std::string reason = "no reason given";
  if (const unsigned long code = ERR_get_error(); code != 0) {
    std::array<char, 256> text{};
    ERR_error_string_n(code, text.data(), text.size());
    reason = text.data();
  }
  ERR_clear_error();
  throw TlsIdentityError("making a TLS identity: " + step + " failed: " + reason);
}

void check(int result, const char* step) {
  if (result != 1)
    failAt(step);
}

std::string bioText(BIO* bio) {
  char* data = nullptr;
  const long size = BIO_get_mem_data(bio, &data);
  return {data, static_cast<std::size_t>(size)};
}

bool isNumericAddress(const std::string& address) {
  std::array<unsigned char, sizeof(in6_addr)> bytes{};
  return inet_pton(AF_INET, address.c_str(), bytes.data()) == 1 ||
         inet_pton(AF_INET6, address.c_str(), bytes.data()) == 1;
}

/// The subjectAltName value in OpenSSL's configuration syntax ("IP:127.0.0.1,DNS:a").
std::string subjectAltNames(const IdentityRequest& request) {
  std::string names;
  const auto append = [&names](const char* kind, const std::string& name) {
    if (!names.empty())
      names += ',';
    names += kind;
    names += name;
  };
  for (const std::string& address : request.addresses) {
    if (!isNumericAddress(address))
      throw TlsIdentityError("making a TLS identity: '" + address +
                             "' is not a numeric IPv4 or IPv6 address (name hosts in dns_names)");
    append("IP:", address);
  }
  for (const std::string& name : request.dns_names) {
    if (name.empty() || name.find_first_of(",: ") != std::string::npos)
      throw TlsIdentityError("making a TLS identity: '" + name + "' is not a host name");
    append("DNS:", name);
  }
  return names;
}

void addExtension(X509* certificate, int nid, const std::string& value) {
  X509V3_CTX context;
  X509V3_set_ctx_nodb(&context);
  X509V3_set_ctx(&context, certificate, certificate, nullptr, nullptr, 0);
  const ExtensionPtr extension(X509V3_EXT_conf_nid(nullptr, &context, nid, value.c_str()));
  if (!extension)
    failAt(std::string("the extension ") + OBJ_nid2sn(nid) + " = " + value);
  check(X509_add_ext(certificate, extension.get(), -1), "adding an extension");
}

}  // namespace

TlsIdentity makeSelfSignedIdentity(const IdentityRequest& request) {
  if (request.valid_days < 1)
    throw TlsIdentityError("making a TLS identity: valid_days must be at least 1");
  if (request.common_name.empty())
    throw TlsIdentityError("making a TLS identity: the common name is empty");
  const std::string alt_names = subjectAltNames(request);

  const KeyPtr key(EVP_PKEY_Q_keygen(nullptr, nullptr, "EC", "P-256"));
  if (!key)
    failAt("generating an EC P-256 key");
  const CertificatePtr certificate(X509_new());
  if (!certificate)
    failAt("allocating a certificate");
  check(X509_set_version(certificate.get(), X509_VERSION_3), "setting version 3");

  // 159 random bits: positive and within the 20 octets RFC 5280 allows a serial.
  const BignumPtr serial(BN_new());
  if (!serial)
    failAt("allocating the serial");
  check(BN_rand(serial.get(), 159, BN_RAND_TOP_ANY, BN_RAND_BOTTOM_ANY), "drawing the serial");
  if (BN_to_ASN1_INTEGER(serial.get(), X509_get_serialNumber(certificate.get())) == nullptr)
    failAt("storing the serial");

  // Valid from a minute ago, so a peer whose clock is slightly behind accepts it.
  if (X509_gmtime_adj(X509_getm_notBefore(certificate.get()), -60) == nullptr ||
      X509_gmtime_adj(X509_getm_notAfter(certificate.get()),
                      static_cast<long>(request.valid_days) * 24 * 60 * 60) == nullptr)
    failAt("setting the validity");

  X509_NAME* subject = X509_get_subject_name(certificate.get());
  check(X509_NAME_add_entry_by_txt(
            subject, "CN", MBSTRING_UTF8,
            reinterpret_cast<const unsigned char*>(request.common_name.c_str()), -1, -1, 0),
        "setting the common name");
  check(X509_set_issuer_name(certificate.get(), subject), "setting the issuer");
  check(X509_set_pubkey(certificate.get(), key.get()), "setting the public key");

  addExtension(certificate.get(), NID_basic_constraints, "critical,CA:FALSE");
  addExtension(certificate.get(), NID_key_usage, "critical,digitalSignature");
  addExtension(certificate.get(), NID_ext_key_usage, "serverAuth");
  addExtension(certificate.get(), NID_subject_key_identifier, "hash");
  if (!alt_names.empty())
    addExtension(certificate.get(), NID_subject_alt_name, alt_names);

  if (X509_sign(certificate.get(), key.get(), EVP_sha256()) == 0)
    failAt("signing the certificate");

  const BioPtr key_bio(BIO_new(BIO_s_mem()));
  const BioPtr certificate_bio(BIO_new(BIO_s_mem()));
  if (!key_bio || !certificate_bio)
    failAt("allocating memory buffers");
  check(PEM_write_bio_PrivateKey(key_bio.get(), key.get(), nullptr, nullptr, 0, nullptr, nullptr),
        "writing the key as PEM");
  check(PEM_write_bio_X509(certificate_bio.get(), certificate.get()),
        "writing the certificate as PEM");
  return {bioText(key_bio.get()), bioText(certificate_bio.get())};
}

IdentityFiles writeIdentity(const TlsIdentity& identity, const std::filesystem::path& folder) {
  IdentityFiles files{folder / "key.pem", folder / "cert.pem"};
  const int fd = ::open(files.private_key.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0)
    throw TlsIdentityError("cannot create the private key " + files.private_key.string() + ": " +
                           std::strerror(errno));
  std::size_t written = 0;
  while (written < identity.private_key_pem.size()) {
    const ssize_t n = ::write(fd, identity.private_key_pem.data() + written,
                              identity.private_key_pem.size() - written);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      const int error = errno;
      ::close(fd);
      throw TlsIdentityError("cannot write the private key " + files.private_key.string() + ": " +
                             std::strerror(error));
    }
    written += static_cast<std::size_t>(n);
  }
  ::close(fd);

  std::ofstream certificate(files.certificate, std::ios::binary | std::ios::trunc);
  certificate << identity.certificate_pem;
  certificate.close();
  if (!certificate)
    throw TlsIdentityError("cannot write the certificate " + files.certificate.string());
  std::filesystem::permissions(files.certificate, std::filesystem::perms(0644));
  return files;
}

std::string certificateFingerprint(const std::string& certificate_pem) {
  const BioPtr bio(
      BIO_new_mem_buf(certificate_pem.data(), static_cast<int>(certificate_pem.size())));
  if (!bio)
    failAt("allocating a memory buffer");
  const CertificatePtr certificate(PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr));
  if (!certificate) {
    ERR_clear_error();
    throw TlsIdentityError("no PEM certificate to take a fingerprint of");
  }
  return certificateFingerprint(*certificate);
}

std::string certificateFingerprint(const X509& certificate) {
  std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
  unsigned int size = 0;
  check(X509_digest(&certificate, EVP_sha256(), digest.data(), &size), "hashing the certificate");
  static constexpr std::string_view kHex = "0123456789ABCDEF";
  std::string text;
  for (unsigned int i = 0; i < size; ++i) {
    if (i != 0)
      text += ':';
    text += kHex[digest[i] >> 4U];
    text += kHex[digest[i] & 0xFU];
  }
  return text;
}

}  // namespace benchd::tls
