// tls::loadOrCreateIdentity: the identity a long-lived server makes once and keeps, and what
// it refuses to start with.
#include "temp_dir.hpp"

#include <benchd/tls/server_identity.hpp>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <sys/stat.h>

namespace {

namespace fs = std::filesystem;
using benchd::tls::IdentityRequest;
using benchd::tls::TlsIdentityError;

IdentityRequest agentRequest() {
  IdentityRequest request;
  request.common_name = "benchd lab-server";
  request.addresses = {"127.0.0.1"};
  request.dns_names = {"lab-server"};
  request.valid_days = 7300;
  return request;
}

std::string refusalOf(const fs::path& folder) {
  try {
    (void)benchd::tls::loadOrCreateIdentity(folder, agentRequest());
  } catch (const TlsIdentityError& error) {
    return error.what();
  }
  return "accepted";
}

TEST(ServerIdentity, IsMadeAtTheFirstStartInANewFolderAndKeptAtTheNext) {
  const benchd::testing::TempDir dir;
  const fs::path folder = dir.path() / "state" / "tls";
  const auto made = benchd::tls::loadOrCreateIdentity(folder, agentRequest());
  EXPECT_EQ(made.private_key, folder / "key.pem");
  EXPECT_EQ(made.certificate, folder / "cert.pem");
  struct stat status {};
  ASSERT_EQ(::stat(made.private_key.c_str(), &status), 0);
  EXPECT_EQ(status.st_mode & 0777U, 0600U);
  const std::string fingerprint =
      benchd::tls::certificateFingerprint(benchd::tls::readPemFile(made.certificate));

  const auto kept = benchd::tls::loadOrCreateIdentity(folder, agentRequest());
  EXPECT_EQ(benchd::tls::certificateFingerprint(benchd::tls::readPemFile(kept.certificate)),
            fingerprint);
}

TEST(ServerIdentity, HalfAnIdentityOrAKeyOthersMayReadIsRefusedByName) {
  const benchd::testing::TempDir dir;
  const fs::path folder = dir.path() / "tls";
  const auto made = benchd::tls::loadOrCreateIdentity(folder, agentRequest());

  fs::permissions(made.private_key, fs::perms(0640));
  EXPECT_EQ(refusalOf(folder),
            made.private_key.string() + ": the private key may be read by others; chmod 600 it");
  fs::permissions(made.private_key, fs::perms(0600));

  fs::remove(made.certificate);
  EXPECT_EQ(refusalOf(folder).rfind(made.private_key.string() + " is there without " +
                                        made.certificate.string() + ": delete it",
                                    0),
            0U)
      << refusalOf(folder);
  EXPECT_TRUE(fs::exists(made.private_key)) << "the key was replaced";

  std::ofstream(made.certificate) << "not a certificate\n";
  EXPECT_NE(refusalOf(folder), "accepted");
}

}  // namespace
