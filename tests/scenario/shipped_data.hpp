#pragma once

#include <benchd/scenario/workload_catalog.hpp>

#include <filesystem>

namespace benchd::scenario::testing {

/// The repository's scenarios/ directory.
std::filesystem::path scenariosDir();

/// The workloads shipped in scenarios/workloads/, loaded once.
const WorkloadCatalog& shippedWorkloads();

}  // namespace benchd::scenario::testing
