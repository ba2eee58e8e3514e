#include <benchd/common/units.hpp>
#include <benchd/runner/memory_cap.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>
#include <system_error>
#include <vector>

namespace benchd::runner {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> splitOn(std::string_view text, char separator) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (true) {
    const std::size_t end = text.find(separator, start);
    parts.emplace_back(text.substr(start, end == std::string_view::npos ? end : end - start));
    if (end == std::string_view::npos) {
      return parts;
    }
    start = end + 1;
  }
}

/// The first line of a cgroup file; throws MemoryCapError naming it.
std::string readLine(const fs::path& file) {
  std::ifstream in(file);
  std::string line;
  if (!in || !std::getline(in, line)) {
    throw MemoryCapError("cannot read " + file.string());
  }
  return line;
}

/// Writes `value` to a cgroup file as the kernel wants it: one write, no buffering surprises.
void writeValue(const fs::path& file, const std::string& value) {
  std::ofstream out(file);
  out << value;
  out.flush();
  if (!out) {
    throw MemoryCapError("cannot write '" + value + "' to " + file.string() + ": " +
                         std::strerror(errno));
  }
}

std::uint64_t readNumber(const fs::path& file) {
  const std::string line = readLine(file);
  std::uint64_t value = 0;
  const auto result = std::from_chars(line.data(), line.data() + line.size(), value);
  if (result.ec != std::errc()) {
    throw MemoryCapError(file.string() + ": expected a number, got '" + line + "'");
  }
  return value;
}

/// The count after `key` in a "key value" file (v1 memory.oom_control, v2 memory.events).
std::uint64_t readKeyed(const fs::path& file, std::string_view key) {
  std::ifstream in(file);
  std::string name;
  std::uint64_t value = 0;
  while (in >> name >> value) {
    if (name == key) {
      return value;
    }
  }
  return 0;
}

struct Mount {
  std::string root;           ///< the hierarchy's folder the mount shows
  fs::path point;             ///< where it is mounted
  std::string type;           ///< cgroup or cgroup2
  std::string super_options;  ///< for v1: the controllers, e.g. rw,memory
};

std::vector<Mount> cgroupMounts(const fs::path& mountinfo) {
  std::vector<Mount> mounts;
  std::ifstream in(mountinfo);
  std::string line;
  while (std::getline(in, line)) {
    // id parent major:minor root point options [optional fields...] - type source super_options
    const std::size_t dash = line.find(" - ");
    if (dash == std::string::npos) {
      continue;
    }
    std::istringstream head(line.substr(0, dash));
    std::istringstream tail(line.substr(dash + 3));
    std::string id, parent, device, root, point, type, source, super_options;
    head >> id >> parent >> device >> root >> point;
    tail >> type >> source >> super_options;
    if (type == "cgroup" || type == "cgroup2") {
      mounts.push_back({root, point, type, super_options});
    }
  }
  return mounts;
}

/// `path` (a cgroup path as /proc/self/cgroup gives it) under a mount that shows `root`.
std::optional<fs::path> underMount(const Mount& mount, const std::string& path) {
  if (mount.root == "/") {
    return mount.point / fs::path(path).relative_path();
  }
  if (path == mount.root || path.starts_with(mount.root + "/")) {
    return mount.point / fs::path(path.substr(mount.root.size())).relative_path();
  }
  return std::nullopt;
}

bool writable(const fs::path& folder) {
  return ::access(folder.c_str(), W_OK) == 0;
}

}  // namespace

std::uint64_t parseMemorySize(std::string_view text) {
  const auto refuse = [text](const std::string& why) -> std::uint64_t {
    throw std::invalid_argument("memory cap '" + std::string(text) + "': " + why +
                                " (expected bytes or a number with K, M or G, e.g. 512M or "
                                "1.5G, from 4M to 1024G)");
  };
  double number = 0.0;
  const auto read = std::from_chars(text.data(), text.data() + text.size(), number);
  if (read.ec != std::errc() || !std::isfinite(number) || number <= 0.0) {
    return refuse("expected a number above 0 first");
  }
  std::string_view unit = text.substr(static_cast<std::size_t>(read.ptr - text.data()));
  if (unit.ends_with("iB")) {
    unit.remove_suffix(2);
  }
  double scale = 1.0;
  if (unit == "K") {
    scale = 1024.0;
  } else if (unit == "M") {
    scale = common::kBytesPerMebibyte;
  } else if (unit == "G") {
    scale = common::kBytesPerMebibyte * 1024.0;
  } else if (!unit.empty()) {
    return refuse("unknown unit '" + std::string(unit) + "'");
  }
  const double bytes = std::floor(number * scale);
  if (bytes < static_cast<double>(kMinimumMemoryCap) ||
      bytes > static_cast<double>(kMaximumMemoryCap)) {
    return refuse("out of range");
  }
  return static_cast<std::uint64_t>(bytes);
}

std::string mebibytesText(std::uint64_t bytes) {
  return std::to_string(std::llround(common::mebibytes(bytes))) + " MiB";
}

std::string MemoryCapSupport::kindName() const {
  switch (kind) {
    case Kind::kCgroupV2:
      return "cgroup v2 (memory.max)";
    case Kind::kCgroupV1:
      return "cgroup v1 (memory.limit_in_bytes)";
    case Kind::kNone:
      break;
  }
  return "none";
}

MemoryCapSupport detectMemoryCapSupport(const fs::path& mountinfo, const fs::path& own_cgroup) {
  const std::vector<Mount> mounts = cgroupMounts(mountinfo);
  std::string v2_path;
  std::string v1_memory_path;
  {
    std::ifstream in(own_cgroup);
    std::string line;
    while (std::getline(in, line)) {
      // hierarchy-id:controllers:path; v2's line is 0::path
      const std::vector<std::string> fields = splitOn(line, ':');
      if (fields.size() < 3) {
        continue;
      }
      const std::string path = line.substr(fields[0].size() + fields[1].size() + 2);
      if (fields[0] == "0" && fields[1].empty()) {
        v2_path = path;
      }
      for (const std::string& controller : splitOn(fields[1], ',')) {
        if (controller == "memory") {
          v1_memory_path = path;
        }
      }
    }
  }
  std::string why_not = "no cgroup hierarchy with the memory controller is mounted";
  for (const Mount& mount : mounts) {
    if (mount.type != "cgroup2" || v2_path.empty()) {
      continue;
    }
    const auto parent = underMount(mount, v2_path);
    if (!parent) {
      continue;
    }
    std::string controllers;
    try {
      controllers = readLine(*parent / "cgroup.controllers");
    } catch (const MemoryCapError&) {
    }
    const std::vector<std::string> names = splitOn(controllers, ' ');
    if (std::find(names.begin(), names.end(), "memory") == names.end()) {
      why_not = "cgroup v2 at " + parent->string() + " has no memory controller";
      continue;
    }
    if (!writable(*parent)) {
      why_not = "cgroup v2 at " + parent->string() + " is not writable by this user";
      continue;
    }
    // A child gets memory.max only when its parent hands the controller down; a cgroup that
    // holds processes (this one) cannot start to (v2's no-internal-process rule), so it must
    // already do so: a delegated subtree set up for it.
    std::string handed_down;
    try {
      handed_down = readLine(*parent / "cgroup.subtree_control");
    } catch (const MemoryCapError&) {
    }
    const std::vector<std::string> enabled = splitOn(handed_down, ' ');
    if (std::find(enabled.begin(), enabled.end(), "memory") == enabled.end()) {
      why_not = "cgroup v2 at " + parent->string() +
                " does not hand the memory controller to its children (cgroup.subtree_control)";
      continue;
    }
    return {MemoryCapSupport::Kind::kCgroupV2, *parent, {}};
  }
  for (const Mount& mount : mounts) {
    if (mount.type != "cgroup" || v1_memory_path.empty()) {
      continue;
    }
    const std::vector<std::string> options = splitOn(mount.super_options, ',');
    if (std::find(options.begin(), options.end(), "memory") == options.end()) {
      continue;
    }
    const auto parent = underMount(mount, v1_memory_path);
    if (!parent) {
      continue;
    }
    if (!writable(*parent)) {
      why_not = "the cgroup v1 memory controller at " + parent->string() +
                " is not writable by this user";
      continue;
    }
    return {MemoryCapSupport::Kind::kCgroupV1, *parent, {}};
  }
  return {MemoryCapSupport::Kind::kNone, {}, why_not};
}

MemoryCapGroup::MemoryCapGroup(const MemoryCapSupport& support, const std::string& name,
                               std::uint64_t bytes)
    : kind_(support.kind), path_(support.parent / name), bytes_(bytes) {
  if (kind_ == MemoryCapSupport::Kind::kNone) {
    throw MemoryCapError("cannot cap memory here: " + support.why_not);
  }
  std::error_code error;
  if (!fs::create_directory(path_, error) && error) {
    throw MemoryCapError("cannot make the cgroup " + path_.string() + ": " + error.message());
  }
  try {
    if (kind_ == MemoryCapSupport::Kind::kCgroupV2) {
      writeValue(path_ / "memory.max", std::to_string(bytes));
      if (fs::exists(path_ / "memory.swap.max")) {
        writeValue(path_ / "memory.swap.max", "0");
      }
    } else {
      writeValue(path_ / "memory.limit_in_bytes", std::to_string(bytes));
      if (fs::exists(path_ / "memory.memsw.limit_in_bytes")) {
        writeValue(path_ / "memory.memsw.limit_in_bytes", std::to_string(bytes));
      }
    }
    procs_fd_ = ::open((path_ / "cgroup.procs").c_str(), O_WRONLY | O_CLOEXEC);
    if (procs_fd_ < 0) {
      throw MemoryCapError("cannot open " + (path_ / "cgroup.procs").string() + ": " +
                           std::strerror(errno));
    }
  } catch (...) {
    fs::remove(path_, error);
    throw;
  }
}

MemoryCapGroup::~MemoryCapGroup() {
  if (procs_fd_ >= 0) {
    ::close(procs_fd_);
  }
  std::error_code error;
  if (!fs::remove(path_, error) && error) {
    std::cerr << "benchd: could not remove the memory cap's cgroup " << path_.string() << ": "
              << error.message() << "\n";
  }
}

void MemoryCapGroup::add(pid_t pid) const {
  writeValue(path_ / "cgroup.procs", std::to_string(pid));
}

std::optional<std::uint64_t> MemoryCapGroup::peakBytes() const {
  const fs::path file = kind_ == MemoryCapSupport::Kind::kCgroupV2
                            ? path_ / "memory.peak"
                            : path_ / "memory.max_usage_in_bytes";
  if (!fs::exists(file)) {
    return std::nullopt;
  }
  return readNumber(file);
}

std::uint64_t MemoryCapGroup::oomKills() const {
  return kind_ == MemoryCapSupport::Kind::kCgroupV2
             ? readKeyed(path_ / "memory.events", "oom_kill")
             : readKeyed(path_ / "memory.oom_control", "oom_kill");
}

}  // namespace benchd::runner
