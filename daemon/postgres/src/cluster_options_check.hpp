#pragma once

#include <benchd/postgres/private_cluster.hpp>

namespace benchd::postgres {

/// The options as start() uses them: folder and bin_dir absolute and without a trailing
/// separator. Throws std::invalid_argument when a path cannot be made absolute.
[[nodiscard]] ClusterOptions normalizedClusterOptions(ClusterOptions options);

/// Checks normalised options before anything is created: the folder exists and is a folder,
/// neither path holds a character pg_ctl's shell command, unix_socket_directories or env(1)
/// would misread, the socket's path fits a Unix socket address, and the numbers are in range.
/// Throws std::invalid_argument saying what is wrong and what to do.
void checkClusterOptions(const ClusterOptions& options);

}  // namespace benchd::postgres
