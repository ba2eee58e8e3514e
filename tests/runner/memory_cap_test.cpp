// The memory cap a worker's process tree can run under: sizes as written, where the kernel
// offers a cap (on written mountinfo and cgroup files), and a real cap on this machine's kernel
// (a child process that allocates past it is ended by the OOM killer; one that stays below
// completes). The real tests need a writable memory cgroup (root here); elsewhere they skip,
// saying why.
#include "temp_dir.hpp"

#include <benchd/runner/memory_cap.hpp>

#include <gtest/gtest.h>

#include <unistd.h>

#include <csignal>
#include <cstring>
#include <string>
#include <sys/mman.h>
#include <sys/wait.h>

namespace benchd::runner {
namespace {

using benchd::testing::TempDir;
constexpr std::uint64_t kMiB = 1024ULL * 1024ULL;

std::string sizeRefusal(std::string_view text) {
  try {
    (void)parseMemorySize(text);
  } catch (const std::invalid_argument& error) {
    return error.what();
  }
  return "";
}

TEST(MemoryCapSize, ReadsBytesAndBinaryUnits) {
  EXPECT_EQ(parseMemorySize("512M"), 512 * kMiB);
  EXPECT_EQ(parseMemorySize("512MiB"), 512 * kMiB);
  EXPECT_EQ(parseMemorySize("1.5G"), 1536 * kMiB);
  EXPECT_EQ(parseMemorySize("8192K"), 8 * kMiB);
  EXPECT_EQ(parseMemorySize("16777216"), 16 * kMiB);
  EXPECT_NE(sizeRefusal("512MB").find("unknown unit 'MB'"), std::string::npos);
  EXPECT_NE(sizeRefusal("1M").find("out of range"), std::string::npos);
  EXPECT_NE(sizeRefusal("2048G").find("out of range"), std::string::npos);
  EXPECT_NE(sizeRefusal("-5M").find("a number above 0"), std::string::npos);
  EXPECT_NE(sizeRefusal("M").find("e.g. 512M"), std::string::npos);
}

TEST(MemoryCapSupport, PrefersAWritableV2HierarchyWithTheMemoryController) {
  const TempDir dir;
  const auto v2 = dir.subfolder("v2", std::filesystem::perms::owner_all);
  std::filesystem::create_directories(v2 / "user" / "me");
  dir.write("v2/user/me/cgroup.controllers", "cpu io memory pids\n");
  dir.write("v2/user/me/cgroup.subtree_control", "memory pids\n");
  const auto v1 = dir.subfolder("v1", std::filesystem::perms::owner_all);
  std::filesystem::create_directories(v1 / "me");
  dir.write("mountinfo", "30 23 0:26 / " + v2.string() +
                             " rw,nosuid - cgroup2 cgroup2 rw\n"
                             "31 23 0:27 / " +
                             v1.string() + " rw,relatime shared:9 - cgroup cgroup rw,memory\n");
  dir.write("cgroup", "4:memory:/me\n0::/user/me\n");
  const MemoryCapSupport both =
      detectMemoryCapSupport(dir.path() / "mountinfo", dir.path() / "cgroup");
  EXPECT_EQ(both.kind, MemoryCapSupport::Kind::kCgroupV2);
  EXPECT_EQ(both.parent, v2 / "user" / "me");

  // A v2 cgroup that does not hand the memory controller down cannot cap a child: v1 is used.
  dir.write("v2/user/me/cgroup.subtree_control", "pids\n");
  EXPECT_EQ(detectMemoryCapSupport(dir.path() / "mountinfo", dir.path() / "cgroup").kind,
            MemoryCapSupport::Kind::kCgroupV1);
  // Nor without the memory controller in v2 at all.
  dir.write("v2/user/me/cgroup.controllers", "cpu io pids\n");
  const MemoryCapSupport v1_only =
      detectMemoryCapSupport(dir.path() / "mountinfo", dir.path() / "cgroup");
  EXPECT_EQ(v1_only.kind, MemoryCapSupport::Kind::kCgroupV1);
  EXPECT_EQ(v1_only.parent, v1 / "me");
  EXPECT_EQ(v1_only.kindName(), "cgroup v1 (memory.limit_in_bytes)");
}

TEST(MemoryCapSupport, SaysWhyWhenNoHierarchyCanCap) {
  const TempDir dir;
  const auto v2 = dir.subfolder("v2", std::filesystem::perms::owner_all);
  dir.write("v2/cgroup.controllers", "cpu pids\n");
  dir.write("mountinfo", "30 23 0:26 / " + v2.string() + " rw - cgroup2 cgroup2 rw\n");
  dir.write("cgroup", "0::/\n");
  const MemoryCapSupport none =
      detectMemoryCapSupport(dir.path() / "mountinfo", dir.path() / "cgroup");
  EXPECT_EQ(none.kind, MemoryCapSupport::Kind::kNone);
  EXPECT_NE(none.why_not.find("has no memory controller"), std::string::npos) << none.why_not;
  try {
    MemoryCapGroup refused(none, "x", 64 * kMiB);
    ADD_FAILURE() << "a group was made without support";
  } catch (const MemoryCapError& error) {
    EXPECT_NE(std::string(error.what()).find("cannot cap memory here"), std::string::npos);
  }
}

/// A child that waits for a byte on `go`, then maps and touches `megabytes` MiB and exits 0.
/// Only system calls after fork(): no malloc in a child of a process with threads.
pid_t allocatingChild(int go, std::size_t megabytes) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    char byte = 0;
    if (::read(go, &byte, 1) != 1) {
      ::_exit(3);
    }
    const std::size_t size = megabytes * kMiB;
    void* memory =
        ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (memory == MAP_FAILED) {
      ::_exit(4);
    }
    std::memset(memory, 1, size);
    ::_exit(0);
  }
  return pid;
}

/// Runs a child allocating `megabytes` under a cap of `cap_megabytes`; returns its wait status.
int statusUnderCap(const MemoryCapSupport& support, std::uint64_t cap_megabytes,
                   std::size_t megabytes, std::uint64_t& oom_kills,
                   std::optional<std::uint64_t>& peak) {
  const MemoryCapGroup group(
      support, "benchd-test-" + std::to_string(::getpid()) + "-" + std::to_string(cap_megabytes),
      cap_megabytes * kMiB);
  int pipe_ends[2];
  EXPECT_EQ(::pipe(pipe_ends), 0);
  const pid_t child = allocatingChild(pipe_ends[0], megabytes);
  group.add(child);
  EXPECT_EQ(::write(pipe_ends[1], "g", 1), 1);
  int status = 0;
  ::waitpid(child, &status, 0);
  ::close(pipe_ends[0]);
  ::close(pipe_ends[1]);
  oom_kills = group.oomKills();
  peak = group.peakBytes();
  return status;
}

TEST(MemoryCapGroup, TheKernelEndsAProcessAboveTheCapAndLetsOneBelowItFinish) {
  const MemoryCapSupport support = detectMemoryCapSupport();
  if (support.kind == MemoryCapSupport::Kind::kNone) {
    GTEST_SKIP() << "no memory cap on this machine: " << support.why_not;
  }
  std::uint64_t oom_kills = 0;
  std::optional<std::uint64_t> peak;
  const int killed = statusUnderCap(support, 64, 256, oom_kills, peak);
  ASSERT_TRUE(WIFSIGNALED(killed)) << "status " << killed;
  EXPECT_EQ(WTERMSIG(killed), SIGKILL);
  EXPECT_GE(oom_kills, 1U);
  if (peak) {
    EXPECT_GE(*peak, 48 * kMiB);
    EXPECT_LE(*peak, 64 * kMiB);
  }

  const int finished = statusUnderCap(support, 512, 64, oom_kills, peak);
  ASSERT_TRUE(WIFEXITED(finished)) << "status " << finished;
  EXPECT_EQ(WEXITSTATUS(finished), 0);
  EXPECT_EQ(oom_kills, 0U);
  if (peak) {
    EXPECT_GE(*peak, 64 * kMiB);
  }
}

}  // namespace
}  // namespace benchd::runner
