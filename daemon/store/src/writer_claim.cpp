#include "writer_claim.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <sys/file.h>
#include <system_error>
#include <utility>

namespace benchd::store {
namespace {

[[noreturn]] void fail(const std::filesystem::path& file, const char* what) {
  throw std::system_error(errno, std::generic_category(),
                          file.string() + ": cannot " + what + " the writers' lock");
}

/// flock, retried when a signal interrupts the wait.
int lockFile(int fd, int operation) {
  int result = 0;
  do {
    result = ::flock(fd, operation);
  } while (result != 0 && errno == EINTR);
  return result;
}

}  // namespace

WriterClaim::WriterClaim(const std::filesystem::path& store_file) {
  std::filesystem::path lock_file = store_file;
  lock_file += ".writers";
  fd_ = ::open(lock_file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0) {
    fail(lock_file, "open");
  }
  if (lockFile(fd_, LOCK_EX | LOCK_NB) == 0) {
    sole_ = true;
  } else if (errno != EWOULDBLOCK) {
    const int error = errno;
    ::close(fd_);
    errno = error;
    fail(lock_file, "take");
  }
  lock_file_ = std::move(lock_file);
}

void WriterClaim::share() {
  // flock turns an exclusive lock into a shared one by releasing it first: a writer that
  // claims in between finds itself alone, which is true then (this one records runs only
  // after this call returns, and that waits for the other's share()).
  if (lockFile(fd_, LOCK_SH) != 0) {
    fail(lock_file_, "share");
  }
}

WriterClaim::~WriterClaim() {
  ::close(fd_);  // releases the lock
}

}  // namespace benchd::store
