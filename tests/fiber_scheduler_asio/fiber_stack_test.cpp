// The fibers' pooled stacks: a guard page lies right below the usable stack, so a fiber that
// overflows faults instead of overwriting memory below it; the usable size holds a deep but
// bounded call chain; an ended fiber's stack serves the next fiber, up to the pool's limit.
#include "sanitizer.hpp"

#include <benchd/fiber_scheduler_asio/fiber_stack.hpp>

#include <boost/fiber/fiber.hpp>
#include <gtest/gtest.h>

#include <unistd.h>

#include <array>
#include <cstdint>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

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

/// A stack allocator over a fresh pool, as fibers-asio's FiberLoop hands out.
PooledFiberStack pooledStack(std::size_t kept = kKeptFiberStacks) {
  return PooledFiberStack(std::make_shared<FiberStackPool>(kFiberStackBytes, kept));
}

TEST(FiberStack, AGuardPageLiesRightBelowTheUsableStack) {
  auto allocator = pooledStack();
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

TEST(FiberStack, AKeptStackIsStillGuardedWhenTakenAgain) {
  FiberStackPool pool;
  boost::context::stack_context first = pool.take();
  const void* const top = first.sp;
  pool.giveBack(first);
  EXPECT_EQ(pool.keptStacks(), 1U);
  boost::context::stack_context again = pool.take();
  EXPECT_EQ(again.sp, top) << "the kept stack was not reused";
  EXPECT_EQ(pool.mappedStacks(), 1U);
  const auto bottom = reinterpret_cast<std::uintptr_t>(again.sp) - again.size;
  EXPECT_EQ(permissionsAt(bottom).substr(0, 3), "---") << "the reused stack lost its guard";
  pool.giveBack(again);
}

TEST(FiberStack, EndedFibersStacksServeTheNextFibers) {
  auto pool = std::make_shared<FiberStackPool>(kFiberStackBytes, 4);
  // Rounds of 3 fibers at once: the first round maps 3 stacks, every later round reuses them.
  for (int round = 0; round < 50; ++round) {
    std::vector<boost::fibers::fiber> fibers;
    fibers.reserve(3);
    for (int i = 0; i < 3; ++i)
      fibers.emplace_back(std::allocator_arg, PooledFiberStack(pool),
                          [] { useStack(std::size_t{8} * 1024); });
    for (auto& fiber : fibers)
      fiber.join();
  }
  EXPECT_EQ(pool->mappedStacks(), 3U);
  EXPECT_EQ(pool->keptStacks(), 3U);
}

TEST(FiberStack, AFullPoolUnmapsWhatItCannotKeep) {
  FiberStackPool pool(kFiberStackBytes, 2);
  std::vector<boost::context::stack_context> stacks;
  stacks.reserve(5);
  for (int i = 0; i < 5; ++i)
    stacks.push_back(pool.take());
  const auto last_bottom = reinterpret_cast<std::uintptr_t>(stacks.back().sp) - stacks.back().size;
  for (auto& stack : stacks)
    pool.giveBack(stack);
  EXPECT_EQ(pool.mappedStacks(), 5U);
  EXPECT_EQ(pool.keptStacks(), 2U);
  // The last one given back found the pool full, so its memory is gone.
  EXPECT_EQ(permissionsAt(last_bottom), "");
}

TEST(FiberStack, ABoundedCallChainFits) {
  int frames = 0;
  boost::fibers::fiber fiber(std::allocator_arg, pooledStack(),
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
        boost::fibers::fiber fiber(std::allocator_arg, pooledStack(),
                                   [] { useStack(2 * kFiberStackBytes); });
        fiber.join();
      },
      "");
}

}  // namespace
}  // namespace benchd::fiber_scheduler_asio
