#pragma once

#include <boost/fiber/protected_fixedsize_stack.hpp>

#include <cstddef>

namespace benchd::fiber_scheduler_asio {

/// The usable stack of a connection fiber: 128 KiB. Serving a request (Beast's parser, the
/// host's JSON writer, the nested call) stays well within it, and pages are only committed
/// when touched, so 10,000 fibers cost little resident memory. The thread stack a
/// thread-per-connection plugin gives each connection is larger (256 KiB, threads-poco's and
/// threads-asio's stack_kib) because its frames include the blocking socket calls' own.
inline constexpr std::size_t kFiberStackBytes = std::size_t{128} * 1024;

/// A stack allocator for connection fibers: kFiberStackBytes from mmap with one inaccessible
/// guard page below it, so a fiber that overflows its stack faults (SIGSEGV) at once instead of
/// overwriting whatever lies below, as Boost.Fiber's default malloc'd fixedsize_stack would.
/// The cost is an mprotect call per fiber, that is per connection.
inline boost::fibers::protected_fixedsize_stack connectionFiberStack() {
  return {kFiberStackBytes};
}

}  // namespace benchd::fiber_scheduler_asio
