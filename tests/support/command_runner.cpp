#include "command_runner.hpp"

#include "child_process.hpp"

#include <poll.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <stdexcept>
#include <sys/wait.h>

namespace benchd::loadgen::testing {

CommandResult runCommand(const std::string& program, const std::vector<std::string>& arguments,
                         std::chrono::milliseconds timeout,
                         const std::function<void(pid_t)>& on_started) {
  const benchd::testing::SpawnedChild child = benchd::testing::spawnWithPipes(program, arguments);
  const pid_t pid = child.pid;
  if (on_started) {
    on_started(pid);
  }
  CommandResult result;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  std::array<pollfd, 2> fds{{{child.stdout_fd, POLLIN, 0}, {child.stderr_fd, POLLIN, 0}}};
  std::array<std::string*, 2> sinks{&result.out, &result.err};
  int open_pipes = 2;
  bool killed = false;
  while (open_pipes > 0) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0 && !killed) {
      ::kill(pid, SIGKILL);
      killed = true;
    }
    if (::poll(fds.data(), fds.size(), 100) < 0 && errno != EINTR) {
      break;
    }
    for (std::size_t index = 0; index < fds.size(); ++index) {
      if (fds[index].fd < 0 || (fds[index].revents & (POLLIN | POLLHUP)) == 0) {
        continue;
      }
      std::array<char, 4096> chunk{};
      const ssize_t got = ::read(fds[index].fd, chunk.data(), chunk.size());
      if (got > 0) {
        sinks[index]->append(chunk.data(), static_cast<std::size_t>(got));
      } else if (got == 0 || errno != EINTR) {
        ::close(fds[index].fd);
        fds[index].fd = -1;
        --open_pipes;
      }
    }
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return result;
}

}  // namespace benchd::loadgen::testing
