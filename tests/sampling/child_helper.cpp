#include "child_helper.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <sys/wait.h>
#include <system_error>

extern char** environ;

namespace benchd::sampling::testing {

namespace {

void throwErrno(const std::string& what) {
  throw std::system_error(errno, std::generic_category(), what);
}

}  // namespace

LoadHelper::LoadHelper(unsigned threads, unsigned fds) {
  int to_child[2];
  int from_child[2];
  if (::pipe2(to_child, O_CLOEXEC) != 0 || ::pipe2(from_child, O_CLOEXEC) != 0) {
    throwErrno("pipe2");
  }
  posix_spawn_file_actions_t actions;
  ::posix_spawn_file_actions_init(&actions);
  ::posix_spawn_file_actions_adddup2(&actions, to_child[0], STDIN_FILENO);
  ::posix_spawn_file_actions_adddup2(&actions, from_child[1], STDOUT_FILENO);
  std::string threads_arg = std::to_string(threads);
  std::string fds_arg = std::to_string(fds);
  std::string path = BENCHD_SAMPLING_LOAD_HELPER;
  char* argv[] = {path.data(), threads_arg.data(), fds_arg.data(), nullptr};
  const int spawned = ::posix_spawn(&pid_, path.c_str(), &actions, nullptr, argv, environ);
  ::posix_spawn_file_actions_destroy(&actions);
  ::close(to_child[0]);
  ::close(from_child[1]);
  stdin_fd_ = to_child[1];
  if (spawned != 0) {
    ::close(from_child[0]);
    ::close(stdin_fd_);
    throw std::system_error(spawned, std::generic_category(), "posix_spawn " + path);
  }
  // Wait for "ready <fds>\n" (blocking read: the helper answers or dies, closing the pipe).
  std::string line;
  char c = 0;
  while (::read(from_child[0], &c, 1) == 1 && c != '\n') {
    line += c;
  }
  ::close(from_child[0]);
  if (line.rfind("ready ", 0) != 0) {
    reap();
    throw std::runtime_error("load helper did not start: '" + line + "'");
  }
  open_fds_ = std::stoull(line.substr(6));
}

LoadHelper::~LoadHelper() {
  try {
    reap();
  } catch (...) {
    // a destructor cannot report; the test has failed already if this matters
  }
}

void LoadHelper::exitWithoutReaping() {
  if (stdin_fd_ >= 0) {
    ::close(stdin_fd_);
    stdin_fd_ = -1;
  }
  siginfo_t info{};
  while (::waitid(P_PID, static_cast<id_t>(pid_), &info, WEXITED | WNOWAIT) != 0) {
    if (errno != EINTR) {
      throwErrno("waitid");
    }
  }
}

void LoadHelper::reap() {
  if (reaped_ || pid_ <= 0) {
    return;
  }
  if (stdin_fd_ >= 0) {
    ::close(stdin_fd_);
    stdin_fd_ = -1;
  }
  int status = 0;
  while (::waitpid(pid_, &status, 0) < 0) {
    if (errno != EINTR) {
      throwErrno("waitpid");
    }
  }
  reaped_ = true;
}

}  // namespace benchd::sampling::testing
