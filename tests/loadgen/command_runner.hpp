#pragma once

#include <chrono>
#include <string>
#include <vector>

namespace benchd::loadgen::testing {

/// What a finished child process printed and how it ended.
struct CommandResult {
  int exit_code = -1;  ///< 128 + signal when killed
  std::string out;
  std::string err;
};

/// Runs `program` with `arguments`, captures stdout and stderr, and waits for it (killing it
/// after `timeout`).
CommandResult runCommand(const std::string& program, const std::vector<std::string>& arguments,
                         std::chrono::milliseconds timeout = std::chrono::seconds(60));

}  // namespace benchd::loadgen::testing
