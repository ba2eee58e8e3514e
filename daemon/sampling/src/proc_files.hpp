#pragma once

// Low-level file access shared by the samplers: owned descriptors and whole-file reads into
// reused buffers. /proc files report size 0, so reads loop until end of file.

#include <string>

namespace benchd::sampling::detail {

/// An owned file descriptor (-1 = none), closed on destruction.
class UniqueFd {
 public:
  UniqueFd() noexcept = default;
  explicit UniqueFd(int fd) noexcept : fd_(fd) {}
  ~UniqueFd();
  UniqueFd(UniqueFd&& other) noexcept : fd_(other.release()) {}
  UniqueFd& operator=(UniqueFd&& other) noexcept;
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;

  [[nodiscard]] int get() const noexcept { return fd_; }
  [[nodiscard]] bool valid() const noexcept { return fd_ >= 0; }
  int release() noexcept;
  void reset(int fd = -1) noexcept;

 private:
  int fd_ = -1;
};

/// Reads the file at `path` (relative to directory descriptor `dirfd`, or AT_FDCWD) into
/// `out`, replacing its contents and keeping its capacity for the next call. Returns 0, or
/// the errno of the failed open/read (then `out` is unspecified).
int readFileAt(int dirfd, const char* path, std::string& out);

/// readFileAt(AT_FDCWD, path), throwing std::system_error naming `path` on failure.
void readFileOrThrow(const std::string& path, std::string& out);

}  // namespace benchd::sampling::detail
