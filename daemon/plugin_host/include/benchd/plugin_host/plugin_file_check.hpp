#pragma once

#include <filesystem>

namespace benchd::plugin_host {

/// Refuses files that must not be loaded into a process: missing files, non-regular files,
/// set-uid/set-gid files, and files that other users could have replaced (the file or its
/// directory writable by group or others, without the sticky bit for directories).
/// Returns the canonical path. Throws PluginLoadError with the reason.
std::filesystem::path checkPluginFile(const std::filesystem::path& path);

}  // namespace benchd::plugin_host
