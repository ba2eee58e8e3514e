#include "test_cluster.hpp"

#include <benchd/postgres/pg_connection.hpp>

#include <pwd.h>
#include <unistd.h>

#include <stdexcept>
#include <utility>

namespace benchd::postgres::testing {
namespace {

PrivateCluster startIn(const benchd::testing::TempDir& folder, ClusterOptions options) {
  options.folder = folder.path();
  return PrivateCluster::start(std::move(options));
}

}  // namespace

TestCluster::TestCluster() : TestCluster(ClusterOptions{}) {}

TestCluster::TestCluster(ClusterOptions options) : cluster(startIn(folder, std::move(options))) {}

uid_t expectedServerUid() {
  if (::geteuid() != 0)
    return ::geteuid();
  const passwd* entry = ::getpwnam("postgres");
  if (entry == nullptr)
    throw std::runtime_error("the tests run as root, but there is no user postgres");
  return entry->pw_uid;
}

std::string singleValue(const std::string& conninfo, const std::string& sql) {
  PgConnection connection(conninfo);
  const PgResult result = connection.execute(sql);
  if (result.rows() != 1 || result.columns() != 1)
    throw std::runtime_error("expected one value from: " + sql);
  return std::string(result.text(0, 0));
}

}  // namespace benchd::postgres::testing
