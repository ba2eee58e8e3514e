#pragma once

#include <string>
#include <sys/types.h>
#include <vector>

namespace benchd::testing {

/// A started child process and the read ends of its stdout and stderr pipes. The caller owns
/// the descriptors (close them) and reaps the process.
struct SpawnedChild {
  pid_t pid = -1;
  int stdout_fd = -1;
  int stderr_fd = -1;
};

/// Starts `program` (an absolute path) with `arguments` after argv[0], in this process's
/// environment, with stdout and stderr on new pipes. The pipes are close-on-exec in this
/// process, so grandchildren of other tests never hold them open. Throws std::runtime_error.
SpawnedChild spawnWithPipes(const std::string& program, const std::vector<std::string>& arguments);

}  // namespace benchd::testing
