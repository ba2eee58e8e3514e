#include "command_runner.hpp"

#include <benchd/common/child_process.hpp>

namespace benchd::testing {

CommandResult runCommand(const std::string& program, const std::vector<std::string>& arguments,
                         std::chrono::milliseconds timeout,
                         const std::function<void(pid_t)>& on_started) {
  common::ChildProcess child(program, arguments);
  if (on_started) {
    on_started(child.pid());
  }
  const common::CompletedProcess done = common::waitForCompletion(child, timeout);
  CommandResult result;
  result.exit_code = done.status.exited() ? done.status.exit_code : 128 + done.status.signal_number;
  result.out = done.stdout_text;
  result.err = done.stderr_text;
  return result;
}

}  // namespace benchd::testing
