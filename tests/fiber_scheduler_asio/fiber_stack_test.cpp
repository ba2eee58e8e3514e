// The connection fibers' stack: a guard page lies right below the usable stack, so a fiber
// that overflows faults instead of overwriting memory below it, and the usable size holds a
// deep but bounded call chain.
#include "sanitizer.hpp"

#include <benchd/fiber_scheduler_asio/fiber_stack.hpp>

#include <boost/fiber/fiber.hpp>
#include <gtest/gtest.h>

#include <unistd.h>

#include <array>
#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>

namespace benchd::fiber_scheduler_asio {
namespace {

/// The permissions ("rw-p", "---p") of the mapping of this process that holds `address`, from
/// /proc/self/maps; empty when no mapping does.
std::string permissionsAt(std::uintptr_t address) {
  std::ifstream maps("/proc/self/maps");
  std::string line;
  while (std::getline(maps, line)) {
    std::istringstream fields(line);
    std::string range;
    std::string permissions;
    fields >> range >> permissions;
    const std::size_t dash = range.find('-');
    const std::uintptr_t low = std::stoull(range.substr(0, dash), nullptr, 16);
    const std::uintptr_t high = std::stoull(range.substr(dash + 1), nullptr, 16);
    if (address >= low && address < high)
      return permissions;
  }
  return {};
}

/// Uses about `bytes` of stack in 1 KiB frames; returns the number of frames, read back from
/// each frame so the compiler keeps them.
// NOLINTNEXTLINE(misc-no-recursion): the recursion is the point
int useStack(std::size_t bytes) {
  std::array<volatile char, 1024> frame{};
  frame[0] = 1;
  if (bytes <= frame.size())
    return frame[0];
  return useStack(bytes - frame.size()) + frame[0];
}

TEST(FiberStack, AGuardPageLiesRightBelowTheUsableStack) {
  auto allocator = connectionFiberStack();
  boost::context::stack_context stack = allocator.allocate();
  // The stack grows down from sp; the allocation (size bytes below sp) starts with the guard
  // page, and the usable stack above it holds at least kFiberStackBytes.
  const auto top = reinterpret_cast<std::uintptr_t>(stack.sp);
  const std::uintptr_t bottom = top - stack.size;
  const auto page = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE));
  EXPECT_GE(stack.size - page, kFiberStackBytes);
  EXPECT_EQ(permissionsAt(bottom).substr(0, 3), "---") << "no guard page below the stack";
  EXPECT_EQ(permissionsAt(bottom + page - 1).substr(0, 3), "---");
  EXPECT_EQ(permissionsAt(bottom + page).substr(0, 3), "rw-");
  EXPECT_EQ(permissionsAt(top - 1).substr(0, 3), "rw-");
  allocator.deallocate(stack);
}

TEST(FiberStack, ABoundedCallChainFits) {
  int frames = 0;
  boost::fibers::fiber fiber(std::allocator_arg, connectionFiberStack(),
                             [&frames] { frames = useStack(kFiberStackBytes / 2); });
  fiber.join();
  EXPECT_EQ(frames, static_cast<int>(kFiberStackBytes / 2 / 1024));
}

TEST(FiberStackDeathTest, AnOverflowFaultsInsteadOfOverwritingMemory) {
  // TSan takes the fault itself: it reports a stack overflow at the guard page and exits with
  // its own exit code, which scripts/tsan.sh sets to 0, so the child does not die as a death
  // test expects. AGuardPageLiesRightBelowTheUsableStack still runs there.
  if (testing::kThreadSanitizer)
    GTEST_SKIP() << "ThreadSanitizer handles the overflow's fault itself";
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(
      {
        boost::fibers::fiber fiber(std::allocator_arg, connectionFiberStack(),
                                   [] { useStack(2 * kFiberStackBytes); });
        fiber.join();
      },
      "");
}

}  // namespace
}  // namespace benchd::fiber_scheduler_asio
