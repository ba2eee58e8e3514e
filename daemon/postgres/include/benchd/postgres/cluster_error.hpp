#pragma once

#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>

namespace benchd::postgres {

/// The steps of a private cluster's life, in the order PrivateCluster takes them.
enum class ClusterStep {
  kSetup,      ///< checking the options and the folder, giving the folder to the server's user
  kInitdb,     ///< initdb creating the data directory
  kConfigure,  ///< writing the cluster's settings into its postgresql.conf
  kStart,      ///< pg_ctl start, waiting until the server accepts connections
  kStop,       ///< pg_ctl stop
};

/// "initdb", "pg_ctl start", ...: the name error messages use for the step.
[[nodiscard]] std::string_view clusterStepName(ClusterStep step) noexcept;

/// A private cluster could not be created, started or stopped. what() reads
/// "PostgreSQL cluster in <folder>: <step> failed: <detail>", where the detail says what was
/// run and how it ended, followed by PostgreSQL's own words (the last lines the command wrote
/// to stderr and, for the server, the last lines of its log), one per indented line.
/// Callers tell the steps apart by step(), never by the text.
class ClusterError : public std::runtime_error {
 public:
  ClusterError(ClusterStep step, const std::filesystem::path& folder, const std::string& detail);

  [[nodiscard]] ClusterStep step() const noexcept { return step_; }

 private:
  ClusterStep step_;
};

}  // namespace benchd::postgres
