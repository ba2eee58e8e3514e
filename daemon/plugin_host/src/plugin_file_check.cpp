#include <benchd/plugin_host/plugin_file_check.hpp>
#include <benchd/plugin_host/plugin_load_error.hpp>

#include <cerrno>
#include <cstring>
#include <string>
#include <sys/stat.h>

namespace benchd::plugin_host {

namespace fs = std::filesystem;

fs::path checkPluginFile(const fs::path& path) {
  std::error_code error;
  fs::path canonical = fs::canonical(path, error);
  if (error) {
    throw PluginLoadError("plugin " + path.string() + ": " + error.message());
  }
  struct stat file_status {};
  if (::stat(canonical.c_str(), &file_status) != 0) {
    throw PluginLoadError("plugin " + path.string() + ": " + std::strerror(errno));
  }
  if (!S_ISREG(file_status.st_mode)) {
    throw PluginLoadError("plugin " + path.string() + ": not a regular file");
  }
  if ((file_status.st_mode & (S_ISUID | S_ISGID)) != 0) {
    throw PluginLoadError("plugin " + path.string() + ": refusing a set-uid or set-gid file");
  }
  if ((file_status.st_mode & (S_IWGRP | S_IWOTH)) != 0) {
    throw PluginLoadError("plugin " + path.string() +
                          ": writable by group or others, so anyone could replace it "
                          "(chmod go-w it)");
  }
  const fs::path directory = canonical.parent_path();
  struct stat directory_status {};
  if (::stat(directory.c_str(), &directory_status) != 0) {
    throw PluginLoadError("plugin " + path.string() +
                          ": cannot stat its directory: " + std::strerror(errno));
  }
  if ((directory_status.st_mode & S_IWOTH) != 0 && (directory_status.st_mode & S_ISVTX) == 0) {
    throw PluginLoadError("plugin " + path.string() + ": its directory " + directory.string() +
                          " is writable by everyone, so anyone could replace the plugin");
  }
  return canonical;
}

}  // namespace benchd::plugin_host
