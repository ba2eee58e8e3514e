#pragma once

#include <benchd/postgres/private_cluster.hpp>

#include <filesystem>
#include <string>

namespace benchd::postgres {

/// The postgresql.conf lines of a private cluster: the socket in options.folder and no TCP,
/// the port, max_connections, and the non-durable settings. `options` must have passed
/// checkClusterOptions (the folder is written between single quotes unescaped).
[[nodiscard]] std::string privateClusterSettings(const ClusterOptions& options);

/// Appends `settings` to the configuration file initdb wrote (later lines win over its
/// defaults). Throws std::runtime_error naming the file.
void appendSettings(const std::filesystem::path& config_file, const std::string& settings);

}  // namespace benchd::postgres
