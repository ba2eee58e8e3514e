#include <benchd/plugin_host/plugin_file_check.hpp>
#include <benchd/plugin_host/plugin_load_error.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <sys/stat.h>
#include <utility>

namespace benchd::plugin_host {

namespace fs = std::filesystem;

namespace {

/// Closes a descriptor when it goes out of scope, unless released.
class FdGuard {
 public:
  explicit FdGuard(int fd) noexcept : fd_(fd) {}
  ~FdGuard() {
    if (fd_ >= 0) {
      ::close(fd_);
    }
  }
  FdGuard(const FdGuard&) = delete;
  FdGuard& operator=(const FdGuard&) = delete;
  [[nodiscard]] int get() const noexcept { return fd_; }
  int release() noexcept { return std::exchange(fd_, -1); }
  void reset(int fd) noexcept {
    if (fd_ >= 0) {
      ::close(fd_);
    }
    fd_ = fd;
  }

 private:
  int fd_;
};

std::string ownerText(uid_t owner) {
  return "owned by uid " + std::to_string(owner) + ", not by root or the running user (uid " +
         std::to_string(::geteuid()) + ")";
}

bool trustedOwner(uid_t owner) {
  return owner == 0 || owner == ::geteuid();
}

/// The folder `folder`'s status must show that only root or this user can change its entries.
void checkFolder(const fs::path& plugin, const fs::path& folder, const struct stat& status) {
  const std::string where = "plugin " + plugin.string() + ": folder " + folder.string();
  if (!S_ISDIR(status.st_mode)) {
    throw PluginLoadError(where + " is not a folder");
  }
  if (!trustedOwner(status.st_uid)) {
    throw PluginLoadError(where + " is " + ownerText(status.st_uid) +
                          ", so that user could replace the plugin");
  }
  const bool sticky = (status.st_mode & S_ISVTX) != 0;
  if ((status.st_mode & (S_IWGRP | S_IWOTH)) != 0 && !sticky) {
    throw PluginLoadError(where + " is writable by " +
                          ((status.st_mode & S_IWOTH) != 0 ? "everyone" : "its group") +
                          ", so anyone could replace the plugin (chmod go-w it)");
  }
}

void checkFile(const fs::path& plugin, const struct stat& status) {
  const std::string where = "plugin " + plugin.string();
  if (!S_ISREG(status.st_mode)) {
    throw PluginLoadError(where + ": not a regular file");
  }
  if ((status.st_mode & (S_ISUID | S_ISGID)) != 0) {
    throw PluginLoadError(where + ": refusing a set-uid or set-gid file");
  }
  if (!trustedOwner(status.st_uid)) {
    throw PluginLoadError(where + ": " + ownerText(status.st_uid) +
                          ", so that user could replace it");
  }
  if ((status.st_mode & (S_IWGRP | S_IWOTH)) != 0) {
    throw PluginLoadError(where +
                          ": writable by group or others, so anyone could replace it "
                          "(chmod go-w it)");
  }
}

}  // namespace

CheckedPluginFile::CheckedPluginFile(fs::path canonical, int fd) noexcept
    : path_(std::move(canonical)), fd_(fd) {}

CheckedPluginFile::~CheckedPluginFile() {
  if (fd_ >= 0) {
    ::close(fd_);
  }
}

CheckedPluginFile::CheckedPluginFile(CheckedPluginFile&& other) noexcept
    : path_(std::move(other.path_)), fd_(std::exchange(other.fd_, -1)) {}

CheckedPluginFile& CheckedPluginFile::operator=(CheckedPluginFile&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) {
      ::close(fd_);
    }
    path_ = std::move(other.path_);
    fd_ = std::exchange(other.fd_, -1);
  }
  return *this;
}

int CheckedPluginFile::release() noexcept {
  return std::exchange(fd_, -1);
}

std::string CheckedPluginFile::loadPath() const {
  return "/proc/self/fd/" + std::to_string(fd_);
}

CheckedPluginFile openCheckedPluginFile(const fs::path& path) {
  std::error_code error;
  // Symlinks are resolved here, once; from now on nothing is resolved by name again.
  const fs::path canonical = fs::canonical(path, error);
  if (error) {
    throw PluginLoadError("plugin " + path.string() + ": " + error.message());
  }
  FdGuard folder(::open("/", O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (folder.get() < 0) {
    throw PluginLoadError("plugin " + path.string() + ": cannot open /: " + std::strerror(errno));
  }
  fs::path walked = "/";
  struct stat status {};
  if (::fstat(folder.get(), &status) != 0) {
    throw PluginLoadError("plugin " + path.string() + ": cannot stat /: " + std::strerror(errno));
  }
  checkFolder(path, walked, status);
  const fs::path relative = canonical.relative_path();
  const fs::path file_name = canonical.filename();
  for (const fs::path& part : relative.parent_path()) {
    walked /= part;
    const int next =
        ::openat(folder.get(), part.c_str(), O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (next < 0) {
      throw PluginLoadError("plugin " + path.string() + ": cannot open folder " + walked.string() +
                            ": " + std::strerror(errno) +
                            " (was it replaced while being checked?)");
    }
    folder.reset(next);
    if (::fstat(folder.get(), &status) != 0) {
      throw PluginLoadError("plugin " + path.string() + ": cannot stat folder " + walked.string() +
                            ": " + std::strerror(errno));
    }
    checkFolder(path, walked, status);
  }
  FdGuard file(::openat(folder.get(), file_name.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
  if (file.get() < 0) {
    throw PluginLoadError("plugin " + path.string() + ": cannot open " + canonical.string() + ": " +
                          std::strerror(errno));
  }
  if (::fstat(file.get(), &status) != 0) {
    throw PluginLoadError("plugin " + path.string() + ": " + std::strerror(errno));
  }
  checkFile(path, status);
  return {canonical, file.release()};
}

}  // namespace benchd::plugin_host
