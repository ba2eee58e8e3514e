// tls::TemporaryIdentity: the identity of a short-lived server (a run's tls workers, a
// verify-plugin check) lives in a private folder that goes with the object, and a failed
// identity leaves no folder behind.
#include <benchd/tls/temporary_identity.hpp>

#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <sys/stat.h>

namespace {

namespace fs = std::filesystem;
using benchd::tls::certificateFingerprint;
using benchd::tls::IdentityRequest;
using benchd::tls::TemporaryIdentity;
using benchd::tls::TlsIdentityError;

unsigned modeOf(const fs::path& path) {
  struct stat status {};
  EXPECT_EQ(::stat(path.c_str(), &status), 0) << path;
  return status.st_mode & 0777U;
}

/// Folders in the temporary folder whose names start with `prefix`.
int foldersStartingWith(const std::string& prefix) {
  int count = 0;
  for (const auto& entry : fs::directory_iterator(fs::temp_directory_path())) {
    if (entry.path().filename().string().rfind(prefix, 0) == 0)
      ++count;
  }
  return count;
}

TEST(TemporaryIdentity, LivesInAPrivateFolderThatGoesWithIt) {
  IdentityRequest request;
  request.common_name = "benchd temporary test";
  request.addresses = {"127.0.0.1"};
  std::optional<TemporaryIdentity> identity;
  identity.emplace(request, "benchd-temporary-test-", "a test's certificate");
  const fs::path folder = identity->folder();
  EXPECT_EQ(folder.parent_path(), fs::temp_directory_path());
  EXPECT_EQ(modeOf(folder), 0700U);
  EXPECT_EQ(identity->files().private_key.parent_path(), folder);
  EXPECT_EQ(modeOf(identity->files().private_key), 0600U);
  std::ifstream certificate(identity->files().certificate);
  const std::string pem{std::istreambuf_iterator<char>(certificate), {}};
  EXPECT_EQ(certificateFingerprint(pem).size(), 32U * 3 - 1) << "not a certificate: " << pem;
  identity.reset();
  EXPECT_FALSE(fs::exists(folder)) << folder << " outlived its identity";
}

TEST(TemporaryIdentity, AFailedIdentityLeavesNoFolder) {
  const std::string prefix = "benchd-temporary-failed-" + std::to_string(::getpid()) + "-";
  IdentityRequest request;
  request.common_name = "benchd temporary test";
  request.addresses = {"not-an-address"};
  EXPECT_THROW(TemporaryIdentity(request, prefix, "a test's certificate"), TlsIdentityError);
  EXPECT_EQ(foldersStartingWith(prefix), 0);
}

}  // namespace
