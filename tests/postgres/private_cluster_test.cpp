// PrivateCluster against the real PostgreSQL 15 of Debian's postgresql-15 package: a cluster
// serves on its private socket with the settings it was asked for, as the unprivileged user
// when the tests run as root; stop() and the destructor end it and its socket; a cluster that
// cannot be created names the step and quotes PostgreSQL. Each started cluster takes ~2 s.
#include "test_cluster.hpp"

#include <benchd/postgres/cluster_error.hpp>
#include <benchd/postgres/private_cluster.hpp>

#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <libpq-fe.h>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <utility>

namespace benchd::postgres {
namespace {

namespace fs = std::filesystem;
using benchd::testing::TempDir;
using testing::expectedServerUid;
using testing::singleValue;
using testing::TestCluster;

void expectContains(const std::string& text, const std::string& part) {
  EXPECT_NE(text.find(part), std::string::npos) << "'" << part << "' not in:\n" << text;
}

/// The error start() throws for `options`; fails the test when it starts.
std::optional<ClusterError> startError(ClusterOptions options) {
  try {
    PrivateCluster cluster = PrivateCluster::start(std::move(options));
    ADD_FAILURE() << "the cluster started in " << cluster.folder();
  } catch (const ClusterError& error) {
    return error;
  }
  return std::nullopt;
}

bool acceptsConnections(const std::string& conninfo) {
  const std::unique_ptr<PGconn, decltype(&PQfinish)> connection(PQconnectdb(conninfo.c_str()),
                                                                &PQfinish);
  return PQstatus(connection.get()) == CONNECTION_OK;
}

/// The effective uid of process `pid`, from the "Uid:" line of /proc/<pid>/status (real,
/// effective, saved, filesystem); -1 when it cannot be read.
long effectiveUidOf(const std::string& pid) {
  std::ifstream status("/proc/" + pid + "/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("Uid:", 0) == 0) {
      std::istringstream fields(line.substr(4));
      long real = -1;
      long effective = -1;
      fields >> real >> effective;
      return effective;
    }
  }
  return -1;
}

TEST(PrivateClusterTest, ServesOnItsPrivateSocketWithTheRequestedSettings) {
  TestCluster test;
  const PrivateCluster& cluster = test.cluster;
  ASSERT_TRUE(cluster.running());
  EXPECT_EQ(cluster.socketFile(), test.folder.path() / ".s.PGSQL.5432");
  EXPECT_TRUE(fs::is_socket(cluster.socketFile()));
  EXPECT_TRUE(fs::is_regular_file(cluster.logFile()));

  const std::string conninfo = cluster.connectionString();
  ASSERT_TRUE(acceptsConnections(conninfo)) << conninfo;  // plain libpq takes the conninfo
  EXPECT_EQ(singleValue(conninfo, "SELECT current_setting('server_version_num')::int / 10000"),
            "15");
  EXPECT_EQ(singleValue(conninfo, "SELECT current_user"), "postgres");
  EXPECT_EQ(singleValue(conninfo, "SHOW listen_addresses"), "");
  EXPECT_EQ(singleValue(conninfo, "SHOW max_connections"), "600");
  EXPECT_EQ(singleValue(conninfo, "SHOW fsync"), "off");
  EXPECT_EQ(singleValue(conninfo, "SHOW synchronous_commit"), "off");
  EXPECT_EQ(singleValue(conninfo, "SHOW full_page_writes"), "off");
  EXPECT_EQ(singleValue(conninfo, "SHOW jit"), "off");
  EXPECT_EQ(singleValue(conninfo, "SHOW lc_collate"), "C");
  EXPECT_EQ(singleValue(conninfo, "SHOW server_encoding"), "UTF8");

  // As root the server runs as the user postgres: root is what PostgreSQL refuses.
  const std::string backend = singleValue(conninfo, "SELECT pg_backend_pid()");
  EXPECT_EQ(effectiveUidOf(backend), static_cast<long>(expectedServerUid()));
}

TEST(PrivateClusterTest, TakesThePortAndConnectionLimitFromTheOptions) {
  ClusterOptions options;
  options.port = 6543;
  options.max_connections = 42;
  TestCluster test(options);
  EXPECT_EQ(test.cluster.socketFile(), test.folder.path() / ".s.PGSQL.6543");
  EXPECT_TRUE(fs::is_socket(test.cluster.socketFile()));
  EXPECT_EQ(singleValue(test.cluster.connectionString(), "SHOW port"), "6543");
  EXPECT_EQ(singleValue(test.cluster.connectionString(), "SHOW max_connections"), "42");
}

TEST(PrivateClusterTest, StopEndsTheServerAndRemovesItsSocket) {
  TestCluster test;
  PrivateCluster& cluster = test.cluster;
  const std::string conninfo = cluster.connectionString();
  ASSERT_TRUE(acceptsConnections(conninfo));

  cluster.stop();

  EXPECT_FALSE(cluster.running());
  EXPECT_FALSE(fs::exists(cluster.socketFile()));
  EXPECT_FALSE(fs::exists(cluster.dataDirectory() / "postmaster.pid"));
  EXPECT_FALSE(acceptsConnections(conninfo));
  cluster.stop();  // a second stop() does nothing
  EXPECT_FALSE(cluster.running());
}

TEST(PrivateClusterTest, TheDestructorStopsARunningCluster) {
  TempDir folder;
  fs::path socket;
  fs::path pid_file;
  {
    ClusterOptions options;
    options.folder = folder.path();
    const PrivateCluster cluster = PrivateCluster::start(options);
    socket = cluster.socketFile();
    pid_file = cluster.dataDirectory() / "postmaster.pid";
    ASSERT_TRUE(fs::is_socket(socket));
    ASSERT_TRUE(fs::exists(pid_file));
  }
  EXPECT_FALSE(fs::exists(socket));
  EXPECT_FALSE(fs::exists(pid_file));
}

TEST(PrivateClusterTest, AMovedClusterIsStoppedOnceByItsNewOwner) {
  TempDir folder;
  ClusterOptions options;
  options.folder = folder.path();
  PrivateCluster first = PrivateCluster::start(options);
  PrivateCluster second = std::move(first);
  EXPECT_FALSE(first.running());  // NOLINT(bugprone-use-after-move): the moved-from state
  ASSERT_TRUE(second.running());
  EXPECT_TRUE(acceptsConnections(second.connectionString()));
  second.stop();
  EXPECT_FALSE(fs::exists(second.socketFile()));
}

TEST(PrivateClusterTest, AMissingInitdbIsAnInitdbErrorNamingThePath) {
  TempDir folder;
  ClusterOptions options;
  options.folder = folder.path();
  options.bin_dir = folder.path() / "no-such-bin";
  const std::optional<ClusterError> error = startError(options);
  ASSERT_TRUE(error);
  EXPECT_EQ(error->step(), ClusterStep::kInitdb);
  expectContains(error->what(), "initdb failed");
  expectContains(error->what(), (options.bin_dir / "initdb").string());
  expectContains(error->what(), "No such file or directory");
  EXPECT_FALSE(fs::exists(folder.path() / "data"));
}

TEST(PrivateClusterTest, AFolderTheServerCannotWriteIsAnInitdbErrorQuotingInitdb) {
  TempDir parent;
  // Searchable by the user postgres when root, so that initdb itself meets the read-only
  // folder (the next test covers a folder it cannot reach).
  fs::permissions(parent.path(),
                  fs::perms::owner_all | fs::perms::group_exec | fs::perms::others_exec);
  const fs::path folder =
      parent.subfolder("read-only", fs::perms::owner_read | fs::perms::owner_exec);
  ClusterOptions options;
  options.folder = folder;
  const std::optional<ClusterError> error = startError(options);
  ASSERT_TRUE(error);
  EXPECT_EQ(error->step(), ClusterStep::kInitdb);
  expectContains(error->what(), "initdb failed");
  // initdb's own words: 'initdb: error: could not create directory "<folder>/data":
  // Permission denied'.
  expectContains(error->what(), "initdb: error");
  expectContains(error->what(), (folder / "data").string());
  expectContains(error->what(), "Permission denied");
}

TEST(PrivateClusterTest, AsRootAFolderItsUserCannotReachIsNamedInTheInitdbError) {
  if (::geteuid() != 0)
    GTEST_SKIP() << "only root hands the cluster to another user";
  TempDir parent;  // 0700, owned by root: the user postgres cannot enter it
  const fs::path folder = parent.subfolder("cluster", fs::perms::owner_all);
  ClusterOptions options;
  options.folder = folder;
  const std::optional<ClusterError> error = startError(options);
  ASSERT_TRUE(error);
  EXPECT_EQ(error->step(), ClusterStep::kInitdb);
  expectContains(error->what(), "Permission denied");
  expectContains(error->what(), "cannot enter " + parent.path().string());
}

TEST(PrivateClusterTest, UnusableOptionsAreSetupErrorsBeforeAnythingRuns) {
  TempDir folder;
  ClusterOptions missing;
  missing.folder = folder.path() / "not-created";
  std::optional<ClusterError> error = startError(missing);
  ASSERT_TRUE(error);
  EXPECT_EQ(error->step(), ClusterStep::kSetup);
  expectContains(error->what(), "not-created is not an existing folder");

  ClusterOptions comma;
  comma.folder = folder.subfolder("a,b", fs::perms::owner_all);
  error = startError(comma);
  ASSERT_TRUE(error);
  EXPECT_EQ(error->step(), ClusterStep::kSetup);
  expectContains(error->what(), "contains ','");

  ClusterOptions long_path;
  long_path.folder = folder.subfolder(std::string(100, 'x'), fs::perms::owner_all);
  error = startError(long_path);
  ASSERT_TRUE(error);
  EXPECT_EQ(error->step(), ClusterStep::kSetup);
  expectContains(error->what(), "a Unix socket address holds");

  ClusterOptions no_user;
  no_user.folder = folder.path();
  no_user.server_user = "benchd-no-such-user";
  if (::geteuid() == 0) {
    error = startError(no_user);
    ASSERT_TRUE(error);
    EXPECT_EQ(error->step(), ClusterStep::kSetup);
    expectContains(error->what(), "benchd-no-such-user");
  }
  EXPECT_FALSE(fs::exists(folder.path() / "data"));
}

}  // namespace
}  // namespace benchd::postgres
