// `benchd serve` over TLS: the identity made at the first start (its key private, its
// fingerprint the one openssl prints and the listening line names, the same after a restart),
// the token over TLS, nothing in clear on the TLS port, a given certificate used as it is, and
// the settings that would send the token in clear refused before anything listens.
#include "build_paths.hpp"
#include "command_runner.hpp"
#include "daemon_process.hpp"
#include "temp_dir.hpp"

#include <benchd/common/child_process.hpp>
#include <benchd/tls/tls_identity.hpp>

#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <sys/stat.h>
#include <vector>

namespace benchd::control {
namespace {

using namespace benchd::control::testing;
using benchd::testing::CommandResult;
using benchd::testing::runCommand;

/// curl to the daemon at `port` over TLS, trusting `certificate`; prints "BODY STATUS".
CommandResult curlTls(std::uint16_t port, const fs::path& certificate, const std::string& path,
                      const std::string& token = {}) {
  std::vector<std::string> arguments = {
      "-sS", "--cacert",      certificate.string(),
      "-w",  " %{http_code}", "https://127.0.0.1:" + std::to_string(port) + path};
  if (!token.empty())
    arguments.insert(arguments.end(), {"-H", "Authorization: Bearer " + token});
  return runCommand("/usr/bin/curl", arguments, std::chrono::seconds(30));
}

/// What `openssl x509 -fingerprint -sha256` prints after '=' for `certificate`.
std::string opensslFingerprint(const fs::path& certificate) {
  const CommandResult printed =
      runCommand("/usr/bin/openssl",
                 {"x509", "-noout", "-fingerprint", "-sha256", "-in", certificate.string()},
                 std::chrono::seconds(30));
  const auto equals = printed.out.find('=');
  if (equals == std::string::npos)
    return "openssl printed: " + printed.out + printed.err;
  std::string fingerprint = printed.out.substr(equals + 1);
  while (!fingerprint.empty() && (fingerprint.back() == '\n' || fingerprint.back() == '\r'))
    fingerprint.pop_back();
  return fingerprint;
}

TEST(BenchdServeTls, MakesItsIdentityAtFirstStartServesTheTokenOverTlsAndKeepsIt) {
  const benchd::testing::TempDir dir;
  const fs::path certificate = dir.path() / "state" / "tls" / "cert.pem";
  std::string first_fingerprint;
  {
    Daemon daemon(dir.path(), "tls = on\n");
    ASSERT_NE(daemon.port(), 0) << daemon.process().stderrText();
    struct stat status {};
    ASSERT_EQ(::stat((dir.path() / "state" / "tls" / "key.pem").c_str(), &status), 0);
    EXPECT_EQ(status.st_mode & 0777, 0600U);
    first_fingerprint = daemon.fingerprint();
    EXPECT_EQ(first_fingerprint, opensslFingerprint(certificate));

    const CommandResult health = curlTls(daemon.port(), certificate, "/api/v1/health");
    EXPECT_EQ(health.exit_code, 0) << health.err;
    EXPECT_TRUE(health.out.ends_with(" 200")) << health.out;
    EXPECT_TRUE(curlTls(daemon.port(), certificate, "/api/v1/version").out.ends_with(" 401"));
    const CommandResult version =
        curlTls(daemon.port(), certificate, "/api/v1/version", daemon.token());
    EXPECT_TRUE(version.out.ends_with(" 200")) << version.out << version.err;
    EXPECT_THROW((void)daemon.call("GET", "/api/v1/health", {}, false), std::exception)
        << "the TLS port answered HTTP in clear";
    daemon.stop();
  }
  Daemon again(dir.path(), "tls = on\n");
  ASSERT_NE(again.port(), 0) << again.process().stderrText();
  EXPECT_EQ(again.fingerprint(), first_fingerprint) << "the identity changed at a restart";
  again.stop();
}

TEST(BenchdServeTls, HostNamesAreInTheCertificateAndPassTheHostCheck) {
  const benchd::testing::TempDir dir;
  Daemon daemon(dir.path(), "tls = on\nhost_names = benchd-lab, benchd-lab.example\n");
  ASSERT_NE(daemon.port(), 0) << daemon.process().stderrText();
  const fs::path certificate = dir.path() / "state" / "tls" / "cert.pem";
  // curl resolves the name to loopback itself and checks the certificate by that name.
  const auto byName = [&](const std::string& name) {
    const std::string port = std::to_string(daemon.port());
    return runCommand(
        "/usr/bin/curl",
        {"-sS", "--cacert", certificate.string(), "--resolve", name + ":" + port + ":127.0.0.1",
         "-w", " %{http_code}", "https://" + name + ":" + port + "/api/v1/health"},
        std::chrono::seconds(30));
  };
  const CommandResult listed = byName("benchd-lab.example");
  EXPECT_EQ(listed.exit_code, 0) << listed.err;
  EXPECT_TRUE(listed.out.ends_with(" 200")) << listed.out;
  const CommandResult unlisted = byName("elsewhere.example");
  EXPECT_NE(unlisted.exit_code, 0) << "a name the certificate does not hold was verified";

  // The Host check takes the names too, and still refuses others (421).
  const std::string port = std::to_string(daemon.port());
  const auto withHost = [&](const std::string& host) {
    return runCommand(
        "/usr/bin/curl",
        {"-sS", "-k", "-o", "/dev/null", "-w", "%{http_code}", "-H", "Host: " + host + ":" + port,
         "https://127.0.0.1:" + port + "/api/v1/health"},
        std::chrono::seconds(30));
  };
  EXPECT_EQ(withHost("benchd-lab").out, "200");
  EXPECT_EQ(withHost("elsewhere.example").out, "421");
  daemon.stop();
}

TEST(BenchdServeTls, AGivenCertificateIsUsedAsItIs) {
  const benchd::testing::TempDir dir;
  const benchd::testing::TempDir given_dir;
  tls::IdentityRequest request;
  request.common_name = "given";
  request.addresses = {"127.0.0.1"};
  const tls::IdentityFiles given =
      tls::writeIdentity(tls::makeSelfSignedIdentity(request), given_dir.path());
  Daemon daemon(dir.path(), "tls = on\ntls_cert = " + given.certificate.string() +
                                "\ntls_key = " + given.private_key.string() + "\n");
  ASSERT_NE(daemon.port(), 0) << daemon.process().stderrText();
  EXPECT_EQ(daemon.fingerprint(), opensslFingerprint(given.certificate));
  EXPECT_FALSE(fs::exists(dir.path() / "state" / "tls")) << "an identity was made anyway";
  EXPECT_TRUE(curlTls(daemon.port(), given.certificate, "/api/v1/health").out.ends_with(" 200"));
  daemon.stop();
}

TEST(BenchdServeTls, OffBeyondLoopbackIsRefusedBeforeAnythingListens) {
  const benchd::testing::TempDir dir;
  const fs::path config = dir.path() / "benchd.conf";
  std::ofstream(config) << "port = 0\nstate_dir = " << (dir.path() / "state").string()
                        << "\nbind = 0.0.0.0\ntls = off\n";
  common::ChildProcess child(benchd::testing::cliPath(), {"serve", "--config", config.string()});
  child.drainOutput(std::chrono::seconds(30));
  const auto status = child.waitExit(std::chrono::seconds(30));
  ASSERT_TRUE(status);
  EXPECT_FALSE(status->succeeded()) << status->describe();
  EXPECT_NE(child.stderrText().find(config.string() + ":4: key 'tls': off is refused with bind = "
                                                      "0.0.0.0, which is not loopback"),
            std::string::npos)
      << child.stderrText();
  EXPECT_FALSE(fs::exists(dir.path() / "state" / "benchd.sqlite")) << "it went on after refusing";
}

}  // namespace
}  // namespace benchd::control
