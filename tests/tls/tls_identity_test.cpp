#include "../support/command_runner.hpp"
#include "temp_dir.hpp"

#include <benchd/tls/tls_identity.hpp>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <sys/stat.h>

namespace {

namespace fs = std::filesystem;
using benchd::testing::runCommand;
using benchd::tls::certificateFingerprint;
using benchd::tls::IdentityRequest;
using benchd::tls::makeSelfSignedIdentity;
using benchd::tls::TlsIdentityError;
using benchd::tls::writeIdentity;

class TlsIdentityFiles : public ::testing::Test {
 protected:
  [[nodiscard]] std::string openssl(const std::vector<std::string>& arguments) const {
    const auto result = runCommand("/usr/bin/openssl", arguments);
    EXPECT_EQ(result.exit_code, 0) << result.err;
    return result.out;
  }

  benchd::testing::TempDir dir_;
  const fs::path& folder_ = dir_.path();
};

IdentityRequest loopbackRequest() {
  IdentityRequest request;
  request.common_name = "benchd test";
  request.addresses = {"127.0.0.1", "::1"};
  request.dns_names = {"localhost"};
  return request;
}

TEST_F(TlsIdentityFiles, OpensslReadsTheCertificateWithItsNamesAndTheKeyIsItsPair) {
  const auto identity = makeSelfSignedIdentity(loopbackRequest());
  const auto files = writeIdentity(identity, folder_);

  const std::string text = openssl({"x509", "-in", files.certificate.string(), "-noout", "-subject",
                                    "-ext", "subjectAltName,basicConstraints,extendedKeyUsage"});
  EXPECT_NE(text.find("CN = benchd test"), std::string::npos) << text;
  EXPECT_NE(text.find("IP Address:127.0.0.1"), std::string::npos) << text;
  EXPECT_NE(text.find("IP Address:0:0:0:0:0:0:0:1"), std::string::npos) << text;
  EXPECT_NE(text.find("DNS:localhost"), std::string::npos) << text;
  EXPECT_NE(text.find("CA:FALSE"), std::string::npos) << text;
  EXPECT_NE(text.find("TLS Web Server Authentication"), std::string::npos) << text;

  // The same public key on both sides: the key signs what the certificate names.
  EXPECT_EQ(openssl({"pkey", "-in", files.private_key.string(), "-pubout"}),
            openssl({"x509", "-in", files.certificate.string(), "-noout", "-pubkey"}));
  // Self-signed: it verifies as its own trust anchor, for the server purpose.
  const std::string verified = openssl({"verify", "-purpose", "sslserver", "-CAfile",
                                        files.certificate.string(), files.certificate.string()});
  EXPECT_NE(verified.find(": OK"), std::string::npos) << verified;
}

TEST_F(TlsIdentityFiles, TheFingerprintIsWhatOpensslPrints) {
  const auto identity = makeSelfSignedIdentity(loopbackRequest());
  const auto files = writeIdentity(identity, folder_);
  const std::string printed =
      openssl({"x509", "-in", files.certificate.string(), "-noout", "-fingerprint", "-sha256"});
  const std::string fingerprint = certificateFingerprint(identity.certificate_pem);
  EXPECT_EQ(fingerprint.size(), std::size_t{32 * 3 - 1});
  EXPECT_NE(printed.find("=" + fingerprint + "\n"), std::string::npos)
      << printed << " vs " << fingerprint;
}

TEST_F(TlsIdentityFiles, EveryIdentityIsNew) {
  const auto first = makeSelfSignedIdentity(loopbackRequest());
  const auto second = makeSelfSignedIdentity(loopbackRequest());
  EXPECT_NE(first.private_key_pem, second.private_key_pem);
  EXPECT_NE(certificateFingerprint(first.certificate_pem),
            certificateFingerprint(second.certificate_pem));
}

TEST_F(TlsIdentityFiles, TheKeyIsPrivateAndNeverOverwritten) {
  const auto identity = makeSelfSignedIdentity(loopbackRequest());
  const auto files = writeIdentity(identity, folder_);
  struct stat status {};
  ASSERT_EQ(::stat(files.private_key.c_str(), &status), 0);
  EXPECT_EQ(status.st_mode & 0777U, 0600U);
  ASSERT_EQ(::stat(files.certificate.c_str(), &status), 0);
  EXPECT_EQ(status.st_mode & 0777U, 0644U);

  const auto other = makeSelfSignedIdentity(loopbackRequest());
  try {
    (void)writeIdentity(other, folder_);
    FAIL() << "a second identity overwrote the first key";
  } catch (const TlsIdentityError& error) {
    EXPECT_NE(std::string(error.what()).find(files.private_key.string()), std::string::npos)
        << error.what();
  }
  std::ifstream key(files.private_key);
  std::stringstream kept;
  kept << key.rdbuf();
  EXPECT_EQ(kept.str(), identity.private_key_pem);
}

TEST(TlsIdentityRequest, ANameThatIsNoAddressIsRefusedByName) {
  IdentityRequest request = loopbackRequest();
  request.addresses = {"lab-server"};
  try {
    (void)makeSelfSignedIdentity(request);
    FAIL() << "a host name was taken as an IP subject name";
  } catch (const TlsIdentityError& error) {
    EXPECT_NE(std::string(error.what()).find("'lab-server' is not a numeric"), std::string::npos)
        << error.what();
  }
  request = loopbackRequest();
  request.valid_days = 0;
  EXPECT_THROW((void)makeSelfSignedIdentity(request), TlsIdentityError);
}

TEST(TlsIdentityFingerprint, TextWithoutACertificateIsRefused) {
  EXPECT_THROW((void)certificateFingerprint("not a certificate"), TlsIdentityError);
  EXPECT_THROW((void)certificateFingerprint(""), TlsIdentityError);
}

}  // namespace
