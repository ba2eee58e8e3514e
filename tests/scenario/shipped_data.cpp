#include "shipped_data.hpp"

namespace benchd::scenario::testing {

std::filesystem::path scenariosDir() {
  return BENCHD_SCENARIOS_DIR;
}

const WorkloadCatalog& shippedWorkloads() {
  static const WorkloadCatalog catalog =
      WorkloadCatalog::loadDirectory(scenariosDir() / "workloads");
  return catalog;
}

}  // namespace benchd::scenario::testing
