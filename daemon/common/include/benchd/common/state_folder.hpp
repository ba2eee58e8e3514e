#pragma once

#include <cstdlib>
#include <filesystem>
#include <string_view>

namespace benchd::common {

/// The folder benchd keeps its state in (store, results, uploads, token) when its config names
/// none; `benchd serve` writes there and benchd-gui looks there for the token. From the
/// environment, first match:
///  - `$STATE_DIRECTORY`, the folder itself, which systemd sets for a unit with
///    `StateDirectory=` (its first entry when it lists several, separated by ':');
///  - `$XDG_STATE_HOME/benchd`, when `$XDG_STATE_HOME` is absolute (the XDG Base Directory
///    specification says to ignore a relative one);
///  - `$HOME/.local/state/benchd` (the specification's default);
///  - `/var/lib/benchd` for a process without a home.
/// The arguments are the variables' values, null when unset; pure, so tests set nothing.
inline std::filesystem::path defaultStateFolder(const char* state_directory,
                                                const char* xdg_state_home, const char* home) {
  if (state_directory != nullptr && *state_directory == '/') {
    const std::string_view list(state_directory);
    return {list.substr(0, list.find(':'))};
  }
  if (xdg_state_home != nullptr && *xdg_state_home == '/') {
    return std::filesystem::path(xdg_state_home) / "benchd";
  }
  if (home != nullptr && *home != '\0') {
    return std::filesystem::path(home) / ".local" / "state" / "benchd";
  }
  return "/var/lib/benchd";
}

/// defaultStateFolder of this process's environment.
inline std::filesystem::path defaultStateFolder() {
  return defaultStateFolder(std::getenv("STATE_DIRECTORY"), std::getenv("XDG_STATE_HOME"),
                            std::getenv("HOME"));
}

}  // namespace benchd::common
