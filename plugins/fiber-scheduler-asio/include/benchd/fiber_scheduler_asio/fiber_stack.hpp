#pragma once

#include <boost/fiber/protected_fixedsize_stack.hpp>

#include <cstddef>
#include <cstdint>

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

/// A stack allocator for connection fibers: `usable_bytes` from mmap with one inaccessible
/// guard page below it, so a fiber that overflows its stack faults (SIGSEGV) at once instead of
/// overwriting whatever lies below, as Boost.Fiber's default malloc'd fixedsize_stack would.
/// The cost is an mprotect call per fiber, that is per connection.
inline boost::fibers::protected_fixedsize_stack connectionFiberStack(
    std::size_t usable_bytes = kFiberStackBytes) {
  return {usable_bytes};
}

}  // namespace benchd::fiber_scheduler_asio
