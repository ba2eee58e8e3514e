// benchd serve's config file and token file.
#include "temp_dir.hpp"

#include <benchd/control/daemon_config.hpp>

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <sys/stat.h>

namespace benchd::control {
namespace {

std::string errorOf(const std::string& text) {
  try {
    static_cast<void>(parseDaemonConfig(text, "benchd.conf"));
  } catch (const DaemonConfigError& error) {
    return error.what();
  }
  return "no error";
}

TEST(DaemonConfig, KeysOverrideTheDefaults) {
  const DaemonConfig config = parseDaemonConfig(
      "# a comment\n\nbind = 127.0.0.2\nport = 9000\nstate_dir = /srv/benchd\n"
      "plugin_dirs = /a:/b\nmax_streams = 3\nmax_queued = 0\n"
      "postgres_url = postgresql://bench@db.example/movies\ndb_pool = 500\n",
      "benchd.conf");
  EXPECT_EQ(config.bind, "127.0.0.2");
  EXPECT_EQ(config.port, 9000);
  EXPECT_EQ(config.state_dir, "/srv/benchd");
  EXPECT_EQ(config.token_file, "/srv/benchd/token");
  EXPECT_EQ(config.plugin_dirs, (std::vector<std::filesystem::path>{"/a", "/b"}));
  EXPECT_EQ(config.max_streams, 3U);
  EXPECT_EQ(config.max_queued, 0U);
  EXPECT_EQ(config.postgres_url, "postgresql://bench@db.example/movies");
  EXPECT_EQ(config.db_pool, 500U);
  const DaemonConfig defaults = parseDaemonConfig("", "none");
  EXPECT_EQ(defaults.postgres_url, "");
  EXPECT_EQ(defaults.db_pool, 16U);
  EXPECT_EQ(defaults.bind, "127.0.0.1");
  EXPECT_EQ(defaults.port, 7878);
}

TEST(DaemonConfig, NamesTheLineTheKeyAndTheReason) {
  EXPECT_EQ(errorOf("port = 80\nprot = 1\n"),
            "benchd.conf:2: unknown key 'prot' (known: bind, port, state_dir, token_file, "
            "plugin_dirs, scenarios_dir, max_streams, max_body_bytes, max_queued, postgres_url, "
            "db_pool, tls, tls_cert, tls_key, host_names, agent_roles)");
  EXPECT_EQ(errorOf("agent_roles = server, generator\n"),
            "benchd.conf:1: key 'agent_roles': expected server (the generator and database roles "
            "are not built yet), got 'generator'");
  EXPECT_EQ(parseDaemonConfig("agent_roles = server\n", "none").agent_roles,
            std::vector<std::string>{"server"});
  EXPECT_EQ(errorOf("db_pool = 501\n"),
            "benchd.conf:1: key 'db_pool': expected an integer from 1 to 500, got '501'");
  EXPECT_EQ(errorOf("port = 70000\n"),
            "benchd.conf:1: key 'port': expected an integer from 0 to 65535, got '70000'");
  EXPECT_EQ(errorOf("state_dir = relative\n"),
            "benchd.conf:1: key 'state_dir': expected an absolute path, got 'relative'");
  EXPECT_EQ(errorOf("just words\n"), "benchd.conf:1: expected 'key = value', got 'just words'");
}

TEST(DaemonConfig, TlsIsOnBeyondLoopbackAndOffThereIsRefused) {
  EXPECT_FALSE(parseDaemonConfig("", "none").servesTls()) << "loopback serves in clear";
  EXPECT_TRUE(parseDaemonConfig("bind = 198.18.0.2\n", "none").servesTls());
  EXPECT_TRUE(parseDaemonConfig("bind = ::\n", "none").servesTls());
  EXPECT_FALSE(parseDaemonConfig("bind = ::1\n", "none").servesTls());
  EXPECT_FALSE(parseDaemonConfig("bind = 127.0.0.2\n", "none").servesTls());
  EXPECT_TRUE(parseDaemonConfig("tls = on\n", "none").servesTls());
  EXPECT_FALSE(parseDaemonConfig("tls = off\nbind = ::1\n", "none").servesTls());

  EXPECT_EQ(errorOf("bind = 0.0.0.0\ntls = off\n"),
            "benchd.conf:2: key 'tls': off is refused with bind = 0.0.0.0, which is not loopback: "
            "the API token would cross the network in clear (use tls = auto or on)");
  EXPECT_EQ(errorOf("tls = yes\n"),
            "benchd.conf:1: key 'tls': expected auto, on or off, got 'yes'");
  EXPECT_EQ(errorOf("tls_cert = /etc/benchd/cert.pem\n"),
            "benchd.conf: tls_cert and tls_key go together: tls_key is missing");
  EXPECT_EQ(errorOf("tls_key = key.pem\n"),
            "benchd.conf:1: key 'tls_key': expected an absolute path, got 'key.pem'");
  EXPECT_EQ(errorOf("host_names = lab-server, http://x\n"),
            "benchd.conf:1: key 'host_names': expected host names separated by ',', got "
            "'lab-server, http://x'");

  const DaemonConfig given = parseDaemonConfig(
      "tls_cert = /run/secrets/cert.pem\ntls_key = /run/secrets/key.pem\n"
      "host_names = benchd-server, benchd-server.lab.svc\n",
      "none");
  EXPECT_EQ(given.tls_cert, std::filesystem::path("/run/secrets/cert.pem"));
  EXPECT_EQ(given.tls_key, std::filesystem::path("/run/secrets/key.pem"));
  EXPECT_EQ(given.host_names, (std::vector<std::string>{"benchd-server", "benchd-server.lab.svc"}));
}

// The conffile the packages install lists every key at its default, commented out: as shipped
// it changes nothing, and each example line, uncommented on its own, is a valid setting.
TEST(DaemonConfig, TheShippedFileChangesNothingAndEachOfItsExamplesParses) {
  std::ifstream in(BENCHD_SHIPPED_CONFIG);
  ASSERT_TRUE(in) << BENCHD_SHIPPED_CONFIG;
  std::ostringstream text;
  text << in.rdbuf();
  const DaemonConfig shipped = parseDaemonConfig(text.str(), BENCHD_SHIPPED_CONFIG);
  const DaemonConfig defaults = parseDaemonConfig("", "none");
  EXPECT_EQ(shipped.bind, defaults.bind);
  EXPECT_EQ(shipped.port, defaults.port);
  EXPECT_EQ(shipped.state_dir, defaults.state_dir);
  EXPECT_EQ(shipped.token_file, defaults.token_file);
  EXPECT_TRUE(shipped.plugin_dirs.empty());
  EXPECT_FALSE(shipped.scenarios_dir.has_value());

  std::istringstream lines(text.str());
  std::string line;
  std::vector<std::string> keys;
  while (std::getline(lines, line)) {
    // "# key = value" with a lower-case key: an example, not prose.
    if (line.rfind("# ", 0) != 0 || line.find(" = ") == std::string::npos ||
        line.find_first_not_of("abcdefghijklmnopqrstuvwxyz_", 2) != line.find(" = "))
      continue;
    const std::string setting = line.substr(2);
    keys.push_back(setting.substr(0, setting.find(' ')));
    EXPECT_EQ(errorOf(setting), "no error") << setting;
  }
  EXPECT_EQ(keys,
            (std::vector<std::string>{"bind", "port", "tls", "host_names", "agent_roles",
                                      "state_dir", "token_file", "plugin_dirs", "scenarios_dir",
                                      "max_streams", "max_body_bytes", "max_queued"}))
      << "every key the parser knows is shown once";
}

TEST(Token, IsMadeOnceIntoAPrivateFileAndRefusedWhenOthersMayReadIt) {
  const benchd::testing::TempDir dir;
  const std::filesystem::path file = dir.path() / "state" / "token";
  const std::string token = loadOrCreateToken(file);
  EXPECT_EQ(token.size(), 64U);
  EXPECT_EQ(token.find_first_not_of("0123456789abcdef"), std::string::npos);
  struct stat status {};
  ASSERT_EQ(::stat(file.c_str(), &status), 0);
  EXPECT_EQ(status.st_mode & 0777, 0600U);
  EXPECT_EQ(loadOrCreateToken(file), token) << "the second start reads the same token";
  ::chmod(file.c_str(), 0644);
  EXPECT_THROW(static_cast<void>(loadOrCreateToken(file)), DaemonConfigError);
}

}  // namespace
}  // namespace benchd::control
