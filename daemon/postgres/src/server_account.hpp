#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <sys/types.h>
#include <vector>

namespace benchd::postgres {

/// One command line, program and arguments apart (no shell in between).
struct CommandLine {
  std::filesystem::path program;
  std::vector<std::string> arguments;
};

/// The account that runs PostgreSQL's tools and its server: this process's own user, or, when
/// this process is root (which initdb and postgres refuse), an unprivileged user it switches
/// to with setpriv(1). Immutable after construction; may be shared between threads.
class ServerAccount {
 public:
  /// This process's user when it is not root; `user_name`, looked up now, when it is. Throws
  /// std::runtime_error when root and that user does not exist or is root too, or when a
  /// helper program (setpriv, env) is missing.
  [[nodiscard]] static ServerAccount forThisProcess(const std::string& user_name);

  [[nodiscard]] bool switchesUser() const noexcept { return switched_.has_value(); }
  /// "user postgres (uid 101)" or "this process's user (uid 1000)", for messages.
  [[nodiscard]] std::string describe() const;

  /// When switching user: makes that user and its primary group the owner of `folder` (the
  /// folder only, not what is in it). Does nothing otherwise. Throws std::runtime_error.
  void takeOwnership(const std::filesystem::path& folder) const;

  /// The command that runs `program` with `arguments` as this account, in
  /// `working_directory`, with an environment of LC_ALL=C and PATH only.
  [[nodiscard]] CommandLine command(const std::filesystem::path& program,
                                    const std::vector<std::string>& arguments,
                                    const std::filesystem::path& working_directory) const;

  /// When switching user: the first folder above `folder` (which must be absolute) that user
  /// cannot enter, judged by each folder's owner, group and mode bits against the user and
  /// its groups. nullopt when there is none or when not switching user. For error hints only:
  /// ACLs and mount options are not considered.
  [[nodiscard]] std::optional<std::filesystem::path> unreachableParent(
      const std::filesystem::path& folder) const;

 private:
  struct SwitchedUser {
    std::string name;
    uid_t uid = 0;
    gid_t gid = 0;
    std::vector<gid_t> groups;  ///< primary and supplementary
  };

  std::optional<SwitchedUser> switched_;
};

}  // namespace benchd::postgres
