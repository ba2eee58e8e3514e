#include <benchd/postgres/cluster_error.hpp>

namespace benchd::postgres {

std::string_view clusterStepName(ClusterStep step) noexcept {
  switch (step) {
    case ClusterStep::kSetup:
      return "setup";
    case ClusterStep::kInitdb:
      return "initdb";
    case ClusterStep::kConfigure:
      return "writing the settings";
    case ClusterStep::kStart:
      return "pg_ctl start";
    case ClusterStep::kStop:
      return "pg_ctl stop";
  }
  return "unknown step";
}

ClusterError::ClusterError(ClusterStep step, const std::filesystem::path& folder,
                           const std::string& detail)
    : std::runtime_error((folder.empty() ? std::string("PostgreSQL cluster")
                                         : "PostgreSQL cluster in " + folder.string()) +
                         ": " + std::string(clusterStepName(step)) + " failed: " + detail),
      step_(step) {}

}  // namespace benchd::postgres
