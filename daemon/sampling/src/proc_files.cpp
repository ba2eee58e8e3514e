#include "proc_files.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <system_error>

namespace benchd::sampling::detail {

UniqueFd::~UniqueFd() {
  reset();
}

UniqueFd& UniqueFd::operator=(UniqueFd&& other) noexcept {
  if (this != &other) {
    reset(other.release());
  }
  return *this;
}

int UniqueFd::release() noexcept {
  const int fd = fd_;
  fd_ = -1;
  return fd;
}

void UniqueFd::reset(int fd) noexcept {
  if (fd_ >= 0) {
    ::close(fd_);
  }
  fd_ = fd;
}

int readFileAt(int dirfd, const char* path, std::string& out) {
  const UniqueFd fd(::openat(dirfd, path, O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) {
    return errno;
  }
  constexpr std::size_t kInitialSize = 4096;  // a status file is ~1.5 kB
  out.resize(out.capacity() < kInitialSize ? kInitialSize : out.capacity());
  std::size_t used = 0;
  for (;;) {
    if (used == out.size()) {
      out.resize(out.size() * 2);
    }
    const ssize_t n = ::read(fd.get(), out.data() + used, out.size() - used);
    if (n < 0) {
      if (errno == EINTR) {
        continue;
      }
      return errno;
    }
    if (n == 0) {
      break;
    }
    used += static_cast<std::size_t>(n);
  }
  out.resize(used);
  return 0;
}

void readFileOrThrow(const std::string& path, std::string& out) {
  if (const int error = readFileAt(AT_FDCWD, path.c_str(), out); error != 0) {
    throw std::system_error(error, std::generic_category(), "cannot read " + path);
  }
}

}  // namespace benchd::sampling::detail
