#pragma once

#include <stdexcept>

namespace benchd::common {

/// Exit codes every benchd program uses for the same outcomes (a program may add its own from
/// 3 up, documented in its --help).
inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;  ///< it could not do its job (a file, a store, a plugin)
inline constexpr int kExitUsage = 2;    ///< bad arguments

/// Bad command-line arguments. what() is one line for the user, naming the option and what was
/// expected, without the program's name; the program prints it with its usage and exits with
/// kExitUsage.
class UsageError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

}  // namespace benchd::common
