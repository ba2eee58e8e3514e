#pragma once

#include <benchd/common/usage_error.hpp>

namespace benchd::cli {

/// Bad command-line arguments (the programs' shared type): the dispatcher prints what() with
/// the subcommand's usage and exits with kUsageExitCode.
using common::UsageError;

inline constexpr int kUsageExitCode = common::kExitUsage;

}  // namespace benchd::cli
