#pragma once

#include <stdexcept>

namespace benchd::cli {

/// Bad command-line arguments. what() is one line for the user (without the program name); the
/// dispatcher prints it with the subcommand's usage and exits with kUsageExitCode.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

inline constexpr int kUsageExitCode = 2;

}  // namespace benchd::cli
