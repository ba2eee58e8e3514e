#pragma once

#include <boost/context/stack_context.hpp>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace benchd::fiber_scheduler_asio {

/// The usable stack of a connection fiber unless the plugin is told otherwise (fibers-asio's
/// option fiber_stack_kib): 128 KiB. Serving a request (Beast's parser, the
/// host's JSON writer, the nested call) stays well within it, and pages are only committed
/// when touched, so 10,000 fibers cost little resident memory. The thread stack a
/// thread-per-connection plugin gives each connection is larger (256 KiB, threads-poco's and
/// threads-asio's stack_kib) because its frames include the blocking socket calls' own.
inline constexpr std::size_t kFiberStackBytes = std::size_t{128} * 1024;

/// The range of fibers-asio's fiber_stack_kib, 16 KiB to 64 MiB. 16 KiB still serves every
/// endpoint, a nested call included (tried by hand on x86-64); smaller stacks are not offered,
/// since a frame that grows with a library's next version would overflow them first.
inline constexpr std::int64_t kMinFiberStackKib = 16;
inline constexpr std::int64_t kMaxFiberStackKib = 65'536;

/// How many ended fibers' stacks a pool keeps for the next fibers: enough for an HTTP/2 row's
/// 50 connections x 20 streams on one loop. What a kept stack touched stays resident, typically
/// a few pages, so a full pool holds a few MiB.
inline constexpr std::size_t kKeptFiberStacks = 1024;

/// Stacks for the fibers of one thread: `usable_bytes` from mmap with one inaccessible guard
/// page below it, so a fiber that overflows its stack faults (SIGSEGV) at once instead of
/// overwriting whatever lies below, as Boost.Fiber's default malloc'd fixedsize_stack would.
///
/// Why a pool: mapping and unmapping a stack per fiber costs an mmap, an mprotect and a munmap
/// whose TLB shootdown reaches every CPU; with a fiber per HTTP/2 stream that was most of a
/// request's CPU. An ended fiber's stack goes back here (up to `kept` of them) and the next
/// fiber takes it as it is.
///
/// Contract: not thread-safe. One pool serves the fibers of one thread, which take and give
/// back their stacks on that thread (Boost.Fiber frees a detached fiber's stack on the thread
/// it ended on, and fibers-asio never moves a fiber between threads). A stack's memory is
/// unmapped when the pool is destroyed or when it is given back to a full pool.
class FiberStackPool {
 public:
  explicit FiberStackPool(std::size_t usable_bytes = kFiberStackBytes,
                          std::size_t kept = kKeptFiberStacks);
  ~FiberStackPool();
  FiberStackPool(const FiberStackPool&) = delete;
  FiberStackPool& operator=(const FiberStackPool&) = delete;

  /// A kept stack, or a newly mapped one. Throws std::bad_alloc when the mapping fails.
  [[nodiscard]] boost::context::stack_context take();
  /// Gives back a stack this pool made; it is kept, or unmapped when `kept` are kept already.
  void giveBack(boost::context::stack_context& stack) noexcept;

  [[nodiscard]] std::size_t keptStacks() const noexcept { return free_.size(); }
  /// Stacks mapped over the pool's life: fewer than the fibers started when stacks are reused.
  [[nodiscard]] std::size_t mappedStacks() const noexcept { return mapped_; }

 private:
  std::size_t mapping_bytes_;  ///< the guard page plus the usable stack, in whole pages
  std::size_t page_bytes_;
  std::size_t kept_;
  std::size_t mapped_ = 0;
  std::vector<boost::context::stack_context> free_;
};

/// A Boost.Fiber StackAllocator that takes its stacks from a FiberStackPool. Boost.Fiber keeps
/// a copy of it with each fiber and calls deallocate when the fiber's record goes, possibly
/// after the code that started the fiber has returned; each copy therefore shares ownership of
/// the pool. Same thread rule as the pool's.
class PooledFiberStack {
 public:
  explicit PooledFiberStack(std::shared_ptr<FiberStackPool> pool) : pool_(std::move(pool)) {}

  [[nodiscard]] boost::context::stack_context allocate() { return pool_->take(); }
  void deallocate(boost::context::stack_context& stack) noexcept { pool_->giveBack(stack); }

 private:
  std::shared_ptr<FiberStackPool> pool_;
};

}  // namespace benchd::fiber_scheduler_asio
