#pragma once

// mkdtemp is POSIX, declared in <stdlib.h>, not promised by <cstdlib>.
#include <stdlib.h>  // NOLINT(modernize-deprecated-headers)

#include <cerrno>
#include <filesystem>
#include <string>
#include <string_view>
#include <system_error>

namespace benchd::common {

/// Makes a new private (0700) folder under the system's temporary folder, named `prefix`
/// followed by six random characters, and returns its path; the caller removes it. Short
/// enough for a Unix socket's path inside it. Throws std::system_error saying it was for
/// `purpose` (e.g. "the PostgreSQL cluster").
inline std::filesystem::path makePrivateTempFolder(std::string_view prefix,
                                                   std::string_view purpose) {
  std::string pattern =
      (std::filesystem::temp_directory_path() / (std::string(prefix) + "XXXXXX")).string();
  if (::mkdtemp(pattern.data()) == nullptr) {
    throw std::system_error(errno, std::generic_category(),
                            "cannot create a folder for " + std::string(purpose) + " in " +
                                std::filesystem::temp_directory_path().string());
  }
  return pattern;
}

}  // namespace benchd::common
