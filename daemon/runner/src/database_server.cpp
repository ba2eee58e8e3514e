#include <benchd/common/temp_folder.hpp>
#include <benchd/postgres/cluster_error.hpp>
#include <benchd/postgres/conninfo.hpp>
#include <benchd/postgres/movie_database.hpp>
#include <benchd/postgres/pg_connection.hpp>
#include <benchd/postgres/pg_error.hpp>
#include <benchd/postgres/private_cluster.hpp>
#include <benchd/runner/database_server.hpp>

#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <fstream>
#include <stdexcept>
#include <system_error>
#include <utility>

namespace benchd::runner {

namespace fs = std::filesystem;

namespace {

/// A folder of its own under the system's temporary folder: short enough for the socket's
/// path (108 bytes at most) and searchable by the postgres user, which a results folder under
/// /root is not.
fs::path makeClusterFolder() {
  return common::makePrivateTempFolder("benchd-postgres-", "the PostgreSQL cluster");
}

/// A schema name of benchd's own on a shared server: unique per run.
std::string runSchemaName() {
  return "benchd_run_" + std::to_string(::getpid()) + "_" +
         std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(
                            std::chrono::system_clock::now().time_since_epoch())
                            .count());
}

}  // namespace

std::string databaseServerProblem(const DatabaseServerSettings& settings) {
  if (!settings.url.empty()) {
    return {};  // reachable or not, a row says so with PostgreSQL's message
  }
  for (const char* tool : {"initdb", "pg_ctl"}) {
    const fs::path path = settings.bin_dir / tool;
    if (::access(path.c_str(), X_OK) != 0) {
      return path.string() +
             " not found (install postgresql-15, or name a server with --postgres URL)";
    }
  }
  return {};
}

std::string describeDatabaseServer(const DatabaseServerSettings& settings) {
  const std::string pool = ", pool " + std::to_string(settings.pool_size) + " per plugin";
  if (!settings.url.empty()) {
    return "the PostgreSQL server given (a schema of benchd's own)" + pool;
  }
  return "a private PostgreSQL 15 cluster (" + settings.bin_dir.string() + ")" + pool;
}

struct DatabaseServer::Private {
  fs::path folder;                                  // the private cluster's
  std::optional<postgres::PrivateCluster> cluster;  // declared after folder: stops first
  std::string admin_conninfo;                       // an external server: where the schema is
  std::string schema;
};

DatabaseServer::DatabaseServer(DatabaseServerSettings settings)
    : settings_(std::move(settings)), private_(std::make_unique<Private>()) {}

DatabaseServer::~DatabaseServer() {
  discardCluster();
  try {
    if (!private_->schema.empty()) {
      postgres::PgConnection admin(private_->admin_conninfo);
      // Without its NOTICE listing every table the cascade drops on benchd's stderr.
      admin.execute("SET client_min_messages = warning");
      admin.execute("DROP SCHEMA IF EXISTS " + private_->schema + " CASCADE");
    }
  } catch (...) {
    // Left behind: a schema on a server that went away. Nothing the run can do about it now.
  }
}

void DatabaseServer::discardCluster() noexcept {
  if (private_->cluster) {
    try {
      private_->cluster->stop();
    } catch (...) {
      // A server that would not stop (or was already gone): its files go all the same.
    }
    private_->cluster.reset();
  }
  if (!private_->folder.empty()) {
    std::error_code ignored;
    fs::remove_all(private_->folder, ignored);
    private_->folder.clear();
  }
}

bool DatabaseServer::serverAlive() const {
  if (!private_->cluster) {
    return true;
  }
  const pid_t pid = serverPid();
  return pid > 0 && (::kill(pid, 0) == 0 || errno == EPERM);
}

std::optional<std::string> DatabaseServer::takeNotice() {
  return std::exchange(notice_, std::nullopt);
}

void DatabaseServer::start() {
  try {
    if (settings_.url.empty()) {
      private_->folder = makeClusterFolder();
      postgres::ClusterOptions options;
      options.folder = private_->folder;
      options.bin_dir = settings_.bin_dir;
      private_->cluster.emplace(postgres::PrivateCluster::start(options));
      conninfo_ = private_->cluster->connectionString();
      postgres::createMovieDatabase(conninfo_);
      return;
    }
    private_->admin_conninfo = settings_.url;
    const std::string schema = runSchemaName();
    conninfo_ = postgres::withSearchPath(settings_.url, schema);
    postgres::PgConnection admin(private_->admin_conninfo);
    admin.execute("CREATE SCHEMA " + schema);
    private_->schema = schema;  // from here on, the destructor drops it
    postgres::createMovieDatabase(conninfo_);
  } catch (const std::exception& error) {
    start_failure_ = std::string("PostgreSQL could not be set up: ") + error.what();
  }
}

std::string DatabaseServer::prepareRow() {
  if (!conninfo_.empty() && !start_failure_ && !serverAlive()) {
    // A private cluster's server died (killed, crashed) during an earlier row, which failed
    // with PostgreSQL's message: the next rows get a fresh cluster rather than its leftovers.
    const fs::path old_folder = private_->folder;
    discardCluster();
    conninfo_.clear();
    start();
    notice_ = "PostgreSQL: the private cluster's server had died (" + old_folder.string() +
              "); started a new one for the next rows" +
              (start_failure_ ? ", which failed: " + *start_failure_ : std::string());
  }
  if (conninfo_.empty() && !start_failure_)
    start();
  if (start_failure_)
    throw std::runtime_error(*start_failure_);
  try {
    postgres::resetMovieDatabase(conninfo_);
  } catch (const postgres::PgError& error) {
    throw std::runtime_error(std::string("PostgreSQL: ") + error.what());
  }
  return conninfo_;
}

std::optional<std::string> DatabaseServer::failure() const {
  if (conninfo_.empty() || start_failure_)
    return std::nullopt;
  try {
    // conninfo_ is key=value (a private cluster's, or withSearchPath's): a later key wins.
    postgres::PgConnection probe(conninfo_ + " connect_timeout=10");
    probe.execute("SELECT 1");
    return std::nullopt;
  } catch (const std::exception& error) {
    return std::string(error.what());
  }
}

pid_t DatabaseServer::serverPid() const {
  if (!private_->cluster || !private_->cluster->running())
    return 0;
  // The first line of postmaster.pid is the postmaster's pid.
  std::ifstream file(private_->cluster->dataDirectory() / "postmaster.pid");
  pid_t pid = 0;
  file >> pid;
  return file ? pid : 0;
}

}  // namespace benchd::runner
