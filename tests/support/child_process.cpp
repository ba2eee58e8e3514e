#include "child_process.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <stdexcept>

extern char** environ;

namespace benchd::testing {

SpawnedChild spawnWithPipes(const std::string& program, const std::vector<std::string>& arguments) {
  std::array<int, 2> out_pipe{};
  std::array<int, 2> err_pipe{};
  if (::pipe2(out_pipe.data(), O_CLOEXEC) != 0 || ::pipe2(err_pipe.data(), O_CLOEXEC) != 0) {
    throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, out_pipe[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, err_pipe[1], STDERR_FILENO);

  // Built by appending: g++ 12 reports a false -Warray-bounds for inserting at the front.
  std::vector<std::string> command;
  command.reserve(arguments.size() + 1);
  command.push_back(program);
  for (const auto& argument : arguments)
    command.push_back(argument);
  std::vector<char*> argv;
  argv.reserve(command.size() + 1);
  for (auto& argument : command)
    argv.push_back(argument.data());
  argv.push_back(nullptr);

  SpawnedChild child;
  const int spawned =
      ::posix_spawn(&child.pid, program.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(out_pipe[1]);
  ::close(err_pipe[1]);
  if (spawned != 0) {
    ::close(out_pipe[0]);
    ::close(err_pipe[0]);
    throw std::runtime_error("posix_spawn " + program + ": " + std::strerror(spawned));
  }
  child.stdout_fd = out_pipe[0];
  child.stderr_fd = err_pipe[0];
  return child;
}

}  // namespace benchd::testing
