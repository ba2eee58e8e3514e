#include <benchd/common/units.hpp>
#include <benchd/sampling/proc_parsers.hpp>
#include <benchd/sampling/system_specs.hpp>

#include <boost/version.hpp>
// Header only: the version macro is all we use, so benchd does not link Poco.
#include "proc_files.hpp"

#include <Poco/Version.h>

#include <fcntl.h>

#include <array>
#include <cstdio>
#include <exception>
#include <optional>
#include <sqlite3.h>
#include <sstream>
#include <string>
#include <string_view>
#include <sys/resource.h>
#include <sys/statvfs.h>
#include <sys/utsname.h>
#include <system_error>

namespace benchd::sampling {

namespace {

constexpr std::string_view kUnavailable = "unavailable";

std::optional<std::string> readText(const std::string& path) {
  std::string text;
  if (detail::readFileAt(AT_FDCWD, path.c_str(), text) != 0) {
    return std::nullopt;
  }
  return text;
}

/// Runs of whitespace become one space; leading and trailing whitespace go (as
/// tune-benchmark-host.sh compares sysctl values: "1024\t65535\n" reads "1024 65535").
std::string collapseWhitespace(std::string_view text) {
  std::string out;
  bool pending_space = false;
  for (const char c : text) {
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      pending_space = !out.empty();
      continue;
    }
    if (pending_space) {
      out += ' ';
      pending_space = false;
    }
    out += c;
  }
  return out;
}

/// The value of "<key>=<value>" in os-release text, without its quotes.
std::optional<std::string> osReleaseValue(std::string_view text, std::string_view key) {
  while (!text.empty()) {
    const std::size_t end = text.find('\n');
    std::string_view line = text.substr(0, end);
    text = end == std::string_view::npos ? std::string_view{} : text.substr(end + 1);
    if (line.size() > key.size() && line.substr(0, key.size()) == key && line[key.size()] == '=') {
      std::string_view value = line.substr(key.size() + 1);
      if (value.size() >= 2 && (value.front() == '"' || value.front() == '\'') &&
          value.back() == value.front()) {
        value = value.substr(1, value.size() - 2);
      }
      return std::string(value);
    }
  }
  return std::nullopt;
}

std::string operatingSystem() {
  // os-release(5): /etc/os-release, falling back to /usr/lib/os-release.
  for (const char* path : {"/etc/os-release", "/usr/lib/os-release"}) {
    if (const std::optional<std::string> text = readText(path)) {
      if (std::optional<std::string> name = osReleaseValue(*text, "PRETTY_NAME")) {
        if (!name->empty()) {
          return *name;
        }
      }
    }
  }
  return std::string(kUnavailable);
}

std::string kernelRelease() {
  struct utsname names {};
  if (::uname(&names) != 0 || names.release[0] == '\0') {
    return std::string(kUnavailable);
  }
  return names.release;
}

/// The first "model name" of /proc/cpuinfo and the number of "processor" entries (lscpu's and
/// log-system-specs.sh's sources).
void cpuInfo(std::string& model, std::uint64_t& logical_cpus) {
  model.clear();
  logical_cpus = 0;
  const std::optional<std::string> text = readText("/proc/cpuinfo");
  if (!text) {
    return;
  }
  std::string_view rest = *text;
  while (!rest.empty()) {
    const std::size_t end = rest.find('\n');
    const std::string_view line = rest.substr(0, end);
    rest = end == std::string_view::npos ? std::string_view{} : rest.substr(end + 1);
    const std::size_t colon = line.find(':');
    if (colon == std::string_view::npos) {
      continue;
    }
    std::string_view key = line.substr(0, colon);
    key = key.substr(0, key.find_last_not_of(" \t") + 1);
    if (key == "processor") {
      ++logical_cpus;
    } else if (key == "model name" && model.empty()) {
      model = collapseWhitespace(line.substr(colon + 1));
    }
  }
}

/// "15.6 GiB" (one decimal; MiB below 1 GiB).
std::string formatBytes(std::uint64_t bytes) {
  constexpr double kGiB = common::kBytesPerMebibyte * 1024.0;
  const auto value = static_cast<double>(bytes);
  std::ostringstream out;
  out.setf(std::ios::fixed);
  out.precision(1);
  if (value >= kGiB) {
    out << value / kGiB << " GiB";
  } else {
    out << common::mebibytes(bytes) << " MiB";
  }
  return out.str();
}

std::string totalAndAvailable(std::uint64_t total, std::uint64_t available) {
  return formatBytes(total) + " total, " + formatBytes(available) + " available";
}

/// `folder`, or its nearest existing ancestor (the results folder may not exist yet).
std::filesystem::path existingFolder(const std::filesystem::path& folder) {
  std::error_code ignored;
  std::filesystem::path candidate = std::filesystem::absolute(folder, ignored);
  if (candidate.empty()) {
    candidate = folder;
  }
  while (!std::filesystem::exists(candidate, ignored) && candidate.has_relative_path()) {
    candidate = candidate.parent_path();
  }
  return candidate;
}

std::string compilerVersion() {
#if defined(__clang__)
  return __VERSION__;  // "Clang 15.0.6 ..." already names the compiler
#elif defined(__GNUC__)
  return std::string("GCC ") + __VERSION__;
#else
  return __VERSION__;
#endif
}

std::string boostVersion() {
  // BOOST_VERSION is major * 100000 + minor * 100 + patch (BOOST_LIB_VERSION lacks the patch).
  return std::to_string(BOOST_VERSION / 100000) + "." + std::to_string(BOOST_VERSION / 100 % 1000) +
         "." + std::to_string(BOOST_VERSION % 100);
}

std::string pocoVersion() {
  // 0xAABBCCDD: major, minor, patch, pre-release designation (00 = final release).
  constexpr unsigned long kVersion = POCO_VERSION;
  std::string version = std::to_string((kVersion >> 24) & 0xFFu) + "." +
                        std::to_string((kVersion >> 16) & 0xFFu) + "." +
                        std::to_string((kVersion >> 8) & 0xFFu);
  if (const unsigned long pre_release = kVersion & 0xFFu; pre_release != 0) {
    std::array<char, 8> hex{};
    std::snprintf(hex.data(), hex.size(), "%02lX", pre_release);
    version += std::string(" (pre-release 0x") + hex.data() + ")";
  }
  return version;
}

std::string sqliteVersion() {
  const char* version = ::sqlite3_libversion();
  return version != nullptr && *version != '\0' ? version : std::string(kUnavailable);
}

std::string sysctlValue(std::string_view name) {
  std::string path = "/proc/sys/";
  for (const char c : name) {
    path += c == '.' ? '/' : c;
  }
  const std::optional<std::string> text = readText(path);
  if (!text) {
    return std::string(kUnavailable);
  }
  std::string value = collapseWhitespace(*text);
  return value.empty() ? std::string(kUnavailable) : value;
}

std::string limitValue(rlim_t limit) {
  return limit == RLIM_INFINITY ? std::string("unlimited") : std::to_string(limit);
}

std::string openFilesLimit() {
  struct rlimit limit {};
  if (::getrlimit(RLIMIT_NOFILE, &limit) != 0) {
    return std::string(kUnavailable);
  }
  return "soft " + limitValue(limit.rlim_cur) + ", hard " + limitValue(limit.rlim_max);
}

}  // namespace

std::string SystemSpecs::valueOf(const std::string& label) const {
  for (const SpecEntry& entry : entries) {
    if (entry.label == label) {
      return entry.value;
    }
  }
  return {};
}

SystemSpecs collectSystemSpecs(const std::filesystem::path& results_dir) {
  SystemSpecs specs;
  const auto add = [&specs](std::string label, std::string value) {
    specs.entries.push_back(
        SpecEntry{std::move(label), value.empty() ? std::string(kUnavailable) : std::move(value)});
  };

  add("OS", operatingSystem());
  add("Kernel", kernelRelease());
  std::string cpu_model;
  cpuInfo(cpu_model, specs.logical_cpus);
  add("CPU", cpu_model);
  add("CPU cores", specs.logical_cpus == 0 ? std::string() : std::to_string(specs.logical_cpus));

  std::string ram;
  if (const std::optional<std::string> text = readText("/proc/meminfo")) {
    try {
      const MemInfo memory = parseMeminfo(*text);
      specs.ram_total_bytes = memory.total_bytes;
      specs.ram_available_bytes = memory.available_bytes;
      ram = totalAndAvailable(memory.total_bytes, memory.available_bytes);
    } catch (const ProcFormatError&) {
      // reported as unavailable, like an unreadable file
    }
  }
  add("RAM", ram);

  std::string disk;
  struct statvfs fs {};
  if (::statvfs(existingFolder(results_dir).c_str(), &fs) == 0) {
    specs.disk_total_bytes = static_cast<std::uint64_t>(fs.f_blocks) * fs.f_frsize;
    specs.disk_available_bytes = static_cast<std::uint64_t>(fs.f_bavail) * fs.f_frsize;
    disk = totalAndAvailable(specs.disk_total_bytes, specs.disk_available_bytes);
  }
  add("Disk", disk);

  add("Compiler", compilerVersion());
  add("Boost", boostVersion());
  add("Poco", pocoVersion());
  add("SQLite", sqliteVersion());

  // tune-benchmark-host.sh's settings (the values the original requires: docs/run.md#system-specs).
  for (const char* name :
       {"net.ipv4.ip_local_port_range", "net.ipv4.tcp_timestamps", "net.ipv4.tcp_tw_reuse",
        "net.ipv4.tcp_max_syn_backlog", "net.core.somaxconn", "fs.file-max"}) {
    add(name, sysctlValue(name));
  }
  add("RLIMIT_NOFILE", openFilesLimit());
  return specs;
}

}  // namespace benchd::sampling
