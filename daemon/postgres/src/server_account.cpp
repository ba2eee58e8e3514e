#include "server_account.hpp"

#include <grp.h>
#include <pwd.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <sys/stat.h>

namespace benchd::postgres {
namespace {

namespace fs = std::filesystem;

/// util-linux's setpriv: switches uid, gid and groups, then execs the program (it stays no
/// process of its own in between, so a timeout's SIGKILL reaches the PostgreSQL tool).
constexpr const char* kSetpriv = "/usr/bin/setpriv";
/// coreutils' env: clears the environment and changes the working directory before the exec,
/// which benchd::common::ChildProcess does not do. The working directory matters as well as
/// the environment: initdb and pg_ctl return to the directory they started in while locating
/// their own binaries, and fail where the server's user may not enter it (root's home).
constexpr const char* kEnv = "/usr/bin/env";
/// The whole environment of the tools and the server, so that PG* variables of the caller
/// (PGDATA, PGPORT, PGOPTIONS, ...) cannot redirect them, and their messages are English.
constexpr std::array<const char*, 2> kEnvironment = {"LC_ALL=C", "PATH=/usr/bin:/bin"};

void requireProgram(const char* program, const char* package) {
  if (::access(program, X_OK) != 0) {
    throw std::runtime_error(std::string(program) +
                             " is missing or not executable: " + std::strerror(errno) +
                             " (it comes with the Debian package " + package + ")");
  }
}

/// getpwnam_r with a buffer that grows until the entry fits.
std::optional<passwd> lookUpUser(const std::string& name, std::vector<char>& buffer) {
  passwd entry{};
  passwd* found = nullptr;
  for (buffer.resize(4096);; buffer.resize(buffer.size() * 2)) {
    const int error = ::getpwnam_r(name.c_str(), &entry, buffer.data(), buffer.size(), &found);
    if (error == ERANGE && buffer.size() < (std::size_t{1} << 20))
      continue;
    if (error != 0) {
      throw std::runtime_error("cannot look up the user " + name + ": " + std::strerror(error));
    }
    break;
  }
  if (found == nullptr)
    return std::nullopt;
  return entry;
}

std::vector<gid_t> groupsOf(const std::string& name, gid_t primary) {
  std::vector<gid_t> groups(32);
  for (;;) {
    int count = static_cast<int>(groups.size());
    if (::getgrouplist(name.c_str(), primary, groups.data(), &count) >= 0) {
      groups.resize(static_cast<std::size_t>(count));
      return groups;
    }
    // -1: too small; count now holds the number needed.
    groups.resize(std::max(groups.size() * 2, static_cast<std::size_t>(count)));
  }
}

}  // namespace

ServerAccount ServerAccount::forThisProcess(const std::string& user_name) {
  requireProgram(kEnv, "coreutils");
  ServerAccount account;
  if (::geteuid() != 0)
    return account;

  requireProgram(kSetpriv, "util-linux");
  std::vector<char> buffer;
  const std::optional<passwd> entry = lookUpUser(user_name, buffer);
  if (!entry) {
    throw std::runtime_error("this process runs as root, which PostgreSQL refuses, and the user " +
                             user_name +
                             " to run it as does not exist (ClusterOptions::server_user; the "
                             "postgresql-15 package creates the user postgres)");
  }
  if (entry->pw_uid == 0) {
    throw std::runtime_error("this process runs as root, which PostgreSQL refuses, and the user " +
                             user_name + " to run it as is root too (uid 0)");
  }
  account.switched_ =
      SwitchedUser{user_name, entry->pw_uid, entry->pw_gid, groupsOf(user_name, entry->pw_gid)};
  return account;
}

std::string ServerAccount::describe() const {
  if (switched_)
    return "user " + switched_->name + " (uid " + std::to_string(switched_->uid) + ")";
  return "this process's user (uid " + std::to_string(::geteuid()) + ")";
}

void ServerAccount::takeOwnership(const fs::path& folder) const {
  if (!switched_)
    return;
  if (::chown(folder.c_str(), switched_->uid, switched_->gid) != 0) {
    throw std::runtime_error("cannot give " + folder.string() + " to " + describe() + ": " +
                             std::strerror(errno));
  }
}

CommandLine ServerAccount::command(const fs::path& program,
                                   const std::vector<std::string>& arguments,
                                   const fs::path& working_directory) const {
  CommandLine line;
  if (switched_) {
    line.program = kSetpriv;
    line.arguments = {"--reuid=" + std::to_string(switched_->uid),
                      "--regid=" + std::to_string(switched_->gid), "--init-groups", "--", kEnv};
  } else {
    line.program = kEnv;
  }
  line.arguments.insert(line.arguments.end(), {"-i", "-C", working_directory.string()});
  line.arguments.insert(line.arguments.end(), kEnvironment.begin(), kEnvironment.end());
  line.arguments.push_back(program.string());
  line.arguments.insert(line.arguments.end(), arguments.begin(), arguments.end());
  return line;
}

std::optional<fs::path> ServerAccount::unreachableParent(const fs::path& folder) const {
  if (!switched_)
    return std::nullopt;
  fs::path current = folder.root_path();
  for (const fs::path& part : folder.relative_path().parent_path()) {
    current /= part;
    struct stat info {};
    if (::stat(current.c_str(), &info) != 0)
      return current;
    const bool owner = info.st_uid == switched_->uid;
    const bool member = std::find(switched_->groups.begin(), switched_->groups.end(),
                                  info.st_gid) != switched_->groups.end();
    // The kernel checks exactly one class: owner bits for the owner, else group bits for a
    // member, else the others' bits.
    const auto search = static_cast<mode_t>(owner ? S_IXUSR : member ? S_IXGRP : S_IXOTH);
    if ((info.st_mode & search) == 0)
      return current;
  }
  return std::nullopt;
}

}  // namespace benchd::postgres
