#pragma once

#include <benchd/postgres/private_cluster.hpp>

#include <filesystem>
#include <string>
#include <sys/types.h>
#include <temp_dir.hpp>

namespace benchd::postgres::testing {

/// A private cluster in a fresh temporary folder, for one test. The folder outlives the
/// cluster (declared first), as PrivateCluster's contract asks of its owner.
struct TestCluster {
  benchd::testing::TempDir folder;
  PrivateCluster cluster;

  TestCluster();
  explicit TestCluster(ClusterOptions options);  ///< options.folder is replaced
};

/// The uid the server must run as: the user `postgres` when the tests run as root (as here
/// and in CI), the tests' own otherwise.
[[nodiscard]] uid_t expectedServerUid();

/// The one value `sql` returns, as text.
[[nodiscard]] std::string singleValue(const std::string& conninfo, const std::string& sql);

}  // namespace benchd::postgres::testing
