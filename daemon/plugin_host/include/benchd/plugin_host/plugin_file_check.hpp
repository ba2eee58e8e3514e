#pragma once

#include <filesystem>
#include <string>

namespace benchd::plugin_host {

/// A plugin file opened for loading, after its checks passed on that very descriptor.
///
/// Why a descriptor: checking a path and then handing the path to dlopen() lets the file (or a
/// folder on the way to it) be swapped between the two. Here every folder from the root down
/// and then the file are opened one step at a time relative to the previous descriptor
/// (openat, O_NOFOLLOW: no symlink is followed after the path was resolved once), each is
/// checked with fstat on what was opened, and the loader maps the checked file itself through
/// /proc/self/fd/N. What is checked is what is loaded.
///
/// Trusted means nobody but root and the running user could have changed it:
///   - the file: a regular file, not set-uid/set-gid, owned by root or the running user, not
///     writable by group or others;
///   - every folder from / down to the file's: owned by root or the running user, and not
///     writable by group or others unless its sticky bit is set (like /tmp: others may create
///     entries there but cannot rename or remove ours).
/// Move-only; closes the descriptor when destroyed.
class CheckedPluginFile {
 public:
  CheckedPluginFile(std::filesystem::path canonical, int fd) noexcept;
  ~CheckedPluginFile();
  CheckedPluginFile(CheckedPluginFile&& other) noexcept;
  CheckedPluginFile& operator=(CheckedPluginFile&& other) noexcept;
  CheckedPluginFile(const CheckedPluginFile&) = delete;
  CheckedPluginFile& operator=(const CheckedPluginFile&) = delete;

  /// The path as resolved when it was opened (symlinks followed once, at the start).
  [[nodiscard]] const std::filesystem::path& path() const noexcept { return path_; }
  [[nodiscard]] int fd() const noexcept { return fd_; }
  /// "/proc/self/fd/N": the name under which dlopen() maps exactly this open file.
  [[nodiscard]] std::string loadPath() const;
  /// Gives up the descriptor without closing it (see loadPlugin for why it stays open).
  int release() noexcept;

 private:
  std::filesystem::path path_;
  int fd_ = -1;
};

/// Opens and checks `path` as described above. Throws PluginLoadError naming the file (or the
/// folder), what was found and what to do.
CheckedPluginFile openCheckedPluginFile(const std::filesystem::path& path);

}  // namespace benchd::plugin_host
