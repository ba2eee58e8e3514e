#include "temp_dir.hpp"

#include <benchd/sampling/system_specs.hpp>

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace benchd::sampling {
namespace {

TEST(SystemSpecs, EveryLabelIsPresentInOrderAndNonEmpty) {
  const benchd::testing::TempDir dir;
  const SystemSpecs specs = collectSystemSpecs(dir.path());
  const std::vector<std::string> expected = {"OS",
                                             "Kernel",
                                             "CPU",
                                             "CPU cores",
                                             "RAM",
                                             "Disk",
                                             "Compiler",
                                             "Boost",
                                             "Poco",
                                             "SQLite",
                                             "net.ipv4.ip_local_port_range",
                                             "net.ipv4.tcp_timestamps",
                                             "net.ipv4.tcp_tw_reuse",
                                             "net.ipv4.tcp_max_syn_backlog",
                                             "net.core.somaxconn",
                                             "fs.file-max",
                                             "RLIMIT_NOFILE"};
  ASSERT_EQ(specs.entries.size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(specs.entries[i].label, expected[i]);
    EXPECT_FALSE(specs.entries[i].value.empty()) << expected[i];
    std::cout << specs.entries[i].label << "\t" << specs.entries[i].value << "\n";
  }
}

TEST(SystemSpecs, ThisMachineIsReadable) {
  // Everything here is readable on a Linux test host, so nothing may say "unavailable".
  const benchd::testing::TempDir dir;
  const SystemSpecs specs = collectSystemSpecs(dir.path());
  for (const SpecEntry& entry : specs.entries) {
    EXPECT_NE(entry.value, "unavailable") << entry.label;
  }
  EXPECT_GE(specs.logical_cpus, 1U);
  EXPECT_GT(specs.ram_total_bytes, 0U);
  EXPECT_LE(specs.ram_available_bytes, specs.ram_total_bytes);
  EXPECT_GT(specs.disk_total_bytes, 0U);
  EXPECT_EQ(specs.valueOf("Poco"), "1.11.0");  // POCO_VERSION 0x010B0000 on Debian 12
  EXPECT_EQ(specs.valueOf("Boost").rfind("1.81.", 0), 0U);
  EXPECT_EQ(specs.valueOf("no such label"), "");
}

TEST(SystemSpecs, SysctlWhitespaceIsCollapsed) {
  const benchd::testing::TempDir dir;
  const std::string range = collectSystemSpecs(dir.path()).valueOf("net.ipv4.ip_local_port_range");
  EXPECT_EQ(range.find('\t'), std::string::npos) << range;
  EXPECT_EQ(range.find('\n'), std::string::npos) << range;
  EXPECT_NE(range.find(' '), std::string::npos) << range;  // "<low> <high>"
}

TEST(SystemSpecs, ResultsFolderNeedNotExistYet) {
  const benchd::testing::TempDir dir;
  const SystemSpecs specs = collectSystemSpecs(dir.path() / "not" / "yet" / "created");
  EXPECT_NE(specs.valueOf("Disk"), "unavailable");
  EXPECT_GT(specs.disk_total_bytes, 0U);
}

}  // namespace
}  // namespace benchd::sampling
