#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <sys/types.h>
#include <vector>

namespace benchd::testing {

/// What a finished child process printed and how it ended.
struct CommandResult {
  int exit_code = -1;  ///< 128 + signal when killed
  std::string out;
  std::string err;
};

/// Runs `program` with `arguments`, captures stdout and stderr, and waits for it (killing it
/// after `timeout`).
/// `on_started`, when given, receives the child's pid right after it started (for tests that
/// signal it).
CommandResult runCommand(const std::string& program, const std::vector<std::string>& arguments,
                         std::chrono::milliseconds timeout = std::chrono::seconds(60),
                         const std::function<void(pid_t)>& on_started = {});

}  // namespace benchd::testing
